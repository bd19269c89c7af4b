package pg_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"boxoffice/booking"
)

// The waiting list on PostgreSQL, as on SQLite: a party waits only for a
// show without the seats free; when seats come free, two servers
// sweeping at once tell the first party that fits once; a call is
// claimed once; and a booking made with the party's phone (written
// another way) shows they bought.
func TestWaitlist_AcrossServers(t *testing.T) {
	s, u, clk := seeded(t)
	other := MustOpen(t, u, clk)
	ctx := context.Background()
	// Row A sold, row B held by another counter: nothing free.
	seats := func(row string) []string {
		out := make([]string, 10)
		for n := range out {
			out[n] = fmt.Sprintf("%s%d", row, n+1)
		}
		return out
	}
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: seats("A"), Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "a", Method: booking.Card}); err != nil {
		t.Fatal(err)
	}
	rowB, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: seats("B"), Owner: "b"})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.AddWaitlist(ctx, clerk, 1, "Ann Lee", "0123 456 789", 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddWaitlist(ctx, clerk, 1, "Bob", "0987 654", 9); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddWaitlist(ctx, clerk, 1, "", "0123", 1); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("no name: %v", err)
	}
	if told, err := s.NotifyWaitlist(ctx); err != nil || len(told) != 0 {
		t.Fatalf("told %v while sold out, %v", told, err)
	}
	// Three seats come free: Ann (2) fits, Bob (9) does not.
	if err := s.Release(ctx, clerk, rowB.ID, "b", "B1", "B2", "B3"); err != nil {
		t.Fatal(err)
	}
	told := make([][]booking.WaitlistEntry, 2)
	var wg sync.WaitGroup
	for i, st := range []interface {
		NotifyWaitlist(context.Context) ([]booking.WaitlistEntry, error)
	}{s, other} {
		wg.Go(func() {
			var err error
			if told[i], err = st.NotifyWaitlist(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := len(told[0]) + len(told[1]); n != 1 {
		t.Fatalf("told %v and %v, want Ann once", told[0], told[1])
	}
	calls, err := s.WaitlistCalls(ctx, clerk)
	if err != nil || len(calls) != 1 || calls[0].ID != first.ID || calls[0].Show.ID != 1 {
		t.Fatalf("calls: %+v, %v", calls, err)
	}
	if _, err := s.AddWaitlist(ctx, clerk, 1, "Cy", "0555 555", 1); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("one seat is free and unpromised: %v", err)
	}
	if err := s.MarkCalled(ctx, clerk, first.ID); err != nil {
		t.Fatal(err)
	}
	var stale *booking.StaleError
	if err := other.MarkCalled(ctx, clerk, first.ID); !errors.As(err, &stale) || stale.Current != "called by ann" {
		t.Fatalf("a second call: %v", err)
	}
	h, err = s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"B1", "B2"}, Owner: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "ann", IdempotencyKey: "ann", Method: booking.Card, Phone: "0123-456-789"}); err != nil {
		t.Fatal(err)
	}
	list, err := s.Waitlist(ctx, clerk, 1)
	if err != nil || len(list) != 2 || !list[0].Bought || list[1].Bought {
		t.Fatalf("the list after Ann bought: %+v, %v", list, err)
	}
	if err := s.RemoveWaitlist(ctx, clerk, first.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveWaitlist(ctx, clerk, first.ID); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("removed twice: %v", err)
	}
}
