package pg_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"boxoffice/booking"
	"boxoffice/pg"
)

// cashOf is a shift's cash as the payments table has it: float + cash
// sales − cash refunds.
func cashOf(t *testing.T, u string, shiftID int64) booking.Money {
	t.Helper()
	conn := dbConn(t, u)
	float := count(t, conn, `SELECT float FROM shifts WHERE id = $1`, shiftID)
	cash := count(t, conn, `SELECT coalesce(sum(CASE kind WHEN 'sale' THEN amount ELSE -amount END), 0) FROM payments WHERE shift_id = $1 AND method = 'cash'`, shiftID)
	return booking.Money(float + cash)
}

// A shift's cash-up equals the sum of its cash payments and refunds,
// after sales and cancels by one person on two servers at once.
func TestCloseShift_CashUpAfterSalesAndCancelsOnTwoServers(t *testing.T) {
	a, u, clk := seeded(t)
	b := MustOpen(t, u, clk)
	ctx := context.Background()
	sh, err := a.OpenShift(ctx, sue, booking.OpenShiftRequest{Float: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if cur, err := b.CurrentShift(ctx, booking.Actor{Name: "SUE", Role: booking.RoleSupervisor}); err != nil || cur.ID != sh.ID {
		t.Fatalf("the shift follows the person to the other server: %+v, %v", cur, err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	var mu sync.Mutex
	var sold []*booking.Booking
	for i := 0; i < 16; i++ { // 16 of the 20 seats, 8 sold on each server
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s := []*pg.Store{a, b}[i%2]
			seat := fmt.Sprintf("%s%d", []string{"A", "B"}[i/8], i%8+1)
			h, err := s.Hold(ctx, sue, booking.HoldRequest{ShowID: 1, Seats: []string{seat}, Owner: seat})
			if err != nil {
				errs <- err
				return
			}
			req := booking.CheckoutRequest{HoldID: h.ID, Owner: seat, IdempotencyKey: seat, Method: booking.Card}
			if i%3 != 2 {
				req.Method, req.Tendered = booking.Cash, 2000*booking.Money(i%2) // exact, or change from 20.00
			}
			bk, err := s.Checkout(ctx, sue, req)
			if err != nil {
				errs <- err
				return
			}
			mu.Lock()
			sold = append(sold, bk)
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Cancel half of them, on both servers at once.
	errs = make(chan error, len(sold))
	for i, bk := range sold[:8] {
		wg.Add(1)
		go func(s *pg.Store, number string) {
			defer wg.Done()
			if _, err := s.Cancel(ctx, sue, booking.CancelRequest{Number: number}); err != nil {
				errs <- err
			}
		}([]*pg.Store{a, b}[i%2], bk.Number)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	x, err := b.ShiftReport(ctx, sue, sh.ID)
	if err != nil || x.Final || x.Expected != cashOf(t, u, sh.ID) {
		t.Fatalf("X report: %+v, %v; the payments say %s", x, err, cashOf(t, u, sh.ID))
	}
	z, err := b.CloseShift(ctx, sue, booking.CloseShiftRequest{Counted: x.Expected - 50})
	if err != nil {
		t.Fatal(err)
	}
	want := cashOf(t, u, sh.ID)
	if !z.Final || z.Expected != want || z.Counted != want-50 || z.Variance != -50 || z.Shift.Status != booking.ShiftClosed {
		t.Fatalf("Z report: %+v; the payments say %s", z, want)
	}
	cash := 0
	for _, bk := range sold {
		if bk.Payments[0].Method == booking.Cash {
			cash++
		}
	}
	if z.Sales != 16 || z.Refunds != 8 || z.CashSales != booking.Money(cash)*1250 || z.Expected == 5000 {
		t.Fatalf("Z report counts: %+v (%d cash sales)", z, cash)
	}
	if len(z.Events) != 2 || z.Events[1].Kind != "close" || z.Events[1].Expected != want {
		t.Fatalf("events: %+v", z.Events)
	}
	conn := dbConn(t, u)
	if n := count(t, conn, `SELECT count(*) FROM audit WHERE shift_id = $1 AND action IN ('shift_open', 'shift_close')`, sh.ID); n != 2 {
		t.Fatalf("%d open and close rows", n)
	}
	if n := count(t, conn, `SELECT count(*) FROM audit WHERE shift_id = $1 AND action = 'cancel'`, sh.ID); n != 8 {
		t.Fatalf("%d cancel rows in the shift", n)
	}
}

// Cash sales racing their clerk's close on another server: each either
// commits before the close sums the shift, and is in its expected cash,
// or is refused for want of an open shift. None lands in a shift after
// its cash-up.
func TestCloseShift_RacingSalesNeverMissed(t *testing.T) {
	a, u, clk := seeded(t)
	b := MustOpen(t, u, clk)
	ctx := context.Background()
	conn := dbConn(t, u)
	for round := 0; round < 10; round++ {
		sh, err := a.OpenShift(ctx, clerk, booking.OpenShiftRequest{Float: 1000})
		if err != nil {
			t.Fatal(err)
		}
		seats := []string{fmt.Sprintf("A%d", round+1), fmt.Sprintf("B%d", round+1)}
		holds := make([]*booking.Hold, len(seats))
		for i, seat := range seats {
			if holds[i], err = a.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{seat}, Owner: seat}); err != nil {
				t.Fatal(err)
			}
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		var z *booking.ShiftReport
		var closeErr error
		saleErrs := make([]error, len(seats))
		for i, h := range holds {
			wg.Add(1)
			go func(i int, h *booking.Hold) {
				defer wg.Done()
				<-start
				_, saleErrs[i] = a.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: seats[i], IdempotencyKey: fmt.Sprint(round, i), Method: booking.Cash})
			}(i, h)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			z, closeErr = b.CloseShift(ctx, clerk, booking.CloseShiftRequest{Counted: 1000})
		}()
		close(start)
		wg.Wait()
		if closeErr != nil {
			t.Fatalf("round %d: close: %v", round, closeErr)
		}
		for i, err := range saleErrs {
			if err != nil && !errors.Is(err, booking.ErrNoShift) && booking.ErrorCode(err) != booking.EConflict {
				t.Fatalf("round %d: sale %d: %v", round, i, err)
			}
		}
		if want := cashOf(t, u, sh.ID); z.Expected != want {
			t.Fatalf("round %d: the close expected %s, the shift's payments say %s", round, z.Expected, want)
		}
		if n := count(t, conn, `SELECT count(*) FROM payments p JOIN shifts s ON s.id = p.shift_id WHERE p.at > s.closed_at`); n != 0 {
			t.Fatalf("round %d: %d payments after their shift's close", round, n)
		}
	}
}

func TestShifts_ReportsListsAndReopen(t *testing.T) {
	s, _, _ := seeded(t)
	ctx := context.Background()
	if _, err := s.CurrentShift(ctx, clerk); booking.ErrorMessage(err) != "ann has no shift open." {
		t.Fatalf("no shift: %v", err)
	}
	if _, err := s.CloseShift(ctx, clerk, booking.CloseShiftRequest{Counted: 0}); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("closing no shift: %v", err)
	}
	if _, err := s.CloseShift(ctx, clerk, booking.CloseShiftRequest{Counted: -1}); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("a negative count: %v", err)
	}
	first, err := s.OpenShift(ctx, clerk, booking.OpenShiftRequest{Float: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ShiftReport(ctx, booking.Actor{Name: "bea", Role: booking.RoleClerk}, first.ID); booking.ErrorMessage(err) != fmt.Sprintf("Shift %d is ann's; a supervisor may see it.", first.ID) {
		t.Fatalf("another clerk's shift: %v", err)
	}
	if _, err := s.ShiftReport(ctx, sue, first.ID); err != nil {
		t.Fatalf("a supervisor reading ann's shift: %v", err)
	}
	if _, err := s.CloseShift(ctx, clerk, booking.CloseShiftRequest{Counted: 900, Breakdown: "5x1 2x2"}); err != nil {
		t.Fatal(err)
	}
	second, err := s.OpenShift(ctx, clerk, booking.OpenShiftRequest{Float: 500})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReopenShift(ctx, sue, booking.ReopenShiftRequest{ID: first.ID, Reason: "miscounted"}); booking.ErrorMessage(err) !=
		fmt.Sprintf("ann has another shift open; close it before reopening shift %d.", first.ID) {
		t.Fatalf("reopen while another is open: %v", err)
	}
	if _, err := s.ReopenShift(ctx, sue, booking.ReopenShiftRequest{ID: second.ID, Reason: "x"}); booking.ErrorMessage(err) != fmt.Sprintf("Shift %d is open already.", second.ID) {
		t.Fatalf("reopen an open shift: %v", err)
	}
	if _, err := s.ReopenShift(ctx, clerk, booking.ReopenShiftRequest{ID: first.ID, Reason: "x"}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a clerk reopening: %v", err)
	}
	if _, err := s.CloseShift(ctx, clerk, booking.CloseShiftRequest{Counted: 500}); err != nil {
		t.Fatal(err)
	}
	re, err := s.ReopenShift(ctx, sue, booking.ReopenShiftRequest{ID: first.ID, Reason: "miscounted"})
	if err != nil || re.Status != booking.ShiftOpen || re.Counted != 0 {
		t.Fatalf("reopen: %+v, %v", re, err)
	}
	x, err := s.ShiftReport(ctx, clerk, first.ID)
	if err != nil || x.Final || len(x.Events) != 3 || x.Events[1].Counted != 900 || x.Breakdown != "5x1 2x2" || x.Events[2].Reason != "miscounted" {
		t.Fatalf("the reopened shift's report: %+v, %v", x, err)
	}
	rows, err := s.Audit(ctx, mgr, booking.AuditQuery{Staff: "sue"})
	if err != nil || len(rows) != 1 || rows[0].Action != booking.AuditShiftReopen || rows[0].ShiftID != first.ID || rows[0].Detail != "miscounted" {
		t.Fatalf("sue's audit rows: one reopen, refused ones none: %+v, %v", rows, err)
	}
	if rows, err := s.Audit(ctx, mgr, booking.AuditQuery{Staff: "ann"}); err != nil || len(rows) != 4 { // open, close, open, close
		t.Fatalf("ann's audit rows: %+v, %v", rows, err)
	}
	if _, err := s.ShiftReport(ctx, clerk, 999); booking.ErrorMessage(err) != "No shift 999." {
		t.Fatalf("no such shift: %v", err)
	}
	mine, err := s.ListShifts(ctx, clerk, booking.ShiftQuery{Staff: "sue"})
	if err != nil || len(mine) != 2 || mine[0].ID != second.ID {
		t.Fatalf("a clerk lists their own shifts, newest first: %+v, %v", mine, err)
	}
	if open, err := s.ListShifts(ctx, sue, booking.ShiftQuery{Staff: "ANN", Open: true}); err != nil || len(open) != 1 || open[0].ID != first.ID {
		t.Fatalf("ann's open shifts: %+v, %v", open, err)
	}
	if none, err := s.ListShifts(ctx, sue, booking.ShiftQuery{Staff: "sue"}); err != nil || len(none) != 0 {
		t.Fatalf("sue's shifts: %+v, %v", none, err)
	}
}
