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
