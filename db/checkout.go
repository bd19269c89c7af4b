package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// sale is what a checkout's transaction returns: the booking it made,
// or the id of the booking its idempotency key made before.
type sale struct {
	sold     *booking.Booking
	existing int64
}

// Checkout sells a live hold. The request is checked before the write
// transaction; inside it the seats are priced from the price table and
// the show's price list current then, so a price changed at another
// counter or by another process can never be recorded behind the clerk's
// back (see booking.CheckoutRequest.ExpectedTotal).
func (s *Store) Checkout(ctx context.Context, actor booking.Actor, req booking.CheckoutRequest) (*booking.Booking, error) {
	if err := booking.Authorize(actor, booking.ActionSell); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	// A reservation's hold is sold by PayReservation, which also marks
	// the reservation paid; a checkout naming its owner would leave it
	// reserved.
	if err := store.RefuseReservationCheckout(req.Owner); err != nil {
		return nil, err
	}
	key := strings.TrimSpace(req.IdempotencyKey)
	customer := booking.CleanLine(req.Customer, 80)
	phone := booking.CleanLine(req.Phone, 32)
	got, err := write(s, ctx, actor, "checkout", func(w *wtx) (sale, error) {
		// The same key again lands on the booking the first call made,
		// whatever happened to the hold since.
		sold, err := s.sell(w, actor, req, key, customer, phone)
		if err == nil {
			return sale{sold: sold}, nil
		}
		// A retry (double Enter, resubmit, reconnect) finds its hold
		// already confirmed: answer with the booking its key made.
		var existing int64
		if kerr := w.queryRow(`SELECT id FROM bookings WHERE idem_key = ?`, key).Scan(&existing); kerr == nil {
			return sale{existing: existing}, w.rollbackJob()
		} else if !isNoRows(kerr) {
			return sale{}, kerr
		}
		return sale{}, err
	})
	if err != nil {
		return nil, err
	}
	if got.sold != nil {
		s.signCodes(got.sold)
		return got.sold, nil
	}
	return s.committedBooking(ctx, got.existing)
}

// checkTypes refuses a ticket type the cinema does not sell, before the
// transaction writes anything.
func checkTypes(types map[string]string, prices *booking.PriceTable) error {
	for label, code := range types {
		if _, ok := booking.PriceFor(prices, "", code, booking.Standard); !ok {
			return booking.Errorf(booking.EInvalid, "Unknown ticket type %q for %s.", booking.CleanLine(code, 16), booking.CleanLine(label, 8))
		}
	}
	return nil
}

// sell turns a live hold into a booking inside the transaction and returns
// the booking as written, so the caller needs no second read.
func (s *Store) sell(w *wtx, actor booking.Actor, req booking.CheckoutRequest, key, customer, phone string) (*booking.Booking, error) {
	show, seats, gen, err := s.confirmHold(w, req)
	if err != nil {
		return nil, err
	}
	prices, err := txPriceTable(w, gen)
	if err != nil {
		return nil, err
	}
	if err := checkTypes(req.Types, prices); err != nil {
		return nil, err
	}
	list := strings.ToLower(show.PriceList)
	// Each seat by its ticket type (adult unless the request names
	// another), its seat kind and the show's price list (booking.PriceFor).
	quote, err := booking.QuoteSeats(prices, list, seats, req.Types)
	if err != nil {
		return nil, err
	}
	total := quote.Total
	if req.CheckTotal && total != req.ExpectedTotal {
		return nil, &booking.PriceChangedError{Expected: req.ExpectedTotal, Total: total}
	}
	tendered, change, err := req.Payment(total)
	if err != nil {
		return nil, err
	}
	// A cash sale needs its clerk's shift open (or opens it with the
	// float the clerk counted); a card sale joins the open shift, if any,
	// in insertSalePayment's own statement.
	var shiftID int64
	if req.Method == booking.Cash {
		if shiftID, err = store.ShiftFor(w, actor, req.Method, req.OpenFloat); err != nil {
			return nil, err
		}
	}
	b := &booking.Booking{
		Show: show, Status: booking.BookingConfirmed, Customer: customer, Phone: phone, Total: total,
		SoldBy: actor.Name, Terminal: actor.Terminal, CreatedAt: time.UnixMilli(w.nowMS()),
	}
	if err := insertBooking(w, b, req.HoldID, key); err != nil {
		return nil, err
	}
	if err := indexCustomer(w, b.ID, customer); err != nil {
		return nil, err
	}
	if err := sellClaims(w, b, req.HoldID, len(seats)); err != nil {
		return nil, err
	}
	if err := insertTickets(w, b, quote.Lines); err != nil {
		return nil, err
	}
	if err := insertSalePayment(w, b, req.Method, tendered, change, shiftID); err != nil {
		return nil, err
	}
	if err := w.audit(actor, booking.AuditEntry{Action: booking.AuditSale, ShowID: show.ID, Amount: total, Detail: saleDetail(b, req.Method)}, b.ID); err != nil {
		return nil, err
	}
	w.touch(show.ID)
	return b, nil
}

