package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"boxoffice/booking"
)

// TestDoor_ByBookingNumber: at the door a booking's number admits the
// tickets not in yet, each once, and says which stayed out; a second
// scan of it says when and by whom; a kiosk reservation not paid is sent
// to the counter. None of them reads "Unknown ticket code".
func TestDoor_ByBookingNumber(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	addStaff(t, s, "dora", booking.RoleDoor, "2468")
	ctx := context.Background()
	shows, err := s.Shows(ctx, booking.System, clock.Now())
	if err != nil || len(shows) == 0 {
		t.Fatal("no shows", err)
	}
	b := sellForDoor(t, s, shows[0].ID, "G4", "G5", "G6")
	kiosk := booking.Actor{Name: "kiosk", Role: booking.RoleKiosk}
	h, err := s.KioskHold(ctx, kiosk, booking.KioskHoldRequest{ShowID: shows[0].ID, Owner: "k1", N: 2})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Reserve(ctx, kiosk, booking.ReserveRequest{HoldID: h.ID, Owner: "k1", Name: "Ann Lee", Phone: "020 7946 0018"})
	if err != nil {
		t.Fatal(err)
	}

	m := newTestModel(t, s, clock, "door-n", 80, 24)
	typeText(t, m, "dora")
	press(t, m, "enter")
	typeText(t, m, "2468")
	press(t, m, "enter")
	typeText(t, m, b.Tickets[0].Code)
	press(t, m, "enter")
	typeText(t, m, strings.ToLower(b.Number))
	press(t, m, "enter")
	screen := screenText(m)
	if !strings.Contains(screen, "ADMIT 2") || !strings.Contains(screen, "Seat G5") || !strings.Contains(screen, "Seat G6") ||
		!strings.Contains(screen, "Ticket G4 was already admitted at") || !strings.Contains(screen, "3 admitted here") {
		t.Fatalf("the booking's number:\n%s", screen)
	}
	checkFits(t, m, "door by number")
	goldenMasked(t, m, "door-number-80x24-Ascii", colorprofile.Ascii)

	typeText(t, m, b.Number)
	press(t, m, "enter")
	if screen = screenText(m); !strings.Contains(screen, "DO NOT ADMIT") || !strings.Contains(screen, "already admitted at") {
		t.Fatalf("the number again:\n%s", screen)
	}
	typeText(t, m, r.Number)
	press(t, m, "enter")
	if screen = screenText(m); !strings.Contains(screen, "DO NOT ADMIT") || !strings.Contains(screen, "Not paid: pay at the counter") {
		t.Fatalf("an unpaid reservation:\n%s", screen)
	}
	if strings.Contains(screen, "Unknown ticket code") {
		t.Fatalf("a number read as an unknown code:\n%s", screen)
	}
}
