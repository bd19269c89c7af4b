package db_test

import (
	"context"
	"slices"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
)

// collectCase is one try at collecting: a number and four digits.
type collectCase struct{ name, number, digits string }

// collectFixture reserves for two customers and pays one, and returns
// the three ways to be wrong of must-show 2 beside the right pairs.
func collectFixture(t testing.TB) (*db.Store, []collectCase, *booking.Reservation, *booking.Reservation) {
	t.Helper()
	s, _, _ := newKioskStore(t)
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
	return s, wrong, ann, bob
}

// TestStore_Collect: the right pair shows the customer's own booking or
// reservation; the three wrong ones give the same error, byte for byte,
// after the same work: the same number of statements.
func TestStore_Collect(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, wrong, ann, bob := collectFixture(t)
	got, err := s.Collect(ctx, kioskActor, " "+ann.Number[3:]+" ", "0018")
	if err != nil || got.Reservation == nil || got.Reservation.Number != ann.Number || got.Booking != nil {
		t.Fatalf("Ann collects her reservation: %+v, %v", got, err)
	}
	got, err = s.Collect(ctx, kioskActor, bob.Number, "0123")
	if err != nil || got.Booking == nil || got.Booking.Number != bob.Number || len(got.Booking.Tickets) != 2 || got.Booking.Tickets[0].Code == "" {
		t.Fatalf("Bob collects his tickets: %+v, %v", got, err)
	}
	var reads []int64
	for _, c := range wrong {
		before := db.Reads(s)
		_, err := s.Collect(ctx, kioskActor, c.number, c.digits)
		reads = append(reads, db.Reads(s)-before)
		if err != booking.ErrNoBookingFound || err.Error() != booking.ErrNoBookingFound.Error() {
			t.Errorf("%s: %v, want \"No booking found.\"", c.name, err)
		}
	}
	if reads[0] != 1 || slices.Max(reads) != slices.Min(reads) {
		t.Errorf("statements read by the wrong pairs %v: want one each", reads)
	}
	if _, err := s.Collect(ctx, kioskActor, ann.Number, "18"); booking.ErrorCode(err) != booking.EInvalid {
		t.Errorf("two digits: %v", err)
	}
}

// BenchmarkCollect times each wrong pair of must-show 2.
func BenchmarkCollect(b *testing.B) {
	ctx := context.Background()
	s, wrong, _, _ := collectFixture(b)
	for _, c := range wrong {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				_, _ = s.Collect(ctx, kioskActor, c.number, c.digits)
			}
		})
	}
}
