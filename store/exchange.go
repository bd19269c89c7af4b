package store

import (
	"context"
	"slices"
	"strings"

	"boxoffice/booking"
)

// Exchanges. The tickets moved are voided on their booking and a new
// booking is made for the new seats: a booking belongs to one show and
// its tickets are a range of ids, so moving to another show (or a part of
// a party) cannot stay in the old one. The exchanges row carries the
// moved tickets' price over as credit; the new booking's sale payment is
// the difference paid (0.00 when there is none), and a difference paid
// back is one refund payment of the new booking, not of a ticket.

// ExchangeTx is what an exchange asks of a transaction beyond RefundTx.
type ExchangeTx interface {
	// ExchangeByKey reads the exchange an idempotency key made; found is
	// false when none did.
	ExchangeByKey(key string) (x ExchangeRow, found bool, err error)
	// ReleaseOwnHold lets go of owner's hold holdID, with its claims,
	// when it is still live; a hold that lapsed or is another's is left
	// as it is.
	ReleaseOwnHold(holdID int64, owner string) error
	// PricesOf reads the price table and a show's price list (lower
	// case), as the transaction sees them.
	PricesOf(showID int64) (*booking.PriceTable, string, error)
	// InsertTickets issues a booking's tickets, one per quote line in
	// order, and returns them.
	InsertTickets(bookingID int64, lines []booking.QuoteLine) ([]booking.Ticket, error)
	// InsertExchange writes an exchange at the transaction's time and
	// returns its id.
	InsertExchange(x ExchangeRow) (int64, error)
	// MarkExchanged marks the voided tickets with the exchange that moved
	// them.
	MarkExchanged(exchangeID int64, ticketIDs []int64) error
}

// ExchangeRow is one exchange as a driver stores it.
type ExchangeRow struct {
	Key                       string
	From, To                  int64 // the bookings
	Credit, Difference        booking.Money
	Method                    booking.PayMethod
	Staff, Terminal, Approver string
}

// NewBooking is a confirmed booking to write.
type NewBooking struct {
	ShowID, HoldID   int64
	Key              string // its idempotency key
	Number           string // a reservation's, which its booking keeps; "": a fresh one
	Customer, Phone  string
	Total            booking.Money
	SoldBy, Terminal string
}

// exchangeOwner prefixes what an exchange names its hold and its booking's
// key with, so neither is taken for a counter's.
const exchangeOwner = "exchange:"

// Exchange moves tickets of a booking to new seats in one transaction.
// The old booking is read locked first, so an exchange, a cancel or a
// refund of one booking take turns on any server, and the one that waited
// reads what the first committed (its key's exchange, the tickets it
// voided); the moved tickets go issued -> void by compare-and-set; the
// new seats are won as a hold wins them, a loser told what is free next
// to them.
func (s *Store) Exchange(ctx context.Context, actor booking.Actor, req booking.ExchangeRequest) (*booking.ExchangeResult, error) {
	if err := booking.Authorize(actor, booking.ActionExchange); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	number := booking.NormalizeNumber(req.Number)
	ok := Approval{Role: actor.Role}
	if req.Approver != nil {
		var err error
		if ok, err = Approve(s, ctx, actor, booking.ActionRefund, req.Approver, req.Addr, "exchange of "+number); err != nil {
			return nil, err
		}
	}
	x := &exchange{s: s, actor: actor, req: req, ok: ok, number: number, key: strings.TrimSpace(req.IdempotencyKey),
		reason: booking.CleanLine(req.Reason, 200)}
	got, err := write(s, ctx, actor, Write{Op: "exchange"}, x.run)
	if err != nil {
		s.approvalNotUsed(ctx, actor, ok, "exchange of "+number, err)
		if x.toHall != nil {
			err = s.suggest(ctx, err, x.toHall, x.toShow, len(req.Seats))
		}
		return nil, err
	}
	from, err := s.committedBooking(ctx, got.From)
	if err != nil {
		return nil, err
	}
	to, err := s.committedBooking(ctx, got.To)
	if err != nil {
		return nil, err
	}
	return &booking.ExchangeResult{From: from, To: to, Credit: got.Credit, Difference: got.Difference}, nil
}

// exchange is one Exchange call as its transaction works through it.
type exchange struct {
	s                   *Store
	actor               booking.Actor
	req                 booking.ExchangeRequest
	ok                  Approval
	number, key, reason string

	old   BookingRow
	moved []TicketRow
	// toHall and toShow are where the new seats were claimed: a clash is
	// given its suggestions there after the write.
	toHall *booking.Hall
	toShow int64
}

