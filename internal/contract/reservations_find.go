package contract

import (
	"testing"

	"boxoffice/booking"
)

// reservationFindByLastDigits: the last digits a customer reads out find
// their reservation while it is still to pay, and nothing else; paid,
// it is a booking, found as one.
func reservationFindByLastDigits(t *testing.T, e *env) {
	r := e.reserver(t)
	res := e.reserve(t, r, "k1", 2, "020 7946 0222")
	other := e.reserve(t, r, "k2", 1, "020 7946 0018")
	found, err := r.FindReservations(e.ctx, clerk, "0222")
	if err != nil || len(found) != 1 || found[0].Number != res.Number || found[0].Status != booking.ReservationReserved {
		t.Fatalf("by 0222: %+v, %v", found, err)
	}
	if found, err = r.FindReservations(e.ctx, clerk, "0018"); err != nil || len(found) != 1 || found[0].Number != other.Number {
		t.Fatalf("by 0018: %+v, %v", found, err)
	}
	if found, err = r.FindReservations(e.ctx, clerk, "9999"); err != nil || len(found) != 0 {
		t.Fatalf("by 9999: %+v, %v", found, err)
	}
	if _, err := r.PayReservation(e.ctx, clerk, booking.PayReservationRequest{Number: res.Number, Method: booking.Card, IdempotencyKey: "pay-0222"}); err != nil {
		t.Fatal(err)
	}
	if found, err = r.FindReservations(e.ctx, clerk, "0222"); err != nil || len(found) != 0 {
		t.Fatalf("by 0222 once paid: %+v, %v", found, err)
	}
}
