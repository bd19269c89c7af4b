package tui

import (
	"context"
	"strings"
	"testing"

	"boxoffice/assets"
	"boxoffice/booking"
)

// The checkout sells a voucher and items with the tickets: i jumps to
// the items, the voucher is typed above them, and the booking made
// carries both; a used-up voucher then refuses the next sale on the
// checkout, with its seats still held.
func TestCheckout_VoucherAndItems(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	if _, err := s.AddVoucher(ctx, booking.System, booking.Voucher{Code: "ONCE", Percent: 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddItem(ctx, booking.System, booking.Item{Code: "popcorn", Name: "Popcorn", Price: 4_50}); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, "extras", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter", "c", "i")
	c := &m.checkout
	if c.focus-len(c.seats) != focusItems {
		t.Fatalf("i: focus %d, want the items", c.focus-len(c.seats))
	}
	typeText(t, m, "popcorn:2")
	press(t, m, "shift+tab")
	typeText(t, m, "once")
	if v := screenText(m); !strings.Contains(v, "voucher and items at the sale") {
		t.Fatalf("the Sell button does not say the store prices the extras:\n%s", v)
	}
	press(t, m, "enter", "enter")
	if m.screen != screenDone {
		t.Fatalf("screen %v status %q", m.screen, m.status)
	}
	b, err := s.Booking(ctx, booking.System, m.done.booking.Number)
	if err != nil || b.Voucher == nil || b.Voucher.Code != "ONCE" || b.Items == nil || b.Items.Total() != 9_00 {
		t.Fatalf("booking %+v %v", b, err)
	}
	press(t, m, "enter") // the next sale starts on the shows
	openGrand(t, m)
	press(t, m, "2", "b", "enter", "c", "i", "shift+tab")
	typeText(t, m, "ONCE")
	press(t, m, "enter", "enter")
	if m.screen != screenCheckout || m.status != "Voucher ONCE is used up." || len(m.seats.mine()) != 2 {
		t.Fatalf("used up: screen %v status %q, %d seats held", m.screen, m.status, len(m.seats.mine()))
	}
}

// The vouchers report, the last of the reports screen: each use with its
// booking and discount, and the total of those that stand.
func TestReports_Vouchers(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	if _, err := s.AddVoucher(ctx, booking.System, booking.Voucher{Code: "FIVE", Off: 5_00}); err != nil {
		t.Fatal(err)
	}
	h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: 1, Seats: []string{"A1"}, Owner: "v"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Checkout(ctx, booking.System, booking.CheckoutRequest{HoldID: h.ID, Owner: "v", IdempotencyKey: "v", Method: booking.Card, Voucher: "five"})
	if err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, "vouchers", 80, 24)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	press(t, m, "ctrl+r", "shift+tab", "shift+tab") // past the returns
	r := &m.reports
	if r.kind != reportVouchers || r.table == nil || len(r.table.rows) != 1 || r.sheet == nil || r.sheet.Report != "vouchers" {
		t.Fatalf("the vouchers report: %v %+v", r.kind, r.table)
	}
	onScreen(t, m, "[Vouchers]", "FIVE", b.Number, "5.00", "1 redeemed")
}
