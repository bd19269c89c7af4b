package store

import (
	"context"
	"crypto/subtle"
	"strings"
	"time"

	"boxoffice/booking"
)

// The kiosk's "Collect my tickets" (booking.Kiosk's Collect): a number
// and the last four digits of its phone. Each try is counted on its
// number's and its address's guess counters (booking.CollectTry) in one
// write transaction, which compares the digits only after the count is
// written and holds both counters (GuessesForUpdate) until it ends, so
// tries at once, on any server, are counted one after the other and at
// most the allowance is ever compared before a pause.

// CollectTx is what collect asks of a transaction.
type CollectTx interface {
	// ForgetGuesses deletes guess counters kept until before the
	// transaction's time (at least those no other transaction holds).
	ForgetGuesses() error
	// GuessesForUpdate reads where the number's and the address's
	// counters stand, locked, the number's first (so two tries never
	// wait on each other in a cycle); a key never counted, or forgotten,
	// reads as zero Guesses.
	GuessesForUpdate(numberKey, addrKey string) (number, addr booking.Guesses, err error)
	// PutGuesses writes both counters' standings, each kept until its
	// KeepUntil.
	PutGuesses(number, addr GuessRow) error
	// CollectLookup finds number among bookings and reservations in one
	// statement that does the same work found or not (a made-up number
	// costs what someone else's does): the booking's id and phone, and
	// the reservation's id and phone digits, 0 and "" where none has it.
	CollectLookup(number string) (CollectFound, error)
}

// GuessRow is one guess counter as a driver stores it.
type GuessRow struct {
	Key       string
	Guesses   booking.Guesses
	KeepUntil time.Time
}

// CollectFound is what CollectLookup found of a number.
type CollectFound struct {
	BookingID         int64
	BookingPhone      string
	ReservationID     int64
	ReservationDigits string
}

// collected is what collect's transaction found: the booking or
// reservation whose digits were right, or neither, or the try refused
// unseen (count.Wait).
type collected struct {
	count                    booking.CollectCount
	bookingID, reservationID int64
}

// Collect shows a customer their own booking or reservation. The
// comparison is four bytes, not a PIN's hash, so unlike sign-in it runs
// inside the counting transaction, and a right answer takes its try back
// exactly. A wrong pair, another customer's booking and a made-up number
// take the same path (the counts, the one lookup, a constant-time compare
// of four digits, the audit row) and read ErrNoBookingFound; only a
// match reads more.
func (s *Store) Collect(ctx context.Context, actor booking.Actor, req booking.CollectRequest) (*booking.Collection, error) {
	if err := booking.Authorize(actor, booking.ActionCollect); err != nil {
		return nil, err
	}
	digits := strings.TrimSpace(req.Digits)
	if len(digits) != 4 || strings.ContainsFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) {
		return nil, booking.Errorf(booking.EInvalid, "Type the last four digits of your phone number.")
	}
	number := booking.NormalizeNumber(booking.CleanLine(req.Number, 16))
	addr := booking.KioskAddr(req.Addr, "")
	got, err := write(s, ctx, actor, Write{Op: "collect"}, func(tx Tx) (collected, error) {
		return collectIn(tx, actor, number, digits, addr)
	})
	if err != nil {
		return nil, err
	}
	if got.bookingID == 0 && got.reservationID == 0 {
		reason := "wrong digits"
		if got.count.Wait > 0 {
			reason = "paused"
		}
		s.log.Warn("collect failed", "number", number, "addr", addr, "terminal", booking.CleanLine(actor.Terminal, 60), "reason", reason,
			"number_tries", got.count.Number.Tries, "addr_tries", got.count.Addr.Tries, "wait", got.count.Wait)
		if err := got.count.Refused(); err != nil {
			return nil, err
		}
		return nil, booking.ErrNoBookingFound
	}
	if got.bookingID != 0 {
		b, err := s.committedBooking(ctx, got.bookingID)
		if err != nil {
			return nil, err
		}
		return &booking.Collection{Booking: b}, nil
	}
	r, err := committed(ctx, func(ctx context.Context) (*booking.Reservation, error) {
		return s.loadReservation(ctx, got.reservationID)
	})
	if err != nil {
		return nil, err
	}
	return &booking.Collection{Reservation: r}, nil
}

// collectIn is Collect's transaction: count, then (unless paused)
// compare, then the audit row of a failure or the count of a success put
// right.
func collectIn(tx Tx, actor booking.Actor, number, digits, addr string) (collected, error) {
	numberKey, addrKey := booking.CollectKeys(number, addr)
	count, addrBefore, err := countTry(tx, numberKey, addrKey)
	if err != nil {
		return collected{}, err
	}
	got := collected{count: count}
	if got.count.Wait > 0 {
		return got, Audit(tx, actor, got.count.Failed(number, addr), 0)
	}
	f, err := tx.CollectLookup(number)
	if err != nil {
		return collected{}, err
	}
	want, found := lastFour(f.ReservationDigits), f.ReservationID != 0
	if f.BookingID != 0 {
		want, found = lastFour(f.BookingPhone), true
	}
	same := subtle.ConstantTimeCompare([]byte(want), []byte(digits))
	if same != 1 || !found {
		return got, Audit(tx, actor, got.count.Failed(number, addr), 0)
	}
	got.bookingID, got.reservationID = f.BookingID, f.ReservationID
	if f.BookingID != 0 {
		got.reservationID = 0
	}
	return got, rightTry(tx, numberKey, addrKey, addrBefore)
}

// countTry counts a try on a public guess (Collect's, the kiosk's gift
// card) on the key's and the address's counters, before anything is
// looked up, and holds both until the transaction ends; it returns the
// count and the address's standing before it, for rightTry.
func countTry(tx Tx, key, addrKey string) (booking.CollectCount, booking.Guesses, error) {
	// Counters whose time is up go first: a key among them reads as new.
	if err := tx.ForgetGuesses(); err != nil {
		return booking.CollectCount{}, booking.Guesses{}, err
	}
	keyBefore, addrBefore, err := tx.GuessesForUpdate(key, addrKey)
	if err != nil {
		return booking.CollectCount{}, booking.Guesses{}, err
	}
	count := booking.CollectTry(keyBefore, addrBefore, tx.Now())
	return count, addrBefore, putGuesses(tx, key, count.Number, addrKey, count.Addr)
}

// rightTry takes a right answer's count back (booking.CollectRight).
func rightTry(tx Tx, key, addrKey string, addrBefore booking.Guesses) error {
	n, a := booking.CollectRight(addrBefore)
	return putGuesses(tx, key, n, addrKey, a)
}

// putGuesses writes both standings back, each kept as its schedule says.
func putGuesses(tx Tx, numberKey string, number booking.Guesses, addrKey string, addr booking.Guesses) error {
	return tx.PutGuesses(GuessRow{Key: numberKey, Guesses: number, KeepUntil: booking.CollectByNumber.Keep(number)},
		GuessRow{Key: addrKey, Guesses: addr, KeepUntil: booking.CollectByAddr.Keep(addr)})
}

// lastFour is the last four digits of a phone number, or four characters
// no typed digits can equal when it has fewer: always four bytes, so the
// compare costs the same.
func lastFour(phone string) string {
	var d [4]byte
	n := 0
	for i := len(phone) - 1; i >= 0 && n < 4; i-- {
		if c := phone[i]; c >= '0' && c <= '9' {
			n++
			d[4-n] = c
		}
	}
	if n < 4 {
		return "----"
	}
	return string(d[:])
}
