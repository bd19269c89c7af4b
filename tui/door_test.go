package tui

import (
	"context"
	"strings"
	"testing"

	"boxoffice/assets"
	"boxoffice/booking"
)

// sellForDoor sells seats of today's first Grand show straight through the
// store and returns the booking.
func sellForDoor(t *testing.T, s Backend, showID int64, seats ...string) *booking.Booking {
	t.Helper()
	ctx := context.Background()
	clerk := booking.Actor{Name: "carl", Role: booking.RoleClerk}
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: showID, Seats: seats, Owner: "door-test"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "door-test", IdempotencyKey: "door-" + seats[0], Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDoor(t *testing.T) {
	clock := newClock()
	s := MustOpenStore(t, clock)
	addStaff(t, s, "dora", booking.RoleDoor, "2468")
	shows, err := s.Shows(context.Background(), booking.System, clock.Now())
	if err != nil || len(shows) == 0 {
		t.Fatal("no shows", err)
	}
	b := sellForDoor(t, s, shows[0].ID, "F4", "F5")

	t.Run("DoorStaffScan", func(t *testing.T) {
		m := newTestModel(t, s, clock, "door-1", 80, 24)
		typeText(t, m, "dora")
		press(t, m, "enter")
		typeText(t, m, "2468")
		press(t, m, "enter")
		if m.screen != screenDoor {
			t.Fatalf("door staff landed on %v", m.screen)
		}
		typeText(t, m, strings.ToLower(b.Tickets[0].Code)) // scanners may send lower case
		press(t, m, "enter")
		screen := screenText(m)
		if !strings.Contains(screen, "ADMIT") || strings.Contains(screen, "DO NOT") || !strings.Contains(screen, "Seat F4") {
			t.Fatalf("first scan:\n%s", screen)
		}
		typeText(t, m, b.Tickets[0].Code)
		press(t, m, "enter")
		screen = screenText(m)
		if !strings.Contains(screen, "DO NOT ADMIT") || !strings.Contains(screen, "already admitted at") || !strings.Contains(screen, "by dora") {
			t.Fatalf("second scan:\n%s", screen)
		}
		typeText(t, m, "NOTATICKET")
		press(t, m, "enter")
		if screen = screenText(m); !strings.Contains(screen, "Unknown ticket code.") {
			t.Fatalf("a made-up code:\n%s", screen)
		}
		if !strings.Contains(screen, "1 admitted here") {
			t.Fatalf("count:\n%s", screen)
		}
	})
	t.Run("ClerkOpensDoor", func(t *testing.T) {
		m := newTestModel(t, s, clock, "door-2", 80, 24)
		signIn(t, m, assets.DemoUser, assets.DemoPIN)
		press(t, m, "ctrl+d")
		if m.screen != screenDoor {
			t.Fatalf("ctrl+d opened %v", m.screen)
		}
		typeText(t, m, b.Tickets[1].Code)
		press(t, m, "enter")
		if screen := screenText(m); !strings.Contains(screen, "Seat F5") {
			t.Fatalf("scan:\n%s", screen)
		}
		press(t, m, "esc")
		if m.screen != screenShows {
			t.Fatalf("esc from the door went to %v", m.screen)
		}
	})
}

// A waiting-list customer whose seats came free shows on every counter
// until a clerk presses ctrl+k; a second counter then hears who called.
func TestWaitlistBanner(t *testing.T) {
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	shows, _ := s.Shows(ctx, booking.System, clock.Now())
	// Only a sold-out show takes a waiting list; then seats come free.
	sold := sellOut(t, s, shows[0].ID)
	if _, err := s.AddWaitlist(ctx, booking.System, shows[0].ID, "Ann Lee\x1b[5m", "0123 456", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Cancel(ctx, booking.System, booking.CancelRequest{Number: sold[0].Number}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.NotifyWaitlist(ctx); err != nil || len(n) != 1 {
		t.Fatalf("notify: %v %v", n, err)
	}
	a := newTestModel(t, s, clock, "calls-a", 100, 30)
	signIn(t, a, assets.DemoUser, assets.DemoPIN)
	b := newTestModel(t, s, clock, "calls-b", 100, 30)
	signIn(t, b, assets.DemoUser, assets.DemoPIN)
	for _, m := range []*Model{a, b} {
		if screen := screenText(m); !strings.Contains(screen, "☎ Call Ann Lee[5m 0123 456: 2 seats free") {
			t.Fatalf("no call banner:\n%s", screen)
		}
	}
	press(t, a, "ctrl+k")
	if screen := screenText(a); strings.Contains(screen, "☎ Call") || !strings.Contains(screen, "Marked Ann Lee[5m as called.") {
		t.Fatalf("after ctrl+k:\n%s", screen)
	}
	press(t, b, "ctrl+k") // b still shows the banner from before
	if screen := screenText(b); !strings.Contains(screen, "already called by demo") || strings.Contains(screen, "☎ Call") {
		t.Fatalf("second counter:\n%s", screen)
	}
}

// The seat map's w key puts a customer on the show's waiting list.
func TestSeatMap_Waitlist(t *testing.T) {
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "wait", 100, 30)
	// Only a sold-out show takes a waiting list.
	shows, _ := s.Shows(context.Background(), booking.System, clock.Now())
	for _, sh := range shows {
		if sh.HallName == "Grand" {
			sellOut(t, s, sh.ID)
			break
		}
	}
	show := openGrandShow(t, m)
	press(t, m, "3", "w")
	if !m.seats.waitPrompt || !strings.Contains(screenText(m), "Waiting list — name, phone, seats:") {
		t.Fatalf("no prompt:\n%s", screenText(m))
	}
	typeText(t, m, "Ann Lee, 0123 456")
	press(t, m, "enter")
	if !strings.Contains(m.status, "Ann Lee waits for 3 seats") {
		t.Fatalf("status %q", m.status)
	}
	press(t, m, "w")
	typeText(t, m, "Bob")
	press(t, m, "enter")
	if !m.statusErr || !strings.Contains(m.status, "with commas") {
		t.Fatalf("a name alone: %q", m.status)
	}
	list, err := s.Waitlist(context.Background(), booking.System, show.ID)
	if err != nil || len(list) != 1 || list[0].Name != "Ann Lee" || list[0].Phone != "0123 456" || list[0].Seats != 3 {
		t.Fatalf("waiting list %+v %v", list, err)
	}
}
