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

// TestCounter_PayReservationCash: a clerk with no shift open finds a kiosk
// reservation with ctrl+f, sees the amount, takes cash with change, is
// asked for the float on the way (as a sale asks), and ends on the done
// screen with the tickets.
func TestCounter_PayReservationCash(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	if _, err := s.AddStaff(ctx, booking.System, "cleo", booking.RoleClerk, "1357", nil); err != nil {
		t.Fatal(err)
	}
	first, _ := grandShows(t, s)
	r := kioskReserve(t, s, first.ID, "k1", 2, "020 7946 0222")
	m := newTestModel(t, s, clock, "pay-resv", 80, 24)
	signIn(t, m, "cleo", "1357")
	press(t, m, "ctrl+f")
	typeText(t, m, "0222")
	press(t, m, "enter", "down", "enter", "tab")
	if m.screen != screenReservations || m.resv.card || m.resv.quote == nil {
		t.Fatalf("the reservation's payment: screen %v, card %v, quote %v\n%s", m.screen, m.resv.card, m.resv.quote, screenText(m))
	}
	total := m.resv.quote.Total
	typeText(t, m, "50")
	screen := screenText(m)
	if !strings.Contains(screen, "Amount   "+total.String()) || !strings.Contains(screen, "Change "+(5000-total).String()) {
		t.Fatalf("amount %s and change:\n%s", total, screen)
	}
	checkFits(t, m, "paying a reservation")
	goldenMasked(t, m, "reservation-pay-80x24-Ascii", colorprofile.Ascii)
	press(t, m, "ctrl+p", "y")
	if m.screen != screenShift || !strings.Contains(m.status, "Type the float") {
		t.Fatalf("no shift: screen %v, %q", m.screen, m.status)
	}
	typeText(t, m, "100")
	press(t, m, "enter")
	if m.screen != screenDone || m.done.booking == nil || m.done.booking.Number != r.Number || len(m.done.booking.Tickets) != 2 {
		t.Fatalf("after the float: screen %v, %q\n%s", m.screen, m.status, screenText(m))
	}
	if p := m.done.booking.Payments[0]; p.Method != booking.Cash || p.Tendered != 5000 || p.Change != 5000-total {
		t.Fatalf("the payment %+v", p)
	}
	if screen := screenText(m); !strings.Contains(screen, "Change due") || !strings.Contains(m.status, "Paid "+r.Number) {
		t.Fatalf("the done screen: %q\n%s", m.status, screen)
	}
	checkFits(t, m, "a reservation paid")
}
