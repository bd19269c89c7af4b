package pg

import (
	"context"

	"boxoffice/booking"
	"boxoffice/store"
)

// loadBooking reads a whole booking (store.LoadBooking).
func (s *Store) loadBooking(ctx context.Context, id int64) (*booking.Booking, error) {
	return store.LoadBooking(s.Store, ctx, id)
}
