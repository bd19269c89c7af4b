package db_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// Concessions: what the contract suite (internal/contract/items.go)
// cannot say about SQLite itself — the schema's last word on stock and
// the orders' money, and the audit and plan walks of the new methods.

func init() {
	// The orders grow with every sale, like bookings.
	for _, t := range []string{"item_orders", "item_lines", "item_payments"} {
		historyTables[t] = true
	}
	unaudited = append(unaudited, "Items", "ItemOrder", "ReportItemTakings")
	writeCalls[booking.ActionManageItems] = []auditCall{
		{"AddItem", auditMgr, booking.AuditItemChange, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.AddItem(f.ctx, a, booking.Item{Code: "popcorn", Name: "Popcorn", Price: 4_50})
			return err
		}},
		{"SetItemPrice", auditMgr, booking.AuditItemChange, withPopcorn, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.SetItemPrice(f.ctx, a, "popcorn", 5_00)
			return err
		}},
		{"StockTake", auditMgr, booking.AuditStockChange, withPopcorn, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.StockTake(f.ctx, a, booking.StockRequest{Code: "popcorn", N: intp(9), Reason: "count"})
			return err
		}},
		{"Restock", auditMgr, booking.AuditStockChange, withPopcorn, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.Restock(f.ctx, a, booking.StockRequest{Code: "popcorn", N: intp(9), Reason: "delivery"})
			return err
		}},
		{"RetireItem", auditMgr, booking.AuditItemChange, withPopcorn, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.RetireItem(f.ctx, a, "popcorn")
			return err
		}},
	}
	writeCalls[booking.ActionSell] = append(writeCalls[booking.ActionSell], auditCall{"SellItems", auditClerk, booking.AuditSale, withPopcorn,
		func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.SellItems(f.ctx, a, booking.ItemSaleRequest{Lines: []booking.ItemLine{{Code: "popcorn", Qty: 2}}, IdempotencyKey: "k", Method: booking.Card})
			return err
		}})
	writeCalls[booking.ActionRefund] = append(writeCalls[booking.ActionRefund], auditCall{"RefundItems", auditSup, booking.AuditRefund, soldPopcorn,
		func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.RefundItems(f.ctx, a, booking.ItemRefundRequest{Number: f.sold.Number})
			return err
		}})
}

func intp(n int) *int { return &n }

// withPopcorn adds 20 popcorns at 4.50.
func withPopcorn(f *auditFixture) {
	if _, err := f.s.AddItem(f.ctx, booking.System, booking.Item{Code: "popcorn", Name: "Popcorn", Price: 4_50, Stock: intp(20)}); err != nil {
		f.t.Fatal(err)
	}
}

// soldPopcorn is withPopcorn and an order of two, kept in f.sold.
func soldPopcorn(f *auditFixture) {
	withPopcorn(f)
	o, err := f.s.SellItems(f.ctx, clerk, booking.ItemSaleRequest{Lines: []booking.ItemLine{{Code: "popcorn", Qty: 2}}, IdempotencyKey: "o", Method: booking.Card})
	if err != nil {
		f.t.Fatal(err)
	}
	f.sold = &booking.Booking{Number: o.Number}
}

