package contract

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
)

// priceLister is booking.Programme's price lists.
type priceLister interface {
	SetPriceEntry(ctx context.Context, actor booking.Actor, e booking.PriceEntry) error
	SetShowPriceList(ctx context.Context, actor booking.Actor, showID int64, list string) error
}

const (
	needExchange   = "Exchange (booking.Bookings)"
	needPriceLists = "SetPriceEntry and SetShowPriceList (booking.Programme)"
)

// exchangeCases: tickets move to new seats in one transaction, the
// difference paid or paid back through the clerk's drawer with what a
// refund needs, once per key; the new seats are won as a hold wins them.
var exchangeCases = []testCase{
	{"DearerShowChargesTheDifference", exchangeDearer},
	{"CheaperNeedsApproval", exchangeCheaper},
	{"SameShowOverlappingSeats", exchangeOverlapping},
	{"OncePerKey", exchangeOncePerKey},
	{"Refusals", exchangeRefusals},
	{"ErrSeatOutOfSale", exchangeOutOfSale},
	{"FromTheCountersHold", exchangeFromHold},
	{"SamePriceNeedsNoDrawer", exchangeSamePrice},
	{"RaceForOneSeat", exchangeRaceForOneSeat},
	{"OneBookingTwiceAtOnce", exchangeOneBookingTwice},
}

func init() { groups = append(groups, group{"Exchange", exchangeCases}) }

// priceShow puts show on list, where an adult standard seat costs adult.
func priceShow(t *testing.T, e *env, p priceLister, show int64, list string, adult booking.Money) {
	t.Helper()
	entry := booking.PriceEntry{PriceKey: booking.PriceKey{List: list, Type: "adult", Kind: booking.Standard}, Amount: adult}
	if err := p.SetPriceEntry(e.ctx, manager, entry); err != nil {
		t.Fatal(err)
	}
	if err := p.SetShowPriceList(e.ctx, manager, show, list); err != nil {
		t.Fatal(err)
	}
}

// sellOn sells seats of show by card.
func (e *env) sellOn(t *testing.T, show int64, owner string, seats ...string) *booking.Booking {
	t.Helper()
	h := e.holdOn(t, show, owner, seats...)
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: "k-" + owner + fmt.Sprint(h.ID), Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// holdOn holds seats of show for owner.
func (e *env) holdOn(t *testing.T, show int64, owner string, seats ...string) *booking.Hold {
	t.Helper()
	h, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: show, Seats: seats, Owner: owner})
	if err != nil {
		t.Fatalf("hold %v of show %d: %v", seats, show, err)
	}
	return h
}

// sold is show's sold seats as the store counts them.
func (e *env) sold(t *testing.T, show int64) int {
	t.Helper()
	sh, err := e.s.Show(e.ctx, clerk, show)
	if err != nil {
		t.Fatal(err)
	}
	return sh.Sold
}

