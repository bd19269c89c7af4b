package db_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// Invariant 6 across processes: a waiting-list entry is notified at most
// once, even with two sweepers in two processes (two stores on one file)
// running at the same time. One process's racing sweeps are the
// contract's (Waitlist/NotifiedOnceByRacingSweeps).
func TestStore_NotifyWaitlist_TwoProcesses(t *testing.T) {
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	other := dbtest.Open(t, path, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	sold := sellOut(t, s, show.ID, 20)
	ann, err := s.AddWaitlist(ctx, clerk, show.ID, "Ann", "0123", 6)
	if err != nil {
		t.Fatal(err)
	}
	bob, err := other.AddWaitlist(ctx, clerk, show.ID, "Bob", "0456", 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: sold[0].Number}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	counts := map[int64]int{}
	var mu sync.Mutex
	for _, store := range []*db.Store{s, other, s, other} {
		wg.Add(1)
		go func(store *db.Store) {
			defer wg.Done()
			for k := 0; k < 5; k++ {
				got, err := store.NotifyWaitlist(ctx)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				for _, e := range got {
					counts[e.ID]++
				}
				mu.Unlock()
			}
		}(store)
	}
	wg.Wait()
	if counts[ann.ID] != 1 || counts[bob.ID] != 1 || len(counts) != 2 {
		t.Fatalf("notifications per entry: %v", counts)
	}
	list, _ := s.Waitlist(ctx, clerk, show.ID)
	if len(list) != 2 || list[0].NotifiedAt == nil || list[1].NotifiedAt == nil {
		t.Fatalf("waitlist %+v", list)
	}
}

// sellOut sells every seat of a show in bookings of at most 20 seats, the
// first of them of size first, and returns the bookings in order.
func sellOut(t *testing.T, s *db.Store, showID int64, first int) []*booking.Booking {
	t.Helper()
	m, err := s.SeatMap(context.Background(), clerk, showID, "")
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, seat := range m.Hall.Seats {
		labels = append(labels, seat.Label)
	}
	out := []*booking.Booking{mustSell(t, s, showID, "bulk", labels[:first]...)}
	for i := first; i < len(labels); i += 20 {
		out = append(out, mustSell(t, s, showID, "bulk", labels[i:min(i+20, len(labels))]...))
	}
	return out
}

// A sweep with nobody to tell takes no write transaction: seats came
// free, but of a show already played (that it tells nobody is the
// contract's, Waitlist/PlayedShowsNeverTold).
func TestStore_NotifyWaitlist_PastShows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1, Clock: clock.Now})
	show := firstShow(t, s)
	sold := sellOut(t, s, show.ID, 20)
	if _, err := s.AddWaitlist(ctx, clerk, show.ID, "Ann", "0123", 2); err != nil {
		t.Fatal(err)
	}
	// The show starts in two hours; sales close 30 minutes after.
	clock.Add(3 * time.Hour)
	// The show has started: a manager refunds it.
	if _, err := s.Cancel(ctx, storetest.Manager, booking.CancelRequest{Number: sold[0].Number}); err != nil {
		t.Fatal(err)
	}
	before := s.Stats().Commits
	for k := 0; k < 3; k++ {
		if got, err := s.NotifyWaitlist(ctx); err != nil || len(got) != 0 {
			t.Fatalf("told %+v %v for a show that played", got, err)
		}
	}
	if n, _ := s.ExpireHolds(ctx); n != 0 {
		t.Fatalf("expired %d holds", n)
	}
	if after := s.Stats().Commits; after != before {
		t.Fatalf("idle sweeps committed %d transactions", after-before)
	}
}

// The change log keeps its last ChangesKeep rows, and trimming a log
// under that size writes nothing.
func TestStore_TrimChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	raw := openRaw(t, path)
	if _, err := raw.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO changes (show_id) SELECT 1 FROM n`, db.ChangesKeep+50); err != nil {
		t.Fatal(err)
	}
	n, err := s.TrimChanges(ctx)
	var left int
	raw.QueryRow(`SELECT count(*) FROM changes`).Scan(&left)
	if err != nil || n < 50 || left != db.ChangesKeep {
		t.Fatalf("trimmed %d (%v), %d left; want %d left", n, err, left, db.ChangesKeep)
	}
	before := s.Stats().Commits
	if n, err := s.TrimChanges(ctx); n != 0 || err != nil || s.Stats().Commits != before {
		t.Fatalf("a second trim deleted %d (%v) and committed %d", n, err, s.Stats().Commits-before)
	}
	// A sale after the trim still reaches another process's poller.
	other := dbtest.Open(t, path, db.Options{SweepInterval: -1, PollInterval: 10 * time.Millisecond})
	sub := other.Changes().Subscribe(ctx)
	mustSell(t, s, 1, "after-trim", "A1")
	select {
	case <-sub:
	case <-time.After(5 * time.Second):
		t.Fatal("the other process never heard of the sale after the trim")
	}
}

// An idle store's sweeper takes no write transaction: it reads, finds
// nothing to expire, nobody to tell and a short change log, and stops.
func TestStore_IdleSweeperWritesNothing(t *testing.T) {
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: 5 * time.Millisecond})
	show := firstShow(t, s)
	sellOut(t, s, show.ID, 20)
	if _, err := s.AddWaitlist(context.Background(), clerk, show.ID, "Ann", "0123", 2); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	before := s.Stats().Commits
	time.Sleep(300 * time.Millisecond)
	if n := s.Stats().Commits - before; n != 0 {
		t.Fatalf("an idle sweeper committed %d transactions in 300 ms", n)
	}
}