// run is the exchange's transaction: lock the old booking; the same key
// again answers with the first exchange; otherwise check, free the old
// seats, claim the new, price them, issue the new booking and settle the
// difference.
func (x *exchange) run(tx Tx) (ExchangeRow, error) {
	var err error
	if x.old, err = lockBooking(tx, x.number); err != nil {
		return ExchangeRow{}, err
	}
	// Read after the lock: a first call with the key that committed
	// while this one waited is seen.
	done, found, err := tx.ExchangeByKey(x.key)
	if err != nil || found {
		return done, err
	}
	if x.old.Status != booking.BookingConfirmed {
		return ExchangeRow{}, staleBooking(x.number, x.old.Status)
	}
	if err := x.pickTickets(tx); err != nil {
		return ExchangeRow{}, err
	}
	toShow := x.req.ToShow
	if toShow == 0 {
		toShow = x.old.ShowID
	}
	if _, err := x.saleable(tx, toShow); err != nil {
		return ExchangeRow{}, err
	}
	hall, err := x.s.prog.HallOfShow(tx.Context(), toShow)
	if err != nil {
		return ExchangeRow{}, err
	}
	if !booking.SiteServes(x.actor.Site, hall.Site) {
		return ExchangeRow{}, booking.ErrOtherSite(toShow) // new seats are sold where the counter is
	}
	seats, err := hall.ResolveSeats(x.req.Seats, nil)
	if err != nil {
		return ExchangeRow{}, err
	}
	if len(seats) != len(x.moved) {
		return ExchangeRow{}, booking.Errorf(booking.EInvalid, "%d tickets to move but %d new seats: name one new seat for each.", len(x.moved), len(seats))
	}
	if err := x.freeOld(tx); err != nil {
		return ExchangeRow{}, err
	}
	if x.req.HoldID != 0 {
		// The counter's own hold on the new seats, so its claims do not
		// clash with the exchange's; a hold that lapsed is left to the
		// clash check.
		if err := tx.ReleaseOwnHold(x.req.HoldID, x.req.Owner); err != nil {
			return ExchangeRow{}, err
		}
	}
	return x.issue(tx, hall, toShow, seats)
}

// saleable reads the show the new seats are of as the transaction sees
// it now: not cancelled, its sales still open.
func (x *exchange) saleable(tx Tx, showID int64) (booking.Show, error) {
	sh, err := LiveShow(tx, x.s.prog, showID)
	if err != nil {
		return sh, err
	}
	return sh, booking.SalesOpen(sh, tx.Now())
}