// exchangeDearer: one ticket to a dearer show charges the difference (one
// sale payment of it on the new booking); the same key again answers with
// the same exchange; a difference changed since the clerk saw it is
// refused; the takings count the moved ticket once; the old code is
// refused at the door as exchanged while the new one admits.
func exchangeDearer(t *testing.T, e *env) {
	x := need[exchanger](t, e, needExchange)
	p := need[priceLister](t, e, needPriceLists)
	priceShow(t, e, p, 2, "evening", 15_00)
	b := e.sellCash(t, clerk, "a", "A1", "A2")
	oldCode := b.Tickets[0].Code
	req := booking.ExchangeRequest{Number: b.Number, Tickets: []string{oldCode}, ToShow: 2, Seats: []string{"e5"},
		IdempotencyKey: "x1", Method: booking.Card, ExpectedDifference: 2_50, CheckDifference: true}
	res, err := x.Exchange(e.ctx, clerk, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Difference != 2_50 || res.Credit != 12_50 || res.To.Show.ID != 2 || res.To.Total != 15_00 || res.To.ExchangedFrom != b.Number {
		t.Fatalf("exchange %+v", res)
	}
	if f := res.From; f.Status != booking.BookingConfirmed || f.Tickets[0].Status != booking.TicketVoid || f.Tickets[0].ExchangedTo != res.To.Number ||
		f.Tickets[1].Status != booking.TicketIssued {
		t.Fatalf("old booking after: %+v", f)
	}
	if p := res.To.Payments; len(p) != 1 || p[0].Kind != booking.PaymentSale || p[0].Method != booking.Card || p[0].Amount != 2_50 {
		t.Fatalf("new booking's payments: %+v", p)
	}
	again, err := x.Exchange(e.ctx, clerk, req)
	if err != nil || again.To.Number != res.To.Number {
		t.Fatalf("the key again: %+v, %v", again, err)
	}
	if e.sold(t, 1) != 1 || e.sold(t, 2) != 1 {
		t.Fatalf("sold %d and %d, want 1 on each show", e.sold(t, 1), e.sold(t, 2))
	}
	if a, ok := e.s.(auditor); ok {
		rows, err := a.Audit(e.ctx, manager, booking.AuditQuery{Booking: b.Number})
		if err != nil {
			t.Fatal(err)
		}
		want := b.Number + " A1 → " + res.To.Number + " E5, difference +2.50"
		if !slices.ContainsFunc(rows, func(r booking.AuditEntry) bool {
			return r.Action == booking.AuditExchange && r.Amount == 2_50 && r.Detail == want
		}) {
			t.Fatalf("no exchange row %q in %+v", want, rows)
		}
	}
	if r, ok := e.s.(takings); ok {
		now := e.clock.Now()
		rep, err := r.ReportTakings(e.ctx, manager, booking.TakingsQuery{ReportRange: booking.ReportRange{From: now, To: now}, By: booking.ByMethod})
		if err != nil || rep.Total.Sales != 25_00+2_50 || rep.Total.Tickets != 2 {
			t.Fatalf("takings after the exchange: %+v %v, want 27.50 over 2 tickets", rep, err)
		}
	}
	// Prices moved since the clerk saw the difference: refused, nothing moves.
	entry := booking.PriceEntry{PriceKey: booking.PriceKey{List: "evening", Type: "adult", Kind: booking.Standard}, Amount: 16_00}
	if err := p.SetPriceEntry(e.ctx, manager, entry); err != nil {
		t.Fatal(err)
	}
	req.IdempotencyKey, req.Tickets, req.Seats = "x2", []string{"A2"}, []string{"E6"}
	_, err = x.Exchange(e.ctx, clerk, req)
	wantCode(t, "a difference changed", err, booking.EConflict)
	wantMessage(t, "a difference changed", err, "Prices changed: the difference is now +3.50.")
	if e.sold(t, 2) != 1 {
		t.Fatalf("a refused exchange sold %d on show 2", e.sold(t, 2))
	}
	if d, ok := e.s.(admitter); ok {
		e.clock.Set(e.show.Starts.Add(-time.Hour))
		_, err := d.Admit(e.ctx, door, oldCode)
		wantCode(t, "the old code at the door", err, booking.EConflict)
		if !strings.HasPrefix(booking.ErrorMessage(err), "This ticket was exchanged for one in "+res.To.Number) {
			t.Fatalf("the old code at the door: %v", err)
		}
		if _, err := d.Admit(e.ctx, door, res.From.Tickets[1].Code); err != nil {
			t.Fatalf("the ticket not exchanged: %v", err)
		}
		e.clock.Set(res.To.Show.Starts.Add(-time.Hour))
		a, err := d.Admit(e.ctx, door, res.To.Tickets[0].Code)
		if err != nil || a.Booking != res.To.Number || a.Ticket.Seat.Label != "E5" {
			t.Fatalf("the new code at the door: %+v %v", a, err)
		}
	}
	e.whole(t)
}

// exchangeCheaper: an exchange that pays money back needs what a refund
// needs. A clerk alone is refused and nothing moves; with a supervisor's
// PIN typed at the clerk's counter it goes through, paid back in cash
// out of the clerk's drawer and recorded as approved; a supervisor needs
// no one. Moving the whole booking cancels it, saying where it went, and
// the new booking refunds at its own prices: what was paid, no more.
func exchangeCheaper(t *testing.T, e *env) {
	x := need[exchanger](t, e, needExchange)
	r := need[refunder](t, e, needRefund)
	sh := need[booking.Shifts](t, e, needShifts)
	p := need[priceLister](t, e, needPriceLists)
	priceShow(t, e, p, 2, "matinee", 10_00)
	b := e.sellCash(t, clerk, "a", "A1", "A2")
	req := booking.ExchangeRequest{Number: b.Number, ToShow: 2, Seats: []string{"C1", "C2"}, IdempotencyKey: strings.Repeat("x", booking.MaxIdempotencyKey), Method: booking.Cash}
	_, err := x.Exchange(e.ctx, clerk, req)
	wantCode(t, "a clerk paying money back", err, booking.EForbidden)
	wantMessage(t, "a clerk paying money back", err, "This exchange pays 5.00 back: a supervisor must approve it.")
	if e.sold(t, 2) != 0 || e.sold(t, 1) != 2 {
		t.Fatalf("a refused exchange moved seats: %d and %d sold", e.sold(t, 1), e.sold(t, 2))
	}
	req.Approver = &booking.Credentials{Name: "sue", PIN: "1234"}
	res, err := x.Exchange(e.ctx, clerk, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Difference != -5_00 || res.From.Status != booking.BookingCancelled || res.From.Reason != "exchanged for "+res.To.Number {
		t.Fatalf("exchange %+v, from %+v", res, res.From)
	}
	carl, err := sh.CurrentShift(e.ctx, clerk)
	if err != nil {
		t.Fatal(err)
	}
	pay := res.To.Payments
	if len(pay) != 2 || pay[0].Kind != booking.PaymentSale || pay[0].Amount != 0 || pay[1].Kind != booking.PaymentRefund || pay[1].Amount != 5_00 ||
		pay[1].ShiftID != carl.ID || pay[1].Staff != "carl" || pay[1].ApprovedBy != "sue" {
		t.Fatalf("payments %+v, carl's shift %d", pay, carl.ID)
	}
	if x, err := sh.ShiftReport(e.ctx, clerk, carl.ID); err != nil || x.Expected != Float+25_00-5_00 {
		t.Fatalf("carl's drawer expects %+v %v", x, err)
	}
	if a, ok := e.s.(auditor); ok {
		rows, err := a.Audit(e.ctx, manager, booking.AuditQuery{Limit: booking.MaxAuditLimit})
		if err != nil {
			t.Fatal(err)
		}
		want := "exchange of " + b.Number + " by carl"
		if !slices.ContainsFunc(rows, func(r booking.AuditEntry) bool {
			return r.Action == booking.AuditOverride && strings.Contains(r.Detail, want)
		}) {
			t.Fatalf("no approval %q in the trail", want)
		}
	}
	e.counts(t, 0, 0)
	if e.sold(t, 2) != 2 {
		t.Fatalf("show 2 sold %d, want 2", e.sold(t, 2))
	}
	got, err := r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: res.To.Number})
	if err != nil || got.Status != booking.BookingCancelled {
		t.Fatalf("cancel of the new booking: %+v %v", got, err)
	}
	// 5.00 back at the exchange and 2 x 10.00 now: the 25.00 paid.
	if n, back := refunds(got); n != 3 || back != b.Total {
		t.Fatalf("%d refunds of %s, want 3 of the %s paid", n, back, b.Total)
	}
	// A supervisor pays back out of their own drawer, approved by no one.
	b2 := e.sellCash(t, clerk, "b", "B1")
	res, err = x.Exchange(e.ctx, supervisor, booking.ExchangeRequest{Number: b2.Number, ToShow: 2, Seats: []string{"D1"}, IdempotencyKey: "sue", Method: booking.Cash})
	if err != nil {
		t.Fatal(err)
	}
	sue, err := sh.CurrentShift(e.ctx, supervisor)
	if err != nil {
		t.Fatal(err)
	}
	if pay := res.To.Payments; res.Difference != -2_50 || len(pay) != 2 || pay[1].ShiftID != sue.ID || pay[1].ApprovedBy != "" {
		t.Fatalf("a supervisor's exchange: %+v, payments %+v", res, pay)
	}
	e.whole(t)
}

