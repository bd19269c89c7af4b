package pg

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// Exchanges, as db/exchange.go makes them: the tickets moved are voided
// on their booking and a new booking is made for the new seats; the
// exchanges row carries the moved tickets' price over as credit; the new
// booking's sale payment is the difference paid (0.00 when there is
// none), and a difference paid back is one refund payment of the new
// booking, not of a ticket.

// Store keeps booking.Bookings whole on PostgreSQL.
var _ booking.Bookings = (*Store)(nil)

// exchanged is what an exchange's transaction returns: the two bookings,
// whether written now or by the first call with the key.
type exchanged struct {
	from, to           int64
	credit, difference booking.Money
}

// Exchange moves tickets of a booking to new seats in one transaction.
// READ COMMITTED: the old booking's row is locked FOR UPDATE first, so an
// exchange, a cancel or a refund of one booking take turns on any server,
// and the one that waited reads what the first committed (its key's
// exchange, the tickets it voided); the moved tickets go issued -> void
// by compare-and-set; the new seats are won by the partial unique index
// on live claims, as a hold wins them, a loser told what is free next to
// them.
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
	got, err := inTx(s, ctx, "exchange", txMode{iso: pgx.ReadCommitted}, x.run)
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

	old             cancelled
	customer, phone string
	moved           []movedTicket
}

// movedTicket is a ticket of the old booking that goes.
type movedTicket struct {
	id     int64
	seatID int64
	label  string
	typ    string
	price  booking.Money
}

// run is the exchange's transaction: lock the old booking; the same key
// again answers with the first exchange; otherwise check, free the old
// seats, claim the new, price them, issue the new booking and settle the
// difference.
func (x *exchange) run(t *tx) (exchanged, error) {
	var done exchanged
	if err := checkActor(t, x.actor); err != nil {
		return done, err
	}
	if err := x.loadOld(t); err != nil {
		return done, err
	}
	// Read after the lock: a first call with the key that committed
	// while this one waited is seen.
	err := t.QueryRow(t.ctx, `SELECT from_booking, to_booking, credit, difference FROM exchanges WHERE idem_key = $1`, x.key).
		Scan(&done.from, &done.to, &done.credit, &done.difference)
	if err == nil || !errors.Is(err, pgx.ErrNoRows) {
		return done, err
	}
	if x.old.status != booking.BookingConfirmed {
		return done, &booking.StaleError{What: "Booking " + x.number, Current: string(x.old.status)}
	}
	if err := x.pickTickets(t); err != nil {
		return done, err
	}
	toShow := x.req.ToShow
	if toShow == 0 {
		toShow = x.old.showID
	}
	if err := x.s.salesOpen(t, toShow); err != nil {
		return done, err
	}
	hall, err := x.s.hallOfShow(t.ctx, toShow)
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
	if err := x.freeOld(t); err != nil {
		return done, err
	}
	if err := x.letGoOfHold(t); err != nil {
		return done, err
	}
	return x.issue(t, hall, toShow, seats)
}

// loadOld reads and locks the booking the tickets leave.
func (x *exchange) loadOld(t *tx) error {
	err := t.QueryRow(t.ctx, `SELECT id, show_id, hold_id, status, customer, phone FROM bookings WHERE number = $1 FOR UPDATE`, x.number).
		Scan(&x.old.id, &x.old.showID, &x.old.holdID, &x.old.status, &x.customer, &x.phone)
	if errors.Is(err, pgx.ErrNoRows) {
		return notFoundBooking(x.number)
	}
	return err
}

