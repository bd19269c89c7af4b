package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"boxoffice/booking"
)

// Customer accounts (booking.Customers). An account's e-mail address and
// phone are stored in their one normal form (booking.NewCustomer.Normal),
// and a unique index on each, in both engines, decides between two
// sign-ups for one address at the same moment: the insert that loses
// writes nothing (InsertCustomer's ok is false) and the rule then reads
// whose the address is, in a statement that sees the winner's commit.
//
// Bookings, reservations, waiting-list entries and film watches carry the
// id of the customer they belong to; erasure blanks the personal columns
// of each and keeps every payment and total. A write that attaches
// something to a customer or erases one first reads the customer's row
// with CustomerForUpdate, so on PostgreSQL an erasure and an attachment
// take turns, and nothing is attached to an account erased meanwhile.

// CustomerTx is what customer accounts ask of a transaction.
type CustomerTx interface {
	// InsertCustomer writes an account at the transaction's time; ok is
	// false, and nothing is written, when a unique index refuses it (the
	// address or the phone belongs to a customer already).
	InsertCustomer(c CustomerRow) (id int64, ok bool, err error)
	// CustomerWithEmail reads the customer whose address is email (in
	// NormalEmail's form); found is false when none has it.
	CustomerWithEmail(email string) (c booking.Customer, found bool, err error)
	// CustomerWithPhone reads the customer whose phone is phone (in
	// NormalPhone's form); found is false when none has it.
	CustomerWithPhone(phone string) (c booking.Customer, found bool, err error)
	// CustomerForUpdate reads a customer, erased or not, and locks the
	// row; found is false when there is none.
	CustomerForUpdate(id int64) (c booking.Customer, found bool, err error)
	// BookingCustomerForUpdate reads the id of the booking numbered
	// number (normalised) and the customer it belongs to (0: none), and
	// locks its row; found is false when no booking has the number.
	BookingCustomerForUpdate(number string) (bookingID, customerID int64, found bool, err error)
	// SetBookingCustomer makes a booking the customer's by
	// compare-and-set on a booking that is nobody's: false when it
	// belongs to someone.
	SetBookingCustomer(bookingID, customerID int64) (bool, error)
	// SetReservationCustomer and SetWaitlistCustomer make a reservation
	// or a waiting-list entry the customer's.
	SetReservationCustomer(reservationID, customerID int64) error
	SetWaitlistCustomer(entryID, customerID int64) error
	// EraseCustomerRow blanks the account's name, address, phone and
	// name words, and records by whom and when (the transaction's time)
	// it was erased.
	EraseCustomerRow(id int64, by string) error
	// EraseCustomerBookings blanks the customer name and phone of the
	// customer's bookings, and of the bookings their reservations were
	// paid by, and takes them out of the search by name and phone; it
	// says how many bookings it blanked.
	EraseCustomerBookings(customerID int64) (int, error)
	// EraseCustomerReservations, EraseCustomerWaitlist and
	// EraseCustomerWatches blank the name and phone (and the address of a
	// watch) of what is the customer's, and say how many rows.
	EraseCustomerReservations(customerID int64) (int, error)
	EraseCustomerWaitlist(customerID int64) (int, error)
	EraseCustomerWatches(customerID int64) (int, error)
}

// CustomerReads are customer accounts' reads outside a transaction.
type CustomerReads interface {
	// ReadCustomer reads a customer, erased or not; found is false when
	// there is none.
	ReadCustomer(ctx context.Context, id int64) (c booking.Customer, found bool, err error)
	// CustomersWithEmail lists the customer whose address is email (at
	// most one), empty when none.
	CustomersWithEmail(ctx context.Context, email string) ([]booking.Customer, error)
	// CustomersWithPhone lists the newest customers, at most limit, whose
	// reversed phone digits start with rev.
	CustomersWithPhone(ctx context.Context, rev string, limit int) ([]booking.Customer, error)
	// CustomersWithNameWords lists the newest customers, at most limit,
	// who have for every prefix of prefixes a name word starting with it.
	CustomersWithNameWords(ctx context.Context, prefixes []string, limit int) ([]booking.Customer, error)
	// CustomerBookingIDs lists the newest bookings of a customer, at
	// most limit.
	CustomerBookingIDs(ctx context.Context, customerID int64, limit int) ([]int64, error)
	// CustomerReservationIDs lists the newest reservations of a
	// customer, at most limit.
	CustomerReservationIDs(ctx context.Context, customerID int64, limit int) ([]int64, error)
	// CustomerWaitlist lists the newest waiting-list entries of a
	// customer, at most limit: every field but Show and Bought.
	CustomerWaitlist(ctx context.Context, customerID int64, limit int) ([]booking.WaitlistEntry, error)
}

// CustomerRow is an account to write: its fields in their stored form.
type CustomerRow struct {
	Name, Email, Phone string
	// PhoneRev is the phone's digits last first (booking.ReverseDigits),
	// what a search by the last digits of a phone matches.
	PhoneRev string
	// Words are the name's words (booking.NameWords), what a search by
	// name matches.
	Words     []string
	CreatedBy string
}