// exchangeOverlapping: a clerk moves a party along its own row at the
// same price: seats the party already has may be among the new ones.
func exchangeOverlapping(t *testing.T, e *env) {
	x := need[exchanger](t, e, needExchange)
	b := e.sell(t, "a", "A1", "A2")
	res, err := x.Exchange(e.ctx, clerk, booking.ExchangeRequest{Number: b.Number, Seats: []string{"A2", "A3"}, IdempotencyKey: "x", Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	if res.Difference != 0 || strings.Join(res.To.SeatLabels(), " ") != "A2 A3" || res.To.Show.ID != e.show.ID {
		t.Fatalf("exchange %+v", res)
	}
	for label, want := range map[string]booking.SeatState{"A1": booking.SeatFree, "A2": booking.SeatSold, "A3": booking.SeatSold, "A4": booking.SeatFree} {
		if st := e.state(t, "", label); st != want {
			t.Errorf("%s is %v, want %v", label, st, want)
		}
	}
	e.counts(t, 2, 0)
}

// exchangeOncePerKey: the same key twelve times at once exchanges once
// and answers each with the one new booking; a new key on the booking the
// exchange emptied is refused as stale.
func exchangeOncePerKey(t *testing.T, e *env) {
	x := need[exchanger](t, e, needExchange)
	b := e.sell(t, "a", "A1")
	req := booking.ExchangeRequest{Number: b.Number, ToShow: 3, Seats: []string{"B5"}, IdempotencyKey: "once", Method: booking.Card}
	var wg sync.WaitGroup
	got := make([]string, 12)
	for i := range got {
		wg.Go(func() {
			res, err := x.Exchange(e.ctx, clerk, req)
			if err != nil {
				got[i] = err.Error()
				return
			}
			got[i] = res.To.Number
		})
	}
	wg.Wait()
	for _, n := range got {
		if n != got[0] || !strings.HasPrefix(n, "BO-") {
			t.Fatalf("answers %q", got)
		}
	}
	if e.sold(t, 3) != 1 {
		t.Fatalf("show 3 sold %d after one exchange", e.sold(t, 3))
	}
	req.IdempotencyKey = "again"
	if _, err := x.Exchange(e.ctx, clerk, req); !errors.Is(err, booking.ErrStaleStatus) {
		t.Fatalf("exchanging a cancelled booking: %v", err)
	}
	e.counts(t, 0, 0)
}

// exchangeRefusals, each before anything moves: a seat taken (saying
// what is free next to it), a ticket of another booking, a seat too many,
// the door, an admitted ticket, and a show that started without a
// manager, who may.
func exchangeRefusals(t *testing.T, e *env) {
	x := need[exchanger](t, e, needExchange)
	d := need[admitter](t, e, "Admit (booking.Door)")
	b := e.sell(t, "a", "A1", "A2")
	other := e.sell(t, "b", "F5")
	e.sellOn(t, 3, "c", "G7")
	key := 0
	try := func(actor booking.Actor, req booking.ExchangeRequest) error {
		key++
		req.Number, req.IdempotencyKey, req.Method = b.Number, fmt.Sprint("k", key), booking.Card
		_, err := x.Exchange(e.ctx, actor, req)
		return err
	}
	taken := seatsTaken(t, "a taken seat", try(clerk, booking.ExchangeRequest{ToShow: 3, Tickets: []string{"A1"}, Seats: []string{"G7"}}))
	if taken.Taken[0].Label != "G7" || len(taken.Suggestions) == 0 || taken.OutOfSale {
		t.Fatalf("a taken seat: %+v", taken)
	}
	err := try(clerk, booking.ExchangeRequest{Tickets: []string{other.Tickets[0].Code}, Seats: []string{"B1"}})
	wantCode(t, "another booking's ticket", err, booking.EInvalid)
	wantMessage(t, "another booking's ticket", err, other.Tickets[0].Code+" is not a ticket of "+b.Number+".")
	wantCode(t, "two seats for one ticket", try(clerk, booking.ExchangeRequest{Tickets: []string{"A1"}, Seats: []string{"B1", "B2"}}), booking.EInvalid)
	wantCode(t, "the door exchanging", try(door, booking.ExchangeRequest{Seats: []string{"B1", "B2"}}), booking.EForbidden)
	e.clock.Set(e.show.Starts.Add(-time.Hour))
	if _, err := d.Admit(e.ctx, door, b.Tickets[0].Code); err != nil {
		t.Fatal(err)
	}
	err = try(clerk, booking.ExchangeRequest{ToShow: 3, Seats: []string{"B1", "B2"}})
	wantCode(t, "a booking with an admitted ticket", err, booking.EConflict)
	wantMessage(t, "a booking with an admitted ticket", err, "The ticket for A1 was already admitted; it cannot be exchanged.")
	e.clock.Set(e.show.Starts.Add(time.Minute))
	wantCode(t, "a supervisor after the start", try(supervisor, booking.ExchangeRequest{ToShow: 3, Tickets: []string{"A2"}, Seats: []string{"B2"}}), booking.EForbidden)
	if n := e.sold(t, 3); n != 1 {
		t.Fatalf("refusals left %d sold on show 3", n)
	}
	if err := try(clerk, booking.ExchangeRequest{ToShow: 3, Tickets: []string{"A2"}, Seats: []string{"B2"}, Approver: &booking.Credentials{Name: "mgr", PIN: "1234"}}); err != nil {
		t.Fatalf("approved by a manager after the start: %v", err)
	}
	e.whole(t)
}

// exchangeOutOfSale: a new seat kept out of sale is refused as a hold
// refuses it, saying so, and never suggested.
func exchangeOutOfSale(t *testing.T, e *env) {
	x := need[exchanger](t, e, needExchange)
	if _, err := e.blocks(t).BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: 2, Seats: []string{"H9"}, Kind: booking.BlockBlocked, Reason: "broken"}); err != nil {
		t.Fatal(err)
	}
	b := e.sell(t, "a", "A1")
	_, err := x.Exchange(e.ctx, clerk, booking.ExchangeRequest{Number: b.Number, ToShow: 2, Seats: []string{"H9"}, IdempotencyKey: "x", Method: booking.Card})
	taken := seatsTaken(t, "a blocked seat", err)
	if len(taken.Taken) != 1 || taken.Taken[0].Label != "H9" || !taken.OutOfSale {
		t.Fatalf("a blocked seat: %+v", taken)
	}
	for _, block := range taken.Suggestions {
		for _, seat := range block {
			if seat.Label == "H9" {
				t.Fatalf("the blocked seat suggested: %+v", taken.Suggestions)
			}
		}
	}
	if e.sold(t, 2) != 0 {
		t.Fatalf("a refused exchange sold %d", e.sold(t, 2))
	}
	e.whole(t)
}

