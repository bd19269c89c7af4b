package db_test

import (
	"context"
	"slices"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/storetest"
)

// collectCase is one try at collecting: a number and four digits.
type collectCase struct{ name, number, digits string }

// collectFixture reserves for two customers and pays one, and returns
// the three ways to be wrong of must-show 2 beside the right pairs, and
// the store's clock.
func collectFixture(t testing.TB) (*db.Store, []collectCase, *booking.Reservation, *booking.Reservation, *storetest.Clock) {
	t.Helper()
	s, _, clock := newKioskStore(t)
	ann := mustReserve(t, s, 1, "k1", 2, "020 7946 0018")
	bob := mustReserve(t, s, 1, "k2", 2, "07700 900123")
	if _, err := s.PayReservation(context.Background(), clerk, booking.PayReservationRequest{Number: bob.Number, Method: booking.Card, IdempotencyKey: "bob"}); err != nil {
		t.Fatal(err)
	}
	wrong := []collectCase{
		{"WrongPhone", ann.Number, "9999"},
		{"OthersNumber", bob.Number, "0018"}, // Bob's booking with Ann's digits
		{"MadeUp", "BO-ZZZZ2222", "0018"},
	}
	return s, wrong, ann, bob, clock
}

// collect is one try from the test's kiosk address.
func collect(s *db.Store, number, digits string) (*booking.Collection, error) {
	return s.Collect(context.Background(), kioskActor, booking.CollectRequest{Number: number, Digits: digits, Addr: "192.0.2.7"})
}

// forgetGuesses moves the clock on past every guess counter's memory
// (booking.CollectByNumber.Forget, the longer), so the next tries are
// compared as first tries: the timing tests measure the comparison, not
// the pause.
func forgetGuesses(clock *storetest.Clock) {
	clock.Add(booking.CollectByNumber.Forget + booking.CollectByNumber.MaxPause)
}

// TestStore_CollectSameWork: the three wrong pairs take the same path on
// SQLite: one write each and nothing read outside it, so a made-up number
// costs what someone else's does (the contract's Reservations/Collect
// checks they read the same, byte for byte).
func TestStore_CollectSameWork(t *testing.T) {
	s, wrong, _, _, _ := collectFixture(t)
	var reads, jobs []int64
	for _, c := range wrong {
		beforeReads, beforeJobs := db.Reads(s), s.Stats().Jobs
		if _, err := collect(s, c.number, c.digits); err != booking.ErrNoBookingFound {
			t.Errorf("%s: %v, want %q", c.name, err, booking.ErrNoBookingFound)
		}
		reads, jobs = append(reads, db.Reads(s)-beforeReads), append(jobs, s.Stats().Jobs-beforeJobs)
	}
	if slices.Max(reads) != 0 || slices.Min(jobs) != 1 || slices.Max(jobs) != 1 {
		t.Errorf("the wrong pairs read %v outside their write and ran %v writes: want none and one each", reads, jobs)
	}
}

// BenchmarkCollect times each wrong pair of must-show 2.
func BenchmarkCollect(b *testing.B) {
	s, wrong, _, _, clock := collectFixture(b)
	for _, c := range wrong {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				forgetGuesses(clock)
				_, _ = collect(s, c.number, c.digits)
			}
		})
	}
}
