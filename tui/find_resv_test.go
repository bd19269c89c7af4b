package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"boxoffice/assets"
	"boxoffice/booking"
)

// kioskReserve reserves n seats of show at a kiosk for phone.
func kioskReserve(t *testing.T, s Backend, show int64, owner string, n int, phone string) *booking.Reservation {
	t.Helper()
	ctx := context.Background()
	kiosk := booking.Actor{Name: "kiosk", Role: booking.RoleKiosk}
	h, err := s.KioskHold(ctx, kiosk, booking.KioskHoldRequest{ShowID: show, Owner: owner, N: n})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Reserve(ctx, kiosk, booking.ReserveRequest{HoldID: h.ID, Owner: owner, Name: "Ann Lee", Phone: phone})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFind_KioskReservation: ctrl+f finds a kiosk reservation by its
// number and by the phone's last digits, saying it is reserved, until
// when, and not paid; enter takes it to its payment. Digits nobody's
// phone ends with say nothing matched.
func TestFind_KioskReservation(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	first, _ := grandShows(t, s)
	r := kioskReserve(t, s, first.ID, "k1", 2, "020 7946 0222")
	until := r.CutOff.In(clock.Now().Location()).Format("15:04")
	m := newTestModel(t, s, clock, "find-resv", 80, 24)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)

	for _, typed := range []string{strings.ToLower(r.Number), "0222"} {
		press(t, m, "ctrl+f")
		typeText(t, m, typed)
		press(t, m, "enter")
		screen := screenText(m)
		if !strings.Contains(screen, r.Number) || !strings.Contains(screen, "reserved till "+until+", unpaid") ||
			!strings.Contains(m.status, "reserved until "+until+", not paid") {
			t.Fatalf("ctrl+f %s: %q\n%s", typed, m.status, screen)
		}
		checkFits(t, m, "find "+typed)
	}
	goldenMasked(t, m, "find-reservation-80x24-Ascii", colorprofile.Ascii)

	press(t, m, "ctrl+f")
	typeText(t, m, "9999")
	press(t, m, "enter")
	if !strings.Contains(screenText(m), "No booking matches.") {
		t.Fatalf("digits nobody has:\n%s", screenText(m))
	}

	press(t, m, "ctrl+f")
	typeText(t, m, "0222")
	press(t, m, "enter", "down", "enter")
	if m.screen != screenReservations || len(m.resv.results) != 1 || m.resv.results[0].Number != r.Number {
		t.Fatalf("enter on the reservation opened %v:\n%s", m.screen, screenText(m))
	}
	press(t, m, "esc")
	if m.screen != screenFind {
		t.Fatalf("esc from its payment went to %v", m.screen)
	}
}

// TestSeatMap_ReservedSeat: on the seat map a seat a kiosk reserved reads
// "reserved until HH:MM", not "held at another counter".
func TestSeatMap_ReservedSeat(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	first, _ := grandShows(t, s)
	r := kioskReserve(t, s, first.ID, "k1", 2, "020 7946 0222")
	until := r.CutOff.In(clock.Now().Location()).Format("15:04")
	m := newTestModel(t, s, clock, "map-resv", 80, 24)
	openGrandShow(t, m)
	goTo(t, m, r.Seats[0].Label)
	screen := screenText(m)
	if !strings.Contains(screen, r.Seats[0].Label+" reserved until "+until) && !strings.Contains(m.status, "reserved until "+until) {
		t.Fatalf("the reserved seat %s:\n%s", r.Seats[0].Label, screen)
	}
	if strings.Contains(screen, "held at another counter") {
		t.Fatalf("a reserved seat reads as another counter's:\n%s", screen)
	}
	checkFits(t, m, "a reserved seat")
}
