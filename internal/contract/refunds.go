package contract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
)

// refunder is what refundCases need of booking.Bookings.
type refunder interface {
	canceller
	RefundTickets(ctx context.Context, actor booking.Actor, req booking.RefundRequest) (*booking.Booking, error)
}

const needRefund = "Booking, Cancel and RefundTickets (booking.Bookings)"

// refundCases: a refund frees exactly its seats and pays back exactly
// their price, once; after the start it needs a manager; an approval
// that cannot approve is never recorded as one.
var refundCases = []testCase{
	{"OneOfThreeUnderTwelveAttempts", refundOneOfThree},
	{"AfterStartNeedsAManager", refundAfterStart},
	{"Refusals", refundRefusals},
	{"ApproverAndFloatChecked", refundApprover},
}

// sellCash sells seats for cash by actor from the drawer newEnv opened.
func (e *env) sellCash(t *testing.T, actor booking.Actor, owner string, seats ...string) *booking.Booking {
	t.Helper()
	h, err := e.s.Hold(e.ctx, actor, booking.HoldRequest{ShowID: e.show.ID, Seats: seats, Owner: owner})
	if err != nil {
		t.Fatalf("hold %v: %v", seats, err)
	}
	b, err := e.s.Checkout(e.ctx, actor, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: "cash-" + owner, Method: booking.Cash})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func refundOneOfThree(t *testing.T, e *env) {
	r := need[refunder](t, e, needRefund)
	h := e.hold(t, "a", "D1", "D2", "D3")
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "party", Method: booking.Cash, Types: map[string]string{"D2": "child"}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"d2"}, Reason: fmt.Sprint("attempt ", i)})
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, booking.ErrStaleStatus):
			t.Fatal(err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d refunds succeeded", ok)
	}
	got, err := r.Booking(e.ctx, clerk, b.Number)
	if err != nil {
		t.Fatal(err)
	}
	n, sum := refunds(got)
	if n != 1 || sum != 8_50 || got.Status != booking.BookingConfirmed || got.Show.Sold != 2 {
		t.Fatalf("%d refunds of %s, %s with %d sold; want one of the child price 8.50", n, sum, got.Status, got.Show.Sold)
	}
	for label, want := range map[string]booking.SeatState{"D1": booking.SeatSold, "D2": booking.SeatFree, "D3": booking.SeatSold} {
		if st := e.state(t, "", label); st != want {
			t.Fatalf("%s is %v, want %v", label, st, want)
		}
	}
	e.counts(t, 2, 0)
	// The last two: the booking is cancelled, every ticket refunded once.
	got, err = r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"D1", "D3"}})
	if err != nil || got.Status != booking.BookingCancelled || len(got.Payments) != 4 {
		t.Fatalf("refunding the rest: %+v %v", got, err)
	}
	e.counts(t, 0, 0)
}

// refunds counts a booking's refund payments and their sum.
func refunds(b *booking.Booking) (int, booking.Money) {
	n, sum := 0, booking.Money(0)
	for _, p := range b.Payments {
		if p.Kind == booking.PaymentRefund {
			n, sum = n+1, sum+p.Amount
		}
	}
	return n, sum
}

func refundAfterStart(t *testing.T, e *env) {
	r := need[refunder](t, e, needRefund)
	a := e.sellCash(t, clerk, "a", "A1", "A2")
	b := e.sellCash(t, clerk, "b", "B1")
	e.clock.Set(e.show.Starts.Add(time.Minute))
	_, err := r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: a.Number, Seats: []string{"A1"}})
	wantCode(t, "a supervisor's refund after the start", err, booking.EForbidden)
	_, err = r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number})
	wantCode(t, "a supervisor's cancel after the start", err, booking.EForbidden)
	got, err := r.RefundTickets(e.ctx, manager, booking.RefundRequest{Number: a.Number, Seats: []string{"A1"}})
	if err != nil || got.Payments[1].Amount != 12_50 || got.Payments[1].Staff != "mgr" {
		t.Fatalf("a manager's refund: %+v %v", got, err)
	}
	_, err = r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number, Approver: &booking.Credentials{Name: "sue", PIN: "1234"}})
	wantCode(t, "a supervisor approving a supervisor after the start", err, booking.EForbidden)
	c, err := r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number, Approver: &booking.Credentials{Name: "mgr", PIN: "1234"}})
	if err != nil || c.Status != booking.BookingCancelled || c.Payments[1].ApprovedBy != "mgr" || c.Payments[1].Staff != "sue" || c.Payments[1].ShiftID == 0 {
		t.Fatalf("a cancel approved by a manager, refunded from sue's drawer: %+v %v", c, err)
	}
	e.whole(t)
}

