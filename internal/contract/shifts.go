package contract

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"boxoffice/booking"
)

const needShifts = "CurrentShift, ShiftReport, CloseShift, ReopenShift and ListShifts (booking.Shifts)"

// shiftCases: every cash movement belongs to one person's shift; a
// closed shift's expected cash is float + cash sales − cash refunds
// (invariant 13).
var shiftCases = []testCase{
	{"CashNeedsAShift", shiftCashNeedsAShift},
	{"BlindCountAndReopen", shiftBlindCountAndReopen},
	{"Refusals", shiftRefusals},
	{"CashUpAfterSalesAndCancelsAtOnce", shiftCashUpAtOnce},
	{"CloseRacingCashSales", shiftCloseRacingSales},
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

// shiftRefusals: what a shift refuses, in the clerk's words: none open,
// a count out of range, another person's report below supervisor, a
// reopen of an open shift or over another open one, a shift that is
// not; and who sees which shifts.
func shiftRefusals(t *testing.T, e *env) {
	sh := need[booking.Shifts](t, e, needShifts)
	closeShift(t, sh, e, clerk)
	_, err := sh.CurrentShift(e.ctx, clerk)
	wantMessage(t, "no shift open", err, "carl has no shift open.")
	_, err = sh.CloseShift(e.ctx, clerk, booking.CloseShiftRequest{Counted: 0})
	wantCode(t, "closing no shift", err, booking.ENotFound)
	_, err = sh.CloseShift(e.ctx, clerk, booking.CloseShiftRequest{Counted: -1})
	wantCode(t, "a negative count", err, booking.EInvalid)
	_, err = sh.OpenShift(e.ctx, door, booking.OpenShiftRequest{Float: 1})
	wantCode(t, "the door opening a shift", err, booking.EForbidden)
	_, err = sh.OpenShift(e.ctx, clerk, booking.OpenShiftRequest{Float: -1})
	wantCode(t, "a negative float", err, booking.EInvalid)
	first, err := sh.OpenShift(e.ctx, clerk, booking.OpenShiftRequest{Float: 10_00})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sh.ShiftReport(e.ctx, booking.Actor{Name: "bea", Role: booking.RoleClerk}, first.ID)
	wantMessage(t, "another clerk's shift", err, fmt.Sprintf("Shift %d is carl's; a supervisor may see it.", first.ID))
	if x, err := sh.ShiftReport(e.ctx, supervisor, first.ID); err != nil || x.Final || x.Shift.Staff != "carl" {
		t.Fatalf("a supervisor's X report of carl's shift: %+v %v", x, err)
	}
	if _, err := sh.CloseShift(e.ctx, clerk, booking.CloseShiftRequest{Counted: 9_00, Breakdown: "5x1 2x2"}); err != nil {
		t.Fatal(err)
	}
	second, err := sh.OpenShift(e.ctx, clerk, booking.OpenShiftRequest{Float: 5_00})
	if err != nil {
		t.Fatal(err)
	}
	_, err = sh.ReopenShift(e.ctx, supervisor, booking.ReopenShiftRequest{ID: first.ID, Reason: "miscounted"})
	wantCode(t, "a reopen over another open shift", err, booking.EConflict)
	wantMessage(t, "a reopen over another open shift", err, fmt.Sprintf("carl has another shift open; close it before reopening shift %d.", first.ID))
	_, err = sh.ReopenShift(e.ctx, supervisor, booking.ReopenShiftRequest{ID: second.ID, Reason: "x"})
	wantMessage(t, "a reopen of an open shift", err, fmt.Sprintf("Shift %d is open already.", second.ID))
	_, err = sh.ReopenShift(e.ctx, supervisor, booking.ReopenShiftRequest{ID: 1 << 40, Reason: "x"})
	wantCode(t, "a reopen of no shift", err, booking.ENotFound)
	if _, err := sh.CloseShift(e.ctx, clerk, booking.CloseShiftRequest{Counted: 5_00}); err != nil {
		t.Fatal(err)
	}
	re, err := sh.ReopenShift(e.ctx, supervisor, booking.ReopenShiftRequest{ID: first.ID, Reason: "miscounted"})
	if err != nil || re.Status != booking.ShiftOpen || re.Counted != 0 || re.ID != first.ID {
		t.Fatalf("reopen: %+v %v", re, err)
	}
	x, err := sh.ShiftReport(e.ctx, clerk, first.ID)
	if err != nil || x.Final || len(x.Events) != 3 || x.Events[1].Counted != 9_00 || x.Breakdown != "5x1 2x2" || x.Events[2].Reason != "miscounted" {
		t.Fatalf("the reopened shift's report: %+v %v", x, err)
	}
	_, err = sh.ShiftReport(e.ctx, clerk, 999)
	wantMessage(t, "no such shift", err, "No shift 999.")
	mine, err := sh.ListShifts(e.ctx, clerk, booking.ShiftQuery{Staff: "sue"})
	if err != nil || len(mine) != 3 || mine[0].ID != second.ID {
		t.Fatalf("a clerk lists their own shifts, newest first: %+v %v", mine, err)
	}
	if open, err := sh.ListShifts(e.ctx, supervisor, booking.ShiftQuery{Staff: "CARL", Open: true}); err != nil || len(open) != 1 || open[0].ID != first.ID {
		t.Fatalf("carl's open shifts: %+v %v", open, err)
	}
	if a, ok := e.s.(auditor); ok {
		rows, err := a.Audit(e.ctx, manager, booking.AuditQuery{Staff: "sue", Limit: booking.MaxAuditLimit})
		if err != nil {
			t.Fatal(err)
		}
		reopens := 0
		for _, r := range rows {
			if r.Action == booking.AuditShiftReopen {
				reopens++
				if r.ShiftID != first.ID || r.Detail != "miscounted" {
					t.Fatalf("reopen row %+v", r)
				}
			}
		}
		if reopens != 1 {
			t.Fatalf("%d reopen rows for one reopen and three refused", reopens)
		}
	}
}

// shiftCashUpAtOnce: one person sells and cancels at once, cash and card;
// the shift follows the person, whatever the case of their name; the
// cash-up equals the float and the cash of its payments, and the Z report
// counts every sale and refund.
func shiftCashUpAtOnce(t *testing.T, e *env) {
	sh := need[booking.Shifts](t, e, needShifts)
	c := need[canceller](t, e, "Cancel (booking.Bookings)")
	cur, err := sh.CurrentShift(e.ctx, booking.Actor{Name: "SUE", Role: booking.RoleSupervisor})
	if err != nil || cur.Staff != "sue" {
		t.Fatalf("sue's shift asked for as SUE: %+v %v", cur, err)
	}
	var wg sync.WaitGroup
	sold := make([]*booking.Booking, 8)
	errs := make([]error, 8)
	for i := range sold {
		wg.Go(func() {
			seat := fmt.Sprintf("A%d", i+1)
			h, err := e.s.Hold(e.ctx, supervisor, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{seat}, Owner: seat})
			if err != nil {
				errs[i] = err
				return
			}
			req := booking.CheckoutRequest{HoldID: h.ID, Owner: seat, IdempotencyKey: seat, Method: booking.Card}
			if i%3 != 2 {
				req.Method, req.Tendered = booking.Cash, 20_00*booking.Money(i%2) // exact, or change from 20.00
			}
			sold[i], errs[i] = e.s.Checkout(e.ctx, supervisor, req)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	cancels := make([]error, 4) // the first four, at once
	for i := range cancels {
		wg.Go(func() { _, cancels[i] = c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: sold[i].Number}) })
	}
	wg.Wait()
	for _, err := range cancels {
		if err != nil {
			t.Fatal(err)
		}
	}
	want := Float // the cancelled ones' cash came back out of the drawer
	for _, b := range sold[len(cancels):] {
		if b.Payments[0].Method == booking.Cash {
			want += b.Total
		}
	}
	x, err := sh.ShiftReport(e.ctx, supervisor, cur.ID)
	if err != nil || x.Final || x.Expected != want {
		t.Fatalf("X report %+v %v, want %s expected", x, err, want)
	}
	z, err := sh.CloseShift(e.ctx, supervisor, booking.CloseShiftRequest{Counted: want - 50})
	if err != nil || !z.Final || z.Expected != want || z.Variance != -50 || z.Sales != 8 || z.Refunds != 4 || z.Shift.Status != booking.ShiftClosed {
		t.Fatalf("Z report %+v %v", z, err)
	}
	// Sales 0..7 are cash but 2 and 5 (card); the cancels, 0..3, pay back
	// three cash and one card. Before, "Cash sales (8)" counted the card.
	if z.CashSaleCount != 6 || z.CardSaleCount != 2 || z.CashRefundCount != 3 || z.CardRefundCount != 1 {
		t.Fatalf("Z report's counts by method: %d/%d sales, %d/%d refunds, want 6/2 and 3/1",
			z.CashSaleCount, z.CardSaleCount, z.CashRefundCount, z.CardRefundCount)
	}
	if len(z.Events) != 2 || z.Events[1].Kind != "close" || z.Events[1].Expected != want {
		t.Fatalf("events %+v", z.Events)
	}
	e.counts(t, 4, 0)
}

// shiftCloseRacingSales: cash sales racing their clerk's close: each is
// either in the shift before the close sums it, and in its expected cash,
// or refused; none lands in a shift after its cash-up.
func shiftCloseRacingSales(t *testing.T, e *env) {
	sh := need[booking.Shifts](t, e, needShifts)
	for round := range 4 {
		seats := []string{fmt.Sprintf("A%d", round+1), fmt.Sprintf("B%d", round+1)}
		holds := make([]*booking.Hold, len(seats))
		for i, seat := range seats {
			holds[i] = e.hold(t, seat, seat)
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		sales := make([]*booking.Booking, len(seats))
		saleErrs := make([]error, len(seats))
		for i, h := range holds {
			wg.Go(func() {
				<-start
				sales[i], saleErrs[i] = e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: seats[i], IdempotencyKey: seats[i], Method: booking.Cash})
			})
		}
		var z *booking.ShiftReport
		var closeErr error
		wg.Go(func() {
			<-start
			z, closeErr = sh.CloseShift(e.ctx, clerk, booking.CloseShiftRequest{Counted: Float})
		})
		close(start)
		wg.Wait()
		if closeErr != nil {
			t.Fatalf("round %d: close: %v", round, closeErr)
		}
		for i, err := range saleErrs {
			switch {
			case err == nil && sales[i].Payments[0].ShiftID != z.Shift.ID:
				t.Fatalf("round %d: a sale in shift %d, not the one closed (%d)", round, sales[i].Payments[0].ShiftID, z.Shift.ID)
			case err != nil && !errors.Is(err, booking.ErrNoShift) && booking.ErrorCode(err) != booking.EConflict:
				// PostgreSQL's sale, which read the shift open, meets it
				// closed as it writes: "changed at another counter; try
				// again", and the retry is ErrNoShift.
				t.Fatalf("round %d: sale %d: %v", round, i, err)
			}
		}
		// Read again after every sale ended: the cash of the shift's
		// payments is still what its close expected.
		again, err := sh.ShiftReport(e.ctx, clerk, z.Shift.ID)
		if err != nil || again.Expected != z.Expected || again.Shift.Float+again.CashSales-again.CashRefunds != z.Expected {
			t.Fatalf("round %d: the close expected %s; the shift's payments now say %+v %v", round, z.Expected, again, err)
		}
		if _, err := sh.OpenShift(e.ctx, clerk, booking.OpenShiftRequest{Float: Float}); err != nil {
			t.Fatal(err)
		}
	}
	e.whole(t)
}
