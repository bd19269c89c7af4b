package tui

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
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
	m, s := giftCardsAsNina(t, "giftcard")
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
	m, s := giftCardsAsNina(t, "giftcard-nobody")
	ctx := context.Background()
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

// giftCardsAsNina signs nina (a clerk) in on the terminal owner and
// opens the gift cards.
func giftCardsAsNina(t *testing.T, owner string) (*Model, *db.Store) {
	t.Helper()
	clock := newClock()
	s := MustOpenStore(t, clock)
	addStaff(t, s, "nina", booking.RoleClerk, "2468")
	m := newTestModel(t, s, clock, owner, 80, 24)
	signIn(t, m, "nina", "2468")
	press(t, m, "ctrl+b")
	return m, s
}

// giftCardNoShift signs olga in (a clerk with no shift open), opens the
// gift cards and sells one for 25.00 cash: the store refuses it for want
// of a shift, and the screen asks for the float.
func giftCardNoShift(t *testing.T, owner string) (*Model, *db.Store) {
	t.Helper()
	clock := newClock()
	s := MustOpenStore(t, clock)
	if _, err := s.AddStaff(context.Background(), booking.System, "olga", booking.RoleClerk, "1357", nil); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, owner, 80, 24)
	signIn(t, m, "olga", "1357")
	press(t, m, "ctrl+b")
	typeText(t, m, "25")
	press(t, m, "enter")
	if m.status != "Sell a gift card for 25.00, paid by cash? y/N" {
		t.Fatalf("enter did not ask: %q", m.status)
	}
	press(t, m, "y")
	if !m.giftCard.noShift || m.giftCard.focus != gcFloat || m.giftCard.card != nil || m.status != floatAsk {
		t.Fatalf("no float asked: focus %v, card %+v, status %q", m.giftCard.focus, m.giftCard.card, m.status)
	}
	onScreen(t, m, "Float", floatNote)
	return m, s
}

