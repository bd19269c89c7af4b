package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"boxoffice/assets"
	"boxoffice/booking"
)

// TestManage_VouchersAndGiftCards at 80×24: the vouchers (9) listed with
// their uses left, one added from the form (a wrong percentage said on
// the form, nothing written); the gift cards (0) newest first, each by
// its last four digits only, one found by its number, a number that is
// not one refused on the form. No key on the gift cards moves money.
func TestManage_VouchersAndGiftCards(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	mgr := booking.Actor{Name: assets.DemoUser, Role: booking.RoleManager}
	if _, err := s.AddVoucher(ctx, mgr, booking.Voucher{Code: "SUMMER10", Percent: 10, Uses: 500, TicketType: "child"}); err != nil {
		t.Fatal(err)
	}
	var cards []string
	for _, amount := range []booking.Money{30_00, 20_00} {
		c, err := s.IssueGiftCard(ctx, mgr, booking.GiftCardRequest{Amount: amount, Method: booking.Card})
		if err != nil {
			t.Fatal(err)
		}
		cards = append(cards, c.Number)
	}
	m := newTestModel(t, s, clock, "mgr-money", 80, 24)
	shot := func(name string) {
		t.Helper()
		m.setInfo("")
		checkTableFits(t, name, m)
		goldenMasked(t, m, "manage-"+name+"-80x24-"+colorprofile.Ascii.String(), colorprofile.Ascii)
	}
	openManager(t, m, "9")
	onScreen(t, m, "SUMMER10", "10% off", "500/500", "no end", "child")
	shot("vouchers")
	press(t, m, "a")
	typeText(t, m, "sorry")
	press(t, m, "tab")
	typeText(t, m, "x%")
	press(t, m, "enter")
	onScreen(t, m, "Type a percentage like 10%")
	retype(t, m, "5.00")
	press(t, m, "tab", "tab")
	typeText(t, m, "2026-12-31")
	shot("voucher-add")
	press(t, m, "enter")
	onScreen(t, m, "Added voucher SORRY: 5.00 off.", "SORRY")
	list, err := s.ListVouchers(ctx, mgr)
	if err != nil || len(list) != 2 || list[0].Code != "SORRY" || list[0].Uses != 1 || list[0].LastDay() != "2026-12-31" {
		t.Fatalf("vouchers after the form: %+v, %v", list, err)
	}

	press(t, m, "esc", "0")
	text := screenText(m)
	for _, c := range cards {
		if strings.Contains(text, c[:12]) || !strings.Contains(text, "…"+c[12:]) {
			t.Fatalf("the list shows more than the last four digits of %s:\n%s", c, text)
		}
	}
	if strings.Index(text, "…"+cards[1][12:]) > strings.Index(text, "…"+cards[0][12:]) {
		t.Fatalf("not newest first:\n%s", text)
	}
	checkTableFits(t, "giftcards", m) // the numbers are drawn at random: read, not a golden
	press(t, m, "f")
	typeText(t, m, "1234")
	press(t, m, "enter")
	onScreen(t, m, "A gift card number is 16 digits")
	retype(t, m, booking.FormatCardNumber(cards[0]))
	checkTableFits(t, "giftcard-find", m)
	press(t, m, "enter")
	if len(m.manage.money.cards) != 1 || m.manage.money.cards[0].Tail != cards[0][12:] {
		t.Fatalf("found %+v", m.manage.money.cards)
	}
	for _, k := range []string{"a", "enter", "ctrl+p", "y", "d", "x"} {
		press(t, m, k)
	}
	for i, c := range cards {
		info, err := s.GiftCardBalance(ctx, mgr, c)
		if err != nil || info.Balance != []booking.Money{30_00, 20_00}[i] || len(info.Moves) != 1 {
			t.Fatalf("card %d after the manager's keys: %+v, %v", i, info, err)
		}
	}
}
