package db_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// Invariant 6: a waiting-list entry is notified at most once, even with
// two sweepers (two stores on one file, as two processes would be)
// running at the same time.
func TestStore_NotifyWaitlist(t *testing.T) {
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	other := dbtest.Open(t, path, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	// Sell the show out: one booking of four seats, the rest in twenties.
	m, _ := s.SeatMap(ctx, clerk, show.ID, "")
	var labels []string
	for _, seat := range m.Hall.Seats {
		labels = append(labels, seat.Label)
	}
	four := mustSell(t, s, show.ID, "bulk", labels[:4]...)
	var sold []*booking.Booking
	for i := 4; i < len(labels); i += 20 {
		sold = append(sold, mustSell(t, s, show.ID, "bulk", labels[i:min(i+20, len(labels))]...))
	}
	ann, err := s.AddWaitlist(ctx, clerk, show.ID, "Ann", "0123", 6)
	if err != nil {
		t.Fatal(err)
	}
	bob, err := s.AddWaitlist(ctx, clerk, show.ID, "Bob", "0456", 2)
	if err != nil {
		t.Fatal(err)
	}

	// Four seats come free: Ann (6) waits, and Bob (2) may not jump the queue.
	if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: four.Number}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.NotifyWaitlist(ctx); len(n) != 0 {
		t.Fatalf("notified %v with only four seats free", n)
	}
	// A cancellation frees 20 more seats: both fit now.
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
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	// A customer waits only for a sold-out show (issue 8: an entry on a
	// show with free seats is refused), so sell it out first and free
	// two seats after Ann is on the list.
	sold := sellOut(t, s, show.ID, 2)
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
	if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: sold[0].Number}); err != nil {
		t.Fatal(err)
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

// Issue 8, item 10: two seats free and three parties of two waiting: one
// party is told, the other two wait until the promise lapses or is kept.
func TestStore_NotifyWaitlist_NeverMoreThanSeats(t *testing.T) {
	ctx := context.Background()
	clock := storetest.FixedClock()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1, Clock: clock.Now})
	other := dbtest.Open(t, path, db.Options{SweepInterval: -1, Clock: clock.Now})
	show := firstShow(t, s)
	sold := sellOut(t, s, show.ID, 2)
	var parties []*booking.WaitlistEntry
	for i, name := range []string{"Ann", "Bob", "Cy"} {
		e, err := s.AddWaitlist(ctx, clerk, show.ID, name, fmt.Sprintf("0700 00%d", i), 2)
		if err != nil {
			t.Fatal(err)
		}
		parties = append(parties, e)
	}
	if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: sold[0].Number}); err != nil {
		t.Fatal(err)
	}
	// Many sweeps in two processes: exactly one party is told.
	told := map[int64]int{}
	for k := 0; k < 5; k++ {
		for _, store := range []*db.Store{s, other} {
			got, err := store.NotifyWaitlist(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range got {
				told[e.ID]++
			}
		}
	}
	if len(told) != 1 || told[parties[0].ID] != 1 {
		t.Fatalf("told %v for two free seats; want Ann alone, once", told)
	}
	// The two seats are promised to Ann: a new party cannot be added as
	// though they were free, and the calls list has Ann alone.
	if _, err := s.AddWaitlist(ctx, clerk, show.ID, "Dee", "0700 009", 2); err != nil {
		t.Fatalf("adding behind a promise: %v", err)
	}
	if calls, _ := s.WaitlistCalls(ctx, clerk); len(calls) != 1 || calls[0].ID != parties[0].ID {
		t.Fatalf("calls %+v", calls)
	}
	// Ann never rings back: her offer lapses and Bob is next.
	clock.Add(booking.WaitlistOffer + time.Second)
	got, err := s.NotifyWaitlist(ctx)
	if err != nil || len(got) != 1 || got[0].ID != parties[1].ID {
		t.Fatalf("after Ann's offer lapsed told %+v %v; want Bob", got, err)
	}
	if err := s.MarkCalled(ctx, clerk, parties[0].ID); booking.ErrorCode(err) != booking.EExpired {
		t.Fatalf("calling Ann after her offer lapsed: %v", err)
	}
	// Bob buys the two seats (his phone on the booking): his promise is
	// kept, nothing is free, and Cy is not told.
	if err := s.MarkCalled(ctx, clerk, parties[1].ID); err != nil {
		t.Fatal(err)
	}
	h := mustHold(t, s, show.ID, "bob", sold[0].Tickets[0].Seat.Label, sold[0].Tickets[1].Seat.Label)
	if _, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "bob", IdempotencyKey: "bob-1", Method: booking.Card, Customer: "Bob", Phone: "07000 01"}); err != nil {
		t.Fatal(err)
	}
	clock.Add(time.Minute)
	if got, _ := s.NotifyWaitlist(ctx); len(got) != 0 {
		t.Fatalf("told %+v with the show sold out again", got)
	}
	list, _ := s.Waitlist(ctx, clerk, show.ID)
	if len(list) != 4 || !list[1].Bought || list[0].Bought || list[2].NotifiedAt != nil {
		t.Fatalf("list %+v", list)
	}
	// Two more seats come free: Bob's promise no longer holds them (he
	// bought), so Cy is told at once.
	if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: sold[1].Number}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.NotifyWaitlist(ctx); len(got) != 2 || got[0].ID != parties[2].ID {
		t.Fatalf("told %+v; want Cy then Dee", got)
	}
}