// exchangeFromHold: seats picked on a counter's map are held by it: the
// exchange takes them from that hold in its own transaction and lets the
// hold go, and another owner's hold still clashes.
func exchangeFromHold(t *testing.T, e *env) {
	x := need[exchanger](t, e, needExchange)
	b := e.sell(t, "a", "A1", "A2")
	mine := e.holdOn(t, 2, "counter-1", "H5", "H6")
	e.holdOn(t, 2, "counter-2", "H8")
	_, err := x.Exchange(e.ctx, clerk, booking.ExchangeRequest{Number: b.Number, ToShow: 2, Seats: []string{"H7", "H8"}, IdempotencyKey: "x0",
		Method: booking.Card, HoldID: mine.ID, Owner: "counter-1"})
	if taken := seatsTaken(t, "another counter's hold", err); taken.Taken[0].Label != "H8" {
		t.Fatalf("another counter's hold: %+v", taken)
	}
	res, err := x.Exchange(e.ctx, clerk, booking.ExchangeRequest{Number: b.Number, ToShow: 2, Seats: []string{"H5", "H6"}, IdempotencyKey: "x1",
		Method: booking.Card, HoldID: mine.ID, Owner: "counter-1"})
	if err != nil || strings.Join(res.To.SeatLabels(), " ") != "H5 H6" {
		t.Fatalf("exchange %+v %v", res, err)
	}
	_, err = e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: mine.ID, Owner: "counter-1", IdempotencyKey: "late", Method: booking.Card})
	wantCode(t, "the counter's hold after the exchange", err, booking.EExpired)
	sh, err := e.s.Show(e.ctx, clerk, 2)
	if err != nil || sh.Sold != 2 || sh.Held != 1 {
		t.Fatalf("show 2 after: %+v %v", sh, err)
	}
	e.whole(t)
}