// ScanCustomer reads an account's row with scan, its columns in the
// order id, name, email, phone, created_at, created_by, erased_at,
// erased_by (the times in unix milliseconds, erased_at NULL while the
// account is kept); each driver selects them in its own SQL.
func ScanCustomer(scan func(dest ...any) error) (booking.Customer, error) {
	var c booking.Customer
	var created int64
	var erased *int64
	err := scan(&c.ID, &c.Name, &c.Email, &c.Phone, &created, &c.CreatedBy, &erased, &c.ErasedBy)
	c.CreatedAt = time.UnixMilli(created)
	if erased != nil {
		at := time.UnixMilli(*erased)
		c.ErasedAt = &at
	}
	return c, err
}

// customersFound bounds a search; customerRows bounds each list of what
// belongs to a customer.
const (
	customersFound = 20
	customerRows   = 50
)

// AddCustomer opens an account. The unique indexes decide; a refused
// insert is answered with whose the address (or else the phone) is.
func (s *Store) AddCustomer(ctx context.Context, actor booking.Actor, c booking.NewCustomer) (*booking.Customer, error) {
	if err := booking.Authorize(actor, booking.ActionCustomers); err != nil {
		return nil, err
	}
	n, err := c.Normal(s.opts.PhoneCountry)
	if err != nil {
		return nil, err
	}
	row := CustomerRow{Name: n.Name, Email: n.Email, Phone: n.Phone, PhoneRev: booking.ReverseDigits(n.Phone),
		Words: booking.NameWords(n.Name), CreatedBy: booking.CleanLine(actor.Name, 40)}
	return write(s, ctx, actor, Write{Op: "add customer"}, func(tx Tx) (*booking.Customer, error) {
		id, ok, err := tx.InsertCustomer(row)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, customerTaken(tx, actor, n)
		}
		added := &booking.Customer{ID: id, Name: n.Name, Email: n.Email, Phone: n.Phone, CreatedAt: tx.Now(), CreatedBy: row.CreatedBy}
		return added, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditCustomer, Detail: fmt.Sprintf("add customer %d", id)}, 0)
	})
}

// customerTaken says whose the address or phone of n is, after an insert
// a unique index refused.
func customerTaken(tx Tx, actor booking.Actor, n booking.NewCustomer) error {
	c, found, err := tx.CustomerWithEmail(n.Email)
	if err != nil {
		return err
	}
	if found {
		return booking.CustomerTaken(actor, booking.TakenEmail, c)
	}
	if n.Phone != "" {
		if c, found, err = tx.CustomerWithPhone(n.Phone); err != nil {
			return err
		}
		if found {
			return booking.CustomerTaken(actor, booking.TakenPhone, c)
		}
	}
	// The holder was erased between the insert and the read: rare, and
	// the same sign-up again will go through.
	return booking.Errorf(booking.EConflict, "That e-mail address or phone number was let go at another counter just now; try again.")
}

// FindCustomers finds customers by address, phone or name, newest
// first; erased customers have none of the three and are never found.
func (s *Store) FindCustomers(ctx context.Context, actor booking.Actor, text string) ([]booking.Customer, error) {
	if err := booking.Authorize(actor, booking.ActionFindCustomers); err != nil {
		return nil, err
	}
	q, err := booking.ParseCustomerSearch(text)
	if err != nil {
		return nil, err
	}
	var out []booking.Customer
	switch {
	case q.Email != "":
		out, err = s.d.CustomersWithEmail(ctx, q.Email)
	case q.PhoneRev != "":
		out, err = s.d.CustomersWithPhone(ctx, q.PhoneRev, customersFound)
	default:
		// The longest start typed is likely the fewest customers: the
		// search is driven by it.
		words := slices.Clone(q.Words)
		slices.SortStableFunc(words, func(a, b string) int { return len(b) - len(a) })
		out, err = s.d.CustomersWithNameWords(ctx, words, customersFound)
	}
	if out == nil && err == nil {
		out = []booking.Customer{}
	}
	return out, err
}

// Customer reads a customer with what is theirs, newest first.
func (s *Store) Customer(ctx context.Context, actor booking.Actor, id int64) (*booking.CustomerDetail, error) {
	if err := booking.Authorize(actor, booking.ActionFindCustomers); err != nil {
		return nil, err
	}
	c, found, err := s.d.ReadCustomer(ctx, id)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, booking.ErrNoCustomer(id)
	}
	d := &booking.CustomerDetail{Customer: c}
	ids, err := s.d.CustomerBookingIDs(ctx, id, customerRows)
	if err != nil {
		return nil, err
	}
	if d.Bookings, err = LoadBookings(s, ctx, ids); err != nil {
		return nil, err
	}
	if ids, err = s.d.CustomerReservationIDs(ctx, id, customerRows); err != nil {
		return nil, err
	}
	for _, rid := range ids {
		r, err := s.loadReservation(ctx, rid)
		if err != nil {
			return nil, err
		}
		d.Reservations = append(d.Reservations, *r)
	}
	if d.Waitlist, err = s.d.CustomerWaitlist(ctx, id, customerRows); err != nil {
		return nil, err
	}
	for i := range d.Waitlist {
		if d.Waitlist[i].Show, err = s.prog.Show(ctx, d.Waitlist[i].ShowID); err != nil {
			return nil, err
		}
	}
	if d.Watching, err = s.d.CustomerWatches(ctx, id, customerRows); err != nil {
		return nil, err
	}
	cards, err := s.d.CustomerGiftCards(ctx, id, customerRows)
	d.GiftCards = cardSummaries(cards)
	return d, err
}

