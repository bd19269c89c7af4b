package pg

import (
	"context"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// wholeBooking reads a whole booking (store.LoadBooking).
func (s *Store) wholeBooking(ctx context.Context, id int64) (*booking.Booking, error) {
	return store.LoadBooking(s.Store, ctx, id)
}

// loadBooking reads a whole booking (store.LoadBooking).
func (s *Store) loadBooking(ctx context.Context, id int64) (*booking.Booking, error) {
	return store.LoadBooking(s.Store, ctx, id)
}

// committedBooking reads back the booking a committed write made, on a
// context of its own (the write is done whatever the caller's deadline
// says now).
func (s *Store) committedBooking(ctx context.Context, id int64) (*booking.Booking, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return s.wholeBooking(ctx, id)
}

func normalizeNumber(n string) string { return booking.NormalizeNumber(n) }

func isBookingNumber(n string) bool { return booking.IsBookingNumber(n) }