// exchangeSamePrice: a same-price exchange moves no cash and needs no
// open shift; a dearer one paid in cash does (ErrNoShift), nothing moves,
// and with a float it opens the drawer in the same transaction.
func exchangeSamePrice(t *testing.T, e *env) {
	x := need[exchanger](t, e, needExchange)
	sh := need[booking.Shifts](t, e, needShifts)
	p := need[priceLister](t, e, needPriceLists)
	b := e.sell(t, "a", "A1")
	closeShift(t, sh, e, clerk)
	res, err := x.Exchange(e.ctx, clerk, booking.ExchangeRequest{Number: b.Number, Seats: []string{"B1"}, IdempotencyKey: "x1", Method: booking.Cash})
	if err != nil {
		t.Fatal(err)
	}
	if pay := res.To.Payments; len(pay) != 1 || pay[0].Method != booking.Cash || pay[0].Amount != 0 || pay[0].ShiftID != 0 {
		t.Fatalf("payments %+v", pay)
	}
	priceShow(t, e, p, e.show.ID, "evening", 15_00)
	req := booking.ExchangeRequest{Number: res.To.Number, Seats: []string{"C1"}, IdempotencyKey: "x2", Method: booking.Cash, Tendered: 5_00}
	if _, err := x.Exchange(e.ctx, clerk, req); !booking.IsNoShift(err) {
		t.Fatalf("a dearer cash exchange without a shift: %v", err)
	}
	if _, err := sh.CurrentShift(e.ctx, clerk); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("a refused exchange opened a shift: %v", err)
	}
	e.counts(t, 1, 0)
	float := booking.Money(40_00)
	req.OpenFloat = &float
	res, err = x.Exchange(e.ctx, clerk, req)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := sh.CurrentShift(e.ctx, clerk)
	if pay := res.To.Payments; err != nil || cur.Float != float || len(pay) != 1 || pay[0].Amount != 2_50 || pay[0].ShiftID != cur.ID || pay[0].Change != 2_50 {
		t.Fatalf("shift %+v %v, payments %+v", cur, err, res.To.Payments)
	}
	e.counts(t, 1, 0)
}

