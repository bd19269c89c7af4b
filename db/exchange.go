package db

import (
	"context"
	"strings"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// Exchanges. The tickets moved are voided on their booking and a new
// booking is made for the new seats: a booking belongs to one show and
// its tickets are a range of ids, so moving to another show (or a part of
// a party) cannot stay in the old one. The exchanges row carries the
// moved tickets' price over as credit; the new booking's sale payment is
// the difference paid (0.00 when there is none), and a difference paid
// back is one refund payment of the new booking, not of a ticket.

// exchanged is what an exchange's transaction returns: the two bookings,
// whether written now or by the first call with the key.
type exchanged struct {
	from, to           int64
	credit, difference booking.Money
}

// Exchange moves tickets of a booking to new seats in one transaction.
func (s *Store) Exchange(ctx context.Context, actor booking.Actor, req booking.ExchangeRequest) (*booking.ExchangeResult, error) {
	if err := booking.Authorize(actor, booking.ActionExchange); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	ok := store.Approval{Role: actor.Role}
	if req.Approver != nil {
		var err error
		if ok, err = s.approval(ctx, actor, booking.ActionRefund, req.Approver, req.Addr, "exchange of "+normalizeNumber(req.Number)); err != nil {
			return nil, err
		}
	}
	x := &exchange{s: s, actor: actor, req: req, ok: ok, number: normalizeNumber(req.Number), key: strings.TrimSpace(req.IdempotencyKey),
		reason: booking.CleanLine(req.Reason, 200)}
	got, err := write(s, ctx, actor, "exchange", x.run)
	if err != nil {
		return nil, err
	}
	from, err := s.committedBooking(ctx, got.from)
	if err != nil {
		return nil, err
	}
	to, err := s.committedBooking(ctx, got.to)
	if err != nil {
		return nil, err
	}
	return &booking.ExchangeResult{From: from, To: to, Credit: got.credit, Difference: got.difference}, nil
}

// exchange is one Exchange call as its transaction works through it.
type exchange struct {
	s                   *Store
	actor               booking.Actor
	req                 booking.ExchangeRequest
	ok                  store.Approval
	number, key, reason string

	old      cancelled
	customer string
	phone    string
	moved    []movedTicket
}

// movedTicket is a ticket of the old booking that goes.
type movedTicket struct {
	id     int64
	seatID int64
	label  string
	typ    string
	price  booking.Money
}

// run is the exchange's transaction: the same key again answers with the
// first exchange; otherwise check, free the old seats, claim the new,
// price them, issue the new booking and settle the difference.
func (x *exchange) run(w *wtx) (exchanged, error) {
	var done exchanged
	err := w.queryRow(`SELECT from_booking, to_booking, credit, difference FROM exchanges WHERE idem_key = ?`, x.key).Scan(&done.from, &done.to, &done.credit, &done.difference)
	if err == nil || !isNoRows(err) {
		return done, err
	}
	if err := x.loadOld(w); err != nil {
		return done, err
	}
	if err := x.pickTickets(w); err != nil {
		return done, err
	}
	toShow := x.req.ToShow
	if toShow == 0 {
		toShow = x.old.showID
	}
	hall, err := x.s.saleableHall(w, toShow)
	if err != nil {
		return done, err
	}
	if !booking.SiteServes(x.actor.Site, hall.Site) {
		return done, booking.ErrOtherSite(toShow) // new seats are sold where the counter is
	}
	seats, err := hall.ResolveSeats(x.req.Seats, nil)
	if err != nil {
		return done, err
	}
	if len(seats) != len(x.moved) {
		return done, booking.Errorf(booking.EInvalid, "%d tickets to move but %d new seats: name one new seat for each.", len(x.moved), len(seats))
	}
	if err := x.freeOld(w); err != nil {
		return done, err
	}
	if err := x.letGoOfHold(w); err != nil {
		return done, err
	}
	return x.issue(w, hall, toShow, seats)
}

// letGoOfHold releases the counter's hold on the new seats, when the
// request names one still live, so its own claims do not clash with the
// exchange's; a hold that lapsed is left to the clash check.
func (x *exchange) letGoOfHold(w *wtx) error {
	if x.req.HoldID == 0 {
		return nil
	}
	res, err := w.exec(`UPDATE holds SET status = 'released' WHERE id = ? AND owner = ? AND status = 'held'`, x.req.HoldID, x.req.Owner)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return nil
	}
	_, err = w.exec(`UPDATE seat_claims SET status = 'released' WHERE hold_id = ? AND status = 'held'`, x.req.HoldID)
	return err
}