// pickTickets finds the tickets to move: those named (by seat or code),
// or every ticket of the booking still to be used. An admitted ticket,
// or one named that is void or refunded, stops the exchange.
func (x *exchange) pickTickets(t *tx) error {
	type row struct {
		movedTicket
		status booking.TicketStatus
	}
	rows, err := t.Query(t.ctx, `SELECT t.id, t.seat_id, s.label, t.type_code, t.price, t.status FROM tickets t JOIN seats s ON s.id = t.seat_id
		WHERE t.id BETWEEN $1 AND $2 ORDER BY t.id`, x.old.firstTicket(), x.old.lastTicket())
	if err != nil {
		return err
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var v row
		return v, r.Scan(&v.id, &v.seatID, &v.label, &v.typ, &v.price, &v.status)
	})
	if err != nil {
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
		id, _ := booking.VerifyTicket([]booking.TicketKey{x.s.opts.TicketKey}, name)
		i := -1
		for j, r := range all {
			if r.id == id || strings.EqualFold(r.label, name) {
				i = j
				break
			}
		}
		if i < 0 {
			return booking.Errorf(booking.EInvalid, "%s is not a ticket of %s.", booking.CleanLine(name, 40), x.number)
		}
		if err := take(all[i]); err != nil {
			return err
		}
	}
	return nil
}

// freeOld voids the moved tickets and frees their seats by
// compare-and-set.
func (x *exchange) freeOld(t *tx) error {
	for _, mt := range x.moved {
		tag, err := t.Exec(t.ctx, `UPDATE tickets SET status = 'void' WHERE id = $1 AND status = 'issued'`, mt.id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return &booking.StaleError{What: "The ticket for " + mt.label, Current: "changed"}
		}
		tag, err = t.Exec(t.ctx, `UPDATE seat_claims SET status = 'cancelled' WHERE hold_id = $1 AND booking_id = $2 AND seat_id = $3 AND status = 'sold'`,
			x.old.holdID, x.old.id, mt.seatID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return booking.Errorf(booking.EInternal, "exchange: %d claims freed for %s", tag.RowsAffected(), mt.label)
		}
	}
	t.touch(x.old.showID)
	return nil
}

// letGoOfHold releases the counter's hold on the new seats, when the
// request names one still live, so its own claims do not clash with the
// exchange's; a hold that lapsed is left to the clash check.
func (x *exchange) letGoOfHold(t *tx) error {
	if x.req.HoldID == 0 {
		return nil
	}
	tag, err := t.Exec(t.ctx, `UPDATE holds SET status = 'released' WHERE id = $1 AND owner = $2 AND status = 'held'`, x.req.HoldID, x.req.Owner)
	if err != nil || tag.RowsAffected() != 1 {
		return err
	}
	_, err = t.Exec(t.ctx, `UPDATE seat_claims SET status = 'released' WHERE hold_id = $1 AND status = 'held'`, x.req.HoldID)
	return err
}

// claimNew claims the new seats for a hold of the exchange's own, as a
// hold claims them (claimAll: a lapsed hold never blocks, a live claim is
// the clash a sale would meet, naming what is free next to it).
func (x *exchange) claimNew(t *tx, hall *booking.Hall, showID int64, seats []booking.Seat) (int64, error) {
	holdID, _, err := openHold(t, showID, "exchange:"+x.number, time.Minute, 0)
	if err != nil {
		return 0, err
	}
	missing, err := claimAll(t, showID, holdID, seats)
	if err != nil {
		return 0, err
	}
	if len(missing) > 0 {
		if n, err := expireStale(t, showID); err != nil {
			return 0, err
		} else if n > 0 {
			if missing, err = claimAll(t, showID, holdID, missing); err != nil {
				return 0, err
			}
		}
	}
	if len(missing) > 0 {
		return 0, x.s.clash(t, hall, showID, holdID, seats, missing, len(seats))
	}
	_, err = t.Exec(t.ctx, `UPDATE holds SET status = 'confirmed' WHERE id = $1 AND status = 'held'`, holdID)
	return holdID, err
}