// Issue 8, item 10: an entry is refused while its party can buy now.
func TestStore_AddWaitlist_SeatsFree(t *testing.T) {
	ctx := context.Background()
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	_, err := s.AddWaitlist(ctx, clerk, show.ID, "Ann", "0123", 2)
	if booking.ErrorCode(err) != booking.EConflict || booking.ErrorMessage(err) != "Seats are free: sell them now." {
		t.Fatalf("waiting for a show with %d free seats: %v", show.Free(), err)
	}
	if list, _ := s.Waitlist(ctx, clerk, show.ID); len(list) != 0 {
		t.Fatalf("the refused entry was written: %+v", list)
	}
	// With all but one seat sold, a party of two may wait, one may not.
	m, _ := s.SeatMap(ctx, clerk, show.ID, "")
	var labels []string
	for _, seat := range m.Hall.Seats[1:] {
		labels = append(labels, seat.Label)
	}
	for i := 0; i < len(labels); i += 20 {
		mustSell(t, s, show.ID, "bulk", labels[i:min(i+20, len(labels))]...)
	}
	if _, err := s.AddWaitlist(ctx, clerk, show.ID, "Ann", "0123", 1); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("one seat free, party of one: %v", err)
	}
	if _, err := s.AddWaitlist(ctx, clerk, show.ID, "Ann", "0123", 2); err != nil {
		t.Fatalf("one seat free, party of two: %v", err)
	}
}

// Shows already played are never notified, and a sweep with nothing to
// tell takes no write transaction.
func TestStore_NotifyWaitlist_PastShows(t *testing.T) {
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
	if _, err := s.AddWaitlist(ctx, clerk, show.ID, "Bob", "0456", 2); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("waiting for a show that played: %v", err)
	}
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

func TestStore_RemoveWaitlist(t *testing.T) {
	ctx := context.Background()
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	sold := sellOut(t, s, show.ID, 2)
	ann, _ := s.AddWaitlist(ctx, clerk, show.ID, "Ann", "0123", 2)
	bob, _ := s.AddWaitlist(ctx, clerk, show.ID, "Bob", "0456", 2)
	if ann == nil || bob == nil {
		t.Fatal("could not add to the waiting list of a sold-out show")
	}
	if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: sold[0].Number}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.NotifyWaitlist(ctx); len(got) != 1 || got[0].ID != ann.ID {
		t.Fatalf("told %+v", got)
	}
	// Ann no longer wants the seats: removing her frees her promise.
	if err := s.RemoveWaitlist(ctx, booking.Actor{Name: "dora", Role: booking.RoleDoor}, ann.ID); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("the door removed an entry: %v", err)
	}
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- s.RemoveWaitlist(ctx, clerk, ann.ID) }()
	}
	e1, e2 := <-errs, <-errs
	if (e1 == nil) == (e2 == nil) || booking.ErrorCode(errors.Join(e1, e2)) != booking.ENotFound {
		t.Fatalf("two removals of one entry: %v / %v", e1, e2)
	}
	if err := s.RemoveWaitlist(ctx, clerk, 9999); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("removing an unknown entry: %v", err)
	}
	if got, _ := s.NotifyWaitlist(ctx); len(got) != 1 || got[0].ID != bob.ID {
		t.Fatalf("after Ann left told %+v; want Bob", got)
	}
	if list, _ := s.Waitlist(ctx, clerk, show.ID); len(list) != 1 || list[0].ID != bob.ID {
		t.Fatalf("list %+v", list)
	}
}

// The change log keeps its last ChangesKeep rows, and trimming a log
// under that size writes nothing.
func TestStore_TrimChanges(t *testing.T) {
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