// itemSteps is planWorkload's part for the concessions: every method,
// a sale refused for stock, a refund line by line, the reports.
func itemSteps(t *testing.T, s *db.Store, clock *storetest.Clock, step func(string, error), stepV func(string) func(any, error)) {
	t.Helper()
	ctx := context.Background()
	mgr := booking.Actor{Name: "mgr", Role: booking.RoleManager}
	stepV("AddItem")(s.AddItem(ctx, mgr, booking.Item{Code: "popcorn", Name: "Popcorn", Category: "snacks", Price: 4_50, Stock: intp(3)}))
	stepV("AddItem")(s.AddItem(ctx, mgr, booking.Item{Code: "cola", Name: "Cola", Category: "drinks", Price: 3_00}))
	stepV("Items")(s.Items(ctx, clerk, true))
	stepV("SetItemPrice")(s.SetItemPrice(ctx, mgr, "cola", 3_20))
	stepV("StockTake")(s.StockTake(ctx, mgr, booking.StockRequest{Code: "popcorn", N: intp(4), Reason: "count"}))
	stepV("Restock")(s.Restock(ctx, mgr, booking.StockRequest{Code: "popcorn", N: intp(4), Reason: "delivery"}))
	sale := booking.ItemSaleRequest{Lines: []booking.ItemLine{{Code: "popcorn", Qty: 2}, {Code: "cola", Qty: 1}}, IdempotencyKey: "plan-items", Method: booking.Cash}
	o, err := s.SellItems(ctx, clerk, sale)
	if err != nil {
		t.Fatalf("SellItems: %v", err)
	}
	step("SellItems", err)
	stepV("SellItems")(s.SellItems(ctx, clerk, sale)) // the same key
	stepV("SellItems")(s.SellItems(ctx, clerk, booking.ItemSaleRequest{Lines: []booking.ItemLine{{Code: "popcorn", Qty: 9}}, IdempotencyKey: "plan-short", Method: booking.Card}))
	stepV("ItemOrder")(s.ItemOrder(ctx, clerk, o.Number))
	stepV("RefundItems")(s.RefundItems(ctx, supervisor, booking.ItemRefundRequest{Number: o.Number, Codes: []string{"cola"}}))
	stepV("RefundItems")(s.RefundItems(ctx, supervisor, booking.ItemRefundRequest{Number: o.Number}))
	stepV("RetireItem")(s.RetireItem(ctx, mgr, "cola"))
	day := booking.DayStart(clock.Now())
	stepV("ReportItemTakings")(s.ReportItemTakings(ctx, mgr, booking.ReportRange{From: day, To: day}))
	if sh, err := s.CurrentShift(ctx, clerk); err == nil {
		stepV("ShiftReport")(s.ShiftReport(ctx, clerk, sh.ID))
	}
}

// TestItems_SchemaRefusesNegativeStock: whatever writes the file, stock
// never goes below zero, a line is refunded once and the orders' money
// is never changed.
func TestItems_SchemaRefusesNegativeStock(t *testing.T) {
	t.Parallel()
	s, path := dbtest.MustOpen(t, db.Options{Clock: storetest.FixedClock().Now, SweepInterval: -1})
	ctx := context.Background()
	if _, err := s.AddItem(ctx, booking.System, booking.Item{Code: "popcorn", Name: "Popcorn", Price: 4_50, Stock: intp(1)}); err != nil {
		t.Fatal(err)
	}
	o, err := s.SellItems(ctx, clerk, booking.ItemSaleRequest{Lines: []booking.ItemLine{{Code: "popcorn", Qty: 1}}, IdempotencyKey: "k", Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RefundItems(ctx, supervisor, booking.ItemRefundRequest{Number: o.Number}); err != nil {
		t.Fatal(err)
	}
	raw := openRaw(t, path)
	for _, q := range []string{
		`UPDATE items SET stock = -1 WHERE code = 'popcorn'`,
		`UPDATE item_lines SET refunded_at = 1`,
		`UPDATE item_payments SET amount = 0`,
		`DELETE FROM item_orders`,
		`DELETE FROM items`,
		`INSERT INTO item_payments (order_id, kind, method, amount, tendered, at, staff) VALUES (1, 'sale', 'cash', 100, 100, 0, 'nobody')`,
	} {
		if _, err := raw.Exec(q); err == nil || !strings.Contains(strings.ToLower(err.Error()), "constraint") && !strings.Contains(err.Error(), "never") &&
			!strings.Contains(err.Error(), "once") && !strings.Contains(err.Error(), "shift") {
			t.Errorf("%s: %v", q, err)
		}
	}
	var stock sql.NullInt64
	if err := raw.QueryRow(`SELECT stock FROM items`).Scan(&stock); err != nil || stock.Int64 != 1 {
		t.Fatalf("stock %v %v", stock, err)
	}
}
