package db_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// A store opened read-only answers reads as the file has them, refuses
// every write with disk_full, untried, and closes; the file is the same
// bytes afterwards.
func TestOpenReadOnly_ReadsAndRefusesWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts := db.Options{TicketKey: booking.TicketKey{ID: 1, Secret: []byte("readonly-test-key-0123456789abcd")}, SweepInterval: -1, PollInterval: -1}
	s, path := dbtest.MustOpen(t, opts)
	show := firstShow(t, s)
	sold := mustSell(t, s, show.ID, "before", "A1")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	ro, err := db.OpenReadOnly(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ro.Booking(ctx, clerk, sold.Number)
	if err != nil || b.Number != sold.Number {
		t.Fatalf("read a booking: %v %v", b, err)
	}
	_, err = ro.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Owner: "after", Seats: []string{"A2"}})
	if booking.ErrorCode(err) != booking.EDiskFull || !strings.HasPrefix(booking.ErrorMessage(err), "The disk is full: ") {
		t.Fatalf("a hold on a read-only store: %v", err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(path)
	if err != nil || string(after) != string(before) {
		t.Fatalf("the file changed under a read-only store (%v)", err)
	}
	if err := db.QuickCheck(ctx, path); err != nil {
		t.Fatalf("quick check of a whole file: %v", err)
	}
}
