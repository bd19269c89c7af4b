package tui

import (
	"context"
	"strings"
	"testing"

	"boxoffice/assets"
	"boxoffice/booking"
)

// kioskActorT is a kiosk's actor for setting up a test's store.
var kioskActorT = booking.Actor{Name: "kiosk", Role: booking.RoleKiosk}

// TestCounter_Reservations: a clerk finds a kiosk reservation by the
// customer's phone and takes its payment in one step (ctrl+p): it is a
// booking with the same number; a second ctrl+p has nothing to pay; a
// lapsed one cannot be paid.
func TestCounter_Reservations(t *testing.T) {
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	h, err := s.KioskHold(ctx, kioskActorT, booking.KioskHoldRequest{ShowID: 1, Owner: "k", N: 2})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Reserve(ctx, kioskActorT, booking.ReserveRequest{HoldID: h.ID, Owner: "k", Name: "Ann Lee", Phone: "020 7946 0018"})
	if err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, "resv-session", 120, 30)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	press(t, m, "ctrl+y")
	if m.screen != screenReservations {
		t.Fatalf("ctrl+y opened %v", m.screen)
	}
	typeText(t, m, "020-7946-0018")
	press(t, m, "enter")
	if len(m.resv.results) != 1 || !strings.Contains(m.render(), r.Number) {
		t.Fatalf("find by phone: %+v %q\n%s", m.resv.results, m.status, m.render())
	}
	press(t, m, "ctrl+p")
	if !strings.Contains(m.status, "y yes") || m.resv.paid != nil {
		t.Fatalf("ctrl+p took the money without asking: %q", m.status)
	}
	press(t, m, "enter") // the default is No
	if m.resv.paid != nil || !strings.Contains(m.status, "Not paid") {
		t.Fatalf("enter after ctrl+p: paid %+v, %q", m.resv.paid, m.status)
	}
	press(t, m, "ctrl+p", "y")
	if m.resv.paid == nil || m.resv.paid.Number != r.Number || len(m.resv.paid.Tickets) != 2 || !strings.Contains(m.status, "Paid "+r.Number) ||
		m.screen != screenDone {
		t.Fatalf("payment: %+v, status %q, screen %v", m.resv.paid, m.status, m.screen)
	}
	press(t, m, "ctrl+y")
	typeText(t, m, "020-7946-0018")
	press(t, m, "enter", "ctrl+p")
	if !m.statusErr || !strings.Contains(m.status, "nothing to pay") {
		t.Fatalf("second payment: %q", m.status)
	}
	if b, err := s.Booking(ctx, booking.System, r.Number); err != nil || b.Status != booking.BookingConfirmed {
		t.Fatalf("the booking: %+v, %v", b, err)
	}

	// A lapsed one: found, and refused at the store.
	h2, _ := s.KioskHold(ctx, kioskActorT, booking.KioskHoldRequest{ShowID: 1, Owner: "k2", N: 1})
	r2, err := s.Reserve(ctx, kioskActorT, booking.ReserveRequest{HoldID: h2.ID, Owner: "k2", Name: "Bo", Phone: "07700 900123"})
	if err != nil {
		t.Fatal(err)
	}
	typeText(t, m, "")
	m.resv.query.Set(r2.Number)
	press(t, m, "enter")
	clock.Set(r2.CutOff)
	m.resv.results[0].Status = booking.ReservationReserved // the screen's copy, read before the cut-off
	press(t, m, "ctrl+p", "y")
	if !m.statusErr || !strings.Contains(m.status, "lapsed") {
		t.Fatalf("paying a lapsed reservation: %q", m.status)
	}
}

// TestCounter_ReserveForPhoneCustomer: a clerk holds two seats on the map
// and reserves them for a customer on the phone (ctrl+y on the map); the
// seats are the reservation's, held for it, not the session's.
func TestCounter_ReserveForPhoneCustomer(t *testing.T) {
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "phone-session", 120, 30)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	press(t, m, "enter") // the first show
	press(t, m, "2", "b")
	if m.heldCount() != 2 {
		t.Fatalf("held %d seats: %q", m.heldCount(), m.status)
	}
	press(t, m, "ctrl+y")
	if m.screen != screenReservations || !m.resv.reserving {
		t.Fatalf("ctrl+y on the map with seats held opened %v", m.screen)
	}
	typeText(t, m, "Bo Phone")
	press(t, m, "tab")
	typeText(t, m, "07700 900123")
	press(t, m, "enter")
	if len(m.resv.results) != 1 || m.resv.results[0].Source != booking.SourceCounter || !strings.Contains(m.status, "Reserved BO-") {
		t.Fatalf("reserve for a phone customer: %+v, %q", m.resv.results, m.status)
	}
	if m.seats.holdID != 0 || m.heldCount() != 0 {
		t.Fatalf("the session still holds %d seats (hold %d)", m.heldCount(), m.seats.holdID)
	}
	found, err := s.FindReservations(context.Background(), booking.System, "07700900123")
	if err != nil || len(found) != 1 || found[0].Status != booking.ReservationReserved || len(found[0].Seats) != 2 {
		t.Fatalf("stored: %+v, %v", found, err)
	}
}

// TestCounter_ReservationWithVoucher: a kiosk reservation that took a
// voucher shows it, and the amount the clerk confirms is the discounted
// one the sale records.
func TestCounter_ReservationWithVoucher(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	if _, err := s.AddVoucher(ctx, booking.Actor{Name: "mia", Role: booking.RoleManager}, booking.Voucher{Code: "KIOSK5", Off: 5_00}); err != nil {
		t.Fatal(err)
	}
	h, err := s.KioskHold(ctx, kioskActorT, booking.KioskHoldRequest{ShowID: 1, Owner: "k", N: 2})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Reserve(ctx, kioskActorT, booking.ReserveRequest{HoldID: h.ID, Owner: "k", Name: "Ann Lee", Phone: "020 7946 0018", Voucher: "KIOSK5"})
	if err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, "resv-voucher", 120, 30)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	press(t, m, "ctrl+y")
	typeText(t, m, r.Number)
	press(t, m, "enter")
	if screen := m.render(); !strings.Contains(screen, "voucher KIOSK5 −5.00") || m.resv.quote == nil {
		t.Fatalf("the reservation's voucher is not shown:\n%s", screen)
	}
	due := m.resv.quote.Total
	if due != 2*12_50-5_00 {
		t.Fatalf("amount %s, want two adults less 5.00", due)
	}
	press(t, m, "ctrl+p")
	if !strings.Contains(m.status, "Take "+due.String()+" by card") {
		t.Fatalf("ctrl+p asks %q, want %s by card", m.status, due)
	}
	press(t, m, "y")
	if m.resv.paid == nil || m.resv.paid.Total != due || m.resv.paid.Voucher == nil {
		t.Fatalf("paid %+v (status %q), want %s with the voucher", m.resv.paid, m.status, due)
	}
}
