package db_test

import (
	"context"
	"testing"
	"time"

	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// A show moved by another store on the same file (another process, as
// far as SQLite is concerned) reaches this one's cached programme: its
// seat map is the new hall's once the change is heard.
func TestStore_MoveShow_ReachesOtherProcess(t *testing.T) {
	s, path := dbtest.MustOpen(t, db.Options{PollInterval: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Let the poll hear the seeding first, so the read below is the one
	// the cache keeps (a read racing a drop is not kept).
	time.Sleep(100 * time.Millisecond)
	if _, err := s.SeatMap(ctx, clerk, 1, "x"); err != nil { // caches show 1
		t.Fatal(err)
	}
	changes := s.Changes().Subscribe(ctx)
	other := dbtest.Open(t, path, db.Options{PollInterval: -1})
	annex := storetest.Hall()
	annex.Name = "Annex"
	annex.Seats = annex.Seats[:10]
	annexID, err := other.AddHall(ctx, storetest.Manager, annex)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := other.Show(ctx, clerk, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.MoveShow(ctx, storetest.Manager, 1, sh.Starts.Add(time.Hour), annexID); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case c := <-changes:
			if c.ShowID != 1 && c.ShowID != 0 {
				continue
			}
			sm, err := s.SeatMap(ctx, clerk, 1, "x")
			if err != nil {
				t.Fatal(err)
			}
			if sm.Hall.ID == annexID && len(sm.Hall.Seats) == 10 && sm.Show.Starts.Equal(sh.Starts.Add(time.Hour)) {
				return
			}
		case <-deadline:
			t.Fatal("the move was never heard: show 1 still reads as it was")
		}
	}
}