// exchangeRaceForOneSeat: eight bookings exchanged at once onto the same
// seat: exactly one gets it, the others meet the clash with what is free
// next to it and keep their tickets.
func exchangeRaceForOneSeat(t *testing.T, e *env) {
	x := need[exchanger](t, e, needExchange)
	c := need[canceller](t, e, "Booking (booking.Bookings)")
	var numbers []string
	for i := range 8 {
		numbers = append(numbers, e.sell(t, fmt.Sprint("r", i), fmt.Sprintf("C%d", i+1)).Number)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(numbers))
	for i, n := range numbers {
		wg.Go(func() {
			_, errs[i] = x.Exchange(e.ctx, clerk, booking.ExchangeRequest{Number: n, ToShow: 2, Seats: []string{"G7"}, IdempotencyKey: "race-" + n, Method: booking.Card})
		})
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		var clash *booking.SeatsTakenError
		switch {
		case err == nil:
			won++
		case errors.As(err, &clash) && len(clash.Suggestions) > 0:
			b, err := c.Booking(e.ctx, clerk, numbers[i])
			if err != nil || b.Status != booking.BookingConfirmed || b.Tickets[0].Status != booking.TicketIssued {
				t.Fatalf("a loser's booking changed: %+v %v", b, err)
			}
		default:
			t.Fatalf("exchange %d: %v", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d exchanges got G7", won)
	}
	e.counts(t, 7, 0)
	if e.sold(t, 2) != 1 {
		t.Fatalf("show 2 sold %d", e.sold(t, 2))
	}
}

// exchangeOneBookingTwice: two exchanges of one booking at once to
// different seats: one exchange, the other told the booking or its
// ticket changed; with one key, both answer with the same exchange.
func exchangeOneBookingTwice(t *testing.T, e *env) {
	x := need[exchanger](t, e, needExchange)
	for round := range 3 {
		for _, sameKey := range []bool{false, true} {
			own := fmt.Sprintf("A%d", 2*round+1)
			if sameKey {
				own = fmt.Sprintf("A%d", 2*round+2)
			}
			sold := e.sell(t, own, own)
			var wg sync.WaitGroup
			res := make([]*booking.ExchangeResult, 2)
			errs := make([]error, 2)
			for i := range 2 {
				wg.Go(func() {
					key, seat := fmt.Sprintf("r%d-%d", round, i), fmt.Sprintf("B%d", 2*round+i+1)
					if sameKey {
						key, seat = fmt.Sprintf("r%d-same", round), fmt.Sprintf("C%d", round+1)
					}
					res[i], errs[i] = x.Exchange(e.ctx, clerk, booking.ExchangeRequest{Number: sold.Number, Seats: []string{seat}, IdempotencyKey: key, Method: booking.Card})
				})
			}
			wg.Wait()
			if sameKey {
				if errs[0] != nil || errs[1] != nil || res[0].To.Number != res[1].To.Number {
					t.Fatalf("round %d, one key: %v, %v", round, errs[0], errs[1])
				}
				continue
			}
			won := 0
			for _, err := range errs {
				var stale *booking.StaleError
				switch {
				case err == nil:
					won++
				case !errors.As(err, &stale):
					t.Fatalf("round %d: the losing exchange: %v", round, err)
				}
			}
			if won != 1 {
				t.Fatalf("round %d: %d exchanges of one booking won", round, won)
			}
		}
	}
	e.counts(t, 6, 0)
}
