package tui

import (
	"context"
	"strings"
	"testing"

	"boxoffice/booking"
)

// A card part on the checkout: ctrl+s, 10, enter; the rest in cash from
// 5.00 more than it, the Sell button saying the split and the change on
// an 80×24 screen; the booking has the card's 10.00 and the cash's rest
// with 5.00 change.
func TestCheckout_CardPartAndCash(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "card-part", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter")
	if m.screen != screenCheckout {
		t.Fatalf("screen %v, status %q", m.screen, m.status)
	}
	total, ok := m.total()
	if !ok || total <= 10_00 {
		t.Fatalf("total %v %v", total, ok)
	}
	key := m.checkout.key
	press(t, m, "ctrl+s")
	typeText(t, m, "10")
	checkFits(t, m, "card part asked")
	press(t, m, "enter")
	if m.checkout.cardPart != 10_00 || !strings.Contains(screenText(m), "Card part 10.00  by card; the rest in cash") {
		t.Fatalf("the card part was not taken: %q\n%s", m.status, screenText(m))
	}
	cash := total - 10_00
	typeText(t, m, (cash + 5_00).String())
	press(t, m, "enter")
	want := "10.00 card + " + cash.String() + " cash, change 5.00"
	if out := screenText(m); !strings.Contains(out, want) {
		t.Fatalf("the Sell button does not say %q:\n%s", want, out)
	}
	checkFits(t, m, "sell in parts")
	press(t, m, "enter")
	if m.screen != screenDone {
		t.Fatalf("sale: screen %v status %q", m.screen, m.status)
	}
	b, err := s.BookingByKey(context.Background(), booking.System, key)
	if err != nil || len(b.Payments) != 2 || b.Payments[0].Method != booking.Card || b.Payments[0].Amount != 10_00 ||
		b.Payments[1].Method != booking.Cash || b.Payments[1].Amount != cash || b.Payments[1].Tendered != cash+5_00 || b.Change() != 5_00 {
		t.Fatalf("booking %+v %v", b, err)
	}
}

// A card part of the whole total or more is refused on the checkout:
// that is a card sale (c).
func TestCheckout_CardPartNotTheWhole(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "card-part-whole", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter")
	total, _ := m.total()
	press(t, m, "ctrl+s")
	typeText(t, m, total.String())
	press(t, m, "enter")
	if m.checkout.cardPart != 0 || !strings.Contains(m.status, "press c to pay it all by card") {
		t.Fatalf("a card part of the whole total: part %v, status %q", m.checkout.cardPart, m.status)
	}
}
