package server_test

import (
	"context"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/internal/qrscan"
	"boxoffice/internal/storetest"
)

// TestKioskServer_CollectShowsScannableTickets: a customer collecting a
// paid booking at an 80×24 SSH kiosk sees each ticket's QR code, one at
// a time (→ to the next), and a phone reads each back as the ticket's
// code from the screen as captured, with the key line whole below it.
func TestKioskServer_CollectShowsScannableTickets(t *testing.T) {
	t.Parallel()
	e := newKioskEnv(t, storetest.TonightSeed(storetest.FixedClock().Now()), nil)
	ctx := context.Background()
	kiosk := booking.Actor{Name: "kiosk", Role: booking.RoleKiosk}
	h, err := e.store.KioskHold(ctx, kiosk, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "ann", N: 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.store.Reserve(ctx, kiosk, booking.ReserveRequest{HoldID: h.ID, Owner: "ann", Name: "Ann Lee", Phone: "020 7946 0018"})
	if err != nil {
		t.Fatal(err)
	}
	paid, err := e.store.PayReservation(ctx, storetest.Clerk, booking.PayReservationRequest{Number: res.Number, Method: booking.Card, IdempotencyKey: "pay"})
	if err != nil {
		t.Fatal(err)
	}

	c := e.dial("127.0.0.3", 80, 24)
	kioskWait(t, c, "Welcome", "Collect my tickets")
	kioskSend(t, c, keyDown, keyEnter)
	kioskWait(t, c, "Collect your tickets")
	kioskSend(t, c, res.Number, keyTab)
	try(t, c, res.Number, "0019") // a wrong pair keeps the number
	kioskSend(t, c, "0018")
	kioskWait(t, c, "[ 0018")
	kioskSend(t, c, keyEnter)
	for i, tk := range paid.Tickets {
		screen := kioskWait(t, c, "Seat "+tk.Seat.Label, "⏎ done")
		got, err := qrscan.Decode(screen)
		if err != nil || got != tk.Code {
			t.Fatalf("ticket %d: scanned %q (%v), want %q off:\n%s", i+1, got, err, tk.Code, screen)
		}
		if lines := strings.Split(screen, "\n"); len(lines) > 24 || !strings.Contains(screen, "← → your other tickets   ⏎ done") {
			t.Fatalf("ticket %d at 80×24: %d lines, the key line cut:\n%s", i+1, len(lines), screen)
		}
		kioskSend(t, c, keyRight)
	}
	t.Logf("%d tickets scanned off an 80×24 kiosk screen", len(paid.Tickets))
}
