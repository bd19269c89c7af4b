package db_test

import (
	"context"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// Vouchers: what the contract suite (internal/contract/vouchers.go)
// cannot say about SQLite itself — the schema's last word on a
// voucher's uses, and the audit and plan walks of the new methods.

func init() {
	// A redemption a sale with a voucher, like bookings.
	historyTables["voucher_redemptions"] = true
	unaudited = append(unaudited, "ListVouchers", "ReportVouchers")
	writeCalls[booking.ActionManageVouchers] = []auditCall{
		{"AddVoucher", auditMgr, booking.AuditVoucherChange, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.AddVoucher(f.ctx, a, booking.Voucher{Code: "ONCE", Off: 2_00})
			return err
		}},
		{"RetireVoucher", auditMgr, booking.AuditVoucherChange, withVoucher, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.RetireVoucher(f.ctx, a, "once")
			return err
		}},
	}
}

// withVoucher adds a single-use voucher ONCE for 2.00 off.
func withVoucher(f *auditFixture) {
	if _, err := f.s.AddVoucher(f.ctx, booking.System, booking.Voucher{Code: "ONCE", Off: 2_00}); err != nil {
		f.t.Fatal(err)
	}
}

// voucherSteps is planWorkload's part for vouchers and items on a ticket
// sale: every method, a sale with both, one refused, its cancel and the
// reads of the booking and the report.
func voucherSteps(t *testing.T, s *db.Store, clock *storetest.Clock, step func(string, error), stepV func(string) func(any, error)) {
	t.Helper()
	ctx := context.Background()
	mgr := booking.Actor{Name: "mgr", Role: booking.RoleManager}
	stepV("AddVoucher")(s.AddVoucher(ctx, mgr, booking.Voucher{Code: "PLAN", Percent: 10}))
	stepV("AddVoucher")(s.AddVoucher(ctx, mgr, booking.Voucher{Code: "GONE", Off: 1_00}))
	stepV("RetireVoucher")(s.RetireVoucher(ctx, mgr, "GONE"))
	stepV("ListVouchers")(s.ListVouchers(ctx, mgr))
	stepV("AddItem")(s.AddItem(ctx, mgr, booking.Item{Code: "nachos", Name: "Nachos", Price: 5_00, Stock: intp(5)}))
	h := mustHold(t, s, 3, "plan-v", "J1", "J2")
	req := booking.CheckoutRequest{HoldID: h.ID, Owner: "plan-v", IdempotencyKey: "plan-v", Method: booking.Card, Voucher: "GONE"}
	stepV("Checkout")(s.Checkout(ctx, clerk, req)) // retired
	req.Voucher, req.Items = "PLAN", []booking.ItemLine{{Code: "nachos", Qty: 2}}
	b, err := s.Checkout(ctx, clerk, req)
	if err != nil {
		t.Fatalf("Checkout with a voucher and items: %v", err)
	}
	step("Checkout", err)
	stepV("Booking")(s.Booking(ctx, clerk, b.Number))
	stepV("Cancel")(s.Cancel(ctx, supervisor, booking.CancelRequest{Number: b.Number, Reason: "plan"}))
	day := booking.DayStart(clock.Now())
	stepV("ReportVouchers")(s.ReportVouchers(ctx, mgr, booking.ReportRange{From: day, To: day}))
}

// TestVouchers_SchemaRefusesOverUse: whatever writes the file, a
// voucher's uses left stay between 0 and its uses, a redemption is
// returned once and nothing of it is deleted.
func TestVouchers_SchemaRefusesOverUse(t *testing.T) {
	t.Parallel()
	s, path := dbtest.MustOpen(t, db.Options{Clock: storetest.FixedClock().Now, SweepInterval: -1})
	ctx := context.Background()
	if _, err := s.AddVoucher(ctx, booking.System, booking.Voucher{Code: "ONCE", Off: 1_00}); err != nil {
		t.Fatal(err)
	}
	h := mustHold(t, s, 1, "o", "A1")
	b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "o", IdempotencyKey: "o", Method: booking.Card, Voucher: "ONCE"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: b.Number}); err != nil {
		t.Fatal(err)
	}
	raw := openRaw(t, path)
	for _, q := range []string{
		`UPDATE vouchers SET uses_left = -1`,
		`UPDATE vouchers SET uses_left = 2`,
		`UPDATE voucher_redemptions SET returned_at = 2`,
		`DELETE FROM voucher_redemptions`,
		`DELETE FROM vouchers`,
	} {
		if _, err := raw.Exec(q); err == nil || !strings.Contains(strings.ToLower(err.Error()), "constraint") && !strings.Contains(err.Error(), "never") &&
			!strings.Contains(err.Error(), "once") {
			t.Errorf("%s: %v", q, err)
		}
	}
}
