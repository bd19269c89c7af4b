package contract

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"boxoffice/booking"
)

const needItems = "Items, AddItem, SellItems, RefundItems and the rest of booking.Items"

// itemCases: concessions (invariant 16). Stock never goes below zero
// under any concurrency and a sold-out line writes nothing of its sale;
// a refund returns each line's stock and money exactly once; the money
// goes through the seller's shift.
var itemCases = []testCase{
	{"EightyBuyersFiftyPopcorns", itemsEightyBuyers},
	{"SoldOutWritesNothing", itemsSoldOutWritesNothing},
	{"TwoRefundsReturnStockOnce", itemsTwoRefunds},
	{"RefundLineByLine", itemsRefundLineByLine},
	{"SameKeySameOrder", itemsSameKey},
	{"StockTakeAndRestock", itemsStockTake},
	{"Refusals", itemsRefusals},
	{"ShiftAndTakings", itemsShiftAndTakings},
}

func init() {
	probes[reflect.TypeFor[booking.Items]()] = func(e *env, c any) error {
		_, err := c.(booking.Items).Items(e.ctx, clerk, true)
		return err
	}
}

// addItem adds an item as the manager, or fails the case.
func addItem(t *testing.T, e *env, it booking.Items, code, name, category string, price booking.Money, stock *int) {
	t.Helper()
	if _, err := it.AddItem(e.ctx, manager, booking.Item{Code: code, Name: name, Category: category, Price: price, Stock: stock}); err != nil {
		t.Fatalf("add %s: %v", code, err)
	}
}

// stockOf reads an item's stock: -1 for unlimited.
func stockOf(t *testing.T, e *env, it booking.Items, code string) int {
	t.Helper()
	all, err := it.Items(e.ctx, clerk, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range all {
		if x.Code == code {
			if x.Stock == nil {
				return -1
			}
			return *x.Stock
		}
	}
	t.Fatalf("no item %s in %+v", code, all)
	return 0
}

func count(n int) *int { return &n }

// sellItems sells lines by card as actor under key.
func sellItems(e *env, it booking.Items, actor booking.Actor, key string, method booking.PayMethod, lines ...booking.ItemLine) (*booking.ItemOrder, error) {
	return it.SellItems(e.ctx, actor, booking.ItemSaleRequest{Lines: lines, IdempotencyKey: key, Method: method})
}

// itemsEightyBuyers: 50 popcorns, 80 buyers at once: 50 sold, each with
// its payment in the clerk's shift, 30 refused with the count left and
// nothing written, stock 0 and never below.
func itemsEightyBuyers(t *testing.T, e *env) {
	it := need[booking.Items](t, e, needItems)
	addItem(t, e, it, "popcorn", "Popcorn", "snacks", 4_50, count(50))
	orders := make([]*booking.ItemOrder, 80)
	errs := make([]error, 80)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			orders[i], errs[i] = sellItems(e, it, clerk, fmt.Sprint("buyer-", i), booking.Cash, booking.ItemLine{Code: "popcorn", Qty: 1})
		})
	}
	wg.Wait()
	sold, refused := 0, 0
	numbers := map[string]bool{}
	for i, err := range errs {
		switch {
		case err == nil:
			sold++
			o := orders[i]
			if numbers[o.Number] || len(o.Payments) != 1 || o.Payments[0].Kind != booking.PaymentSale || o.Payments[0].Amount != 4_50 ||
				o.Payments[0].ShiftID == 0 || len(o.Lines) != 1 || o.Lines[0].Qty != 1 {
				t.Fatalf("order %d: %+v", i, o)
			}
			numbers[o.Number] = true
		case booking.ErrorCode(err) == booking.EConflict:
			refused++
			wantMessage(t, "a buyer too many", err, "Popcorn: 0 left; 1 asked.")
		default:
			t.Fatalf("buyer %d: %v", i, err)
		}
	}
	if sold != 50 || refused != 30 {
		t.Fatalf("%d sold, %d refused; want 50 and 30", sold, refused)
	}
	if n := stockOf(t, e, it, "popcorn"); n != 0 {
		t.Fatalf("stock %d, want 0", n)
	}
	sh := need[booking.Shifts](t, e, needShifts)
	cur, err := sh.CurrentShift(e.ctx, clerk)
	if err != nil {
		t.Fatal(err)
	}
	x, err := sh.ShiftReport(e.ctx, clerk, cur.ID)
	if err != nil {
		t.Fatal(err)
	}
	if x.CashSales != 50*4_50 || x.Sales != 50 || x.Expected != Float+50*4_50 || len(x.Items) != 1 || x.Items[0].Sold != 50 {
		t.Fatalf("X report %+v", x)
	}
	e.whole(t)
}