// liveCustomer reads, locked, the customer something is to be attached
// to: ENotFound for none, EInvalid for an erased one.
func liveCustomer(tx Tx, id int64) (booking.Customer, error) {
	c, found, err := tx.CustomerForUpdate(id)
	switch {
	case err != nil:
		return c, err
	case !found:
		return c, booking.ErrNoCustomer(id)
	case c.Erased():
		return c, booking.ErrCustomerErased(id)
	}
	return c, nil
}

// AttachCustomer makes a booking the customer's: a write of its own, so
// the counter can call it after any sale, and a sale that stored the
// customer already (CheckoutRequest.CustomerID) is left as it is.
func (s *Store) AttachCustomer(ctx context.Context, actor booking.Actor, number string, customerID int64) error {
	if err := booking.Authorize(actor, booking.ActionCustomers); err != nil {
		return err
	}
	number = booking.NormalizeNumber(booking.CleanLine(number, 16))
	return apply(s, ctx, actor, Write{Op: "attach customer"}, func(tx Tx) error {
		if _, err := liveCustomer(tx, customerID); err != nil {
			return err
		}
		bookingID, current, found, err := tx.BookingCustomerForUpdate(number)
		switch {
		case err != nil:
			return err
		case !found:
			return booking.ErrNoBooking(number)
		case current == customerID:
			return nil // attached already: nothing changes, nothing is recorded
		case current != 0:
			return booking.Errorf(booking.EConflict, "Booking %s belongs to customer %d already.", number, current)
		}
		ok, err := tx.SetBookingCustomer(bookingID, customerID)
		if err != nil {
			return err
		}
		if !ok {
			return booking.Errorf(booking.EConflict, "Booking %s was given to another customer just now.", number)
		}
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditCustomer, Detail: fmt.Sprintf("attach to customer %d", customerID)}, bookingID)
	})
}

// attachCustomer makes what set attaches belong to customer customerID,
// inside the write that made it; nothing when customerID is 0.
func attachCustomer(tx Tx, customerID int64, set func(int64) error) error {
	if customerID == 0 {
		return nil
	}
	if _, err := liveCustomer(tx, customerID); err != nil {
		return err
	}
	return set(customerID)
}

// EraseCustomer blanks a customer's personal details everywhere they are
// stored, in one transaction, and keeps the money. The account's row
// claims the erasure first (locked, then refused when erased already), so
// two erasures at once erase once.
func (s *Store) EraseCustomer(ctx context.Context, actor booking.Actor, id int64) (*booking.Erasure, error) {
	if err := booking.Authorize(actor, booking.ActionEraseCustomer); err != nil {
		return nil, err
	}
	return write(s, ctx, actor, Write{Op: "erase customer"}, func(tx Tx) (*booking.Erasure, error) {
		c, found, err := tx.CustomerForUpdate(id)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, booking.ErrNoCustomer(id)
		}
		if c.Erased() {
			return nil, &booking.StaleError{What: fmt.Sprintf("Customer %d", id), Current: "erased (by " + booking.Clean(c.ErasedBy) + ")"}
		}
		by := booking.CleanLine(actor.Name, 40)
		if err := tx.EraseCustomerRow(id, by); err != nil {
			return nil, err
		}
		e := &booking.Erasure{Customer: booking.Customer{ID: id, CreatedAt: c.CreatedAt, CreatedBy: c.CreatedBy, ErasedBy: by}}
		at := tx.Now()
		e.Customer.ErasedAt = &at
		for _, step := range []struct {
			n     *int
			erase func(int64) (int, error)
		}{
			{&e.Bookings, tx.EraseCustomerBookings},
			{&e.Reservations, tx.EraseCustomerReservations},
			{&e.Waitlist, tx.EraseCustomerWaitlist},
			{&e.Watches, tx.EraseCustomerWatches},
		} {
			if *step.n, err = step.erase(id); err != nil {
				return nil, err
			}
		}
		return e, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditCustomer, Detail: fmt.Sprintf("erase customer %d: %d bookings, %d reservations, %d waiting-list entries, %d film watches",
			id, e.Bookings, e.Reservations, e.Waitlist, e.Watches)}, 0)
	})
}