// pickTickets finds the tickets to move: those named (by seat or code),
// or every ticket of the booking still to be used. An admitted ticket,
// or one named that is void or refunded, stops the exchange.
func (x *exchange) pickTickets(tx Tx) error {
	all, err := tx.BookingTickets(x.old.ID)
	if err != nil {
		return err
	}
	take := func(t TicketRow) error {
		switch t.Status {
		case booking.TicketAdmitted:
			return booking.Errorf(booking.EConflict, "The ticket for %s was already admitted; it cannot be exchanged.", t.Label)
		case booking.TicketIssued:
			x.moved = append(x.moved, t)
			return nil
		}
		return &booking.StaleError{What: "The ticket for " + t.Label, Current: string(t.Status)}
	}
	if len(x.req.Tickets) == 0 {
		for _, t := range all {
			if t.Status == booking.TicketAdmitted || t.Status == booking.TicketIssued {
				if err := take(t); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, name := range x.req.Tickets {
		name = strings.TrimSpace(name)
		id, _ := booking.VerifyTicket(x.s.opts.TicketKeys, name)
		i := slices.IndexFunc(all, func(t TicketRow) bool { return t.ID == id || strings.EqualFold(t.Label, name) })
		if i < 0 {
			return booking.Errorf(booking.EInvalid, "%s is not a ticket of %s.", booking.CleanLine(name, 40), x.number)
		}
		if err := take(all[i]); err != nil {
			return err
		}
	}
	return nil
}

// freeOld voids the moved tickets and frees their seats, each by
// compare-and-set.
func (x *exchange) freeOld(tx Tx) error {
	for _, t := range x.moved {
		if err := takeTicket(tx, x.old, t, booking.TicketVoid, "exchanged"); err != nil {
			return err
		}
	}
	tx.Touch(x.old.ShowID)
	return nil
}

// issue claims the new seats, prices them (each keeping its old ticket's
// type, at the new show's prices as this transaction reads them), checks
// what the difference needs, and writes the new booking, its tickets and
// claims, the payments, the exchange row and the audit row.
func (x *exchange) issue(tx Tx, hall *booking.Hall, showID int64, seats []booking.Seat) (ExchangeRow, error) {
	x.toHall, x.toShow = hall, showID // for the suggestions of a clash
	holdID, err := x.s.claimForSale(tx, hall, showID, exchangeOwner+x.number, seats)
	if err != nil {
		return ExchangeRow{}, err
	}
	prices, list, err := tx.PricesOf(showID)
	if err != nil {
		return ExchangeRow{}, err
	}
	types := make(map[string]string, len(seats))
	var credit booking.Money
	for i, t := range x.moved {
		types[seats[i].Label] = t.Type
		credit += t.Price
	}
	quote, err := booking.QuoteSeats(prices, list, seats, types)
	if err != nil {
		return ExchangeRow{}, err
	}
	diff := quote.Total - credit
	if x.req.CheckDifference && diff != x.req.ExpectedDifference {
		return ExchangeRow{}, booking.Errorf(booking.EConflict, "Prices changed: the difference is now %s.", diff.Signed())
	}
	if err := x.allowed(tx, diff); err != nil {
		return ExchangeRow{}, err
	}
	// The new seats' show after the claims, as a hold reads it: a
	// cancellation or sales close committed meanwhile is seen.
	if _, err := x.saleable(tx, showID); err != nil {
		return ExchangeRow{}, err
	}
	id, number, err := tx.InsertSale(NewBooking{ShowID: showID, HoldID: holdID, Key: exchangeOwner + x.key, Customer: x.old.Customer, Phone: x.old.Phone,
		Total: quote.Total, SoldBy: x.actor.Name, Terminal: x.actor.Terminal})
	if err != nil {
		return ExchangeRow{}, err
	}
	if err := sellClaims(tx, holdID, id, showID, len(seats)); err != nil {
		return ExchangeRow{}, err
	}
	tickets, err := tx.InsertTickets(id, quote.Lines)
	if err != nil {
		return ExchangeRow{}, err
	}
	shift, err := x.settle(tx, id, diff)
	if err != nil {
		return ExchangeRow{}, err
	}
	done := ExchangeRow{Key: x.key, From: x.old.ID, To: id, Credit: credit, Difference: diff, Method: x.req.Method,
		Staff: x.actor.Name, Terminal: x.actor.Terminal, Approver: x.ok.Name}
	if err := x.record(tx, done, number); err != nil {
		return ExchangeRow{}, err
	}
	newSeats := make([]string, len(tickets))
	for i, t := range tickets {
		newSeats[i] = t.Seat.Label
	}
	oldSeats := make([]string, len(x.moved))
	for i, t := range x.moved {
		oldSeats[i] = t.Label
	}
	detail := x.number + " " + strings.Join(oldSeats, " ") + " → " + number + " " + strings.Join(newSeats, " ") + ", difference " + diff.Signed()
	if x.reason != "" {
		detail += ": " + x.reason
	}
	tx.Touch(showID)
	return done, Audit(tx, x.actor, booking.AuditEntry{Action: booking.AuditExchange, ShowID: showID, ShiftID: shift, Amount: diff, Detail: detail}, x.old.ID)
}

// allowed refuses, on the transaction's clock, an exchange that pays money
// back without what a refund needs, or one of a show that has started
// without a manager.
func (x *exchange) allowed(tx Tx, diff booking.Money) error {
	if diff < 0 && x.ok.Role < booking.MinRole(booking.ActionRefund) {
		return booking.Errorf(booking.EForbidden, "This exchange pays %s back: a %s must approve it.", (-diff).String(), booking.MinRole(booking.ActionRefund))
	}
	return x.s.afterStart(tx, x.old.ShowID, x.ok)
}

// settle writes the new booking's sale payment (the difference paid, 0.00
// when none: later refunds of the new tickets go back by its method) and,
// when money goes back, its refund, both in the clerk's shift; an
// exchange at the same price moves no money and needs none open.
func (x *exchange) settle(tx Tx, bookingID int64, diff booking.Money) (int64, error) {
	paid := max(diff, 0)
	tendered, change, err := booking.CheckoutRequest{Method: x.req.Method, Tendered: x.req.Tendered}.Payment(paid)
	if err != nil {
		return 0, err
	}
	method := x.req.Method
	if diff == 0 {
		method = booking.Card // no drawer: the open shift when there is one
	}
	shift, err := ShiftFor(tx, x.actor, method, x.req.OpenFloat)
	if err != nil {
		return 0, err
	}
	p := PaymentRow{BookingID: bookingID, Kind: booking.PaymentSale, Method: x.req.Method, Amount: paid, Tendered: tendered, Change: change,
		Staff: x.actor.Name, Terminal: x.actor.Terminal, ShiftID: shift}
	if _, err := tx.InsertPayment(p); err != nil {
		return 0, err
	}
	if diff < 0 {
		p = PaymentRow{BookingID: bookingID, Kind: booking.PaymentRefund, Method: x.req.Method, Amount: -diff,
			Staff: x.actor.Name, Terminal: x.actor.Terminal, ShiftID: shift, ApprovedBy: x.ok.Name}
		if _, err := tx.InsertPayment(p); err != nil {
			return 0, err
		}
	}
	return shift, nil
}

// record writes the exchange row, marks the voided tickets with it, and
// cancels the old booking, saying where its tickets went, when none of
// them is left to use.
func (x *exchange) record(tx Tx, done ExchangeRow, number string) error {
	id, err := tx.InsertExchange(done)
	if err != nil {
		return err
	}
	ids := make([]int64, len(x.moved))
	for i, t := range x.moved {
		ids[i] = t.ID
	}
	if err := tx.MarkExchanged(id, ids); err != nil {
		return err
	}
	left, err := tx.CountTickets(x.old.ID, booking.TicketIssued, booking.TicketAdmitted)
	if err != nil || left > 0 {
		return err
	}
	_, err = tx.CancelBooking(x.old.ID, Cancellation{By: x.actor.Name, ApprovedBy: x.ok.Name, Reason: "exchanged for " + number})
	return err
}
