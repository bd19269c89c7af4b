package db_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// A write is answered only once the WAL holding it is on disk: with the
// disk stalled, the hold is committed (another connection sees it) and
// its caller still waits; freed, the caller gets the hold.
func TestStore_AnsweredOnlyOnDisk(t *testing.T) {
	t.Parallel()
	s, path := dbtest.MustOpen(t, db.Options{})
	show := firstShow(t, s)
	stalled, free := make(chan struct{}), make(chan struct{})
	var freeOnce sync.Once
	release := func() { freeOnce.Do(func() { close(free) }) }
	t.Cleanup(release) // before the store closes: its writer waits for the syncer
	var once atomic.Bool
	db.SyncWALWith(s, func(string) error {
		if once.CompareAndSwap(false, true) {
			close(stalled)
			<-free
		}
		return nil
	})
	type result struct {
		h   *booking.Hold
		err error
	}
	done := make(chan result, 1)
	go func() {
		h, err := s.Hold(context.Background(), clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"F5"}, Owner: "a"})
		done <- result{h, err}
	}()
	<-stalled
	if n := liveClaims(t, path); n != 1 {
		t.Fatalf("%d live claims seen by another connection while the disk stalls, want the hold's 1", n)
	}
	// Given time to answer early, the store does not: nothing but the
	// stalled fsync stands between the commit and the answer.
	select {
	case r := <-done:
		t.Fatalf("hold answered (%v, %v) before its WAL was on disk", r.h, r.err)
	case <-time.After(100 * time.Millisecond):
	}
	release()
	if r := <-done; r.err != nil || len(r.h.Seats) != 1 {
		t.Fatalf("hold after the disk freed: %+v, %v", r.h, r.err)
	}
}

// A disk that fails its fsync fails the writes it held and every write
// after it, with a message that says so; reads still answer.
func TestStore_DiskFailureRefusesWrites(t *testing.T) {
	t.Parallel()
	s, _ := dbtest.MustOpen(t, db.Options{})
	show := firstShow(t, s)
	db.SyncWALWith(s, func(string) error { return syscall.EIO })
	ctx := context.Background()
	for _, seat := range []string{"F5", "F6"} {
		_, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{seat}, Owner: "a"})
		var be *booking.Error
		if !errors.As(err, &be) || be.Code != booking.EInternal || !strings.Contains(err.Error(), "could not be written to disk") {
			t.Fatalf("hold %s on a failed disk: %v, want EInternal saying the disk failed", seat, err)
		}
	}
	// The disk working again proves nothing about what the failed fsync
	// dropped: writes stay refused.
	db.SyncWALWith(s, nil)
	if _, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"F7"}, Owner: "a"}); err == nil {
		t.Fatal("a hold after a failed fsync was accepted")
	}
	if _, err := s.SeatMap(ctx, clerk, show.ID, "a"); err != nil {
		t.Fatalf("seat map after the disk failed: %v", err)
	}
}

// liveClaims counts held and sold claims on another connection.
func liveClaims(t *testing.T, path string) int {
	t.Helper()
	c, err := sql.Open("sqlite", "file:"+path+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var n int
	if err := c.QueryRow(`SELECT count(*) FROM seat_claims WHERE status IN ('held', 'sold')`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
