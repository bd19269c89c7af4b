package tui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"boxoffice/booking"
)

// awayStore is the real store with the database server away for the next
// few checkouts: each is refused as PostgreSQL's store refuses when it
// cannot reach the server, and nothing is sold.
type awayStore struct {
	Backend
	away atomic.Int32
}

func (s *awayStore) Checkout(ctx context.Context, actor booking.Actor, req booking.CheckoutRequest) (*booking.Booking, error) {
	if s.away.Add(-1) >= 0 {
		return nil, booking.Errorf(booking.EUnavailable, "The database server cannot be reached: nothing was saved. Trying again…")
	}
	return s.Backend.Checkout(ctx, actor, req)
}

// A sale the database server could not take stays on the checkout with its
// seats held and says so; it is sent again by itself, with the same key,
// until the server answers, and sells once. Leaving the checkout stops the
// retries.
func TestCheckout_ServerAwaySellsWhenBack(t *testing.T) {
	t.Parallel() // its three retries wait out unavailableRetry, 6 s in all
	clock := newClock()
	real := MustOpenStore(t, clock)
	s := &awayStore{Backend: real}
	s.away.Store(2)
	m := newTestModel(t, s, clock, "away-1", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter", "tab")
	typeText(t, m, "Al Away")
	m.parked = nil
	press(t, m, "enter", "enter", "enter") // Phone, Sell, sell
	if m.screen != screenCheckout || !strings.Contains(m.status, "cannot be reached") || len(m.seats.mine()) != 2 {
		t.Fatalf("with the server away: screen %v, status %q, %d seats held", m.screen, m.status, len(m.seats.mine()))
	}
	if saleOf(t, real, "Al Away") != nil {
		t.Fatal("a sale was made with the server away")
	}
	send(t, m, takeParked(t, m, parkRetry)()) // still away
	if m.screen != screenCheckout || !strings.Contains(m.status, "Trying again") {
		t.Fatalf("the second try: screen %v, status %q", m.screen, m.status)
	}
	send(t, m, takeParked(t, m, parkRetry)()) // back
	b := saleOf(t, real, "Al Away")
	if m.screen != screenDone || b == nil || len(b.Tickets) != 2 {
		t.Fatalf("once the server was back: screen %v, status %q, booking %+v", m.screen, m.status, b)
	}

	// Away again, and the clerk goes back to the map: the retry sells nothing.
	s.away.Store(1)
	press(t, m, "enter") // the done screen: back to the shows
	openGrand(t, m)
	press(t, m, "2", "b", "enter", "tab")
	typeText(t, m, "Bea Gone")
	m.parked = nil
	press(t, m, "enter", "enter", "enter")
	if m.screen != screenCheckout || !strings.Contains(m.status, "cannot be reached") {
		t.Fatalf("away again: screen %v, status %q\n%s", m.screen, m.status, screenText(m))
	}
	retry := takeParked(t, m, parkRetry)
	press(t, m, "esc")
	send(t, m, retry())
	if saleOf(t, real, "Bea Gone") != nil || m.screen == screenDone {
		t.Fatalf("a retry sold after the clerk left the checkout: screen %v", m.screen)
	}
}
