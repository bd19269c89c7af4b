package db_test

import (
	"context"
	"sync"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
)

// Invariant 6: a waiting-list entry is notified at most once, even with
// two sweepers (two stores on one file, as two processes would be)
// running at the same time.
func TestStore_NotifyWaitlist(t *testing.T) {
	ctx := context.Background()
	s, path := MustOpenDB(t, db.Options{SweepInterval: -1})
	other := mustOpenPath(t, path, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	// Sell out all but four seats.
	m, _ := s.SeatMap(ctx, clerk, show.ID, "")
	var labels []string
	for _, seat := range m.Hall.Seats[:len(m.Hall.Seats)-4] {
		labels = append(labels, seat.Label)
	}
	var sold []*booking.Booking
	for i := 0; i < len(labels); i += 20 {
		sold = append(sold, mustSell(t, s, show.ID, "bulk", labels[i:min(i+20, len(labels))]...))
	}
	ann, err := s.AddWaitlist(ctx, clerk, show.ID, "Ann", "0123", 6)
	if err != nil {
		t.Fatal(err)
	}
	bob, _ := s.AddWaitlist(ctx, clerk, show.ID, "Bob", "0456", 2)

	// Four seats free: Ann (6) waits, and Bob (2) may not jump the queue.
	if n, _ := s.NotifyWaitlist(ctx); len(n) != 0 {
		t.Fatalf("notified %v with only four seats free", n)
	}
	// A cancellation frees 20 seats: both fit now.
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

func TestStore_WaitlistCalls(t *testing.T) {
	ctx := context.Background()
	s, _ := MustOpenDB(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	e, err := s.AddWaitlist(ctx, clerk, show.ID, "Ann", "0123", 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.MarkCalled(ctx, clerk, e.ID); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("calling before seats came free: %v", err)
	}
	if calls, _ := s.WaitlistCalls(ctx, clerk); len(calls) != 0 {
		t.Fatalf("calls before notification: %v", calls)
	}
	if n, _ := s.NotifyWaitlist(ctx); len(n) != 1 {
		t.Fatalf("notified %v", n)
	}
	calls, err := s.WaitlistCalls(ctx, clerk)
	if err != nil || len(calls) != 1 || calls[0].Name != "Ann" || calls[0].Show.Film.Title != show.Film.Title {
		t.Fatalf("calls %+v %v", calls, err)
	}
	// Two counters press "called" at once: one wins, the other hears who.
	errs := make(chan error, 2)
	for _, who := range []string{"carl", "sue"} {
		go func(who string) {
			errs <- s.MarkCalled(ctx, booking.Actor{Name: who, Role: booking.RoleClerk}, e.ID)
		}(who)
	}
	e1, e2 := <-errs, <-errs
	if (e1 == nil) == (e2 == nil) {
		t.Fatalf("both or neither marked the call: %v / %v", e1, e2)
	}
	if calls, _ := s.WaitlistCalls(ctx, clerk); len(calls) != 0 {
		t.Fatalf("still to call after the call: %v", calls)
	}
	list, _ := s.Waitlist(ctx, clerk, show.ID)
	if list[0].CalledAt == nil || list[0].CalledBy == "" {
		t.Fatalf("call not recorded: %+v", list[0])
	}
}