// itemsSoldOutWritesNothing: a sale whose second line is short is
// refused naming that item, and the first line's stock is untouched.
func itemsSoldOutWritesNothing(t *testing.T, e *env) {
	it := need[booking.Items](t, e, needItems)
	addItem(t, e, it, "cola", "Cola", "drinks", 3_00, count(5))
	addItem(t, e, it, "nachos", "Nachos", "snacks", 5_00, count(1))
	_, err := sellItems(e, it, clerk, "short", booking.Card, booking.ItemLine{Code: "cola", Qty: 2}, booking.ItemLine{Code: "nachos", Qty: 2})
	wantCode(t, "two nachos of one", err, booking.EConflict)
	wantMessage(t, "two nachos of one", err, "Nachos: 1 left; 2 asked.")
	if c, n := stockOf(t, e, it, "cola"), stockOf(t, e, it, "nachos"); c != 5 || n != 1 {
		t.Fatalf("stock after a refused sale: cola %d nachos %d", c, n)
	}
	o, err := sellItems(e, it, clerk, "short", booking.Card, booking.ItemLine{Code: "cola", Qty: 2}, booking.ItemLine{Code: "nachos", Qty: 1})
	if err != nil || o.Total != 11_00 || len(o.Lines) != 2 {
		t.Fatalf("the same key once there is enough: %+v %v", o, err)
	}
	e.whole(t)
}

// itemsTwoRefunds: two refunds of one order at once: one refunds, the
// other is stale; the stock and the money go back once.
func itemsTwoRefunds(t *testing.T, e *env) {
	it := need[booking.Items](t, e, needItems)
	addItem(t, e, it, "popcorn", "Popcorn", "snacks", 4_50, count(10))
	o, err := sellItems(e, it, clerk, "o", booking.Cash, booking.ItemLine{Code: "popcorn", Qty: 3})
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = it.RefundItems(e.ctx, supervisor, booking.ItemRefundRequest{Number: o.Number, Reason: fmt.Sprint("attempt ", i)})
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, booking.ErrStaleStatus):
			wantMessage(t, "the losing refund", err, "Order "+o.Number+" is already refunded")
		default:
			t.Fatal(err)
		}
	}
	if ok != 1 {
		t.Fatalf("%d refunds succeeded", ok)
	}
	if n := stockOf(t, e, it, "popcorn"); n != 10 {
		t.Fatalf("stock %d after one refund of 3 of 10, want 10", n)
	}
	got, err := it.ItemOrder(e.ctx, clerk, o.Number)
	if err != nil {
		t.Fatal(err)
	}
	refunds := 0
	for _, p := range got.Payments {
		if p.Kind == booking.PaymentRefund {
			refunds++
			if p.Amount != 13_50 || p.Method != booking.Cash || p.LineID != got.Lines[0].ID {
				t.Fatalf("refund %+v", p)
			}
		}
	}
	if refunds != 1 || !got.Lines[0].Refunded() {
		t.Fatalf("%d refunds of %+v", refunds, got)
	}
	e.whole(t)
}

