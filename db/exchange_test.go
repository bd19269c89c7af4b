package db_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// priceShow puts show on list, where an adult standard seat costs adult.
func priceShow(tb testing.TB, s *db.Store, show int64, list string, adult booking.Money) {
	tb.Helper()
	ctx := context.Background()
	e := booking.PriceEntry{PriceKey: booking.PriceKey{List: list, Type: "adult", Kind: booking.Standard}, Amount: adult}
	if err := s.SetPriceEntry(ctx, storetest.Manager, e); err != nil {
		tb.Fatal(err)
	}
	if err := s.SetShowPriceList(ctx, storetest.Manager, show, list); err != nil {
		tb.Fatal(err)
	}
}

// soldClaims counts a show's sold claims straight from the file.
func soldClaims(tb testing.TB, path string, show int64) (claims, sold int) {
	tb.Helper()
	raw := openRaw(tb, path)
	if err := raw.QueryRow(`SELECT (SELECT count(*) FROM seat_claims WHERE show_id = ? AND status = 'sold'), (SELECT sold FROM shows WHERE id = ?)`, show, show).Scan(&claims, &sold); err != nil {
		tb.Fatal(err)
	}
	return claims, sold
}

// An exchange of one ticket to a dearer show charges the difference (one
// sale payment of it on the new booking), the old code is refused at the
// door as exchanged while the new one admits, and both shows' sold counts
// stay equal to their claims.
func TestExchange_DearerShowChargesTheDifference(t *testing.T) {
	ctx := context.Background()
	clock := storetest.FixedClock()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1, Clock: clock.Now})
	first := firstShow(t, s)
	priceShow(t, s, 2, "evening", 15_00)
	b, err := sellCash(t, s, clerk, first.ID, "a", nil, "A1", "A2")
	if err != nil {
		t.Fatal(err)
	}
	oldCode := b.Tickets[0].Code
	res, err := s.Exchange(ctx, clerk, booking.ExchangeRequest{Number: b.Number, Tickets: []string{oldCode}, ToShow: 2, Seats: []string{"e5"},
		IdempotencyKey: "x1", Method: booking.Card, ExpectedDifference: 2_50, CheckDifference: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Difference != 2_50 || res.Credit != 12_50 || res.To.Show.ID != 2 || res.To.Total != 15_00 || res.To.ExchangedFrom != b.Number {
		t.Fatalf("exchange %+v", res)
	}
	if res.From.Status != booking.BookingConfirmed || res.From.Tickets[0].Status != booking.TicketVoid || res.From.Tickets[0].ExchangedTo != res.To.Number {
		t.Fatalf("old booking after: %+v", res.From)
	}
	raw := openRaw(t, path)
	var kind, method string
	var amount booking.Money
	var n int
	if err := raw.QueryRow(`SELECT count(*), kind, method, amount FROM payments WHERE booking_id = ?`, res.To.ID).Scan(&n, &kind, &method, &amount); err != nil {
		t.Fatal(err)
	}
	if n != 1 || kind != "sale" || method != "card" || amount != 2_50 {
		t.Fatalf("new booking's payments: %d %s %s %s; want one card sale of 2.50", n, kind, method, amount.String())
	}
	for _, show := range []int64{first.ID, 2} {
		if claims, sold := soldClaims(t, path, show); claims != 1 || sold != 1 {
			t.Fatalf("show %d: %d sold claims, sold count %d", show, claims, sold)
		}
	}
	dbtest.MustBeWhole(t, s)

	// The takings: both payments' money, and the two tickets sold once —
	// the moved one was counted with the sale it came from.
	rep, err := s.ReportTakings(ctx, storetest.Manager, booking.TakingsQuery{ReportRange: booking.ReportRange{From: clock.Now(), To: clock.Now()}, By: booking.ByMethod})
	if err != nil {
		t.Fatal(err)
	}
	var sales booking.Money
	var tickets int
	for _, r := range rep.Rows {
		sales, tickets = sales+r.Sales, tickets+r.Tickets
	}
	if sales != 25_00+2_50 || tickets != 2 {
		t.Fatalf("takings after the exchange: %s over %d tickets, want 27.50 over 2", sales.String(), tickets)
	}

	// The door: the first show's doors are open now.
	clock.Set(first.Starts.Add(-time.Hour))
	if _, err := s.Admit(ctx, storetest.Door, oldCode); booking.ErrorCode(err) != booking.EConflict || !strings.Contains(booking.ErrorMessage(err), "This ticket was exchanged") {
		t.Fatalf("old code at the door: %v", err)
	}
	if _, err := s.Admit(ctx, storetest.Door, res.From.Tickets[1].Code); err != nil {
		t.Fatalf("the ticket not exchanged: %v", err)
	}
	clock.Set(res.To.Show.Starts.Add(-time.Hour))
	a, err := s.Admit(ctx, storetest.Door, res.To.Tickets[0].Code)
	if err != nil || a.Booking != res.To.Number || a.Ticket.Seat.Label != "E5" {
		t.Fatalf("new code at the door: %+v %v", a, err)
	}
	dbtest.MustBeWhole(t, s)
}

// A cheaper exchange pays money back: a clerk alone is refused and nothing
// moves; a supervisor's pays the difference back in cash out of their
// shift, and moving the whole booking cancels the old one.
func TestExchange_CheaperNeedsASupervisor(t *testing.T) {
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	priceShow(t, s, 2, "matinee", 10_00)
	b, err := sellCash(t, s, clerk, 1, "a", nil, "A1", "A2")
	if err != nil {
		t.Fatal(err)
	}
	req := booking.ExchangeRequest{Number: b.Number, ToShow: 2, Seats: []string{"C1", "C2"}, IdempotencyKey: "x", Method: booking.Cash}
	if _, err := s.Exchange(ctx, clerk, req); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a clerk paying money back: %v", err)
	}
	if claims, _ := soldClaims(t, path, 2); claims != 0 {
		t.Fatalf("a refused exchange left %d claims", claims)
	}
	before, _ := s.CurrentShift(ctx, supervisor)
	res, err := s.Exchange(ctx, supervisor, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Difference != -5_00 || res.From.Status != booking.BookingCancelled || !strings.Contains(res.From.Reason, res.To.Number) {
		t.Fatalf("exchange %+v, from %+v", res, res.From)
	}
	p := res.To.Payments
	if len(p) != 2 || p[0].Kind != booking.PaymentSale || p[0].Amount != 0 || p[1].Kind != booking.PaymentRefund || p[1].Amount != 5_00 || p[1].ShiftID != before.ID {
		t.Fatalf("payments %+v", p)
	}
	r, err := s.ShiftReport(ctx, supervisor, before.ID)
	if err != nil || r.Expected != storetest.Float-5_00 {
		t.Fatalf("sue's drawer expects %+v %v", r, err)
	}
	if claims, sold := soldClaims(t, path, 1); claims != 0 || sold != 0 {
		t.Fatalf("show 1 after: %d claims, %d sold", claims, sold)
	}
	dbtest.MustBeWhole(t, s)
	// The new booking refunds at its own prices, and stays whole.
	if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: res.To.Number}); err != nil {
		t.Fatal(err)
	}
	dbtest.MustBeWhole(t, s)
}