// loadOld reads the booking the tickets leave; it must be confirmed.
func (x *exchange) loadOld(w *wtx) error {
	var status booking.BookingStatus
	err := w.queryRow(`SELECT id, show_id, total, hold_id, status, customer, phone FROM bookings WHERE number = ?`, x.number).
		Scan(&x.old.id, &x.old.showID, &x.old.total, &x.old.holdID, &status, &x.customer, &x.phone)
	if isNoRows(err) {
		return notFoundBooking(x.number)
	}
	if err != nil {
		return err
	}
	if status != booking.BookingConfirmed {
		return &booking.StaleError{What: "Booking " + x.number, Current: string(status)}
	}
	return nil
}

// pickTickets finds the tickets to move: those named (by seat or code),
// or every ticket of the booking still to be used. An admitted ticket,
// or one named that is void or refunded, stops the exchange.
func (x *exchange) pickTickets(w *wtx) error {
	rows, err := w.query(`SELECT t.id, t.seat_id, s.label, t.type_code, t.price, t.status FROM tickets t JOIN seats s ON s.id = t.seat_id
		WHERE t.id BETWEEN ? AND ? ORDER BY t.id`, x.old.firstTicket(), x.old.lastTicket())
	if err != nil {
		return err
	}
	type row struct {
		movedTicket
		status booking.TicketStatus
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.seatID, &r.label, &r.typ, &r.price, &r.status); err != nil {
			rows.Close()
			return err
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	take := func(r row) error {
		switch r.status {
		case booking.TicketAdmitted:
			return booking.Errorf(booking.EConflict, "The ticket for %s was already admitted; it cannot be exchanged.", r.label)
		case booking.TicketIssued:
			x.moved = append(x.moved, r.movedTicket)
			return nil
		}
		return &booking.StaleError{What: "The ticket for " + r.label, Current: string(r.status)}
	}
	if len(x.req.Tickets) == 0 {
		for _, r := range all {
			if r.status == booking.TicketAdmitted || r.status == booking.TicketIssued {
				if err := take(r); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, name := range x.req.Tickets {
		name = strings.TrimSpace(name)
		id, _ := booking.VerifyTicket(append([]booking.TicketKey{x.s.opts.TicketKey}, x.s.opts.OldTicketKeys...), name)
		found := false
		for _, r := range all {
			if r.id == id || strings.EqualFold(r.label, name) {
				found = true
				if err := take(r); err != nil {
					return err
				}
				break
			}
		}
		if !found {
			return booking.Errorf(booking.EInvalid, "%s is not a ticket of %s.", booking.CleanLine(name, 40), x.number)
		}
	}
	return nil
}

// freeOld voids the moved tickets and frees their seats by
// compare-and-set, and takes them off the old show's sold count.
func (x *exchange) freeOld(w *wtx) error {
	for _, t := range x.moved {
		res, err := w.exec(`UPDATE tickets SET status = 'void' WHERE id = ? AND status = 'issued'`, t.id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return &booking.StaleError{What: "The ticket for " + t.label, Current: "changed"}
		}
		res, err = w.exec(`UPDATE seat_claims SET status = 'cancelled' WHERE hold_id = ? AND booking_id = ? AND seat_id = ? AND status = 'sold'`, x.old.holdID, x.old.id, t.seatID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return booking.Errorf(booking.EInternal, "exchange: %d claims freed for %s", n, t.label)
		}
	}
	if _, err := w.exec(`UPDATE shows SET sold = sold - ? WHERE id = ?`, len(x.moved), x.old.showID); err != nil {
		return err
	}
	w.touch(x.old.showID)
	return nil
}

// claimNew claims the new seats sold, for a hold made confirmed at once,
// after expiring lapsed holds (which never block); a live claim on any of
// them is the clash a sale would meet, naming what is free next to it.
func (x *exchange) claimNew(w *wtx, hall *booking.Hall, showID int64, seats []booking.Seat) (int64, error) {
	if _, err := expireStale(w, showID); err != nil {
		return 0, err
	}
	live, err := liveClaimsOf(w, showID, seats)
	if err != nil {
		return 0, err
	}
	var taken []booking.Seat
	for _, seat := range seats {
		if _, ok := live[seat.ID]; ok {
			taken = append(taken, seat)
		}
	}
	if len(taken) > 0 {
		return 0, x.s.clash(w, hall, showID, taken, len(seats), false)
	}
	// Blocked and house seats are out of sale for an exchange too; the
	// database's trigger would refuse them without saying why.
	sh, err := x.s.showInfo(w.ctx, showID)
	if err != nil {
		return 0, err
	}
	out, err := x.s.outOfSale(w, sh)
	if err != nil {
		return 0, err
	}
	for _, seat := range seats {
		if out[seat.ID] {
			taken = append(taken, seat)
		}
	}
	if len(taken) > 0 {
		return 0, x.s.clash(w, hall, showID, taken, len(seats), true)
	}
	var holdID int64
	err = w.queryRow(`INSERT INTO holds (show_id, owner, status, created_at, expires_at) VALUES (?, ?, 'confirmed', ?, ?) RETURNING id`,
		showID, "exchange:"+x.number, w.nowMS(), w.nowMS()).Scan(&holdID)
	return holdID, err
}

// issue claims the new seats, prices them (each keeping its old ticket's
// type), checks what the difference needs, and writes the new booking,
// its tickets and claims, the payments, the exchange row and the audit.
func (x *exchange) issue(w *wtx, hall *booking.Hall, showID int64, seats []booking.Seat) (exchanged, error) {
	holdID, err := x.claimNew(w, hall, showID, seats)
	if err != nil {
		return exchanged{}, err
	}
	prices, list, err := exchangePrices(w, showID)
	if err != nil {
		return exchanged{}, err
	}
	types := make(map[string]string, len(seats))
	var credit booking.Money
	for i, t := range x.moved {
		types[seats[i].Label] = t.typ
		credit += t.price
	}
	quote, err := booking.QuoteSeats(prices, list, seats, types)
	if err != nil {
		return exchanged{}, err
	}
	diff := quote.Total - credit
	if x.req.CheckDifference && diff != x.req.ExpectedDifference {
		return exchanged{}, booking.Errorf(booking.EConflict, "Prices changed: the difference is now %s.", diff.Signed())
	}
	if err := x.allowed(w, diff); err != nil {
		return exchanged{}, err
	}
	// The new seats' show as this transaction sees it: not cancelled, its
	// sales still open.
	show, err := x.s.liveShow(w, showID)
	if err != nil {
		return exchanged{}, err
	}
	if err := booking.SalesOpen(show, w.now); err != nil {
		return exchanged{}, err
	}
	b := &booking.Booking{Show: show, Status: booking.BookingConfirmed, Customer: x.customer, Phone: x.phone, Total: quote.Total,
		SoldBy: x.actor.Name, Terminal: x.actor.Terminal, CreatedAt: time.UnixMilli(w.nowMS())}
	if err := insertBooking(w, b, holdID, "exchange:"+x.key); err != nil {
		return exchanged{}, err
	}
	if err := indexCustomer(w, b.ID, x.customer); err != nil {
		return exchanged{}, err
	}
	if err := x.sellNew(w, b, holdID, seats); err != nil {
		return exchanged{}, err
	}
	if err := insertTickets(w, b, quote.Lines); err != nil {
		return exchanged{}, err
	}
	shift, err := x.settle(w, b, diff)
	if err != nil {
		return exchanged{}, err
	}
	if err := x.record(w, b, credit, diff); err != nil {
		return exchanged{}, err
	}
	detail := x.number + " " + strings.Join(x.labels(), " ") + " → " + b.Number + " " + strings.Join(b.SeatLabels(), " ") + ", difference " + diff.Signed()
	if x.reason != "" {
		detail += ": " + x.reason
	}
	w.touch(showID)
	return exchanged{from: x.old.id, to: b.ID, credit: credit, difference: diff},
		w.audit(x.actor, booking.AuditEntry{Action: booking.AuditExchange, ShowID: showID, ShiftID: shift, Amount: diff, Detail: detail}, x.old.id)
}

// allowed refuses, on the transaction's clock, an exchange that pays money
// back without what a refund needs, or one of a show that has started
// without a manager.
func (x *exchange) allowed(w *wtx, diff booking.Money) error {
	if diff < 0 && x.ok.Role < booking.MinRole(booking.ActionRefund) {
		return booking.Errorf(booking.EForbidden, "This exchange pays %s back: a %s must approve it.", (-diff).String(), booking.MinRole(booking.ActionRefund))
	}
	return x.s.afterStart(w, x.old.showID, x.ok)
}

// sellNew writes the new seats' claims sold to booking b and adds them to
// the new show's sold count.
func (x *exchange) sellNew(w *wtx, b *booking.Booking, holdID int64, seats []booking.Seat) error {
	args := make([]any, 0, 4*len(seats))
	for _, seat := range seats {
		args = append(args, b.Show.ID, seat.ID, holdID, b.ID)
	}
	if _, err := w.exec(`INSERT INTO seat_claims (show_id, seat_id, hold_id, booking_id, status) VALUES `+placeholders("(?, ?, ?, ?, 'sold')", len(seats)), args...); err != nil {
		return err
	}
	return w.queryRow(`UPDATE shows SET sold = sold + ? WHERE id = ? RETURNING sold`, len(seats), b.Show.ID).Scan(&b.Show.Sold)
}

// settle writes the new booking's sale payment (the difference paid, 0.00
// when none: later refunds of the new tickets go back by its method) and,
// when money goes back, its refund, both in the clerk's shift; an
// exchange at the same price needs none open.
func (x *exchange) settle(w *wtx, b *booking.Booking, diff booking.Money) (int64, error) {
	paid := max(diff, 0)
	tendered, change, err := payment(booking.CheckoutRequest{Method: x.req.Method, Tendered: x.req.Tendered}, paid)
	if err != nil {
		return 0, err
	}
	// No money moving needs no drawer: the open shift when there is one.
	method := x.req.Method
	if diff == 0 {
		method = booking.Card
	}
	shift, err := shiftFor(w, x.actor, method, x.req.OpenFloat)
	if err != nil {
		return 0, err
	}
	if _, err := w.exec(`INSERT INTO payments (booking_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id) VALUES (?, 'sale', ?, ?, ?, ?, ?, ?, ?, ?)`,
		b.ID, string(x.req.Method), paid, tendered, change, w.nowMS(), x.actor.Name, x.actor.Terminal, nullID(shift)); err != nil {
		return 0, err
	}
	if diff < 0 {
		if _, err := w.exec(`INSERT INTO payments (booking_id, kind, method, amount, at, staff, terminal, shift_id, approved_by) VALUES (?, 'refund', ?, ?, ?, ?, ?, ?, ?)`,
			b.ID, string(x.req.Method), -diff, w.nowMS(), x.actor.Name, x.actor.Terminal, nullID(shift), x.ok.Name); err != nil {
			return 0, err
		}
	}
	return shift, nil
}

// record writes the exchange row, marks the voided tickets with it, and
// cancels the old booking when no ticket of it is left to use.
func (x *exchange) record(w *wtx, b *booking.Booking, credit, diff booking.Money) error {
	var id int64
	if err := w.queryRow(`INSERT INTO exchanges (idem_key, from_booking, to_booking, credit, difference, method, at, staff, terminal, approved_by)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, x.key, x.old.id, b.ID, credit, diff, string(x.req.Method), w.nowMS(),
		x.actor.Name, x.actor.Terminal, x.ok.Name).Scan(&id); err != nil {
		return err
	}
	for _, t := range x.moved {
		if _, err := w.exec(`UPDATE tickets SET exchange_id = ? WHERE id = ?`, id, t.id); err != nil {
			return err
		}
	}
	var left int
	if err := w.queryRow(`SELECT count(*) FROM tickets WHERE id BETWEEN ? AND ? AND status IN ('issued', 'admitted')`, x.old.firstTicket(), x.old.lastTicket()).Scan(&left); err != nil {
		return err
	}
	if left > 0 {
		return nil
	}
	_, err := w.exec(`UPDATE bookings SET status = 'cancelled', cancelled_by = ?, approved_by = ?, reason = ?, cancelled_at = ? WHERE id = ? AND status = 'confirmed'`,
		x.actor.Name, x.ok.Name, "exchanged for "+b.Number, w.nowMS(), x.old.id)
	return err
}

// labels are the moved tickets' seats.
func (x *exchange) labels() []string {
	out := make([]string, len(x.moved))
	for i, t := range x.moved {
		out[i] = t.label
	}
	return out
}

// exchangePrices reads the price table and the new show's price list
// inside the exchange's transaction, so the new seats are priced at what
// the database says now. An exchange is rare: it reads the table rather
// than share the sale path's cache.
func exchangePrices(w *wtx, showID int64) (*booking.PriceTable, string, error) {
	prices, err := loadPriceTable(w.query)
	if err != nil {
		return nil, "", err
	}
	var list string
	if err := w.queryRow(qShowList, showID).Scan(&list); err != nil {
		return nil, "", err
	}
	return prices, strings.ToLower(list), nil
}
