package tui

import (
	"context"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
)

func setEntry(tb testing.TB, s *db.Store, list, typ string, kind booking.SeatKind, amount booking.Money) {
	tb.Helper()
	e := booking.PriceEntry{PriceKey: booking.PriceKey{List: list, Type: typ, Kind: kind}, Amount: amount}
	if err := s.SetPriceEntry(context.Background(), booking.System, e); err != nil {
		tb.Fatal(err)
	}
}

// soldTickets checks a sale's tickets against the seats' kinds and
// returns its booking: the total is the sum of its tickets.
func soldTickets(tb testing.TB, s *db.Store, customer string) *booking.Booking {
	tb.Helper()
	b := saleOf(tb, s, customer)
	if b == nil {
		tb.Fatalf("no sale for %s", customer)
	}
	var sum booking.Money
	for _, t := range b.Tickets {
		sum += t.Price
	}
	if sum != b.Total || b.Payments[0].Amount != b.Total {
		tb.Fatalf("tickets add to %s, booking total %s, paid %s", sum, b.Total, b.Payments[0].Amount)
	}
	return b
}

// Must show 2 at the counter: b keeps a party of two out of the Grand's
// premium rows, p puts them there at the premium price, the checkout
// says where each price came from, and the booking records it.
func TestModel_PremiumSeat(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "premium-a", 80, 24)
	openGrandShow(t, m)

	press(t, m, "2", "b")
	for _, seat := range m.seats.mine() {
		if seat.Kind == booking.Premium {
			t.Fatalf("b chose premium seat %s without being asked", seat.Label)
		}
	}
	press(t, m, "x", "y")
	if len(m.seats.mine()) != 0 {
		t.Fatalf("still holding %v", m.seats.mine())
	}
	press(t, m, "2", "p")
	mine := m.seats.mine()
	if len(mine) != 2 || mine[0].Kind != booking.Premium || mine[1].Kind != booking.Premium {
		t.Fatalf("p held %v", mine)
	}
	press(t, m, "enter")
	v := screenText(m)
	if !strings.Contains(v, "15.00  premium seat") || !strings.Contains(v, "Total                   30.00") {
		t.Fatalf("checkout of two premium seats:\n%s", v)
	}
	// A child on the first seat: 11.00, re-priced at once.
	press(t, m, "shift+tab", "shift+tab", "shift+tab", "t")
	if v := screenText(m); !strings.Contains(v, "‹Child›          11.00  premium seat") || !strings.Contains(v, "Total                   26.00") {
		t.Fatalf("a child on a premium seat:\n%s", v)
	}
	press(t, m, "tab", "tab", "tab", "tab")
	typeText(t, m, "Pia Premium")
	press(t, m, "enter", "enter", "enter")
	if m.screen != screenDone {
		t.Fatalf("not sold: %q", m.status)
	}
	b := soldTickets(t, s, "Pia Premium")
	if b.Total != 2600 {
		t.Fatalf("sold at %s, the screen said 26.00", b.Total)
	}
	for _, tk := range b.Tickets {
		if tk.PriceSource != "premium seat" {
			t.Fatalf("ticket %s source %q", tk.Seat.Label, tk.PriceSource)
		}
	}
}

// A show on the evening list sells at it; a premium seat on it at the
// list's premium price; putting the show on the list re-prices an open
// checkout.
func TestModel_EveningList(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "evening-a", 80, 24)
	show := openGrandShow(t, m)
	press(t, m, "/")
	typeText(t, m, "N8-9")
	press(t, m, "enter")
	press(t, m, "/")
	typeText(t, m, "A12")
	press(t, m, "enter", "enter")
	if v := screenText(m); !strings.Contains(v, "Total                   42.50") {
		t.Fatalf("standing prices:\n%s", v)
	}
	wait := takeParked(t, m, parkChange)
	if err := s.SetShowPriceList(context.Background(), booking.System, show.ID, "evening"); err != nil {
		t.Fatal(err)
	}
	send(t, m, wait()) // ShowChanged{0}: the checkout asks for a new quote
	v := screenText(m)
	if !strings.Contains(v, "16.50  evening list · premium seat") || !strings.Contains(v, "14.00  evening list") ||
		!strings.Contains(v, "Total                   47.00") || !strings.Contains(m.status, "Prices changed: the total is now 47.00.") {
		t.Fatalf("after the show went on the evening list: %q\n%s", m.status, v)
	}
	press(t, m, "tab")
	typeText(t, m, "Eve Ning")
	press(t, m, "enter", "enter", "enter")
	b := soldTickets(t, s, "Eve Ning")
	if m.screen != screenDone || b.Total != 4700 {
		t.Fatalf("sold at %s: %q", b.Total, m.status)
	}
}

// A premium price changed at another counter after the checkout opened:
// the sale is refused with the new total, the screen shows it, and
// confirming sells at it.
func TestModel_PremiumPriceChanged(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "premium-b", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "p", "enter", "tab")
	typeText(t, m, "Max Change")
	press(t, m, "enter", "enter") // Phone, Sell
	setEntry(t, s, "", "adult", booking.Premium, 1600)
	press(t, m, "enter")
	if m.screen != screenCheckout || !strings.Contains(m.status, "Prices changed: the total is now 32.00.") {
		t.Fatalf("sale at the old total: screen %v status %q", m.screen, m.status)
	}
	if b := saleOf(t, s, "Max Change"); b != nil {
		t.Fatalf("sold at %s behind the clerk's back", b.Total)
	}
	if v := screenText(m); !strings.Contains(v, "16.00  premium seat") || !strings.Contains(v, "Total                   32.00") {
		t.Fatalf("the new figure is not on screen:\n%s", v)
	}
	press(t, m, "enter")
	if b := soldTickets(t, s, "Max Change"); m.screen != screenDone || b.Total != 3200 {
		t.Fatalf("confirming the new total: %q, %s", m.status, b.Total)
	}
}

// noQuoteStore answers no quote: the store's answer has not come yet, or
// never will.
type noQuoteStore struct{ *db.Store }

func (noQuoteStore) Quote(context.Context, booking.Actor, booking.QuoteRequest) (*booking.Quote, error) {
	return nil, booking.Errorf(booking.EInternal, "Internal error.")
}

// A clerk who types ahead of the store's quote still sees each seat's
// price and the total, from the prices loaded with the ticket types and
// the show's list on the seat map, and sells at them: the quote is not
// needed to sell, and the store's own check keeps the figure honest.
func TestModel_CheckoutBeforeTheQuote(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, noQuoteStore{s}, clock, "ahead-a", 80, 24)
	show := openGrandShow(t, m)
	if err := s.SetShowPriceList(context.Background(), booking.System, show.ID, "evening"); err != nil {
		t.Fatal(err)
	}
	press(t, m, "esc", "enter") // the shows list and back: the map reads the list
	press(t, m, "2", "p", "enter")
	if v := screenText(m); !strings.Contains(v, "16.50  evening list · premium seat") || !strings.Contains(v, "Total                   33.00") {
		t.Fatalf("checkout without a quote:\n%s", v)
	}
	press(t, m, "tab")
	typeText(t, m, "Ada Ahead")
	press(t, m, "enter", "enter", "enter")
	if b := soldTickets(t, s, "Ada Ahead"); m.screen != screenDone || b.Total != 3300 {
		t.Fatalf("sold at %s: %q", b.Total, m.status)
	}
}
