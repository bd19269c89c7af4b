package kiosk

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/escpos/escpostest"
)

// A customer who paid at the counter collects at a kiosk with a printer:
// the tickets print there, each with the printer's QR code of its current
// code, and the screen says to take them; with the printer silent, the
// screen says to go to the counter instead.
func TestKiosk_CollectPrints(t *testing.T) {
	s := MustOpenStore(t, newClock())
	pr := escpostest.NewPrinter(t)
	printer, err := booking.ParsePrinter(pr.URL())
	if err != nil {
		t.Fatal(err)
	}
	m := newTestKiosk(s, "kiosk-p")
	m.opts.Printer = printer
	kioskToSeats(t, m)
	kioskPress(t, m, "enter")
	kioskType(t, m, "Ann Lee")
	kioskPress(t, m, "tab")
	kioskType(t, m, "020 7946 0018")
	kioskPress(t, m, "enter")
	if m.reservation == nil {
		t.Fatalf("not reserved: %q", m.note)
	}
	number := m.reservation.Number
	paid, err := s.PayReservation(context.Background(), booking.Actor{Name: "carl", Role: booking.RoleClerk},
		booking.PayReservationRequest{Number: number, Method: booking.Card, IdempotencyKey: "pay-" + number})
	if err != nil {
		t.Fatal(err)
	}
	collect := func() {
		t.Helper()
		kioskPress(t, m, "enter", "down", "enter")
		kioskType(t, m, number)
		kioskPress(t, m, "tab")
		kioskType(t, m, "0018")
		kioskPress(t, m, "enter")
	}
	collect()
	cmds, err := escpostest.Parse(pr.Job(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var codes []string
	for _, tk := range paid.Tickets {
		codes = append(codes, tk.Code)
	}
	if got := escpostest.QRData(cmds); !slices.Equal(got, codes) {
		t.Fatalf("printed QR codes %q, want %q", got, codes)
	}
	if m.screen != kCollected || !strings.Contains(m.Render(), "Take your tickets") {
		t.Fatalf("after printing: %q\n%s", m.note, m.Render())
	}

	pr.PaperOut(true)
	collect()
	if !strings.Contains(m.Render(), "The printer is not working") {
		t.Fatalf("with the paper out: %q", m.note)
	}
}
