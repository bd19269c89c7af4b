package pg

import (
	"errors"

	"boxoffice/booking"
)

// settleCheckout runs a checkout of key (run) and deals with the one
// ambiguous fault: a COMMIT sent on a connection that broke before its
// answer came back, so the sale may or may not have committed. What it
// does then:
//
//   - it runs the checkout once more at once, with the same key: when the
//     server is still there (a connection cut, not a server gone) that
//     settles it — the booking the key made (the hold is confirmed, so the
//     checkout finds the key's booking and answers with it), or the sale
//     made now if the first never committed; never two, as the hold moves
//     held -> confirmed by compare-and-set and the key is UNIQUE;
//   - when the server cannot be reached, the key is remembered as unsure
//     and the clerk reads "the sale may have gone through", never "nothing
//     was saved" — also from every later try with that key while the
//     server is still away. The counter keeps the form and tries again
//     with the same key; the first answer once the server is back settles
//     it, by the same rule, and forgets the key.
func (s *Store) settleCheckout(key string, run func() (*booking.Booking, error)) (*booking.Booking, error) {
	b, err := run()
	if saleMaybeMade(err) {
		s.faults.unsure.Store(key, struct{}{})
		b, err = run()
	}
	if booking.ErrorCode(err) == booking.EUnavailable {
		if _, ok := s.faults.unsure.Load(key); ok {
			return nil, booking.Errorf(booking.EUnavailable, msgSaleMaybeMade)
		}
		return nil, err
	}
	s.faults.unsure.Delete(key)
	return b, err
}

// saleMaybeMade reports the error a checkout returns when its COMMIT's
// answer was lost.
func saleMaybeMade(err error) bool {
	var e *booking.Error
	return errors.As(err, &e) && e.Code == booking.EUnavailable && e.Message == msgSaleMaybeMade
}
