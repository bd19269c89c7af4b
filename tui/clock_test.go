package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
)

// Issue 15 item 5: when the clock jumps, the clerk who presses enter on
// the checkout of a hold that lapsed with it is told the hold ran out (not
// silence, not "Internal error."), is offered the seats again, and sells
// them with enter, enter. Back an hour, the counter's own countdown still
// shows time left, so only the store's refusal can say it; forward (20
// minutes, as the demo's show closes its sales at 10:30), enter comes
// before any tick.
func TestModel_ClockJumpOnCheckout(t *testing.T) {
	t.Parallel()
	for _, jump := range []time.Duration{-time.Hour, 20 * time.Minute} {
		t.Run(jump.String(), func(t *testing.T) {
			clock := newClock()
			s := MustOpenStore(t, clock)
			m := newTestModel(t, s, clock, "jump", 80, 24)
			openGrandShow(t, m)
			press(t, m, "2", "b", "enter", "enter") // to the Sell button
			if v := screenText(m); m.screen != screenCheckout || !strings.Contains(v, "enter sells") {
				t.Fatalf("screen %v, want the checkout's Sell button:\n%s", m.screen, v)
			}
			labels := seatLabels(m.checkout.seats)
			clock.Add(jump)
			press(t, m, "enter")
			v := screenText(m)
			if m.screen == screenDone || !m.checkout.lapsed || !strings.Contains(m.status, "ran out") || strings.Contains(v, "Internal error") {
				t.Fatalf("enter on a hold the clock jump ended: screen %v status %q\n%s", m.screen, m.status, v)
			}
			if !strings.Contains(v, "ran out · enter holds them again") {
				t.Fatalf("the lapsed checkout does not offer the seats again:\n%s", v)
			}
			press(t, m, "enter")
			if m.checkout.lapsed || !strings.Contains(m.status, "held again — enter sells") {
				t.Fatalf("taking the seats again: status %q", m.status)
			}
			press(t, m, "enter")
			if m.screen != screenDone || strings.Join(seatLabelsOf(m.done.booking), " ") != strings.Join(labels, " ") {
				t.Fatalf("sale after taking them again: screen %v status %q", m.screen, m.status)
			}
			if b := m.done.booking; b.Status != booking.BookingConfirmed {
				t.Fatalf("booking %+v", b)
			}
		})
	}
}

// Back an hour on the seat map: the countdown's next tick sees more time
// left than any hold may have and says the hold ran out (before, it
// counted down 65 minutes), and the sweep's repaint agrees.
func TestModel_ClockBackOnMap(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "jump-map", 120, 40)
	openGrandShow(t, m)
	press(t, m, "3", "b")
	labels := seatLabels(m.seats.mine())
	clock.Add(-time.Hour)
	send(t, m, tickMsg{})
	if !m.seats.expires.IsZero() || strings.Contains(screenText(m), "hold 6") || !strings.Contains(m.status, "ran out") {
		t.Fatalf("the tick after the clock went back: status %q\n%s", m.status, screenText(m))
	}
	if n, err := s.ExpireHolds(context.Background()); err != nil || n != 1 {
		t.Fatalf("the sweep expired %d holds, %v", n, err)
	}
	run(t, m, m.loadSeatMapCmd())
	v := screenText(m)
	if !strings.Contains(v, "The hold on "+labels[0]+", "+labels[1]+" and "+labels[2]+" ran out · enter holds them again") || m.heldCount() != 0 {
		t.Fatalf("after the clock went back and the sweep:\n%s", v)
	}
}
