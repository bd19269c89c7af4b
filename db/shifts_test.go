package db_test

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
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// sellCash sells seats of show for cash by actor, with float to open a
// shift with when given.
func sellCash(tb testing.TB, s *db.Store, actor booking.Actor, show int64, owner string, float *booking.Money, seats ...string) (*booking.Booking, error) {
	tb.Helper()
	h, err := s.Hold(context.Background(), actor, booking.HoldRequest{ShowID: show, Seats: seats, Owner: owner})
	if err != nil {
		tb.Fatalf("hold %v: %v", seats, err)
	}
	return s.Checkout(context.Background(), actor, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: "cash-" + owner, Method: booking.Cash, OpenFloat: float})
}

func money(m booking.Money) *booking.Money { return &m }

// A cash sale by someone with no shift open is refused with ErrNoShift and
// writes nothing; with a float it opens the shift in the same transaction;
// a card sale needs no shift.
func TestShift_CashNeedsAShift(t *testing.T) {
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	dbtest.MustCloseShift(t, s, clerk)

	_, err := sellCash(t, s, clerk, show.ID, "a", nil, "A1")
	if !booking.IsNoShift(err) || booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("cash without a shift: %v", err)
	}
	raw := openRaw(t, path)
	var bookings, open int
	raw.QueryRow(`SELECT count(*) FROM bookings`).Scan(&bookings)
	raw.QueryRow(`SELECT count(*) FROM shifts WHERE staff = 'carl' AND status = 'open'`).Scan(&open)
	if bookings != 0 || open != 0 {
		t.Fatalf("a refused sale wrote %d bookings and %d shifts", bookings, open)
	}
	// The hold is still live: the same counter sells it once the float is in.
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"A2"}, Owner: "b"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "b", IdempotencyKey: "b", Method: booking.Cash, Tendered: 2000, OpenFloat: money(5000)})
	if err != nil {
		t.Fatal(err)
	}
	sh, err := s.CurrentShift(ctx, clerk)
	if err != nil || sh.Float != 5000 || b.Payments[0].ShiftID != sh.ID || b.Payments[0].Terminal != clerk.Terminal {
		t.Fatalf("shift %+v %v; payment %+v", sh, err, b.Payments[0])
	}
	// A float given when a shift is open is not a second shift.
	b2, err := sellCash(t, s, clerk, show.ID, "c", money(7000), "A3")
	if err != nil || b2.Payments[0].ShiftID != sh.ID {
		t.Fatalf("second sale: %v %+v", err, b2)
	}
	dbtest.MustCloseShift(t, s, clerk)
	card := mustSell(t, s, show.ID, "d", "A4")
	if card.Payments[0].ShiftID != 0 {
		t.Fatalf("a card sale with no shift open names shift %d", card.Payments[0].ShiftID)
	}
	dbtest.MustBeWhole(t, s)
}

// Migration 0014 refuses a cash payment without an open shift of its
// staff, whatever writes it.
func TestShift_TriggerRefusesCashWithoutShift(t *testing.T) {
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	b := mustSell(t, s, firstShow(t, s).ID, "a", "A1")
	sh, err := s.CurrentShift(context.Background(), clerk)
	if err != nil {
		t.Fatal(err)
	}
	raw := openRaw(t, path)
	insert := `INSERT INTO payments (booking_id, kind, method, amount, tendered, at, staff, shift_id) VALUES (?, 'sale', ?, 100, 100, 0, ?, ?)`
	for _, c := range []struct {
		method, staff string
		shift         any
		ok            bool
	}{
		{"cash", "carl", nil, false},
		{"cash", "sue", sh.ID, false}, // carl's shift, sue's payment
		{"cash", "carl", sh.ID + 1000, false},
		{"card", "carl", nil, true},
		{"cash", "CARL", sh.ID, true},
	} {
		_, err := raw.Exec(insert, b.ID, c.method, c.staff, c.shift)
		if (err == nil) != c.ok || (err != nil && !strings.Contains(err.Error(), "open shift")) {
			t.Errorf("%s by %s in shift %v: %v", c.method, c.staff, c.shift, err)
		}
	}
	dbtest.MustCloseShift(t, s, clerk)
	if _, err := raw.Exec(insert, b.ID, "cash", "carl", sh.ID); err == nil {
		t.Error("a cash payment went into a closed shift")
	}
	if _, err := raw.Exec(`UPDATE shifts SET float = 0 WHERE id = ?`, sh.ID); err == nil {
		t.Error("a shift's float was changed")
	}
	if _, err := raw.Exec(`DELETE FROM shift_events`); err == nil {
		t.Error("shift events were deleted")
	}
}

