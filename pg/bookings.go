package pg

import (
	"context"

	"boxoffice/booking"
	"boxoffice/store"
)

// bookingID finds the id of the booking with number (normalized).
func (s *Store) bookingID(ctx context.Context, number string) (int64, error) {
	id, found, err := driver{s}.BookingIDByNumber(ctx, number)
	if err == nil && !found {
		err = notFoundBooking(number)
	}
	return id, err
}

// wholeBooking reads a whole booking (store.LoadBooking).
func (s *Store) wholeBooking(ctx context.Context, id int64) (*booking.Booking, error) {
	return store.LoadBooking(s.Store, ctx, id)
}

// loadBooking reads a whole booking (store.LoadBooking).
func (s *Store) loadBooking(ctx context.Context, id int64) (*booking.Booking, error) {
	return store.LoadBooking(s.Store, ctx, id)
}

func notFoundBooking(number string) error { return booking.ErrNoBooking(number) }

func normalizeNumber(n string) string { return booking.NormalizeNumber(n) }

func isBookingNumber(n string) bool { return booking.IsBookingNumber(n) }
