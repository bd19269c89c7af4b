package pg

import (
	"context"
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// Customer accounts' queries (store.CustomerTx, store.CustomerReads).

var _ booking.Customers = (*Store)(nil)

// qCustomer selects the columns pgCustomer reads, of customers c.
const qCustomer = `SELECT c.id, c.name, c.email, c.phone, c.created_at, c.created_by, c.erased_at, c.erased_by FROM customers c `

// pgCustomer reads a row of qCustomer, in store.ScanCustomer's order.
func pgCustomer(r pgx.Row) (booking.Customer, error) { return store.ScanCustomer(r.Scan) }

// maybeCustomer is pgCustomer of a row that may not be there.
func maybeCustomer(r pgx.Row) (booking.Customer, bool, error) {
	c, err := pgCustomer(r)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	return c, err == nil, err
}

// InsertCustomer writes an account and its name words. Of two inserts of
// one address at once, the second waits on the unique index for the
// first's commit and then inserts nothing.
func (t *tx) InsertCustomer(c store.CustomerRow) (int64, bool, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO customers (name, email, phone, phone_rev, created_at, created_by) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT DO NOTHING RETURNING id`, c.Name, c.Email, c.Phone, c.PhoneRev, t.nowMS(), c.CreatedBy).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	_, err = t.Exec(t.ctx, `INSERT INTO customer_words (word, customer_id) SELECT DISTINCT unnest($1::text[]), $2::bigint`, c.Words, id)
	return id, err == nil, err
}

// CustomerWithEmail reads the holder of an address, in a statement of
// its own: under READ COMMITTED it sees the sign-up that beat this one.
func (t *tx) CustomerWithEmail(email string) (booking.Customer, bool, error) {
	return maybeCustomer(t.QueryRow(t.ctx, qCustomer+`WHERE c.email = $1 AND c.email <> ''`, email))
}

// CustomerWithPhone reads the holder of a phone.
func (t *tx) CustomerWithPhone(phone string) (booking.Customer, bool, error) {
	return maybeCustomer(t.QueryRow(t.ctx, qCustomer+`WHERE c.phone = $1 AND c.phone <> ''`, phone))
}

// CustomerForUpdate reads a customer and locks the row: an erasure and
// an attachment take turns.
func (t *tx) CustomerForUpdate(id int64) (booking.Customer, bool, error) {
	return maybeCustomer(t.QueryRow(t.ctx, qCustomer+`WHERE c.id = $1 FOR UPDATE`, id))
}

// BookingCustomerForUpdate reads a booking's id and customer by number,
// locked.
func (t *tx) BookingCustomerForUpdate(number string) (int64, int64, bool, error) {
	var id int64
	var customer *int64
	err := t.QueryRow(t.ctx, `SELECT id, customer_id FROM bookings WHERE number = $1 FOR UPDATE`, number).Scan(&id, &customer)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, false, nil
	}
	if customer == nil {
		return id, 0, err == nil, err
	}
	return id, *customer, err == nil, err
}

// SetBookingCustomer attaches a booking nobody has, by compare-and-set.
func (t *tx) SetBookingCustomer(bookingID, customerID int64) (bool, error) {
	return t.changedOne(`UPDATE bookings SET customer_id = $1 WHERE id = $2 AND customer_id IS NULL`, customerID, bookingID)
}

// SetReservationCustomer attaches a reservation.
func (t *tx) SetReservationCustomer(reservationID, customerID int64) error {
	_, err := t.Exec(t.ctx, `UPDATE reservations SET customer_id = $1 WHERE id = $2`, customerID, reservationID)
	return err
}

// SetWaitlistCustomer attaches a waiting-list entry.
func (t *tx) SetWaitlistCustomer(entryID, customerID int64) error {
	_, err := t.Exec(t.ctx, `UPDATE waitlist SET customer_id = $1 WHERE id = $2`, customerID, entryID)
	return err
}

// EraseCustomerRow blanks the account and drops its name words.
func (t *tx) EraseCustomerRow(id int64, by string) error {
	if _, err := t.Exec(t.ctx, `UPDATE customers SET name = '', email = '', phone = '', phone_rev = '', erased_at = $1, erased_by = $2 WHERE id = $3`,
		t.nowMS(), by, id); err != nil {
		return err
	}
	_, err := t.Exec(t.ctx, `DELETE FROM customer_words WHERE customer_id = $1`, id)
	return err
}

// EraseCustomerBookings blanks the customer's bookings: their name words
// (folded in Go, booking.NameWords) out of booking_words, their name and
// phone (and so their phone search key, an expression of it) blanked.
func (t *tx) EraseCustomerBookings(customerID int64) (int, error) {
	rows, err := t.Query(t.ctx, `SELECT id, customer FROM bookings WHERE customer_id = $1
		UNION SELECT b.id, b.customer FROM reservations r JOIN bookings b ON b.id = r.booking_id WHERE r.customer_id = $1`, customerID)
	if err != nil {
		return 0, err
	}
	type theirs struct {
		id   int64
		name string
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (theirs, error) {
		var b theirs
		return b, r.Scan(&b.id, &b.name)
	})
	if err != nil {
		return 0, err
	}
	var ids, wordIDs []int64
	var words []string
	for _, b := range all {
		ids = append(ids, b.id)
		for _, w := range booking.NameWords(b.name) {
			words, wordIDs = append(words, w), append(wordIDs, b.id)
		}
	}
	if len(ids) == 0 {
		return 0, nil
	}
	if _, err := t.Exec(t.ctx, `DELETE FROM booking_words WHERE (word, booking_id) IN (SELECT * FROM unnest($1::text[], $2::bigint[]))`, words, wordIDs); err != nil {
		return 0, err
	}
	tag, err := t.Exec(t.ctx, `UPDATE bookings SET customer = '', phone = '' WHERE id = ANY($1::bigint[])`, ids)
	return int(tag.RowsAffected()), err
}

// EraseCustomerReservations blanks the customer's reservations.
func (t *tx) EraseCustomerReservations(customerID int64) (int, error) {
	return t.changed(`UPDATE reservations SET name = '', phone = '', phone_digits = '' WHERE customer_id = $1`, customerID)
}

// EraseCustomerWaitlist blanks the customer's waiting-list entries.
func (t *tx) EraseCustomerWaitlist(customerID int64) (int, error) {
	return t.changed(`UPDATE waitlist SET name = '', phone = '', phone_rev = '' WHERE customer_id = $1`, customerID)
}

// EraseCustomerWatches blanks the customer's film watches.
func (t *tx) EraseCustomerWatches(customerID int64) (int, error) {
	return t.changed(`UPDATE film_watchers SET name = '', phone = '', phone_key = '', email = '' WHERE customer_id = $1`, customerID)
}

// changed runs an UPDATE and says how many rows it changed.
func (t *tx) changed(query string, args ...any) (int, error) {
	tag, err := t.Exec(t.ctx, query, args...)
	return int(tag.RowsAffected()), err
}

// ReadCustomer reads a customer.
func (d driver) ReadCustomer(ctx context.Context, id int64) (booking.Customer, bool, error) {
	c, found, err := maybeCustomer(d.s.pool.QueryRow(ctx, qCustomer+`WHERE c.id = $1`, id))
	return c, found, d.s.translate("customer", err)
}

// CustomersWithEmail reads the holder of an address.
func (d driver) CustomersWithEmail(ctx context.Context, email string) ([]booking.Customer, error) {
	return d.customers(ctx, qCustomer+`WHERE c.email = $1 AND c.email <> ''`, email)
}

// CustomersWithPhone reads the newest customers whose phone ends with the
// digits of rev, a range of customers_by_phone_rev.
func (d driver) CustomersWithPhone(ctx context.Context, rev string, limit int) ([]booking.Customer, error) {
	return d.customers(ctx, qCustomer+`WHERE c.phone_rev >= $1 AND c.phone_rev < $2 AND c.phone_rev <> '' ORDER BY c.id DESC LIMIT $3`,
		rev, booking.PrefixEnd(rev), limit)
}

// CustomersWithNameWords reads the newest customers with a word starting
// with each prefix: driven by the first prefix's range of customer_words,
// each of the others checked through customer_words_by_customer.
func (d driver) CustomersWithNameWords(ctx context.Context, prefixes []string, limit int) ([]booking.Customer, error) {
	if len(prefixes) == 0 {
		return nil, nil
	}
	query := `SELECT DISTINCT w.customer_id FROM customer_words w WHERE w.word >= $1 AND w.word < $2`
	args := []any{prefixes[0], booking.PrefixEnd(prefixes[0])}
	for _, p := range prefixes[1:] {
		n := len(args)
		query += ` AND EXISTS (SELECT 1 FROM customer_words x WHERE x.customer_id = w.customer_id AND x.word >= $` + strconv.Itoa(n+1) + ` AND x.word < $` + strconv.Itoa(n+2) + `)`
		args = append(args, p, booking.PrefixEnd(p))
	}
	args = append(args, limit)
	return d.customers(ctx, qCustomer+`WHERE c.id IN (`+query+` ORDER BY w.customer_id DESC LIMIT $`+strconv.Itoa(len(args))+`) ORDER BY c.id DESC`, args...)
}

// customers reads the customers a query of qCustomer selects.
func (d driver) customers(ctx context.Context, query string, args ...any) ([]booking.Customer, error) {
	rows, err := d.s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, d.s.translate("find customers", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Customer, error) { return pgCustomer(r) })
	return out, d.s.translate("find customers", err)
}

// CustomerBookingIDs lists a customer's newest bookings.
func (d driver) CustomerBookingIDs(ctx context.Context, customerID int64, limit int) ([]int64, error) {
	return d.ids(ctx, `SELECT id FROM bookings WHERE customer_id = $1 ORDER BY id DESC LIMIT $2`, customerID, limit)
}

// CustomerReservationIDs lists a customer's newest reservations.
func (d driver) CustomerReservationIDs(ctx context.Context, customerID int64, limit int) ([]int64, error) {
	return d.ids(ctx, `SELECT id FROM reservations WHERE customer_id = $1 ORDER BY id DESC LIMIT $2`, customerID, limit)
}

// CustomerWaitlist lists a customer's newest waiting-list entries.
func (d driver) CustomerWaitlist(ctx context.Context, customerID int64, limit int) ([]booking.WaitlistEntry, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT id, show_id, name, phone, seats, notified_at, called_at, called_by
		FROM waitlist WHERE customer_id = $1 ORDER BY id DESC LIMIT $2`, customerID, limit)
	if err != nil {
		return nil, d.s.translate("customer waitlist", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.WaitlistEntry, error) {
		var e booking.WaitlistEntry
		var told, called *int64
		err := r.Scan(&e.ID, &e.ShowID, &e.Name, &e.Phone, &e.Seats, &told, &called, &e.CalledBy)
		e.NotifiedAt, e.CalledAt = msTime(told), msTime(called)
		return e, err
	})
	return out, d.s.translate("customer waitlist", err)
}