// The blind count: the X report shows what the drawer should hold and no
// count; the close records the count and shows the variance; a reopen by a
// supervisor keeps the first count in the events.
func TestShift_BlindCountAndReopen(t *testing.T) {
	ctx := context.Background()
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	a, err := sellCash(t, s, clerk, show.ID, "a", nil, "A1", "A2") // 25.00
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sellCash(t, s, clerk, show.ID, "b", nil, "B1"); err != nil { // 12.50
		t.Fatal(err)
	}
	mustSell(t, s, show.ID, "c", "C1") // card: not in the drawer
	if _, err := s.RefundTickets(ctx, clerk, booking.RefundRequest{Number: a.Number, Seats: []string{"A2"}, Approver: &booking.Credentials{Name: "sue", PIN: "1234"}}); err != nil {
		t.Fatal(err)
	}
	sh, _ := s.CurrentShift(ctx, clerk)
	x, err := s.ShiftReport(ctx, clerk, sh.ID)
	if err != nil {
		t.Fatal(err)
	}
	if x.Final || x.Expected != 100_00+37_50-12_50 || x.CashSales != 37_50 || x.CashRefunds != 12_50 || x.CardSales != 12_50 || x.Counted != 0 || x.Variance != 0 {
		t.Fatalf("X report %+v", x)
	}
	if _, err := s.ShiftReport(ctx, booking.Actor{Name: "other", Role: booking.RoleClerk}, sh.ID); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("another clerk read carl's shift: %v", err)
	}
	z, err := s.CloseShift(ctx, clerk, booking.CloseShiftRequest{Counted: 124_00, Breakdown: "50x2 20x1 2x2"})
	if err != nil {
		t.Fatal(err)
	}
	if !z.Final || z.Expected != 125_00 || z.Counted != 124_00 || z.Variance != -1_00 || z.Breakdown != "50x2 20x1 2x2" {
		t.Fatalf("Z report %+v", z)
	}
	if _, err := sellCash(t, s, clerk, show.ID, "d", nil, "D1"); !booking.IsNoShift(err) {
		t.Fatalf("cash after the close: %v", err)
	}
	if _, err := s.ReopenShift(ctx, clerk, booking.ReopenShiftRequest{ID: sh.ID, Reason: "recount"}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a clerk reopened: %v", err)
	}
	if _, err := s.ReopenShift(ctx, supervisor, booking.ReopenShiftRequest{ID: sh.ID}); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("a reopen without a reason: %v", err)
	}
	re, err := s.ReopenShift(ctx, supervisor, booking.ReopenShiftRequest{ID: sh.ID, Reason: "a note was under the tray"})
	if err != nil || re.Status != booking.ShiftOpen {
		t.Fatalf("reopen: %+v %v", re, err)
	}
	z2, err := s.CloseShift(ctx, clerk, booking.CloseShiftRequest{Counted: 125_00})
	if err != nil || z2.Variance != 0 || len(z2.Events) != 4 {
		t.Fatalf("second close %+v %v", z2, err)
	}
	first := z2.Events[1]
	if first.Kind != "close" || first.Counted != 124_00 || first.Expected != 125_00 || z2.Events[2].Reason != "a note was under the tray" || z2.Events[2].By != "sue" {
		t.Fatalf("events %+v", z2.Events)
	}
	if _, err := s.OpenShift(ctx, supervisor, booking.OpenShiftRequest{Float: 1}); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("a second open shift: %v", err)
	}
	list, err := s.ListShifts(ctx, clerk, booking.ShiftQuery{})
	if err != nil || len(list) != 1 || list[0].ID != sh.ID {
		t.Fatalf("carl's shifts %+v %v", list, err)
	}
	if all, _ := s.ListShifts(ctx, supervisor, booking.ShiftQuery{}); len(all) != 4 {
		t.Fatalf("a supervisor sees %d shifts, want every one", len(all))
	}
	dbtest.MustBeWhole(t, s)
}

