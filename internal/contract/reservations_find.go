package contract

import (
	"testing"

	"boxoffice/booking"
)

// reservationFindByLastDigits: the last digits a customer reads out find
// their reservation while it is still to pay, and nothing else; paid,
// it is a booking, found as one. Until then the seat map says its seats
// are reserved, until its cut-off.
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
	sm := e.seatMap(t, "counter")
	if cut, ok := sm.Reserved[res.Seats[0].ID]; !ok || !cut.Equal(res.CutOff) || sm.State(res.Seats[0].ID) != booking.SeatHeldByOther {
		t.Fatalf("the seat map says %s is %v, reserved until %v (%v): want held for the reservation until %v",
			res.Seats[0].Label, sm.State(res.Seats[0].ID), cut, ok, res.CutOff)
	}
	if _, err := r.PayReservation(e.ctx, clerk, booking.PayReservationRequest{Number: res.Number, Method: booking.Card, IdempotencyKey: "pay-0222"}); err != nil {
		t.Fatal(err)
	}
	if found, err = r.FindReservations(e.ctx, clerk, "0222"); err != nil || len(found) != 0 {
		t.Fatalf("by 0222 once paid: %+v, %v", found, err)
	}
}