// olgaShift is olga's open shift, nil for none.
func olgaShift(t *testing.T, s *db.Store) *booking.Shift {
	t.Helper()
	sh, err := s.CurrentShift(context.Background(), booking.Actor{Name: "olga", Role: booking.RoleClerk})
	if booking.ErrorCode(err) == booking.ENotFound {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return sh
}

// giftCardsSold lists every card in the store.
func giftCardsSold(t *testing.T, s *db.Store) []booking.GiftCardSummary {
	t.Helper()
	cards, err := s.ListGiftCards(context.Background(), booking.Actor{Name: "mgr", Role: booking.RoleManager}, booking.GiftCardQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	return cards
}

// A cash gift card sold by a clerk with no shift open asks for the float
// on the screen, as the items do: the question names it (No by default,
// and n is no too), and y sells the card and opens the shift with that
// float, the card's cash in it.
func TestGiftCard_FloatOpensTheShift(t *testing.T) {
	t.Parallel()
	m, s := giftCardNoShift(t, "giftcard-float")
	typeText(t, m, "50")
	press(t, m, "enter")
	want := "Sell a gift card for 25.00, paid by cash, and open your shift with a float of 50.00? y/N"
	if !m.giftCard.ask || m.status != want {
		t.Fatalf("enter on the float did not ask %q: %q", want, m.status)
	}
	press(t, m, "enter") // no: the default
	press(t, m, "enter", "n")
	if m.giftCard.card != nil || m.status != "No gift card sold." || len(giftCardsSold(t, s)) != 0 || olgaShift(t, s) != nil {
		t.Fatalf("no sold: card %+v, status %q", m.giftCard.card, m.status)
	}
	press(t, m, "enter", "y")
	c := m.giftCard.card
	if c == nil || c.Method != booking.Cash || !strings.Contains(m.status, "Sold gift card "+booking.FormatCardNumber(c.Number)+" for 25.00") {
		t.Fatalf("y did not sell: %+v %q", c, m.status)
	}
	sh := olgaShift(t, s)
	if sh == nil || sh.Float != 50_00 {
		t.Fatalf("olga's shift after the sale: %+v", sh)
	}
	r, err := s.ShiftReport(context.Background(), m.actor(), sh.ID)
	if err != nil || r.CardsSold != 1 || r.CardsSoldCash != 25_00 || r.Expected != 75_00 {
		t.Fatalf("the shift's report: %+v %v", r, err)
	}
	if m.giftCard.noShift || m.giftCard.float.String() != "" || m.giftCard.focus != gcAmount || strings.Contains(screenText(m), "Float") {
		t.Fatalf("the float stays after the sale: focus %v\n%s", m.giftCard.focus, screenText(m))
	}
}

// A float that is not one is refused on the screen, before the question
// and before the store: not money, too much, or a minus that cannot be
// typed. Nothing is sold and no shift opens. Switching to card drops the
// float asked: the card sells without a shift, and none opens.
func TestGiftCard_BadFloat(t *testing.T) {
	t.Parallel()
	m, s := giftCardNoShift(t, "giftcard-badfloat")
	for _, tc := range []struct{ typed, want string }{
		{"1.2.3", `"1.2.3" is not an amount`},
		{"9999999999", "9999999999 is more than 1000000.00."},
		{"", "Type the float counted into the drawer, like 100."},
	} {
		press(t, m, "ctrl+u")
		typeText(t, m, tc.typed)
		press(t, m, "enter", "y")
		if m.giftCard.ask || m.giftCard.focus != gcFloat || !m.statusErr || !strings.HasPrefix(m.status, tc.want) {
			t.Fatalf("float %q: ask %v, focus %v, status %q, want %q", tc.typed, m.giftCard.ask, m.giftCard.focus, m.status, tc.want)
		}
	}
	press(t, m, "-")
	if m.giftCard.float.String() != "" {
		t.Fatalf("a minus was typed: %q", m.giftCard.float.String())
	}
	if cards := giftCardsSold(t, s); len(cards) != 0 || olgaShift(t, s) != nil {
		t.Fatalf("after the refusals: cards %+v, shift %+v", cards, olgaShift(t, s))
	}

	typeText(t, m, "50")
	press(t, m, "shift+tab", "space")
	if m.giftCard.noShift || m.giftCard.float.String() != "" || m.status != "" || strings.Contains(screenText(m), "Float") {
		t.Fatalf("card: the float stays: %q\n%s", m.status, screenText(m))
	}
	press(t, m, "enter")
	if m.status != "Sell a gift card for 25.00, paid by card? y/N" {
		t.Fatalf("card: %q", m.status)
	}
	press(t, m, "y")
	if c := m.giftCard.card; c == nil || c.Method != booking.Card || olgaShift(t, s) != nil {
		t.Fatalf("card sale: %+v %q, shift %+v", c, m.status, olgaShift(t, s))
	}
}

// Leaving the gift cards with esc takes the screen's refusal with it: the
// shows' status line does not keep it. A sale said stays.
func TestGiftCard_EscLeavesNoError(t *testing.T) {
	t.Parallel()
	m, _ := giftCardNoShift(t, "giftcard-esc")
	press(t, m, "esc")
	if m.screen != screenShows || m.status != "" || strings.Contains(screenText(m), floatAsk) {
		t.Fatalf("esc: screen %v, status %q", m.screen, m.status)
	}
	press(t, m, "ctrl+b")
	if m.giftCard.noShift || strings.Contains(screenText(m), "Float") {
		t.Fatalf("the float asked outlived the screen:\n%s", screenText(m))
	}
	typeText(t, m, "30")
	press(t, m, "tab", "space", "enter", "y", "esc")
	if m.screen != screenShows || !strings.HasPrefix(m.status, "Sold gift card ") {
		t.Fatalf("esc after a sale: screen %v, status %q", m.screen, m.status)
	}
}

// ? on the gift cards is what it is on every screen with a field: the
// keys while the focused field is empty; once an amount is typed, ? is
// the field's (an amount takes no ?), and the hint bar stops offering it.
func TestGiftCard_HelpKey(t *testing.T) {
	t.Parallel()
	m, _ := giftCardsAsNina(t, "giftcard-help")
	onScreen(t, m, "? keys")
	press(t, m, "?")
	if !m.help.ShowAll || !strings.Contains(screenText(m), "customer") {
		t.Fatalf("? with the amount empty:\n%s", screenText(m))
	}
	press(t, m, "?")
	typeText(t, m, "25")
	press(t, m, "?")
	if m.help.ShowAll || m.giftCard.amount.String() != "25" || strings.Contains(screenText(m), "? keys") {
		t.Fatalf("? with 25 typed: keys %v, amount %q\n%s", m.help.ShowAll, m.giftCard.amount.String(), screenText(m))
	}
}