// A clerk moves a party along its own row at the same price: seats the
// party already has may be among the new ones.
func TestExchange_SameShowOverlappingSeats(t *testing.T) {
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	b := mustSell(t, s, 1, "a", "A1", "A2")
	res, err := s.Exchange(ctx, clerk, booking.ExchangeRequest{Number: b.Number, Seats: []string{"A2", "A3"}, IdempotencyKey: "x", Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	if res.Difference != 0 || strings.Join(res.To.SeatLabels(), " ") != "A2 A3" || res.To.Show.ID != 1 {
		t.Fatalf("exchange %+v", res)
	}
	m, _ := s.SeatMap(ctx, clerk, 1, "")
	for _, seat := range m.Hall.Seats[:4] {
		want := map[string]booking.SeatState{"A1": booking.SeatFree, "A2": booking.SeatSold, "A3": booking.SeatSold, "A4": booking.SeatFree}[seat.Label]
		if m.State(seat.ID) != want {
			t.Errorf("%s is %v", seat.Label, m.State(seat.ID))
		}
	}
	if claims, sold := soldClaims(t, path, 1); claims != 2 || sold != 2 {
		t.Fatalf("%d claims, %d sold", claims, sold)
	}
	dbtest.MustBeWhole(t, s)
}

// The same key again, one after another or twelve at once, exchanges
// once and answers with the one new booking.
func TestExchange_OncePerKey(t *testing.T) {
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	b := mustSell(t, s, 1, "a", "A1")
	req := booking.ExchangeRequest{Number: b.Number, ToShow: 3, Seats: []string{"B5"}, IdempotencyKey: "once", Method: booking.Card}
	var wg sync.WaitGroup
	got := make([]string, 12)
	for i := range got {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res, err := s.Exchange(ctx, clerk, req)
			if err != nil {
				got[i] = err.Error()
				return
			}
			got[i] = res.To.Number
		}(i)
	}
	wg.Wait()
	for _, n := range got {
		if n != got[0] || !strings.HasPrefix(n, "BO-") {
			t.Fatalf("answers %q", got)
		}
	}
	var n int
	openRaw(t, path).QueryRow(`SELECT count(*) FROM exchanges`).Scan(&n)
	if n != 1 {
		t.Fatalf("%d exchanges", n)
	}
	// A new key on the cancelled booking is refused as stale.
	req.IdempotencyKey = "again"
	if _, err := s.Exchange(ctx, clerk, req); !errors.Is(err, booking.ErrStaleStatus) {
		t.Fatalf("exchanging a cancelled booking: %v", err)
	}
	dbtest.MustBeWhole(t, s)
}

// Refusals, each before anything moves: an admitted ticket, a seat taken
// (saying what is free next to it), a ticket of another booking, and a
// show that started without a manager.
func TestExchange_Refusals(t *testing.T) {
	ctx := context.Background()
	clock := storetest.FixedClock()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1, Clock: clock.Now})
	b := mustSell(t, s, 1, "a", "A1", "A2")
	other := mustSell(t, s, 1, "b", "F5")
	taken := mustSell(t, s, 3, "c", "G7")
	key := 0
	try := func(actor booking.Actor, req booking.ExchangeRequest) error {
		key++
		req.Number, req.IdempotencyKey, req.Method = b.Number, fmt.Sprint("k", key), booking.Card
		_, err := s.Exchange(ctx, actor, req)
		return err
	}
	var clash *booking.SeatsTakenError
	if err := try(clerk, booking.ExchangeRequest{ToShow: 3, Tickets: []string{"A1"}, Seats: []string{"G7"}}); !errors.As(err, &clash) || clash.Taken[0].Label != "G7" || len(clash.Suggestions) == 0 {
		t.Fatalf("a taken seat: %v", err)
	}
	if err := try(clerk, booking.ExchangeRequest{Tickets: []string{other.Tickets[0].Code}, Seats: []string{"B1"}}); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("another booking's ticket: %v", err)
	}
	if err := try(clerk, booking.ExchangeRequest{Tickets: []string{"A1"}, Seats: []string{"B1", "B2"}}); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("two seats for one ticket: %v", err)
	}
	if err := try(booking.Actor{Name: "dora", Role: booking.RoleDoor}, booking.ExchangeRequest{Seats: []string{"B1", "B2"}}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("the door exchanging: %v", err)
	}
	clock.Set(firstShow(t, s).Starts.Add(-time.Hour))
	if _, err := s.Admit(ctx, storetest.Door, b.Tickets[0].Code); err != nil {
		t.Fatal(err)
	}
	if err := try(clerk, booking.ExchangeRequest{ToShow: 3, Seats: []string{"B1", "B2"}}); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("a booking with an admitted ticket: %v", err)
	}
	clock.Set(firstShow(t, s).Starts.Add(time.Minute))
	if err := try(supervisor, booking.ExchangeRequest{ToShow: 3, Tickets: []string{"A2"}, Seats: []string{"B2"}}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a supervisor after the start: %v", err)
	}
	if claims, sold := soldClaims(t, path, 3); claims != 1 || sold != 1 {
		t.Fatalf("refusals left %d claims, %d sold on show 3 (%s)", claims, sold, taken.Number)
	}
	if err := try(clerk, booking.ExchangeRequest{ToShow: 3, Tickets: []string{"A2"}, Seats: []string{"B2"}, Approver: &booking.Credentials{Name: "mgr", PIN: "1234"}}); err != nil {
		t.Fatalf("approved by a manager after the start: %v", err)
	}
	dbtest.MustBeWhole(t, s)
}

