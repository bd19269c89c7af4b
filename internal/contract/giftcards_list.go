package contract

import (
	"testing"
	"time"

	"boxoffice/booking"
)

// giftCardListCases: the manager's list of gift cards names each card by
// its last four digits only, newest first, finds one by its number, and
// is a manager's.
var giftCardListCases = []testCase{
	{"NewestFirstByTheirLastFour", giftCardListNewest},
	{"OnTheCustomer", giftCardOnTheCustomer},
}

func init() {
	groups = append(groups, group{"GiftCardList", giftCardListCases})
}

func giftCardListNewest(t *testing.T, e *env) {
	g := need[booking.GiftCards](t, e, needGiftCards)
	first := issueCard(t, e, g, 30_00, booking.Card)
	e.clock.Add(time.Minute)
	second := issueCard(t, e, g, 20_00, booking.Cash)
	h := e.hold(t, "gl", "A1")
	if _, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "gl", IdempotencyKey: "gl",
		Tender: []booking.TenderPart{{Method: booking.GiftCard, Card: first}}}); err != nil {
		t.Fatal(err)
	}
	list, err := g.ListGiftCards(e.ctx, manager, booking.GiftCardQuery{})
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %+v, %v", list, err)
	}
	if list[0].Tail != second[12:] || list[0].Balance != 20_00 || !list[0].LastUsed.IsZero() || list[0].IssuedBy != clerk.Name {
		t.Fatalf("the newest card: %+v", list[0])
	}
	if list[1].Tail != first[12:] || list[1].Amount != 30_00 || list[1].Balance != 30_00-12_50 || !list[1].LastUsed.Equal(e.clock.Now()) {
		t.Fatalf("the card that paid: %+v (now %s)", list[1], e.clock.Now())
	}
	one, err := g.ListGiftCards(e.ctx, manager, booking.GiftCardQuery{Number: booking.FormatCardNumber(first)})
	if err != nil || len(one) != 1 || one[0].Tail != first[12:] {
		t.Fatalf("by number: %+v, %v", one, err)
	}
	if none, err := g.ListGiftCards(e.ctx, manager, booking.GiftCardQuery{Number: booking.NewCardNumber()}); err != nil || len(none) != 0 {
		t.Fatalf("a number nobody has: %+v, %v", none, err)
	}
	_, err = g.ListGiftCards(e.ctx, manager, booking.GiftCardQuery{Number: "1234"})
	wantCode(t, "a number that is not one", err, booking.EInvalid)
	_, err = g.ListGiftCards(e.ctx, clerk, booking.GiftCardQuery{})
	wantCode(t, "a clerk's list", err, booking.EForbidden)
}

// giftCardOnTheCustomer: a card sold for a customer is listed on the
// account, by its last four digits; one for no such customer is refused
// with nothing sold; erasing the customer keeps the card and its money.
func giftCardOnTheCustomer(t *testing.T, e *env) {
	g := need[booking.GiftCards](t, e, needGiftCards)
	c := e.accounts(t)
	ann := e.addCustomer(t, c, "Ann Lee", "ann@example.com", "")
	info, err := g.IssueGiftCard(e.ctx, clerk, booking.GiftCardRequest{Amount: 25_00, Method: booking.Card, CustomerID: ann.ID})
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.IssueGiftCard(e.ctx, clerk, booking.GiftCardRequest{Amount: 25_00, Method: booking.Card, CustomerID: ann.ID + 99})
	wantCode(t, "a card for no such customer", err, booking.ENotFound)
	d, err := c.Customer(e.ctx, clerk, ann.ID)
	if err != nil || len(d.GiftCards) != 1 || d.GiftCards[0].Tail != info.Number[12:] || d.GiftCards[0].Balance != 25_00 {
		t.Fatalf("the customer's cards: %+v, %v", d, err)
	}
	if list, err := g.ListGiftCards(e.ctx, manager, booking.GiftCardQuery{}); err != nil || len(list) != 1 {
		t.Fatalf("cards sold: %+v, %v (want only the one)", list, err)
	}
	if _, err := c.EraseCustomer(e.ctx, supervisor, ann.ID); err != nil {
		t.Fatal(err)
	}
	if bal := balanceOf(t, e, g, info.Number); bal != 25_00 {
		t.Fatalf("the card after the erasure holds %s", bal)
	}
}
