package tui

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"boxoffice/booking"
)

// From the checkout, ctrl+a finds nobody for an address, ctrl+a opens a
// new account with it filled in, and the account is on the sale: the
// checkout says so, the name and phone come from it, and the booking sold
// is the customer's. A second account for the address in capitals is
// refused naming the first, whose search result enter then puts on the
// next sale. Every screen fits 80x24.
func TestCustomer_FromCheckout(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "cust", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter", "c")
	if m.screen != screenCheckout {
		t.Fatalf("enter went to %v", m.screen)
	}
	press(t, m, "ctrl+a")
	typeText(t, m, "Ann@Example.com")
	press(t, m, "enter")
	if m.screen != screenCustomer || len(m.customer.results) != 0 || !strings.Contains(screenText(m), "Nobody matches") {
		t.Fatalf("search for a new address: screen %v\n%s", m.screen, screenText(m))
	}
	press(t, m, "ctrl+a")
	if !m.customer.adding || m.customer.email.String() != "Ann@Example.com" {
		t.Fatalf("the new account's form: adding %v, e-mail %q", m.customer.adding, m.customer.email.String())
	}
	typeText(t, m, "Ann Lee")
	press(t, m, "enter", "enter")
	typeText(t, m, "07700 900123")
	fits(t, m)
	press(t, m, "enter", "enter")
	c := m.checkout.customer
	if m.screen != screenCheckout || c == nil || c.Email != "ann@example.com" || m.checkout.name.String() != "Ann Lee" || m.checkout.phone.String() != "+447700900123" {
		t.Fatalf("after opening the account: screen %v, customer %+v, status %q", m.screen, c, m.status)
	}
	if out := screenText(m); !strings.Contains(out, "account "+strconv.FormatInt(c.ID, 10)) {
		t.Fatalf("the checkout does not name the account:\n%s", out)
	}
	fits(t, m)
	press(t, m, "enter") // Sell (c put the focus there)
	if m.screen != screenDone {
		t.Fatalf("sell: screen %v, status %q", m.screen, m.status)
	}
	d, err := s.Customer(context.Background(), booking.System, c.ID)
	if err != nil || len(d.Bookings) != 1 || d.Bookings[0].Number != m.done.booking.Number {
		t.Fatalf("the customer's bookings: %+v, %v", d, err)
	}

	// The next sale: the same address again is refused, naming Ann, and
	// her account is on screen to pick.
	press(t, m, "enter")
	openGrand(t, m)
	press(t, m, "2", "b", "enter", "c", "ctrl+a", "ctrl+a")
	typeText(t, m, "Eve")
	press(t, m, "tab")
	typeText(t, m, "ANN@example.com")
	press(t, m, "tab", "tab", "enter")
	if m.screen != screenCustomer || m.customer.adding || len(m.customer.results) != 1 || m.customer.results[0].ID != c.ID ||
		m.status != "That e-mail address belongs to customer "+strconv.FormatInt(c.ID, 10)+" (Ann Lee)." {
		t.Fatalf("the address taken: screen %v adding %v results %+v status %q", m.screen, m.customer.adding, m.customer.results, m.status)
	}
	fits(t, m)
	press(t, m, "enter")
	if m.screen != screenCheckout || m.checkout.customerID() != c.ID {
		t.Fatalf("enter on the result: screen %v, customer %d", m.screen, m.checkout.customerID())
	}
}

// fits fails the test when a line of the screen is wider than the
// terminal or the screen taller.
func fits(t *testing.T, m *Model) {
	t.Helper()
	lines := strings.Split(screenText(m), "\n")
	if len(lines) > m.height {
		t.Fatalf("%d lines on a %d-line screen", len(lines), m.height)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > m.width {
			t.Fatalf("a line of %d cells on an 80-cell screen: %q", w, l)
		}
	}
}

// TestCustomer_GiftCardsShown: the customer screen shows the highlighted
// customer's gift cards by their last four digits and balances, and the
// next customer's when the highlight moves; at 80x24.
func TestCustomer_GiftCardsShown(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	clerkA := booking.Actor{Name: "carl", Role: booking.RoleClerk}
	var cards []string
	for _, who := range []string{"Ann Lee", "Ann Bell"} {
		c, err := s.AddCustomer(ctx, clerkA, booking.NewCustomer{Name: who, Email: strings.ReplaceAll(who, " ", ".") + "@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.IssueGiftCard(ctx, clerkA, booking.GiftCardRequest{Amount: 25_00, Method: booking.Card, CustomerID: c.ID})
		if err != nil {
			t.Fatal(err)
		}
		cards = append(cards, info.Number)
	}
	m := newTestModel(t, s, clock, "cust-cards", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter", "c", "ctrl+a")
	typeText(t, m, "ann")
	press(t, m, "enter")
	if len(m.customer.results) != 2 {
		t.Fatalf("search: %+v", m.customer.results)
	}
	first := m.customer.results[0].ID
	want := func(card string) {
		t.Helper()
		out := screenText(m)
		if !strings.Contains(out, "…"+card[12:]+" 25.00") || strings.Contains(out, card[:12]) {
			t.Fatalf("the highlighted customer's card …%s:\n%s", card[12:], out)
		}
		fits(t, m)
	}
	want(cards[first-1])
	press(t, m, "down")
	want(cards[m.customer.results[1].ID-1])
}
