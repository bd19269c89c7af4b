package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// A shutdown under another process's write lock is bounded: a release's
// deadline reaches SQLite's busy wait (busy_timeout is 30 s here, and the
// writer used to retry it 8 times), GiveUpWaiting ends a write stuck on
// the lock so the releases behind it reach the writer, and LiveHolds
// names what was left held. Once the lock is let go, the releases work.
func TestStore_GiveUpWaiting(t *testing.T) {
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1, BusyTimeout: 30 * time.Second})
	show := firstShow(t, s)
	kept := mustHold(t, s, show.ID, "ssh-1:a", "A1", "A2")
	mustHold(t, s, show.ID, "other:b", "B1")

	unlock := lockFile(t, path)
	stuck := make(chan error, 1)
	go func() {
		_, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"C3"}, Owner: "ssh-1:c"})
		stuck <- err
	}()
	waitWrites(t, s, 1)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := s.Quiesce(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Quiesce with a write stuck on the lock: %v", err)
	}

	// The release queued behind the stuck hold gives up at its own
	// deadline, not after busy_timeout, and so does the wait it queued
	// behind once GiveUpWaiting is called.
	released := make(chan error, 1)
	start := time.Now()
	go func() {
		rctx, cancel := context.WithTimeout(ctx, 700*time.Millisecond)
		defer cancel()
		_, err := s.ReleasePrefix(rctx, "ssh-1:")
		released <- err
	}()
	time.Sleep(100 * time.Millisecond)
	s.GiveUpWaiting()
	select {
	case err := <-stuck:
		if booking.ErrorMessage(err) != "The box office is shutting down." {
			t.Fatalf("the hold stuck on the lock after GiveUpWaiting: %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("GiveUpWaiting did not end the hold's wait for the lock")
	}
	select {
	case err := <-released:
		if err == nil {
			t.Fatal("ReleasePrefix under another process's lock succeeded")
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Fatalf("ReleasePrefix with a 700ms deadline took %v", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReleasePrefix waited past its deadline")
	}

	left, err := s.LiveHolds(ctx, "ssh-1:")
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].ID != kept.ID || left[0].Owner != "ssh-1:a" || len(left[0].Seats) != 2 ||
		left[0].Seats[0].Label != "A1" || left[0].Seats[1].Label != "A2" || !left[0].ExpiresAt.Equal(kept.ExpiresAt.Truncate(time.Millisecond)) {
		t.Fatalf("live holds of ssh-1: %+v, want hold %d on A1 A2", left, kept.ID)
	}
	if _, err := s.LiveHolds(ctx, ""); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("LiveHolds without a prefix: %v", err)
	}

	// The lock let go, a release goes through and only ours went.
	unlock()
	if n, err := s.ReleasePrefix(ctx, "ssh-1:"); err != nil || n != 1 {
		t.Fatalf("ReleasePrefix after the lock went: %d, %v", n, err)
	}
	if left, err := s.LiveHolds(ctx, "ssh-1:"); err != nil || len(left) != 0 {
		t.Fatalf("live holds after the release: %+v, %v", left, err)
	}
	if left, err := s.LiveHolds(ctx, "other:"); err != nil || len(left) != 1 {
		t.Fatalf("another owner's holds: %+v, %v", left, err)
	}
	dbtest.MustBeWhole(t, s)
}