// issue claims the new seats, prices them (each keeping its old ticket's
// type, at the new show's prices as this transaction reads them), checks
// what the difference needs, and writes the new booking, its tickets and
// claims, the exchange row, the payments and the audit row.
func (x *exchange) issue(t *tx, hall *booking.Hall, showID int64, seats []booking.Seat) (exchanged, error) {
	holdID, err := x.claimNew(t, hall, showID, seats)
	if err != nil {
		return exchanged{}, err
	}
	prices, err := priceTable(t)
	if err != nil {
		return exchanged{}, err
	}
	var list string
	if err := t.QueryRow(t.ctx, `SELECT price_list FROM shows WHERE id = $1`, showID).Scan(&list); err != nil {
		return exchanged{}, err
	}
	types := make(map[string]string, len(seats))
	var credit booking.Money
	for i, mt := range x.moved {
		types[seats[i].Label] = mt.typ
		credit += mt.price
	}
	quote, err := booking.QuoteSeats(prices, strings.ToLower(list), seats, types)
	if err != nil {
		return exchanged{}, err
	}
	diff := quote.Total - credit
	if x.req.CheckDifference && diff != x.req.ExpectedDifference {
		return exchanged{}, booking.Errorf(booking.EConflict, "Prices changed: the difference is now %s.", diff.Signed())
	}
	if err := x.allowed(t, diff); err != nil {
		return exchanged{}, err
	}
	// The new seats' show after the claims, as a hold reads it: a
	// cancellation or sales close committed meanwhile is seen.
	if err := x.s.salesOpen(t, showID); err != nil {
		return exchanged{}, err
	}
	show, err := x.s.showInfo(t.ctx, showID)
	if err != nil {
		return exchanged{}, err
	}
	show.PriceList = list
	b := &booking.Booking{Show: show, Status: booking.BookingConfirmed, Customer: x.customer, Phone: x.phone, Total: quote.Total,
		SoldBy: x.actor.Name, Terminal: x.actor.Terminal, CreatedAt: time.UnixMilli(t.nowMS())}
	if err := x.writeBooking(t, b, holdID, quote.Lines); err != nil {
		return exchanged{}, err
	}
	if err := x.record(t, b, credit, diff); err != nil {
		return exchanged{}, err
	}
	shift, err := x.settle(t, b, diff)
	if err != nil {
		return exchanged{}, err
	}
	detail := x.number + " " + strings.Join(x.labels(), " ") + " → " + b.Number + " " + strings.Join(b.SeatLabels(), " ") + ", difference " + diff.Signed()
	if x.reason != "" {
		detail += ": " + x.reason
	}
	t.touch(showID)
	return exchanged{from: x.old.id, to: b.ID, credit: credit, difference: diff},
		audit(t, x.actor, booking.AuditEntry{Action: booking.AuditExchange, ShowID: showID, ShiftID: shift, Amount: diff, Detail: detail}, x.old.id)
}

// allowed refuses, on the transaction's clock, an exchange that pays money
// back without what a refund needs, or one of a show that has started
// without a manager.
func (x *exchange) allowed(t *tx, diff booking.Money) error {
	if diff < 0 && x.ok.Role < booking.MinRole(booking.ActionRefund) {
		return booking.Errorf(booking.EForbidden, "This exchange pays %s back: a %s must approve it.", (-diff).String(), booking.MinRole(booking.ActionRefund))
	}
	return x.s.afterStart(t, x.old.showID, x.ok)
}