// confirmHold moves the hold held -> confirmed by compare-and-set, which
// requires it live and the owner's, and returns its show (with the price
// list it sells at now), its seats and the price generation the
// transaction sees (txPriceTable), all from the one statement. Only when
// the move fails does it read why.
func (s *Store) confirmHold(w *wtx, req booking.CheckoutRequest) (booking.Show, []booking.Seat, sql.NullInt64, error) {
	var showID int64
	var list string
	var gen sql.NullInt64
	err := w.queryRow(`UPDATE holds SET status = 'confirmed' WHERE id = ? AND owner = ? AND status = 'held' AND `+liveHoldSQL("holds")+`
		RETURNING show_id, (SELECT price_list FROM shows WHERE id = holds.show_id), `+qPriceGen,
		req.HoldID, req.Owner, w.nowMS(), w.nowMS()).Scan(&showID, &list, &gen)
	if isNoRows(err) {
		return booking.Show{}, nil, gen, s.whyNotLive(w, req)
	}
	if err != nil {
		return booking.Show{}, nil, gen, err
	}
	show, err := s.showInfo(w.ctx, showID)
	if err != nil {
		return booking.Show{}, nil, gen, err
	}
	show.PriceList = list
	hall, err := s.hall(w.ctx, show.HallID)
	if err != nil {
		return booking.Show{}, nil, gen, err
	}
	seats, err := s.heldSeats(w, hall, req.HoldID)
	if err != nil {
		return booking.Show{}, nil, gen, err
	}
	if len(seats) == 0 {
		return booking.Show{}, nil, gen, booking.Errorf(booking.EInvalid, "No seats are held; choose seats first.")
	}
	return show, seats, gen, nil
}

// sellClaims moves the hold's claims held -> sold, all of them, and adds
// them to the show's sold count, which it reads back into b.
func sellClaims(w *wtx, b *booking.Booking, holdID int64, seats int) error {
	res, err := w.exec(`UPDATE seat_claims SET status = 'sold', booking_id = ? WHERE hold_id = ? AND status = 'held'`, b.ID, holdID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); int(n) != seats {
		return fmt.Errorf("checkout: %d claims sold for %d seats", n, seats)
	}
	return w.queryRow(`UPDATE shows SET sold = sold + ? WHERE id = ? RETURNING sold`, seats, b.Show.ID).Scan(&b.Show.Sold)
}

// insertSalePayment records the money taken for b, in shift shiftID or,
// when that is 0, in the open shift of b's clerk if there is one (a card
// sale needs none), and adds it to b.
func insertSalePayment(w *wtx, b *booking.Booking, method booking.PayMethod, tendered, change booking.Money, shiftID int64) error {
	var id int64
	var shift sql.NullInt64
	if err := w.queryRow(`INSERT INTO payments (booking_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id)
		VALUES (?, 'sale', ?, ?, ?, ?, ?, ?, ?, COALESCE(?, (SELECT id FROM shifts WHERE staff = ? AND status = 'open'))) RETURNING id, shift_id`,
		b.ID, string(method), b.Total, tendered, change, b.CreatedAt.UnixMilli(), b.SoldBy, b.Terminal, nullID(shiftID), b.SoldBy).Scan(&id, &shift); err != nil {
		return err
	}
	b.Payments = []booking.Payment{{ID: id, Kind: booking.PaymentSale, Method: method, Amount: b.Total, Tendered: tendered, Change: change,
		At: b.CreatedAt, Staff: b.SoldBy, Terminal: b.Terminal, ShiftID: shift.Int64}}
	return nil
}