// A refund after the show started is refused for a supervisor and allowed
// for a manager, whether the manager is signed in or approves.
func TestRefund_AfterStartNeedsAManager(t *testing.T) {
	ctx := context.Background()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1, Clock: clock.Now})
	show := firstShow(t, s)
	a, _ := sellCash(t, s, clerk, show.ID, "a", nil, "A1", "A2")
	b, _ := sellCash(t, s, clerk, show.ID, "b", nil, "B1")
	clock.Set(show.Starts.Add(time.Minute))
	if _, err := s.RefundTickets(ctx, supervisor, booking.RefundRequest{Number: a.Number, Seats: []string{"A1"}}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("supervisor refund after the start: %v", err)
	}
	if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: b.Number}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("supervisor cancel after the start: %v", err)
	}
	got, err := s.RefundTickets(ctx, storetest.Manager, booking.RefundRequest{Number: a.Number, Seats: []string{"A1"}})
	if err != nil || got.Payments[1].Amount != 12_50 || got.Payments[1].Staff != "mgr" {
		t.Fatalf("manager refund: %+v %v", got, err)
	}
	mgr := &booking.Credentials{Name: "mgr", PIN: "1234"}
	if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: b.Number, Approver: &booking.Credentials{Name: "sue", PIN: "1234"}}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a supervisor approving a supervisor after the start: %v", err)
	}
	c, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: b.Number, Approver: mgr})
	if err != nil || c.Status != booking.BookingCancelled || c.Payments[1].ApprovedBy != "mgr" {
		t.Fatalf("cancel approved by a manager: %+v %v", c, err)
	}
	// The supervisor refunded it: out of the supervisor's drawer.
	sue, _ := s.CurrentShift(ctx, supervisor)
	if c.Payments[1].ShiftID != sue.ID || c.Payments[1].Staff != "sue" {
		t.Fatalf("refund %+v, sue's shift %d", c.Payments[1], sue.ID)
	}
	dbtest.MustBeWhole(t, s)
}

// A partial refund of one of three tickets frees exactly that seat and
// refunds exactly its price, once, under 12 concurrent attempts.
func TestRefund_OneOfThreeUnderTwelveAttempts(t *testing.T) {
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	h := mustHold(t, s, show.ID, "a", "D1", "D2", "D3")
	b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "party", Method: booking.Cash, Types: map[string]string{"D2": "child"}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, errs[i] = s.RefundTickets(ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"d2"}, Reason: fmt.Sprint("attempt ", i)})
		}(i)
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, booking.ErrStaleStatus):
		default:
			t.Fatal(err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d refunds succeeded", ok)
	}
	raw := openRaw(t, path)
	var n int
	var sum booking.Money
	raw.QueryRow(`SELECT count(*), coalesce(sum(amount), 0) FROM payments WHERE booking_id = ? AND kind = 'refund'`, b.ID).Scan(&n, &sum)
	if n != 1 || sum != 8_50 {
		t.Fatalf("%d refunds of %s; want one of the child price 8.50", n, sum.String())
	}
	m, _ := s.SeatMap(ctx, clerk, show.ID, "")
	for _, seat := range m.Hall.Seats {
		want := booking.SeatFree
		if seat.Label == "D1" || seat.Label == "D3" {
			want = booking.SeatSold
		}
		if m.State(seat.ID) != want {
			t.Fatalf("%s is %v", seat.Label, m.State(seat.ID))
		}
	}
	got, _ := s.Booking(ctx, clerk, b.Number)
	if got.Status != booking.BookingConfirmed || got.Show.Sold != 2 {
		t.Fatalf("booking %s with %d sold", got.Status, got.Show.Sold)
	}
	dbtest.MustBeWhole(t, s)
	// The last two: the booking is cancelled, every ticket refunded once.
	got, err = s.RefundTickets(ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"D1", "D3"}})
	if err != nil || got.Status != booking.BookingCancelled || len(got.Payments) != 4 {
		t.Fatalf("refunding the rest: %+v %v", got, err)
	}
	dbtest.MustBeWhole(t, s)
}