// Seats picked on a counter's map are held by it: the exchange takes them
// from that hold in its own transaction, and another owner's hold still
// clashes.
func TestExchange_FromTheCountersHold(t *testing.T) {
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	b := mustSell(t, s, 1, "a", "A1", "A2")
	mine := mustHold(t, s, 2, "counter-1", "H5", "H6")
	mustHold(t, s, 2, "counter-2", "H8")
	var clash *booking.SeatsTakenError
	if _, err := s.Exchange(ctx, clerk, booking.ExchangeRequest{Number: b.Number, ToShow: 2, Seats: []string{"H7", "H8"}, IdempotencyKey: "x0",
		Method: booking.Card, HoldID: mine.ID, Owner: "counter-1"}); !errors.As(err, &clash) || clash.Taken[0].Label != "H8" {
		t.Fatalf("another counter's hold: %v", err)
	}
	res, err := s.Exchange(ctx, clerk, booking.ExchangeRequest{Number: b.Number, ToShow: 2, Seats: []string{"H5", "H6"}, IdempotencyKey: "x1",
		Method: booking.Card, HoldID: mine.ID, Owner: "counter-1"})
	if err != nil {
		t.Fatal(err)
	}
	var status string
	openRaw(t, path).QueryRow(`SELECT status FROM holds WHERE id = ?`, mine.ID).Scan(&status)
	if strings.Join(res.To.SeatLabels(), " ") != "H5 H6" || status != "released" {
		t.Fatalf("exchange %v, the counter's hold %s", res.To.SeatLabels(), status)
	}
	dbtest.MustBeWhole(t, s)
}