func refundRefusals(t *testing.T, e *env) {
	r := need[refunder](t, e, needRefund)
	b := e.sellCash(t, clerk, "a", "A1", "A2")
	for _, c := range []struct {
		name string
		req  booking.RefundRequest
	}{
		{"NoSeats", booking.RefundRequest{Number: b.Number}},
		{"NotMine", booking.RefundRequest{Number: b.Number, Seats: []string{"C9"}}},
		{"NoNumber", booking.RefundRequest{Seats: []string{"A1"}}},
	} {
		_, err := r.RefundTickets(e.ctx, supervisor, c.req)
		wantCode(t, c.name, err, booking.EInvalid)
	}
	_, err := r.RefundTickets(e.ctx, clerk, booking.RefundRequest{Number: b.Number, Seats: []string{"A1"}})
	wantCode(t, "a clerk's refund alone", err, booking.EForbidden)
	_, err = r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: "BO-23456789", Seats: []string{"A1"}})
	wantCode(t, "a refund of no booking", err, booking.ENotFound)
	c, err := r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number})
	if err != nil || len(c.Payments) != 3 || c.Payments[1].TicketID == 0 || c.Payments[1].TicketID == c.Payments[2].TicketID {
		t.Fatalf("cancel, one refund per ticket: %+v %v", c, err)
	}
	if _, err := r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"A1"}}); !errors.Is(err, booking.ErrStaleStatus) {
		t.Fatalf("a refund of a cancelled booking: %v", err)
	}
	e.whole(t)
}

func refundApprover(t *testing.T, e *env) {
	r := need[refunder](t, e, needRefund)
	b := e.sellCash(t, clerk, "a", "A1", "A2")
	float := booking.Money(-1)
	_, err := r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number, OpenFloat: &float})
	wantCode(t, "a negative float", err, booking.EInvalid)
	// A clerk named as the approver is refused as an approval, even
	// though the supervisor could refund alone: nothing is refunded.
	_, err = r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"A1"}, Approver: &booking.Credentials{Name: "carl", PIN: "1234"}})
	wantCode(t, "a clerk's approval", err, booking.EForbidden)
	if got, err := r.Booking(e.ctx, supervisor, b.Number); err != nil || len(got.Payments) != 1 {
		t.Fatalf("a refused approval refunded: %+v %v", got, err)
	}
	c, err := r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number, Approver: &booking.Credentials{Name: "mgr", PIN: "1234"}})
	if err != nil || c.ApprovedBy != "mgr" || c.Payments[2].ApprovedBy != "mgr" {
		t.Fatalf("a manager's approval: %+v %v", c, err)
	}
	// The trail names what each approval was for, and the booking.
	if a, ok := e.s.(booking.Audit); ok {
		rows, err := a.Audit(e.ctx, manager, booking.AuditQuery{Day: e.clock.Now()})
		if err != nil {
			t.Fatal(err)
		}
		want := map[booking.AuditAction]string{
			booking.AuditApprovalFail: "refund of " + b.Number + " by " + supervisor.Name,
			booking.AuditOverride:     "cancel of " + b.Number + " by " + supervisor.Name,
		}
		for _, row := range rows {
			if w, ok := want[row.Action]; ok && strings.Contains(row.Detail, w) {
				delete(want, row.Action)
			}
		}
		if len(want) > 0 {
			t.Fatalf("approvals the trail does not name: %v in %+v", want, rows)
		}
	}
	e.whole(t)
}

const needShifts = "CurrentShift, ShiftReport, CloseShift, ReopenShift and ListShifts (booking.Shifts)"

// shiftCases: every cash movement belongs to one person's shift; a
// closed shift's expected cash is float + cash sales − cash refunds
// (invariant 13).
var shiftCases = []testCase{
	{"CashNeedsAShift", shiftCashNeedsAShift},
	{"BlindCountAndReopen", shiftBlindCountAndReopen},
}