// insertBooking writes b's row under a fresh random number, filling in
// its id and number, and tells a number clash (tried again) from the
// idempotency key having made a booking already (errKeyUsed).
func insertBooking(w *wtx, b *booking.Booking, holdID int64, key string) error {
	for attempt := 0; ; attempt++ {
		number := booking.NewBookingNumber()
		err := w.queryRow(`INSERT INTO bookings (number, show_id, hold_id, status, idem_key, customer, phone, phone_rev, total, sold_by, terminal, created_at)
			VALUES (?, ?, ?, 'confirmed', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			number, b.Show.ID, holdID, key, b.Customer, b.Phone, booking.ReverseDigits(b.Phone), b.Total, b.SoldBy, b.Terminal, b.CreatedAt.UnixMilli()).Scan(&b.ID)
		if err == nil {
			b.Number = number
			return nil
		}
		if !isConstraint(err) || attempt > 5 {
			return err
		}
		var used int
		if err := w.queryRow(`SELECT count(*) FROM bookings WHERE idem_key = ?`, key).Scan(&used); err != nil {
			return err
		}
		if used > 0 {
			return errKeyUsed
		}
	}
}

// insertTickets writes one ticket per line, at its price and with where
// the price came from, and adds them to b. Ticket ids are derived from
// the booking id (a booking has at most booking.MaxSeatsPerSale <
// ticketsPerBooking seats), so all tickets go in one statement. Their
// codes are signed from the id when a booking is read (signCodes),
// outside the writer.
func insertTickets(w *wtx, b *booking.Booking, lines []booking.QuoteLine) error {
	args := make([]any, 0, 6*len(lines))
	for i, l := range lines {
		ticketID := b.ID*ticketsPerBooking + int64(i)
		args = append(args, ticketID, b.ID, l.Seat.ID, l.Type, l.Amount, l.Source)
		b.Tickets = append(b.Tickets, booking.Ticket{ID: ticketID, Seat: l.Seat, Type: l.Type, Price: l.Amount, PriceSource: l.Source, Status: booking.TicketIssued})
	}
	_, err := w.exec(`INSERT INTO tickets (id, booking_id, seat_id, type_code, price, price_source, status) VALUES `+
		placeholders("(?, ?, ?, ?, ?, ?, 'issued')", len(lines)), args...)
	return err
}

// signCodes fills in each ticket's code. A code is a pure function of the
// ticket id and the signing key, so it is computed when a booking is read
// rather than stored, and never costs the writer time.
func (s *Store) signCodes(b *booking.Booking) {
	for i := range b.Tickets {
		b.Tickets[i].Code = booking.SignTicket(s.opts.TicketKey, b.Tickets[i].ID)
	}
}

// ticketsPerBooking spaces ticket ids: booking n's tickets are 32n..32n+19.
const ticketsPerBooking = 32

// errKeyUsed says the idempotency key already made a booking: the caller
// answers with that booking.
var errKeyUsed = errors.New("idempotency key used")

// whyNotLive explains a hold that could not be confirmed.
func (s *Store) whyNotLive(w *wtx, req booking.CheckoutRequest) error {
	var showID, expires int64
	var owner string
	var status booking.HoldStatus
	err := w.queryRow(`SELECT show_id, owner, status, expires_at FROM holds WHERE id = ?`, req.HoldID).Scan(&showID, &owner, &status, &expires)
	if isNoRows(err) || (err == nil && owner != req.Owner) {
		return booking.Errorf(booking.ENotFound, "That hold is gone; choose the seats again.")
	}
	if err != nil {
		return err
	}
	// A show's life: a cancelled show's holds were let go with it.
	if sh, err := s.liveShow(w, showID); err != nil {
		return err
	} else if sh.Cancelled() {
		return booking.SalesOpen(sh, w.now)
	}
	what := "the seats"
	labels, err := queryList[string](w, `SELECT s.label FROM seat_claims c JOIN seats s ON s.id = c.seat_id WHERE c.hold_id = ? ORDER BY s.row_idx, s.col`, req.HoldID)
	if err != nil {
		return err
	}
	if len(labels) > 0 {
		what = strings.Join(labels, ", ")
	}
	switch status {
	case booking.HoldHeld, booking.HoldExpired:
		if expires > w.nowMS() {
			// Made later than the clock says now: the clock was set
			// back, and the hold lapsed (liveHoldSQL).
			return booking.Errorf(booking.EExpired, "The hold on %s ran out: the clock was set back since it was made. Hold the seats again.", what)
		}
		ago := time.Duration(w.nowMS()-expires) * time.Millisecond
		return booking.Errorf(booking.EExpired, "The hold on %s ran out %s ago; hold the seats again.", what, roundAgo(ago))
	case booking.HoldConfirmed:
		return booking.Errorf(booking.EConflict, "Those seats were already sold with another checkout.")
	}
	return booking.Errorf(booking.EExpired, "The hold on %s was released; hold the seats again.", what)
}

func roundAgo(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	default:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	}
}
