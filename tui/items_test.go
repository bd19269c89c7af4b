package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
)

// A sale of items moves money: it runs to its end when the session ends.
func init() { moneyMethods["SellItems"] = true }

// withItems adds cola (unlimited) and popcorn (stock) to the store.
func withItems(t *testing.T, s *db.Store, popcorn int) {
	t.Helper()
	ctx := context.Background()
	for _, it := range []booking.Item{
		{Code: "cola", Name: "Cola", Category: "drinks", Price: 3_00},
		{Code: "popcorn", Name: "Popcorn", Category: "snacks", Price: 4_50, Stock: &popcorn},
	} {
		if _, err := s.AddItem(ctx, booking.System, it); err != nil {
			t.Fatal(err)
		}
	}
}

// itemStock reads an item's stock from the store: -1 for unlimited.
func itemStock(t *testing.T, s *db.Store, code string) int {
	t.Helper()
	list, err := s.Items(context.Background(), booking.System, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range list {
		if it.Code == code {
			if it.Stock == nil {
				return -1
			}
			return *it.Stock
		}
	}
	t.Fatalf("no item %s", code)
	return 0
}

// openItemsAs signs name in and opens the items screen from the shows.
func openItemsAs(t *testing.T, m *Model, name, pin string) {
	t.Helper()
	signIn(t, m, name, pin)
	press(t, m, "ctrl+n")
	if m.screen != screenItems || !m.items.loaded {
		t.Fatalf("ctrl+n: screen %v, loaded %v, status %q", m.screen, m.items.loaded, m.status)
	}
}

// A clerk sells items alone from the shows: ctrl+n, one cola and two
// popcorns in the basket, the cash typed, enter to Sell and enter: one
// order, the stock taken, the change said, a new basket.
func TestItems_SellAlone(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	withItems(t, s, 3)
	addStaff(t, s, "nina", booking.RoleClerk, "2468")
	m := newTestModel(t, s, clock, "items-sell", 80, 24)
	openItemsAs(t, m, "nina", "2468")
	press(t, m, "right", "down", "+", "+", "enter")
	if !m.items.paying || m.items.focus != payTendered {
		t.Fatalf("enter on a basket: paying %v focus %v status %q", m.items.paying, m.items.focus, m.status)
	}
	typeText(t, m, "20")
	press(t, m, "enter")
	out := screenText(m)
	if m.items.focus != paySell || !strings.Contains(out, "Change due 8.00") || !strings.Contains(out, "[ Sell · 12.00 cash ]") {
		t.Fatalf("enter on the cash did not go to Sell:\n%s", out)
	}
	for _, l := range strings.Split(m.View().Content, "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Fatalf("a line of %d cells: %q", w, ansi.Strip(l))
		}
	}
	press(t, m, "enter")
	o := m.items.last
	if o == nil || o.Total != 12_00 || o.Change() != 8_00 || len(o.Lines) != 2 || !strings.Contains(m.status, "Sold "+o.Number) {
		t.Fatalf("sale: %+v, status %q", o, m.status)
	}
	if n := itemStock(t, s, "popcorn"); n != 1 {
		t.Fatalf("popcorn stock %d, want 1", n)
	}
	if m.items.paying || len(m.items.qty) != 0 || !strings.Contains(screenText(m), "Last sold: "+o.Number) {
		t.Fatalf("no new basket after the sale:\n%s", screenText(m))
	}
	press(t, m, "esc")
	if m.screen != screenShows {
		t.Fatalf("esc: screen %v", m.screen)
	}
}

// The last popcorns go at another counter while the basket waits: the
// sale is refused naming what is left, nothing is sold, and the list
// shows the new count.
func TestItems_SoldOutMeanwhile(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	withItems(t, s, 3)
	m := newTestModel(t, s, clock, "items-soldout", 80, 24)
	openItemsAs(t, m, assets.DemoUser, assets.DemoPIN)
	press(t, m, "down", "2", "enter", "enter")
	if _, err := s.SellItems(context.Background(), booking.System, booking.ItemSaleRequest{Lines: []booking.ItemLine{{Code: "popcorn", Qty: 2}},
		IdempotencyKey: "other", Method: booking.Card}); err != nil {
		t.Fatal(err)
	}
	press(t, m, "enter")
	if m.items.paying || m.items.last != nil || !m.statusErr || m.status != "Popcorn: 1 left; 2 asked." {
		t.Fatalf("sold out meanwhile: paying %v last %+v status %q", m.items.paying, m.items.last, m.status)
	}
	if n := itemStock(t, s, "popcorn"); n != 1 || !strings.Contains(screenText(m), "1 low") {
		t.Fatalf("stock %d; screen:\n%s", n, screenText(m))
	}
	// The last one, then the X report: the items of the shift and what
	// runs low.
	press(t, m, "1", "enter", "enter", "enter")
	if m.items.last == nil {
		t.Fatalf("the last popcorn: %q", m.status)
	}
	press(t, m, "esc", "ctrl+t", "x")
	out := screenText(m)
	for _, want := range []string{"X report", "Items snacks", "1 sold, 4.50", "Low stock", "Popcorn 0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("X report has no %q:\n%s", want, out)
		}
	}
}