// closeShift closes actor's shift with a count of what it expects.
func closeShift(t *testing.T, sh booking.Shifts, e *env, actor booking.Actor) {
	t.Helper()
	cur, err := sh.CurrentShift(e.ctx, actor)
	if err != nil {
		t.Fatalf("%s's shift: %v", actor.Name, err)
	}
	x, err := sh.ShiftReport(e.ctx, actor, cur.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sh.CloseShift(e.ctx, actor, booking.CloseShiftRequest{Counted: x.Expected}); err != nil {
		t.Fatal(err)
	}
}

// shiftCashNeedsAShift: a cash sale by someone with no shift open is
// refused with ErrNoShift; with a float it opens the shift in the same
// transaction; a card sale needs no shift.
func shiftCashNeedsAShift(t *testing.T, e *env) {
	sh := need[booking.Shifts](t, e, needShifts)
	closeShift(t, sh, e, clerk)
	h := e.hold(t, "a", "A1")
	_, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "a", Method: booking.Cash})
	if !booking.IsNoShift(err) || booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("cash without a shift: %v", err)
	}
	if _, err := sh.CurrentShift(e.ctx, clerk); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("a refused sale opened a shift: %v", err)
	}
	e.noSale(t, "a")
	// The hold is still live: the same counter sells it once the float is in.
	float := booking.Money(5000)
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "a", Method: booking.Cash, Tendered: 2000, OpenFloat: &float})
	if err != nil {
		t.Fatal(err)
	}
	cur, err := sh.CurrentShift(e.ctx, clerk)
	if err != nil || cur.Float != 5000 || b.Payments[0].ShiftID != cur.ID || b.Payments[0].Terminal != clerk.Terminal {
		t.Fatalf("shift %+v %v; payment %+v", cur, err, b.Payments[0])
	}
	// A float given when a shift is open is not a second shift.
	float = 7000
	h2 := e.hold(t, "c", "A3")
	b2, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h2.ID, Owner: "c", IdempotencyKey: "c", Method: booking.Cash, OpenFloat: &float})
	if err != nil || b2.Payments[0].ShiftID != cur.ID {
		t.Fatalf("second sale: %v %+v", err, b2)
	}
	closeShift(t, sh, e, clerk)
	if card := e.sell(t, "d", "A4"); card.Payments[0].ShiftID != 0 {
		t.Fatalf("a card sale with no shift open names shift %d", card.Payments[0].ShiftID)
	}
	e.whole(t)
}

func shiftBlindCountAndReopen(t *testing.T, e *env) {
	sh := need[booking.Shifts](t, e, needShifts)
	r := need[refunder](t, e, needRefund)
	a := e.sellCash(t, clerk, "a", "A1", "A2") // 25.00
	e.sellCash(t, clerk, "b", "B1")            // 12.50
	e.sell(t, "c", "C1")                       // card: not in the drawer
	if _, err := r.RefundTickets(e.ctx, clerk, booking.RefundRequest{Number: a.Number, Seats: []string{"A2"}, Approver: &booking.Credentials{Name: "sue", PIN: "1234"}}); err != nil {
		t.Fatal(err)
	}
	cur, _ := sh.CurrentShift(e.ctx, clerk)
	x, err := sh.ShiftReport(e.ctx, clerk, cur.ID)
	if err != nil || x.Final || x.Expected != Float+37_50-12_50 || x.CashSales != 37_50 || x.CashRefunds != 12_50 || x.CardSales != 12_50 || x.Counted != 0 {
		t.Fatalf("X report %+v %v", x, err)
	}
	_, err = sh.ShiftReport(e.ctx, booking.Actor{Name: "other", Role: booking.RoleClerk}, cur.ID)
	wantCode(t, "another clerk reads carl's shift", err, booking.EForbidden)
	z, err := sh.CloseShift(e.ctx, clerk, booking.CloseShiftRequest{Counted: 124_00, Breakdown: "50x2 20x1 2x2"})
	if err != nil || !z.Final || z.Expected != 125_00 || z.Counted != 124_00 || z.Variance != -1_00 || z.Breakdown != "50x2 20x1 2x2" {
		t.Fatalf("Z report %+v %v", z, err)
	}
	_, err = sh.ReopenShift(e.ctx, clerk, booking.ReopenShiftRequest{ID: cur.ID, Reason: "recount"})
	wantCode(t, "a clerk's reopen", err, booking.EForbidden)
	_, err = sh.ReopenShift(e.ctx, supervisor, booking.ReopenShiftRequest{ID: cur.ID})
	wantCode(t, "a reopen without a reason", err, booking.EInvalid)
	re, err := sh.ReopenShift(e.ctx, supervisor, booking.ReopenShiftRequest{ID: cur.ID, Reason: "a note was under the tray"})
	if err != nil || re.Status != booking.ShiftOpen {
		t.Fatalf("reopen: %+v %v", re, err)
	}
	z2, err := sh.CloseShift(e.ctx, clerk, booking.CloseShiftRequest{Counted: 125_00})
	if err != nil || z2.Variance != 0 || len(z2.Events) != 4 {
		t.Fatalf("second close %+v %v", z2, err)
	}
	if ev := z2.Events; ev[1].Kind != "close" || ev[1].Counted != 124_00 || ev[1].Expected != 125_00 || ev[2].Reason != "a note was under the tray" || ev[2].By != "sue" {
		t.Fatalf("events %+v", z2.Events)
	}
	_, err = sh.OpenShift(e.ctx, supervisor, booking.OpenShiftRequest{Float: 1})
	wantCode(t, "a second open shift", err, booking.EConflict)
	if list, err := sh.ListShifts(e.ctx, clerk, booking.ShiftQuery{}); err != nil || len(list) != 1 || list[0].ID != cur.ID {
		t.Fatalf("carl's shifts %+v %v", list, err)
	}
	if all, _ := sh.ListShifts(e.ctx, supervisor, booking.ShiftQuery{}); len(all) != 4 {
		t.Fatalf("a supervisor sees %d shifts, want every one", len(all))
	}
	e.whole(t)
}
