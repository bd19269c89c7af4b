package tui

import (
	"context"
	"strconv"
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

// TestManage_VoucherRetire: r on a voucher asks, No by default (n and
// enter leave it taken); y retires it in the store and the list says so.
// r on one retired already says so and asks nothing.
func TestManage_VoucherRetire(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	mgr := booking.Actor{Name: assets.DemoUser, Role: booking.RoleManager}
	for _, v := range []booking.Voucher{{Code: "AUTUMN", Off: 2_00}, {Code: "SUMMER10", Percent: 10, Uses: 500}} {
		if _, err := s.AddVoucher(ctx, mgr, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.RetireVoucher(ctx, mgr, "AUTUMN"); err != nil {
		t.Fatal(err)
	}
	retired := func(code string) bool {
		t.Helper()
		list, err := s.ListVouchers(ctx, mgr)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range list {
			if v.Code == code {
				return v.Retired
			}
		}
		t.Fatalf("no voucher %s in %+v", code, list)
		return false
	}
	m := newTestModel(t, s, clock, "mgr-retire", 80, 24)
	openManager(t, m, "9")
	onScreen(t, m, "r retire")
	press(t, m, "r") // AUTUMN, the first by code, retired already
	if m.manage.confirm != nil {
		t.Fatalf("a retired voucher was asked about: %q", m.manage.confirm.question)
	}
	onScreen(t, m, "Voucher AUTUMN is retired already.")

	press(t, m, "down")
	for _, no := range []string{"n", "enter"} {
		press(t, m, "r")
		if c := m.manage.confirm; c == nil || !strings.HasPrefix(c.question, "Retire voucher SUMMER10 (10% off, 500 of 500 uses left)?") {
			t.Fatalf("r did not ask: %+v, status %q", c, m.status)
		}
		onScreen(t, m, "y/N")
		press(t, m, no)
		if m.manage.confirm != nil || retired("SUMMER10") {
			t.Fatalf("%s on the question retired the voucher", no)
		}
	}
	press(t, m, "r", "y")
	if !retired("SUMMER10") {
		t.Fatalf("y did not retire it: note %q, err %q", m.manage.note, m.manage.err)
	}
	onScreen(t, m, "Retired voucher SUMMER10")
	for _, l := range strings.Split(screenText(m), "\n") {
		if strings.Contains(l, "SUMMER10") && strings.Contains(l, "10% off") && !strings.Contains(l, "retired") {
			t.Fatalf("the list does not say SUMMER10 is retired: %q", l)
		}
	}
}

// TestManage_VoucherLimits: the add form keeps a voucher to a film, a
// show and a ticket type; a film, show or ticket type that names none is
// refused on the form with nothing stored, a voucher kept to all three is
// stored with them and listed so.
func TestManage_VoucherLimits(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	mgr := booking.Actor{Name: assets.DemoUser, Role: booking.RoleManager}
	shows, err := s.Shows(ctx, booking.System, clock.Now())
	if err != nil || len(shows) == 0 {
		t.Fatalf("the demo's shows: %v %v", shows, err)
	}
	sh := shows[0]
	film, show := strconv.FormatInt(sh.Film.ID, 10), strconv.FormatInt(sh.ID, 10)
	m := newTestModel(t, s, clock, "mgr-limits", 80, 24)
	openManager(t, m, "9")
	press(t, m, "a")
	typeText(t, m, "kids5")
	press(t, m, "tab")
	typeText(t, m, "5.00")
	press(t, m, "tab", "tab", "tab") // Uses 1, no end: to Film
	typeText(t, m, "x9999")          // the field takes digits only
	press(t, m, "tab")
	typeText(t, m, show)
	press(t, m, "tab")
	typeText(t, m, "child")
	for _, c := range []struct {
		field int // 4 film, 5 show, 6 ticket type
		bad   string
		want  string
	}{
		{4, "", "There is no film 9999."},
		{5, "9999", "There is no show 9999."},
		{6, "vip", `There is no ticket type "vip".`},
	} {
		f := m.manage.form
		if c.field != 4 {
			f.focus = c.field
			retype(t, m, c.bad)
		}
		press(t, m, "enter")
		if m.manage.form == nil || m.manage.form.err != c.want {
			t.Fatalf("field %d %q: form %+v", c.field, c.bad, m.manage.form)
		}
		if list, err := s.ListVouchers(ctx, mgr); err != nil || len(list) != 0 {
			t.Fatalf("a refused voucher was stored: %+v %v", list, err)
		}
		f.focus = c.field
		retype(t, m, []string{film, show, "Child"}[c.field-4])
	}
	press(t, m, "enter")
	list, err := s.ListVouchers(ctx, mgr)
	if err != nil || len(list) != 1 {
		t.Fatalf("vouchers: %+v %v (form %+v)", list, err, m.manage.form)
	}
	if v := list[0]; v.Code != "KIDS5" || v.Off != 5_00 || v.FilmID != sh.Film.ID || v.ShowID != sh.ID || v.TicketType != "child" {
		t.Fatalf("stored %+v, want KIDS5 for film %d, show %d, child", v, sh.Film.ID, sh.ID)
	}
	onScreen(t, m, "Added voucher KIDS5: 5.00 off, for film "+film+", show "+show+", child.", "film "+film+", show "+show)
}
