package contract

import (
	"context"
	"errors"
	"sync"
	"testing"

	"boxoffice/booking"
)

// canceller is what cancelCases need of booking.Bookings.
type canceller interface {
	Booking(ctx context.Context, actor booking.Actor, number string) (*booking.Booking, error)
	Cancel(ctx context.Context, actor booking.Actor, req booking.CancelRequest) (*booking.Booking, error)
}

// cancelCases: a booking is cancelled and refunded at most once; a stale
// copy that still says confirmed is refused and nothing moves.
var cancelCases = []testCase{
	{"ConcurrentOnce", cancelConcurrentOnce},
	{"OnceEachWay", cancelOnceEachWay},
	{"ErrStaleCopy", cancelErrStaleCopy},
	{"ErrClerkNeedsSupervisor", cancelErrClerk},
	{"ErrNotFound", cancelErrNotFound},
	{"ErrAdmitted", cancelErrAdmitted},
	{"RacingAdmission", cancelRacingAdmission},
	{"ErrWithdrawn", cancelErrWithdrawn},
}

func cancelConcurrentOnce(t *testing.T, e *env) {
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	b := e.sell(t, "a", "D1", "D2", "D3")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number, Reason: "customer ill"})
		})
	}
	wg.Wait()
	ok, stale := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, booking.ErrStaleStatus):
			stale++
		default:
			t.Fatal(err)
		}
	}
	if ok != 1 || stale != 1 {
		t.Fatalf("%d cancels succeeded and %d were stale", ok, stale)
	}
	after, err := c.Booking(e.ctx, clerk, b.Number)
	if err != nil {
		t.Fatal(err)
	}
	// One refund per ticket, each once: three tickets, three refunds.
	refunds := 0
	for _, p := range after.Payments {
		if p.Kind == booking.PaymentRefund {
			refunds++
		}
	}
	if after.Status != booking.BookingCancelled || refunds != 3 {
		t.Fatalf("%s with %d refunds", after.Status, refunds)
	}
	e.counts(t, 0, 0)
	e.hold(t, "b", "D2") // free again
}

func cancelErrStaleCopy(t *testing.T, e *env) {
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	b := e.sell(t, "a", "D1")
	copy, err := c.Booking(e.ctx, clerk, b.Number) // says confirmed
	if err != nil || copy.Status != booking.BookingConfirmed {
		t.Fatalf("copy: %+v, %v", copy, err)
	}
	if _, err := c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: copy.Number})
	if !errors.Is(err, booking.ErrStaleStatus) || booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("stale cancel: %v", err)
	}
	after, _ := c.Booking(e.ctx, clerk, b.Number)
	if len(after.Payments) != 2 || after.Show.Sold != 0 {
		t.Fatalf("payments %d sold %d after a stale cancel", len(after.Payments), after.Show.Sold)
	}
}

func cancelErrClerk(t *testing.T, e *env) {
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	b := e.sell(t, "a", "D1")
	_, err := c.Cancel(e.ctx, clerk, booking.CancelRequest{Number: b.Number})
	wantCode(t, "a clerk's cancel", err, booking.EForbidden)
	_, err = c.Cancel(e.ctx, clerk, booking.CancelRequest{Number: b.Number, Approver: &booking.Credentials{Name: "sue", PIN: "9999"}})
	wantCode(t, "a wrong supervisor PIN", err, booking.EForbidden)
	wantMessage(t, "a wrong supervisor PIN", err, "Wrong name or PIN.")
	got, err := c.Cancel(e.ctx, clerk, booking.CancelRequest{Number: b.Number, Approver: &booking.Credentials{Name: "sue", PIN: "1234"}})
	if err != nil {
		t.Fatal(err)
	}
	if got.CancelledBy != "carl" || got.ApprovedBy != "sue" {
		t.Fatalf("recorded %q approved by %q", got.CancelledBy, got.ApprovedBy)
	}
}

func cancelErrNotFound(t *testing.T, e *env) {
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	_, err := c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: "BO-ZZZZZZZZ"})
	wantCode(t, "cancel of no booking", err, booking.ENotFound)
	wantMessage(t, "cancel of no booking", err, "No booking BO-ZZZZZZZZ.")
	_, err = c.Booking(e.ctx, clerk, "BO-ZZZZZZZZ")
	wantCode(t, "look-up of no booking", err, booking.ENotFound)
}

// auditor is booking.Audit.
type auditor interface {
	Audit(ctx context.Context, actor booking.Actor, q booking.AuditQuery) ([]booking.AuditEntry, error)
}

// auditCases: one row for every write that happened, in its transaction,
// and none for one refused.
var auditCases = []testCase{
	{"OneRowPerWriteThatHappened", auditOneRowPerWrite},
}

func auditOneRowPerWrite(t *testing.T, e *env) {
	a := need[auditor](t, e, "Audit (booking.Audit)")
	rows := func(action booking.AuditAction) []booking.AuditEntry {
		t.Helper()
		all, err := a.Audit(e.ctx, manager, booking.AuditQuery{Limit: booking.MaxAuditLimit})
		if err != nil {
			t.Fatal(err)
		}
		var out []booking.AuditEntry
		for _, r := range all {
			if r.Action == action {
				out = append(out, r)
			}
		}
		return out
	}
	h := e.hold(t, "a", "A1", "A2")
	if _, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"A2", "A3"}, Owner: "b"}); err == nil {
		t.Fatal("A2 held twice")
	}
	if n := len(rows(booking.AuditHold)); n != 1 {
		t.Fatalf("%d hold rows after one hold and one clash, want 1", n)
	}
	req := booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "once", Method: booking.Card}
	for range 2 {
		if _, err := e.s.Checkout(e.ctx, clerk, req); err != nil {
			t.Fatal(err)
		}
	}
	sales := rows(booking.AuditSale)
	if len(sales) != 1 {
		t.Fatalf("%d sale rows after a checkout and its retry, want 1", len(sales))
	}
	if r := sales[0]; r.Actor != "carl" || r.Role != "clerk" || r.Terminal != "till-1" || r.Amount != 2500 || r.ShowID != e.show.ID || r.Booking == "" {
		t.Fatalf("sale row %+v", r)
	}
	h2 := e.hold(t, "a", "B4")
	for range 2 {
		if err := e.s.Release(e.ctx, clerk, h2.ID, "a"); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(rows(booking.AuditRelease)); n != 1 {
		t.Fatalf("%d release rows after one release and one of an ended hold, want 1", n)
	}
}