// writeBooking inserts the new booking under a fresh number, sells the
// exchange's claims to it and issues its tickets (ids 32 x booking id +
// n, as a sale's), filling in b.
func (x *exchange) writeBooking(t *tx, b *booking.Booking, holdID int64, lines []booking.QuoteLine) error {
	b.Number = booking.NewBookingNumber()
	if err := t.QueryRow(t.ctx, `INSERT INTO bookings (number, show_id, hold_id, status, idem_key, customer, phone, total, sold_by, terminal, created_at)
		VALUES ($1, $2, $3, 'confirmed', $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
		b.Number, b.Show.ID, holdID, "exchange:"+x.key, b.Customer, b.Phone, b.Total, b.SoldBy, b.Terminal, b.CreatedAt.UnixMilli()).Scan(&b.ID); err != nil {
		return err
	}
	if err := indexNames(t, b.ID, b.Customer); err != nil {
		return err
	}
	if _, err := t.Exec(t.ctx, `UPDATE seat_claims SET status = 'sold', booking_id = $1 WHERE hold_id = $2 AND status = 'held'`, b.ID, holdID); err != nil {
		return err
	}
	for i, l := range lines {
		id := b.ID*ticketsPerBooking + int64(i)
		if _, err := t.Exec(t.ctx, `INSERT INTO tickets (id, booking_id, seat_id, type_code, price, price_source, status) VALUES ($1, $2, $3, $4, $5, $6, 'issued')`,
			id, b.ID, l.Seat.ID, l.Type, l.Amount, l.Source); err != nil {
			return err
		}
		b.Tickets = append(b.Tickets, booking.Ticket{ID: id, Seat: l.Seat, Type: l.Type, Price: l.Amount, PriceSource: l.Source, Status: booking.TicketIssued})
	}
	return nil
}

// settle writes the new booking's sale payment (the difference paid, 0.00
// when none: later refunds of the new tickets go back by its method) and,
// when money goes back, its refund, both in the clerk's shift; an
// exchange at the same price needs none open.
func (x *exchange) settle(t *tx, b *booking.Booking, diff booking.Money) (int64, error) {
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
	shift, err := shiftFor(t, x.actor, method, x.req.OpenFloat)
	if err != nil {
		return 0, err
	}
	if _, err := t.Exec(t.ctx, `INSERT INTO payments (booking_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id)
		VALUES ($1, 'sale', $2, $3, $4, $5, $6, $7, $8, $9)`,
		b.ID, string(x.req.Method), paid, tendered, change, t.nowMS(), x.actor.Name, x.actor.Terminal, nullID(shift)); err != nil {
		return 0, err
	}
	if diff < 0 {
		if _, err := t.Exec(t.ctx, `INSERT INTO payments (booking_id, kind, method, amount, at, staff, terminal, shift_id, approved_by)
			VALUES ($1, 'refund', $2, $3, $4, $5, $6, $7, $8)`,
			b.ID, string(x.req.Method), -diff, t.nowMS(), x.actor.Name, x.actor.Terminal, nullID(shift), x.ok.Name); err != nil {
			return 0, err
		}
	}
	return shift, nil
}

// record writes the exchange row, marks the voided tickets with it, and
// cancels the old booking when no ticket of it is left to use.
func (x *exchange) record(t *tx, b *booking.Booking, credit, diff booking.Money) error {
	var id int64
	if err := t.QueryRow(t.ctx, `INSERT INTO exchanges (idem_key, from_booking, to_booking, credit, difference, method, at, staff, terminal, approved_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`, x.key, x.old.id, b.ID, credit, diff, string(x.req.Method), t.nowMS(),
		x.actor.Name, x.actor.Terminal, x.ok.Name).Scan(&id); err != nil {
		return err
	}
	ids := make([]int64, len(x.moved))
	for i, mt := range x.moved {
		ids[i] = mt.id
	}
	if _, err := t.Exec(t.ctx, `UPDATE tickets SET exchange_id = $1 WHERE id = ANY($2)`, id, ids); err != nil {
		return err
	}
	var left int
	if err := t.QueryRow(t.ctx, `SELECT count(*) FROM tickets WHERE id BETWEEN $1 AND $2 AND status IN ('issued', 'admitted')`,
		x.old.firstTicket(), x.old.lastTicket()).Scan(&left); err != nil {
		return err
	}
	if left > 0 {
		return nil
	}
	_, err := t.Exec(t.ctx, `UPDATE bookings SET status = 'cancelled', cancelled_by = $1, approved_by = $2, reason = $3, cancelled_at = $4
		WHERE id = $5 AND status = 'confirmed'`, x.actor.Name, x.ok.Name, "exchanged for "+b.Number, t.nowMS(), x.old.id)
	return err
}

// labels are the moved tickets' seats.
func (x *exchange) labels() []string {
	out := make([]string, len(x.moved))
	for i, mt := range x.moved {
		out[i] = mt.label
	}
	return out
}
