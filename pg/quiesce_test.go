package pg_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// A bounded stop on PostgreSQL: LiveHolds names what a server holds;
// Quiesce waits for a write under way (here one stuck on a row lock
// another connection keeps) until its context ends, and refuses new writes
// but the shutdown's own releases; GiveUpWaiting ends the stuck write with
// "shutting down" at once; the releases go on once the lock is gone.
func TestQuiesce_BoundedStop(t *testing.T) {
	s, u, _ := seeded(t)
	ctx := context.Background()
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A1", "A2"}, Owner: "srv-1"})
	if err != nil {
		t.Fatal(err)
	}
	live, err := s.LiveHolds(ctx, "srv-")
	if err != nil || len(live) != 1 || live[0].ID != h.ID || len(live[0].Seats) != 2 || live[0].Seats[0].Label != "A1" {
		t.Fatalf("live holds: %+v, %v", live, err)
	}
	if _, err := s.LiveHolds(ctx, ""); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("an empty prefix: %v", err)
	}

	// Another connection locks the hold's row, as a long transaction would.
	lock, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close(ctx)
	tx, err := lock.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM holds WHERE id = $1 FOR UPDATE`, h.ID); err != nil {
		t.Fatal(err)
	}
	stuck := make(chan error, 1)
	go func() { stuck <- s.Release(ctx, clerk, h.ID, "srv-1", "A1") }()
	time.Sleep(200 * time.Millisecond) // the release is waiting on the lock

	qctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if err := s.Quiesce(qctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Quiesce with a write under way: %v", err)
	}
	if _, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"B1"}, Owner: "srv-1"}); booking.ErrorMessage(err) != "The box office is shutting down." {
		t.Fatalf("a hold after Quiesce: %v", err)
	}
	began := time.Now()
	s.GiveUpWaiting()
	select {
	case err := <-stuck:
		if booking.ErrorMessage(err) != "The box office is shutting down." {
			t.Fatalf("the stuck release: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("GiveUpWaiting did not end the write stuck on the lock")
	}
	t.Logf("the stuck write gave up %s after GiveUpWaiting", time.Since(began).Round(time.Millisecond))
	if err := s.Quiesce(ctx); err != nil {
		t.Fatalf("Quiesce once nothing is under way: %v", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := s.ReleasePrefix(ctx, "srv-"); err != nil || n != 1 {
		t.Fatalf("the shutdown's release: %d, %v", n, err)
	}
	if live, err := s.LiveHolds(ctx, "srv-"); err != nil || len(live) != 0 {
		t.Fatalf("live holds after the release: %+v, %v", live, err)
	}
}