// A clerk with no shift open selling for cash is asked for the float;
// the sale then opens the shift.
func TestItems_FloatOpensTheShift(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	withItems(t, s, 3)
	if _, err := s.AddStaff(context.Background(), booking.System, "olga", booking.RoleClerk, "1357", nil); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, "items-float", 80, 24)
	openItemsAs(t, m, "olga", "1357")
	press(t, m, "+", "enter", "enter", "enter")
	if !m.items.noShift || m.items.focus != payFloat || !strings.Contains(m.status, "Open a shift first") {
		t.Fatalf("no float asked: focus %v status %q\n%s", m.items.focus, m.status, screenText(m))
	}
	typeText(t, m, "50")
	press(t, m, "enter", "enter")
	if m.items.last == nil {
		t.Fatalf("not sold: %q", m.status)
	}
	sh, err := s.CurrentShift(context.Background(), booking.Actor{Name: "olga", Role: booking.RoleClerk})
	if err != nil || sh.Float != 50_00 || m.items.last.Payments[0].ShiftID != sh.ID {
		t.Fatalf("shift %+v %v; order %+v", sh, err, m.items.last)
	}
}

// A manager adds an item, prices it, counts it, takes in a delivery and
// retires it on the same screen; a clerk is offered none of it.
func TestItems_ManagerChanges(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "items-mgr", 80, 24)
	openItemsAs(t, m, assets.DemoUser, assets.DemoPIN)
	if !strings.Contains(screenText(m), "No items on sale. a adds one.") {
		t.Fatalf("empty list:\n%s", screenText(m))
	}
	press(t, m, "a")
	for _, v := range []string{"nachos", "Nachos", "5.50", "20", "Snacks"} {
		typeText(t, m, v)
		press(t, m, "tab")
	}
	press(t, m, "enter")
	if m.items.form != nil || len(m.items.list) != 1 || m.status != "Added nachos at 5.50, stock 20." {
		t.Fatalf("add: form %+v, list %+v, status %q", m.items.form, m.items.list, m.status)
	}
	press(t, m, "e", "ctrl+u")
	typeText(t, m, "6")
	press(t, m, "enter")
	press(t, m, "s", "ctrl+u")
	typeText(t, m, "17")
	press(t, m, "tab", "ctrl+u", "enter")
	if m.items.form == nil || !strings.Contains(m.items.form.err, "Say why") {
		t.Fatalf("a stock-take without a reason: %+v", m.items.form)
	}
	typeText(t, m, "count")
	press(t, m, "enter")
	if m.status != "Nachos: stock 17, was 20 (-3)." {
		t.Fatalf("stock-take: %q", m.status)
	}
	press(t, m, "d")
	typeText(t, m, "10")
	press(t, m, "enter")
	if m.status != "Nachos: stock 27, was 17 (+10)." || itemStock(t, s, "nachos") != 27 {
		t.Fatalf("delivery: %q", m.status)
	}
	press(t, m, "r", "n")
	if m.status != "Nothing changed." || m.items.list[0].Retired {
		t.Fatalf("n retired it: %q", m.status)
	}
	press(t, m, "r", "y")
	list, err := s.Items(context.Background(), booking.System, true)
	if err != nil || len(list) != 1 || !list[0].Retired || list[0].Price != 6_00 {
		t.Fatalf("after the changes: %+v %v", list, err)
	}

	addStaff(t, s, "nina", booking.RoleClerk, "2468")
	c := newTestModel(t, s, clock, "items-clerk", 80, 24)
	openItemsAs(t, c, "nina", "2468")
	press(t, c, "a")
	if c.items.form != nil || strings.Contains(screenText(c), "a add") {
		t.Fatalf("a clerk was offered a manager's change:\n%s", screenText(c))
	}
}