// A refund names only seats of the booking, never an admitted ticket, and
// a cancel writes one refund per ticket.
func TestRefund_Refusals(t *testing.T) {
	ctx := context.Background()
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	b, _ := sellCash(t, s, clerk, show.ID, "a", nil, "A1", "A2")
	for name, req := range map[string]booking.RefundRequest{
		"NoSeats":  {Number: b.Number},
		"NotMine":  {Number: b.Number, Seats: []string{"C9"}},
		"NoNumber": {Seats: []string{"A1"}},
	} {
		if _, err := s.RefundTickets(ctx, supervisor, req); booking.ErrorCode(err) != booking.EInvalid {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := s.RefundTickets(ctx, clerk, booking.RefundRequest{Number: b.Number, Seats: []string{"A1"}}); booking.ErrorCode(err) != booking.EForbidden {
		t.Errorf("a clerk refunded alone: %v", err)
	}
	if _, err := s.RefundTickets(ctx, supervisor, booking.RefundRequest{Number: "BO-23456789", Seats: []string{"A1"}}); booking.ErrorCode(err) != booking.ENotFound {
		t.Errorf("unknown booking: %v", err)
	}
	c, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: b.Number})
	if err != nil || len(c.Payments) != 3 || c.Payments[1].TicketID == 0 || c.Payments[1].TicketID == c.Payments[2].TicketID {
		t.Fatalf("cancel: %+v %v", c, err)
	}
	if _, err := s.RefundTickets(ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"A1"}}); !errors.Is(err, booking.ErrStaleStatus) {
		t.Errorf("refund of a cancelled booking: %v", err)
	}
	dbtest.MustBeWhole(t, s)
}

// CheckInvariants follows refunds ticket by ticket: a partial refund is
// whole, a refund of a ticket still issued is not.
func TestRefund_CheckInvariants(t *testing.T) {
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	b := mustSell(t, s, firstShow(t, s).ID, "a", "A1", "A2")
	if _, err := s.RefundTickets(ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"A1"}}); err != nil {
		t.Fatal(err)
	}
	dbtest.MustBeWhole(t, s)
	raw := openRaw(t, path)
	if _, err := raw.Exec(`INSERT INTO payments (booking_id, kind, method, amount, at, staff, ticket_id) VALUES (?, 'refund', 'card', 1250, 0, 'x', ?)`, b.ID, b.Tickets[1].ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.CheckInvariants(ctx)
	joined := strings.Join(got, "\n")
	if err != nil || len(got) != 2 || !strings.Contains(joined, "paid 25.00 less 25.00 refunded for 12.50 of live tickets") || !strings.Contains(joined, "1 ticket refunds not matching their ticket") {
		t.Fatalf("problems %q %v", got, err)
	}
}

// An approval that cannot approve is never recorded as one, and a float
// out of range is refused before anything is written.
func TestRefund_ApproverAndFloatChecked(t *testing.T) {
	ctx := context.Background()
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	b, _ := sellCash(t, s, clerk, show.ID, "a", nil, "A1", "A2")
	if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: b.Number, OpenFloat: money(-1)}); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("a negative float: %v", err)
	}
	// A clerk named as the approver is refused as an approval, even
	// though the supervisor could refund alone: nothing is refunded.
	if _, err := s.RefundTickets(ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"A1"}, Approver: &booking.Credentials{Name: "carl", PIN: "1234"}}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a clerk's approval: %v", err)
	}
	if got, err := s.Booking(ctx, supervisor, b.Number); err != nil || len(got.Payments) != 1 {
		t.Fatalf("a refused approval refunded: %+v %v", got, err)
	}
	c, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: b.Number, Approver: &booking.Credentials{Name: "mgr", PIN: "1234"}})
	if err != nil || c.ApprovedBy != "mgr" || c.Payments[2].ApprovedBy != "mgr" {
		t.Fatalf("a manager's approval: %+v %v", c, err)
	}
	dbtest.MustBeWhole(t, s)
}

