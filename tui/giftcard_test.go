package tui

import (
	"context"
	"strconv"
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
	press(t, m, "tab", "tab") // past the customer to the card number
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

// A gift card sold to a customer: the account's number typed in the
// Customer field is read and named in the question (No by default, which
// sells nothing); y sells the card to the account, and the customer
// search (ctrl+a) lists it under the customer. Picking the customer there
// puts their number back in the field for the next card.
func TestGiftCard_SellToCustomer(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	addStaff(t, s, "nina", booking.RoleClerk, "2468")
	ann, err := s.AddCustomer(ctx, booking.System, booking.NewCustomer{Name: "Ann Lee", Email: "ann@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	id := strconv.FormatInt(ann.ID, 10)
	cardsOf := func() []booking.GiftCardSummary {
		t.Helper()
		d, err := s.Customer(ctx, booking.System, ann.ID)
		if err != nil {
			t.Fatal(err)
		}
		return d.GiftCards
	}
	m := newTestModel(t, s, clock, "giftcard-customer", 80, 24)
	signIn(t, m, "nina", "2468")
	press(t, m, "ctrl+b")
	onScreen(t, m, "Customer", "ctrl+a customer")
	typeText(t, m, "25")
	press(t, m, "tab", "space", "tab")
	typeText(t, m, id)
	press(t, m, "enter")
	want := "Sell a gift card for 25.00, paid by card, to customer " + id + " (Ann Lee)? y/N"
	if !m.giftCard.ask || m.status != want {
		t.Fatalf("enter did not ask %q: %q", want, m.status)
	}
	onScreen(t, m, "Ann Lee")
	press(t, m, "enter") // no: the default
	if m.giftCard.card != nil || len(cardsOf()) != 0 {
		t.Fatalf("enter on the question sold: %q", m.status)
	}
	press(t, m, "enter", "y")
	c := m.giftCard.card
	if c == nil || !strings.Contains(m.status, "for 25.00 to customer "+id+" (Ann Lee).") {
		t.Fatalf("y did not sell: %+v %q", c, m.status)
	}
	if got := cardsOf(); len(got) != 1 || got[0].Tail != c.Number[12:] || got[0].Balance != 25_00 {
		t.Fatalf("the customer's cards: %+v, want …%s 25.00", got, c.Number[12:])
	}
	if m.giftCard.customer.String() != "" {
		t.Fatalf("the customer stays for the next card: %q", m.giftCard.customer.String())
	}

	press(t, m, "ctrl+a")
	if m.screen != screenCustomer {
		t.Fatalf("ctrl+a: screen %v, status %q", m.screen, m.status)
	}
	onScreen(t, m, "back to the gift cards")
	typeText(t, m, "Ann")
	press(t, m, "enter")
	onScreen(t, m, "Gift cards of "+id+": …"+c.Number[12:]+" 25.00", "enter put on the card")
	press(t, m, "enter")
	if m.screen != screenGiftCard || m.giftCard.customer.String() != id || !strings.Contains(screenText(m), "Ann Lee") {
		t.Fatalf("the pick: screen %v, customer %q, status %q", m.screen, m.giftCard.customer.String(), m.status)
	}
}

// A gift card for a customer that does not exist sells nothing: the
// number typed is refused before the question; and should the account go
// between the question and the yes, the store refuses the sale, in its
// own transaction: no card is sold, and no cash goes into the drawer.
func TestGiftCard_UnknownCustomer(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	addStaff(t, s, "nina", booking.RoleClerk, "2468")
	m := newTestModel(t, s, clock, "giftcard-nobody", 80, 24)
	signIn(t, m, "nina", "2468")
	press(t, m, "ctrl+b")
	typeText(t, m, "25")
	press(t, m, "tab", "tab")
	typeText(t, m, "999")
	press(t, m, "enter")
	if m.giftCard.ask || m.status != "There is no customer 999." {
		t.Fatalf("an unknown customer: ask %v, status %q", m.giftCard.ask, m.status)
	}
	press(t, m, "y")
	m.giftCard.who = &booking.Customer{ID: 999, Name: "Gone"} // read before it went
	press(t, m, "enter")
	if !m.giftCard.ask {
		t.Fatalf("not asked: %q", m.status)
	}
	press(t, m, "y")
	if m.giftCard.card != nil || m.status != "There is no customer 999." {
		t.Fatalf("sold to nobody: %+v %q", m.giftCard.card, m.status)
	}
	cards, err := s.ListGiftCards(ctx, booking.Actor{Name: "mgr", Role: booking.RoleManager}, booking.GiftCardQuery{Limit: 10})
	if err != nil || len(cards) != 0 {
		t.Fatalf("cards sold: %+v %v", cards, err)
	}
	nina := m.actor()
	sh, err := s.CurrentShift(ctx, nina)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.ShiftReport(ctx, nina, sh.ID); err != nil || r.CardsSold != 0 || r.CardsSoldCash != 0 || r.Expected != sh.Float {
		t.Fatalf("nina's drawer after the refusals: %+v %v", r, err)
	}
}
