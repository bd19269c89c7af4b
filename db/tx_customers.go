package db

import (
	"context"
	"database/sql"

	"boxoffice/booking"
	"boxoffice/store"
)

// Customer accounts' queries (store.CustomerTx, store.CustomerReads).

// customerColumns are the columns scanCustomer reads, of customers c.
const customerColumns = `c.id, c.name, c.email, c.phone, c.created_at, c.created_by, c.erased_at, c.erased_by`

// scanCustomer reads a row of customerColumns, in store.ScanCustomer's
// order.
func scanCustomer(r interface{ Scan(...any) error }) (booking.Customer, error) {
	return store.ScanCustomer(r.Scan)
}

// oneCustomer is scanCustomer of a row that may not be there.
func oneCustomer(r row) (booking.Customer, bool, error) {
	c, err := scanCustomer(r)
	if isNoRows(err) {
		return c, false, nil
	}
	return c, err == nil, err
}

// InsertCustomer writes an account and its name words; the unique
// indexes on email and phone refuse a second (ON CONFLICT DO NOTHING: no
// row back).
func (w *wtx) InsertCustomer(c store.CustomerRow) (int64, bool, error) {
	var id int64
	err := w.queryRow(`INSERT INTO customers (name, email, phone, phone_rev, created_at, created_by) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING RETURNING id`, c.Name, c.Email, c.Phone, c.PhoneRev, w.nowMS(), c.CreatedBy).Scan(&id)
	if isNoRows(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	for _, word := range c.Words {
		if _, err := w.exec(`INSERT INTO customer_words (word, customer_id) VALUES (?, ?)`, word, id); err != nil {
			return 0, false, err
		}
	}
	return id, true, nil
}

// CustomerWithEmail reads the holder of an address.
func (w *wtx) CustomerWithEmail(email string) (booking.Customer, bool, error) {
	return oneCustomer(w.queryRow(`SELECT `+customerColumns+` FROM customers c WHERE c.email = ? AND c.email <> ''`, email))
}

// CustomerWithPhone reads the holder of a phone.
func (w *wtx) CustomerWithPhone(phone string) (booking.Customer, bool, error) {
	return oneCustomer(w.queryRow(`SELECT `+customerColumns+` FROM customers c WHERE c.phone = ? AND c.phone <> ''`, phone))
}

// CustomerForUpdate reads a customer (one writer: nothing to lock).
func (w *wtx) CustomerForUpdate(id int64) (booking.Customer, bool, error) {
	return oneCustomer(w.queryRow(`SELECT `+customerColumns+` FROM customers c WHERE c.id = ?`, id))
}

// BookingCustomerForUpdate reads a booking's id and customer by number.
func (w *wtx) BookingCustomerForUpdate(number string) (int64, int64, bool, error) {
	var id int64
	var customer sql.NullInt64
	err := w.queryRow(`SELECT id, customer_id FROM bookings WHERE number = ?`, number).Scan(&id, &customer)
	if isNoRows(err) {
		return 0, 0, false, nil
	}
	return id, customer.Int64, err == nil, err
}

// SetBookingCustomer attaches a booking nobody has, by compare-and-set.
func (w *wtx) SetBookingCustomer(bookingID, customerID int64) (bool, error) {
	return w.updatedOne(`UPDATE bookings SET customer_id = ? WHERE id = ? AND customer_id IS NULL`, customerID, bookingID)
}

// SetReservationCustomer attaches a reservation.
func (w *wtx) SetReservationCustomer(reservationID, customerID int64) error {
	_, err := w.exec(`UPDATE reservations SET customer_id = ? WHERE id = ?`, customerID, reservationID)
	return err
}

// SetWaitlistCustomer attaches a waiting-list entry.
func (w *wtx) SetWaitlistCustomer(entryID, customerID int64) error {
	_, err := w.exec(`UPDATE waitlist SET customer_id = ? WHERE id = ?`, customerID, entryID)
	return err
}

// EraseCustomerRow blanks the account and drops its name words.
func (w *wtx) EraseCustomerRow(id int64, by string) error {
	if _, err := w.exec(`UPDATE customers SET name = '', email = '', phone = '', phone_rev = '', erased_at = ?, erased_by = ? WHERE id = ?`,
		w.nowMS(), by, id); err != nil {
		return err
	}
	_, err := w.exec(`DELETE FROM customer_words WHERE customer_id = ?`, id)
	return err
}

// EraseCustomerBookings blanks the customer's bookings. Their name words
// are found from the name itself (booking_words is keyed by word), and
// the phone search key goes with the phone.
func (w *wtx) EraseCustomerBookings(customerID int64) (int, error) {
	rows, err := w.query(`SELECT id, customer FROM bookings WHERE customer_id = ?1
		UNION SELECT b.id, b.customer FROM reservations r JOIN bookings b ON b.id = r.booking_id WHERE r.customer_id = ?1`, customerID)
	if err != nil {
		return 0, err
	}
	type theirs struct {
		id   int64
		name string
	}
	var all []theirs
	for rows.Next() {
		var b theirs
		if err := rows.Scan(&b.id, &b.name); err != nil {
			rows.Close()
			return 0, err
		}
		all = append(all, b)
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	for _, b := range all {
		for _, word := range booking.NameWords(b.name) {
			if _, err := w.exec(`DELETE FROM booking_words WHERE word = ? AND booking_id = ?`, word, b.id); err != nil {
				return 0, err
			}
		}
		if _, err := w.exec(`UPDATE bookings SET customer = '', phone = '', phone_rev = '' WHERE id = ?`, b.id); err != nil {
			return 0, err
		}
	}
	return len(all), nil
}

// EraseCustomerReservations blanks the customer's reservations.
func (w *wtx) EraseCustomerReservations(customerID int64) (int, error) {
	return w.updated(`UPDATE reservations SET name = '', phone = '', phone_digits = '' WHERE customer_id = ?`, customerID)
}

// EraseCustomerWaitlist blanks the customer's waiting-list entries.
func (w *wtx) EraseCustomerWaitlist(customerID int64) (int, error) {
	return w.updated(`UPDATE waitlist SET name = '', phone = '', phone_rev = '' WHERE customer_id = ?`, customerID)
}

// EraseCustomerWatches blanks the customer's film watches.
func (w *wtx) EraseCustomerWatches(customerID int64) (int, error) {
	return w.updated(`UPDATE film_watchers SET name = '', phone = '', phone_key = '', email = '' WHERE customer_id = ?`, customerID)
}

// updated runs an UPDATE and says how many rows it changed.
func (w *wtx) updated(query string, args ...any) (int, error) {
	res, err := w.exec(query, args...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// ReadCustomer reads a customer.
func (d driver) ReadCustomer(ctx context.Context, id int64) (booking.Customer, bool, error) {
	c, found, err := oneCustomer(d.s.readRow(ctx, `SELECT `+customerColumns+` FROM customers c WHERE c.id = ?`, id))
	return c, found, d.s.translate("customer", err)
}

// CustomersWithEmail reads the holder of an address.
func (d driver) CustomersWithEmail(ctx context.Context, email string) ([]booking.Customer, error) {
	return d.customers(ctx, `SELECT `+customerColumns+` FROM customers c WHERE c.email = ? AND c.email <> ''`, email)
}

// CustomersWithPhone reads the newest customers whose phone ends with the
// digits of rev, through customers_by_phone_rev.
func (d driver) CustomersWithPhone(ctx context.Context, rev string, limit int) ([]booking.Customer, error) {
	return d.customers(ctx, `SELECT `+customerColumns+` FROM customers c WHERE c.phone_rev >= ? AND c.phone_rev < ? AND c.phone_rev <> ''
		ORDER BY c.id DESC LIMIT ?`, rev, booking.PrefixEnd(rev), limit)
}

// CustomersWithNameWords reads the newest customers with a word starting
// with each prefix: driven by the first prefix's range of customer_words,
// each of the others checked through customer_words_by_customer.
func (d driver) CustomersWithNameWords(ctx context.Context, prefixes []string, limit int) ([]booking.Customer, error) {
	if len(prefixes) == 0 {
		return nil, nil
	}
	query := `SELECT DISTINCT w.customer_id FROM customer_words w WHERE w.word >= ? AND w.word < ?`
	args := []any{prefixes[0], booking.PrefixEnd(prefixes[0])}
	for _, p := range prefixes[1:] {
		query += ` AND EXISTS (SELECT 1 FROM customer_words x WHERE x.customer_id = w.customer_id AND x.word >= ? AND x.word < ?)`
		args = append(args, p, booking.PrefixEnd(p))
	}
	args = append(args, limit)
	return d.customers(ctx, `SELECT `+customerColumns+` FROM customers c WHERE c.id IN (`+query+` ORDER BY w.customer_id DESC LIMIT ?)
		ORDER BY c.id DESC`, args...)
}

// customers reads the customers a query of customerColumns selects.
func (d driver) customers(ctx context.Context, query string, args ...any) ([]booking.Customer, error) {
	rows, err := d.s.readRows(ctx, query, args...)
	if err != nil {
		return nil, d.s.translate("find customers", err)
	}
	defer rows.Close()
	var out []booking.Customer
	for rows.Next() {
		c, err := scanCustomer(rows)
		if err != nil {
			return nil, d.s.translate("find customers", err)
		}
		out = append(out, c)
	}
	return out, d.s.translate("find customers", rows.Err())
}

// CustomerBookingIDs lists a customer's newest bookings.
func (d driver) CustomerBookingIDs(ctx context.Context, customerID int64, limit int) ([]int64, error) {
	return d.s.readIDs(ctx, `SELECT id FROM bookings WHERE customer_id = ? ORDER BY id DESC LIMIT ?`, customerID, limit)
}

// CustomerReservationIDs lists a customer's newest reservations.
func (d driver) CustomerReservationIDs(ctx context.Context, customerID int64, limit int) ([]int64, error) {
	return d.s.readIDs(ctx, `SELECT id FROM reservations WHERE customer_id = ? ORDER BY id DESC LIMIT ?`, customerID, limit)
}

// CustomerWaitlist lists a customer's newest waiting-list entries.
func (d driver) CustomerWaitlist(ctx context.Context, customerID int64, limit int) ([]booking.WaitlistEntry, error) {
	rows, err := d.s.readRows(ctx, `SELECT id, show_id, name, phone, seats, notified_at, called_at, called_by
		FROM waitlist WHERE customer_id = ? ORDER BY id DESC LIMIT ?`, customerID, limit)
	if err != nil {
		return nil, d.s.translate("customer waitlist", err)
	}
	defer rows.Close()
	var out []booking.WaitlistEntry
	for rows.Next() {
		var e booking.WaitlistEntry
		var told, called *int64
		if err := rows.Scan(&e.ID, &e.ShowID, &e.Name, &e.Phone, &e.Seats, &told, &called, &e.CalledBy); err != nil {
			return nil, d.s.translate("customer waitlist", err)
		}
		e.NotifiedAt, e.CalledAt = msTime(told), msTime(called)
		out = append(out, e)
	}
	return out, d.s.translate("customer waitlist", rows.Err())
}