// A same-price exchange moves no cash and needs no open shift; a dearer
// one paid in cash does (ErrNoShift), and nothing moves.
func TestExchange_SamePriceNeedsNoDrawer(t *testing.T) {
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	b := mustSell(t, s, 1, "a", "A1")
	dbtest.MustCloseShift(t, s, clerk)
	res, err := s.Exchange(ctx, clerk, booking.ExchangeRequest{Number: b.Number, Seats: []string{"B1"}, IdempotencyKey: "x1", Method: booking.Cash})
	if err != nil {
		t.Fatal(err)
	}
	if p := res.To.Payments; len(p) != 1 || p[0].Method != booking.Cash || p[0].Amount != 0 || p[0].ShiftID != 0 {
		t.Fatalf("payments %+v", p)
	}
	priceShow(t, s, 1, "evening", 15_00)
	if _, err := s.Exchange(ctx, clerk, booking.ExchangeRequest{Number: res.To.Number, Seats: []string{"C1"}, IdempotencyKey: "x2", Method: booking.Cash}); !booking.IsNoShift(err) {
		t.Fatalf("a dearer cash exchange without a shift: %v", err)
	}
	if claims, sold := soldClaims(t, path, 1); claims != 1 || sold != 1 {
		t.Fatalf("%d claims, %d sold", claims, sold)
	}
	dbtest.MustBeWhole(t, s)
}

// Eight bookings exchanged at once onto the same seat: exactly one gets
// it, the others meet the clash with what is free next to it and keep
// their tickets; the counts stay equal to the claims.
func TestExchange_RaceForOneSeat(t *testing.T) {
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	var numbers []string
	for i := range 8 {
		numbers = append(numbers, mustSell(t, s, 1, fmt.Sprint("r", i), fmt.Sprintf("C%d", i+1)).Number)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(numbers))
	for i, n := range numbers {
		wg.Add(1)
		go func(i int, n string) {
			defer wg.Done()
			_, errs[i] = s.Exchange(ctx, clerk, booking.ExchangeRequest{Number: n, ToShow: 2, Seats: []string{"G7"}, IdempotencyKey: "race-" + n, Method: booking.Card})
		}(i, n)
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		var clash *booking.SeatsTakenError
		switch {
		case err == nil:
			won++
		case errors.As(err, &clash) && len(clash.Suggestions) > 0:
			b, _ := s.Booking(ctx, clerk, numbers[i])
			if b.Status != booking.BookingConfirmed || b.Tickets[0].Status != booking.TicketIssued {
				t.Fatalf("a loser's booking changed: %+v", b)
			}
		default:
			t.Fatalf("exchange %d: %v", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d exchanges got G7", won)
	}
	for show, want := range map[int64]int{1: 7, 2: 1} {
		if claims, sold := soldClaims(t, path, show); claims != want || sold != want {
			t.Fatalf("show %d: %d claims, %d sold; want %d", show, claims, sold, want)
		}
	}
	dbtest.MustBeWhole(t, s)
}
