package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/assets"
	"boxoffice/booking"
)

// checkFits fails when the frame at m's size cuts anything the clerk
// reads: a line wider than the screen, a line ending in "…" (the mark of
// text cut short), a hint bar that is not whole keys, or a status message
// whose words do not all reach the screen (unless it says where to read
// it whole).
func checkFits(t *testing.T, m *Model, step string) {
	t.Helper()
	m.drawn = false
	frame := screenText(m)
	if strings.Contains(frame, glue) {
		t.Errorf("%s: a no-break space that only wrapping should see reached the screen:\n%s", step, frame)
	}
	lines := strings.Split(frame, "\n")
	if len(lines) != m.height {
		t.Errorf("%s: %d lines, want %d", step, len(lines), m.height)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > m.width {
			t.Errorf("%s: line %d is %d cells wide:\n%s", step, i+1, w, l)
		}
		if strings.HasSuffix(strings.TrimRight(l, " "), "…") {
			t.Errorf("%s: line %d is cut short:\n%s", step, i+1, l)
		}
	}
	bar := lines[len(lines)-1]
	if h := m.helpFor(); len(h.short) > 0 {
		for _, item := range strings.Split(bar, " • ") {
			if !strings.Contains(item, " ") {
				t.Errorf("%s: the hint bar has a key without what it does: %q", step, bar)
			}
		}
		if m.helpKeyFree() && m.leaving == nil && !strings.HasSuffix(bar, "? keys") && containsHelp(h) {
			t.Errorf("%s: the hint bar lost ? keys: %q", step, bar)
		}
	}
	if status := booking.Clean(m.status); status != "" {
		under := strings.Join(strings.Fields(strings.Join(lines[len(lines)-1-len(m.statusLines()):len(lines)-1], " ")), " ")
		want := strings.Join(strings.Fields(status), " ")
		if !strings.Contains(under, want) && !strings.Contains(under, m.keys.Messages.Help().Key+" reads it all") {
			t.Errorf("%s: the status %q is not whole on screen:\n%s", step, status, under)
		}
	}
}

// containsHelp reports whether the screen offers ? in its hint bar.
func containsHelp(h helpKeys) bool {
	for _, b := range h.short {
		if b.Help().Key == "?" {
			return true
		}
	}
	return false
}

// TestCounter_80x24 walks every counter screen at the counter's smallest
// size — the shows, the seat map (a party typed, a short hall with a
// blocked and a house seat, the single-seat banner, a waiting-list call),
// the checkout, the done screen, the booking view, find, the shift, the
// door, the waiting list, the message log and the keys — and checks each
// frame whole (checkFits), against a golden for each.
func TestCounter_80x24(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	shows, err := s.Shows(ctx, booking.System, dayOf(testStart))
	if err != nil {
		t.Fatal(err)
	}
	pick := func(hall string, nth int) booking.Show {
		for _, sh := range shows {
			if sh.HallName == hall {
				if nth == 0 {
					return sh
				}
				nth--
			}
		}
		t.Fatalf("no show in %s", hall)
		return booking.Show{}
	}
	grand, studio, soldOut := pick("Grand", 0), pick("Studio", 0), pick("Studio", 1)
	// The Studio's show has a seat blocked with a reason and a house seat.
	for _, r := range []booking.BlockRequest{
		{ShowID: studio.ID, Seats: []string{"C5"}, Kind: booking.BlockBlocked, Reason: "broken armrest, maintenance booked for Monday"},
		{ShowID: studio.ID, Seats: []string{"C6"}, Kind: booking.BlockHouse, Reason: "press"},
	} {
		if _, err := s.BlockSeats(ctx, booking.System, r); err != nil {
			t.Fatal(err)
		}
	}
	// Three bookings for the same name, for find's list; a sold-out show
	// with people waiting.
	for i, seats := range [][]string{{"A3", "A4"}, {"B5"}, {"C7", "C8"}} {
		h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: grand.ID, Seats: seats, Owner: fmt.Sprint("ann-", i)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Checkout(ctx, booking.System, booking.CheckoutRequest{HoldID: h.ID, Owner: fmt.Sprint("ann-", i), IdempotencyKey: fmt.Sprint("ann-", i),
			Method: booking.Card, Customer: "Ann Lee", Phone: "0123 456789"}); err != nil {
			t.Fatal(err)
		}
	}
	sellOut(t, s, soldOut.ID)
	for _, name := range []string{"Bea Quinn", "Carl Ross"} {
		if _, err := s.AddWaitlist(ctx, booking.System, soldOut.ID, name, "0777 123456", 2); err != nil {
			t.Fatal(err)
		}
	}

	m := newTestModel(t, s, clock, "fit", 80, 24)
	shot := func(name string) {
		t.Helper()
		checkFits(t, m, name)
		goldenMasked(t, m, "fit-"+name+"-80x24-Ascii", colorprofile.Ascii)
	}
	open := func(sh booking.Show) {
		t.Helper()
		if m.screen != screenShows {
			t.Fatalf("not on the shows: %v", m.screen)
		}
		for i, v := range m.shows.visible() {
			if v.ID == sh.ID {
				m.shows.cursor = i
			}
		}
		press(t, m, "enter")
		if m.screen != screenSeatMap || m.seats.sm == nil {
			t.Fatalf("the map of %s did not open: %q", sh.HallName, m.status)
		}
	}
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	shot("shows")

	open(grand)
	typeText(t, m, "2a2c")
	shot("seatmap-party")
	press(t, m, "enter")
	if m.screen != screenCheckout {
		t.Fatalf("enter with a party did not open the checkout: %v %q", m.screen, m.status)
	}
	press(t, m, "c")
	shot("checkout-card")
	press(t, m, "enter")
	if m.screen != screenDone {
		t.Fatalf("no sale: %v %q", m.screen, m.status)
	}
	shot("done")
	sold := m.done.booking.Number
	press(t, m, "v")
	shot("booking-view")
	press(t, m, "esc", "esc", "esc")

	press(t, m, "ctrl+f")
	typeText(t, m, "Ann Lee")
	press(t, m, "enter")
	shot("find-list")
	press(t, m, "esc", "esc")

	open(studio)
	goTo(t, m, "C5")
	shot("seatmap-short-hall")
	press(t, m, "esc")

	open(grand)
	goTo(t, m, "G7")
	shot("seatmap-single")
	press(t, m, "esc")
	m.calls = []booking.WaitlistEntry{{ID: 1, Name: "Bea Quinn", Phone: "0777 123456", Seats: 2, Show: soldOut}}
	m.setError("The box office could not reach the printer at ipp://printer.local:631/ipp/print: check it is on, then press p on the done screen to print again.")
	shot("seatmap-call")
	m.calls = nil
	press(t, m, "ctrl+l")
	shot("messages")
	press(t, m, "esc", "?")
	shot("keys")
	press(t, m, "esc", "esc")

	open(soldOut)
	press(t, m, "W")
	shot("waitlist")
	press(t, m, "esc", "esc")

	press(t, m, "ctrl+t")
	shot("shift")
	press(t, m, "x")
	shot("shift-x")
	press(t, m, "esc", "esc")

	press(t, m, "ctrl+d")
	b, err := s.Booking(ctx, booking.System, sold)
	if err != nil {
		t.Fatal(err)
	}
	typeText(t, m, b.Tickets[0].Code)
	press(t, m, "enter")
	shot("door")
}
