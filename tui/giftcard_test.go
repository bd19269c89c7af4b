package tui

import (
	"context"
	"strings"
	"testing"

	"boxoffice/booking"
)

// A gift card sold is money taken: it runs to its end when the session
// ends.
func init() { moneyMethods["IssueGiftCard"] = true }

// A clerk sells a gift card from the shows: ctrl+b, the amount, space for
// card, enter asks and the default is no; y sells it into the store. Its
// number typed with spaces reads its balance back; a mistyped digit is
// refused before the store is asked.
func TestGiftCard_SellAndBalance(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	addStaff(t, s, "nina", booking.RoleClerk, "2468")
	m := newTestModel(t, s, clock, "giftcard", 80, 24)
	signIn(t, m, "nina", "2468")
	press(t, m, "ctrl+b")
	if m.screen != screenGiftCard {
		t.Fatalf("ctrl+b: screen %v, status %q", m.screen, m.status)
	}
	typeText(t, m, "25")
	press(t, m, "tab", "space", "enter")
	if !m.giftCard.ask || !strings.Contains(m.status, "Sell a gift card for 25.00, paid by card? y/N") {
		t.Fatalf("enter did not ask: %q", m.status)
	}
	press(t, m, "enter") // no: the default
	if m.giftCard.ask || m.giftCard.card != nil || m.status != "No gift card sold." {
		t.Fatalf("enter on the question sold: %q", m.status)
	}
	press(t, m, "enter", "y")
	c := m.giftCard.card
	if c == nil || c.Amount != 25_00 || c.Method != booking.Card || !strings.Contains(m.status, "Sold gift card "+booking.FormatCardNumber(c.Number)) {
		t.Fatalf("y did not sell: %+v %q", c, m.status)
	}
	if out := screenText(m); !strings.Contains(out, booking.FormatCardNumber(c.Number)) || !strings.Contains(out, "25.00") {
		t.Fatalf("the card sold is not on screen:\n%s", out)
	}
	press(t, m, "tab")
	typeText(t, m, booking.FormatCardNumber(c.Number))
	press(t, m, "enter")
	if !strings.Contains(m.status, "holds 25.00") {
		t.Fatalf("balance: %q", m.status)
	}
	m.giftCard.number.Set(c.Number[:15] + string('0'+(c.Number[15]-'0'+1)%10))
	press(t, m, "enter")
	if !strings.Contains(m.status, "is not a gift card number") {
		t.Fatalf("a wrong check digit: %q", m.status)
	}
	if got, err := s.GiftCardBalance(context.Background(), booking.System, c.Number); err != nil || got.Balance != 25_00 {
		t.Fatalf("store: %+v %v", got, err)
	}
}

// A gift card on the checkout: ctrl+b, its number, enter; the card pays
// first (all of its 10.00), the rest in cash with change, and the booking
// has a payment a part.
func TestGiftCard_OnTheCheckout(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	c, err := s.IssueGiftCard(context.Background(), booking.System, booking.GiftCardRequest{Amount: 10_00, Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, "giftcard-checkout", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter")
	if m.screen != screenCheckout {
		t.Fatalf("screen %v, status %q", m.screen, m.status)
	}
	key := m.checkout.key
	press(t, m, "ctrl+b")
	typeText(t, m, booking.FormatCardNumber(c.Number))
	press(t, m, "enter")
	if m.checkout.giftCard != c.Number || !strings.Contains(screenText(m), "pays first; the rest by cash") {
		t.Fatalf("the card was not taken: %q\n%s", m.status, screenText(m))
	}
	typeText(t, m, "100")
	press(t, m, "enter", "enter")
	if m.screen != screenDone {
		t.Fatalf("sale: screen %v status %q", m.screen, m.status)
	}
	if out := screenText(m); !strings.Contains(out, "Paid giftcard 10.00 + cash 100.00") {
		t.Fatalf("the done screen does not say how it was paid:\n%s", out)
	}
	b, err := s.BookingByKey(context.Background(), booking.System, key)
	if err != nil || len(b.Payments) != 2 || b.Payments[0].Method != booking.GiftCard || b.Payments[0].Amount != 10_00 ||
		b.Payments[1].Method != booking.Cash || b.Payments[1].Amount != b.Total-10_00 || b.Change() != 100_00-(b.Total-10_00) {
		t.Fatalf("booking %+v %v", b, err)
	}
	if got, err := s.GiftCardBalance(context.Background(), booking.System, c.Number); err != nil || got.Balance != 0 {
		t.Fatalf("card after the sale: %+v %v", got, err)
	}
}