// The history generator opens the clerk's shift each morning and cashes
// it up each night: every cash payment is in a closed shift of its day,
// and each shift's expected cash is its float and its own payments.
func TestGenerateHistory_Shifts(t *testing.T) {
	path, _, _ := generatedHistory(t, 2, 5)
	raw := openRaw(t, path)
	var shifts, open, days, bad, outside int
	raw.QueryRow(`SELECT count(*), count(*) FILTER (WHERE status = 'open'), count(DISTINCT date(opened_at / 1000, 'unixepoch', 'localtime')) FROM shifts`).Scan(&shifts, &open, &days)
	raw.QueryRow(`SELECT count(*) FROM shifts s WHERE s.expected <> s.float +
		(SELECT coalesce(sum(CASE kind WHEN 'sale' THEN amount ELSE -amount END), 0) FROM payments p WHERE p.shift_id = s.id AND p.method = 'cash')`).Scan(&bad)
	raw.QueryRow(`SELECT count(*) FROM payments p WHERE p.shift_id IS NULL OR date(p.at / 1000, 'unixepoch', 'localtime') <>
		(SELECT date(opened_at / 1000, 'unixepoch', 'localtime') FROM shifts WHERE id = p.shift_id)`).Scan(&outside)
	if shifts < 2 || open != 0 || days != shifts || bad != 0 || outside != 0 {
		t.Fatalf("%d shifts (%d open) over %d days, %d with a wrong expected figure, %d payments outside their day's shift", shifts, open, days, bad, outside)
	}
}

// A shift is not reopened over another open shift of its person, nor
// closed or reported by someone else.
func TestShift_ReopenOverAnotherOpen(t *testing.T) {
	ctx := context.Background()
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	first := dbtest.MustCloseShift(t, s, clerk)
	second := dbtest.MustOpenShift(t, s, clerk)
	if _, err := s.ReopenShift(ctx, supervisor, booking.ReopenShiftRequest{ID: first.Shift.ID, Reason: "recount"}); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("reopen over shift %d: %v", second.ID, err)
	}
	if _, err := s.ReopenShift(ctx, supervisor, booking.ReopenShiftRequest{ID: 999, Reason: "recount"}); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("reopen of no shift: %v", err)
	}
	if r, err := s.ShiftReport(ctx, supervisor, second.ID); err != nil || r.Final || r.Shift.Staff != "carl" {
		t.Fatalf("a supervisor's X report of carl's shift: %+v %v", r, err)
	}
	if _, err := s.OpenShift(ctx, storetest.Door, booking.OpenShiftRequest{Float: 1}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("door staff opened a shift: %v", err)
	}
	if _, err := s.OpenShift(ctx, storetest.Manager, booking.OpenShiftRequest{Float: -1}); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("a negative float: %v", err)
	}
}

// A shift's takings are kept beside it by a trigger (migration 0026), so
// a payment written by anything — here a bare SQL connection — is in the
// X report at once; totals edited by hand are named by the invariant
// check.
func TestShift_MoneyKeptByTrigger(t *testing.T) {
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	b := mustSell(t, s, firstShow(t, s).ID, "a", "A1")
	sh, err := s.CurrentShift(ctx, clerk)
	if err != nil {
		t.Fatal(err)
	}
	before, err := s.ShiftReport(ctx, clerk, sh.ID)
	if err != nil {
		t.Fatal(err)
	}
	raw := openRaw(t, path)
	if _, err := raw.Exec(`INSERT INTO payments (booking_id, kind, method, amount, tendered, at, staff, shift_id) VALUES (?, 'sale', 'cash', 700, 700, 0, 'carl', ?)`, b.ID, sh.ID); err != nil {
		t.Fatal(err)
	}
	after, err := s.ShiftReport(ctx, clerk, sh.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.CashSales != before.CashSales+700 || after.Sales != before.Sales+1 || after.Expected != before.Expected+700 {
		t.Fatalf("cash %s → %s, sales %d → %d, expected %s → %s", before.CashSales, after.CashSales, before.Sales, after.Sales, before.Expected, after.Expected)
	}
	if _, err := raw.Exec(`UPDATE shift_money SET amount = amount - 700 WHERE shift_id = ? AND kind = 'sale' AND method = 'cash'`, sh.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.CheckInvariants(ctx)
	want := fmt.Sprintf("shift %d: its sale cash total is off its payments by -700 cents over 0 payments", sh.ID)
	if err != nil || !slices.Contains(got, want) {
		t.Fatalf("problems %q %v, want %q", got, err, want)
	}
}
