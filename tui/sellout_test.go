package tui

import (
	"context"
	"fmt"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
)

// sellOut sells every seat of a show, twenty at a time, and returns the
// bookings: a customer may only wait for a show without free seats.
func sellOut(tb testing.TB, s *db.Store, showID int64) []*booking.Booking {
	tb.Helper()
	ctx := context.Background()
	m, err := s.SeatMap(ctx, booking.System, showID, "")
	if err != nil {
		tb.Fatal(err)
	}
	var out []*booking.Booking
	for i := 0; i < len(m.Hall.Seats); i += booking.MaxSeatsPerSale {
		var ids []int64
		for _, seat := range m.Hall.Seats[i:min(i+booking.MaxSeatsPerSale, len(m.Hall.Seats))] {
			ids = append(ids, seat.ID)
		}
		owner := fmt.Sprint("sellout-", i)
		h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: showID, SeatIDs: ids, Owner: owner})
		if err != nil {
			tb.Fatal(err)
		}
		b, err := s.Checkout(ctx, booking.System, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card})
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}