// itemsRefundLineByLine: one line refunded alone, then the rest; a line
// not on the order and one refunded already are refused.
func itemsRefundLineByLine(t *testing.T, e *env) {
	it := need[booking.Items](t, e, needItems)
	addItem(t, e, it, "cola", "Cola", "drinks", 3_00, count(5))
	addItem(t, e, it, "water", "Water", "drinks", 2_00, nil)
	o, err := sellItems(e, it, clerk, "o", booking.Card, booking.ItemLine{Code: "cola", Qty: 2}, booking.ItemLine{Code: "water", Qty: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = it.RefundItems(e.ctx, clerk, booking.ItemRefundRequest{Number: o.Number, Codes: []string{"cola"}})
	wantCode(t, "a clerk's refund", err, booking.EForbidden)
	_, err = it.RefundItems(e.ctx, supervisor, booking.ItemRefundRequest{Number: o.Number, Codes: []string{"nachos"}})
	wantCode(t, "a line not on the order", err, booking.EInvalid)
	got, err := it.RefundItems(e.ctx, supervisor, booking.ItemRefundRequest{Number: o.Number, Codes: []string{"COLA"}})
	if err != nil || !got.Lines[0].Refunded() || got.Lines[1].Refunded() {
		t.Fatalf("refund of cola: %+v %v", got, err)
	}
	_, err = it.RefundItems(e.ctx, supervisor, booking.ItemRefundRequest{Number: o.Number, Codes: []string{"cola"}})
	wantMessage(t, "cola again", err, "Cola on "+o.Number+" is already refunded")
	if _, err := it.RefundItems(e.ctx, supervisor, booking.ItemRefundRequest{Number: o.Number}); err != nil {
		t.Fatal(err)
	}
	if c, w := stockOf(t, e, it, "cola"), stockOf(t, e, it, "water"); c != 5 || w != -1 {
		t.Fatalf("stock cola %d water %d", c, w)
	}
	_, err = it.RefundItems(e.ctx, supervisor, booking.ItemRefundRequest{Number: "IT-ZZZZZZZZ"})
	wantCode(t, "no such order", err, booking.ENotFound)
}

// itemsSameKey: the same key again answers with the first order and
// takes no more stock, even sent at once.
func itemsSameKey(t *testing.T, e *env) {
	it := need[booking.Items](t, e, needItems)
	addItem(t, e, it, "popcorn", "Popcorn", "snacks", 4_50, count(10))
	orders := make([]*booking.ItemOrder, 6)
	errs := make([]error, 6)
	var wg sync.WaitGroup
	for i := range orders {
		wg.Go(func() {
			orders[i], errs[i] = sellItems(e, it, clerk, "double-enter", booking.Card, booking.ItemLine{Code: "popcorn", Qty: 2})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil || orders[i].Number != orders[0].Number {
			t.Fatalf("try %d: %+v %v (first %s)", i, orders[i], err, orders[0].Number)
		}
	}
	if n := stockOf(t, e, it, "popcorn"); n != 8 {
		t.Fatalf("stock %d, want 8", n)
	}
}

// itemsStockTake: a stock-take sets the count and says the difference, a
// restock adds, an unlimited item takes no restock, each audited.
func itemsStockTake(t *testing.T, e *env) {
	it := need[booking.Items](t, e, needItems)
	addItem(t, e, it, "popcorn", "Popcorn", "snacks", 4_50, count(50))
	c, err := it.StockTake(e.ctx, manager, booking.StockRequest{Code: "popcorn", N: count(47), Reason: "three bags split"})
	if err != nil || c.Difference() != -3 || *c.Item.Stock != 47 {
		t.Fatalf("stock-take: %+v %v", c, err)
	}
	c, err = it.Restock(e.ctx, manager, booking.StockRequest{Code: "popcorn", N: count(20), Reason: "delivery"})
	if err != nil || c.Difference() != 20 || *c.Item.Stock != 67 {
		t.Fatalf("restock: %+v %v", c, err)
	}
	_, err = it.StockTake(e.ctx, manager, booking.StockRequest{Code: "popcorn", N: count(10)})
	wantCode(t, "a stock-take without a reason", err, booking.EInvalid)
	_, err = it.StockTake(e.ctx, clerk, booking.StockRequest{Code: "popcorn", N: count(10), Reason: "r"})
	wantCode(t, "a clerk's stock-take", err, booking.EForbidden)
	if _, err := it.StockTake(e.ctx, manager, booking.StockRequest{Code: "popcorn", Reason: "sold loose now"}); err != nil {
		t.Fatal(err)
	}
	_, err = it.Restock(e.ctx, manager, booking.StockRequest{Code: "popcorn", N: count(5), Reason: "delivery"})
	wantCode(t, "a restock of an unlimited item", err, booking.EInvalid)
	if n := stockOf(t, e, it, "popcorn"); n != -1 {
		t.Fatalf("stock %d, want unlimited", n)
	}
	a, ok := e.s.(auditor)
	if !ok {
		return
	}
	rows, err := a.Audit(e.ctx, manager, booking.AuditQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var details []string
	for _, r := range rows {
		if r.Action == booking.AuditStockChange {
			details = append(details, r.Detail)
		}
	}
	want := []string{"popcorn 67 -> unlimited: sold loose now", "popcorn 47 -> 67 (+20): delivery", "popcorn 50 -> 47 (-3): three bags split"}
	if fmt.Sprint(details) != fmt.Sprint(want) {
		t.Fatalf("stock rows %q, want %q", details, want)
	}
}

// itemsRefusals: what a sale and the item changes refuse, and that none
// of it takes stock.
func itemsRefusals(t *testing.T, e *env) {
	it := need[booking.Items](t, e, needItems)
	addItem(t, e, it, "popcorn", "Popcorn", "snacks", 4_50, count(5))
	_, err := it.AddItem(e.ctx, manager, booking.Item{Code: "Popcorn", Name: "Again", Price: 1_00})
	wantCode(t, "a code taken", err, booking.EConflict)
	_, err = it.AddItem(e.ctx, clerk, booking.Item{Code: "ice", Name: "Ice", Price: 1_00})
	wantCode(t, "a clerk adding an item", err, booking.EForbidden)
	_, err = sellItems(e, it, clerk, "a", booking.Card, booking.ItemLine{Code: "caviar", Qty: 1})
	wantCode(t, "an unknown item", err, booking.ENotFound)
	_, err = it.SellItems(e.ctx, clerk, booking.ItemSaleRequest{Lines: []booking.ItemLine{{Code: "popcorn", Qty: 2}}, IdempotencyKey: "b",
		Method: booking.Cash, Tendered: 5_00})
	wantCode(t, "short cash", err, booking.EInvalid)
	_, err = it.SellItems(e.ctx, clerk, booking.ItemSaleRequest{Lines: []booking.ItemLine{{Code: "popcorn", Qty: 1}}, IdempotencyKey: "c",
		Method: booking.Card, ExpectedTotal: 4_00, CheckTotal: true})
	var changed *booking.PriceChangedError
	if !errors.As(err, &changed) || changed.Total != 4_50 {
		t.Fatalf("a total the clerk did not see: %v", err)
	}
	if _, err := it.SetItemPrice(e.ctx, manager, "popcorn", 5_00); err != nil {
		t.Fatal(err)
	}
	if _, err := it.RetireItem(e.ctx, manager, "popcorn"); err != nil {
		t.Fatal(err)
	}
	_, err = sellItems(e, it, clerk, "d", booking.Card, booking.ItemLine{Code: "popcorn", Qty: 1})
	wantMessage(t, "a retired item", err, "Popcorn is no longer sold.")
	_, err = it.RetireItem(e.ctx, manager, "popcorn")
	wantCode(t, "retired twice", err, booking.EConflict)
	if n := stockOf(t, e, it, "popcorn"); n != 5 {
		t.Fatalf("stock %d after refused sales, want 5", n)
	}
	if list, err := it.Items(e.ctx, clerk, false); err != nil || len(list) != 0 {
		t.Fatalf("items on sale: %+v %v", list, err)
	}
}

// itemsShiftAndTakings: the X report counts the shift's items by category
// and names what runs low; the takings add them up by category.
func itemsShiftAndTakings(t *testing.T, e *env) {
	it := need[booking.Items](t, e, needItems)
	sh := need[booking.Shifts](t, e, needShifts)
	addItem(t, e, it, "popcorn", "Popcorn", "snacks", 4_50, count(12))
	addItem(t, e, it, "cola", "Cola", "drinks", 3_00, nil)
	o, err := sellItems(e, it, clerk, "a", booking.Cash, booking.ItemLine{Code: "popcorn", Qty: 3}, booking.ItemLine{Code: "cola", Qty: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := it.RefundItems(e.ctx, clerk, booking.ItemRefundRequest{Number: o.Number, Codes: []string{"cola"}, Approver: &booking.Credentials{Name: "sue", PIN: "1234"}}); err != nil {
		t.Fatal(err)
	}
	cur, err := sh.CurrentShift(e.ctx, clerk)
	if err != nil {
		t.Fatal(err)
	}
	x, err := sh.ShiftReport(e.ctx, clerk, cur.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []booking.ItemTally{{Category: "drinks", Sold: 2, Refunded: 2, Sales: 6_00, Refunds: 6_00}, {Category: "snacks", Sold: 3, Sales: 13_50}}
	if fmt.Sprint(x.Items) != fmt.Sprint(want) || x.CashSales != 19_50 || x.CashRefunds != 6_00 || x.Expected != Float+13_50 {
		t.Fatalf("X report items %+v, cash %s/%s, expected %s", x.Items, x.CashSales, x.CashRefunds, x.Expected)
	}
	if len(x.LowStock) != 1 || x.LowStock[0].Code != "popcorn" || *x.LowStock[0].Stock != 9 {
		t.Fatalf("low stock %+v", x.LowStock)
	}
	day := booking.DayStart(e.clock.Now())
	r, err := it.ReportItemTakings(e.ctx, manager, booking.ReportRange{From: day, To: day})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(r.Rows) != fmt.Sprint(want) || r.Total.Net() != 13_50 || r.Total.Sold != 5 {
		t.Fatalf("item takings %+v", r)
	}
}
