package db_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// twoCounters opens two stores on one file, each with a clock of its own
// standing at the same time: two processes' view of one database.
func twoCounters(t *testing.T) (a, b *db.Store, ca, cb *storetest.Clock) {
	t.Helper()
	ca = storetest.FixedClock()
	cb = storetest.NewClock(ca.Now())
	a, path := dbtest.MustOpen(t, db.Options{Clock: ca.Now, SweepInterval: -1, PollInterval: -1})
	b = dbtest.Open(t, path, db.Options{Clock: cb.Now, SweepInterval: -1, PollInterval: -1})
	return a, b, ca, cb
}

// Issue 15 item 5: a clock set back an hour made a 5-minute hold block its
// seat for 65 minutes. Now, on the moved clock, the hold is gone within
// its TTL: another counter holds the seat, and the first cannot sell it.
// Which process's clock moved makes no difference: the rule lives in the
// stored row, not in a process's memory.
func TestClock_BackHoldLapses(t *testing.T) {
	t.Parallel()
	for _, moved := range []string{"both", "other counter only"} {
		t.Run(moved, func(t *testing.T) {
			ctx := context.Background()
			a, b, ca, cb := twoCounters(t)
			show := firstShow(t, a)
			h, err := a.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"H4"}, Owner: "a"})
			if err != nil {
				t.Fatal(err)
			}
			back := ca.Now().Add(-time.Hour)
			cb.Set(back)
			if moved == "both" {
				ca.Set(back)
			}
			// At once: the seat is free on the moved clock's map.
			if m, err := b.SeatMap(ctx, clerk, show.ID, "b"); err != nil {
				t.Fatal(err)
			} else if seat, _ := m.Hall.SeatByLabel("H4"); m.States[seat.ID] != booking.SeatFree {
				t.Fatalf("H4 right after the clock went back: %v, want free", m.States[seat.ID])
			}
			cb.Add(booking.DefaultHoldTTL + time.Second)
			ca.Add(booking.DefaultHoldTTL + time.Second)
			if _, err := b.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"H4"}, Owner: "b"}); err != nil {
				t.Fatalf("the other counter's hold of H4, a TTL after the clock went back: %v", err)
			}
			_, err = a.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "ka", Method: booking.Card})
			if booking.ErrorCode(err) != booking.EExpired || !strings.Contains(booking.ErrorMessage(err), "ran out") {
				t.Fatalf("checkout of the first hold: %v, want EExpired saying it ran out", err)
			}
			m, err := b.SeatMap(ctx, clerk, show.ID, "b")
			if err != nil {
				t.Fatal(err)
			}
			if seat, _ := m.Hall.SeatByLabel("H4"); m.States[seat.ID] != booking.SeatHeldByMe || m.Show.Held != 1 {
				t.Fatalf("H4 on the other counter's map: %v, %d held", m.States[seat.ID], m.Show.Held)
			}
			dbtest.MustBeWhole(t, b)
		})
	}
}

// A hold made before the clock went back lapses at once on every path that
// asks whether it is live: the show list's count, the seat map, the sweep,
// growing or extending it, and turning it into a reservation.
func TestClock_BackEveryPath(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	show := firstShow(t, s)
	hold := func(owner string, seats ...string) *booking.Hold {
		h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: seats, Owner: owner})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	grow, extend, reserve := hold("grow", "A1"), hold("extend", "A2"), hold("reserve", "A3")
	swept := hold("swept", "A4")
	clock.Add(-time.Hour)

	if sh, err := s.Show(ctx, clerk, show.ID); err != nil || sh.Held != 0 {
		t.Fatalf("show list after the clock went back: %d held, %v", sh.Held, err)
	}
	m, err := s.SeatMap(ctx, clerk, show.ID, "grow")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"A1", "A2", "A3", "A4"} {
		if seat, _ := m.Hall.SeatByLabel(l); m.States[seat.ID] != booking.SeatFree {
			t.Fatalf("%s on the map: %v, want free", l, m.States[seat.ID])
		}
	}
	if _, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"B1"}, Owner: "grow", AddTo: grow.ID}); booking.ErrorCode(err) != booking.EExpired {
		t.Fatalf("growing the hold: %v", err)
	}
	if _, err := s.Extend(ctx, clerk, extend.ID, "extend", 0); booking.ErrorCode(err) != booking.EExpired {
		t.Fatalf("extending the hold: %v", err)
	}
	if _, err := s.Reserve(ctx, clerk, booking.ReserveRequest{HoldID: reserve.ID, Owner: "reserve", Name: "Ann", Phone: "0123456789"}); booking.ErrorCode(err) != booking.EExpired {
		t.Fatalf("reserving the hold: %v", err)
	}
	sub := s.Changes().Subscribe(t.Context())
	n, err := s.ExpireHolds(ctx)
	if err != nil || n != 4 {
		t.Fatalf("the sweep expired %d holds, %v; want all 4", n, err)
	}
	select {
	case c := <-sub:
		if c.ShowID != show.ID {
			t.Fatalf("published show %d", c.ShowID)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the sweep was not published")
	}
	_, err = s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: swept.ID, Owner: "swept", IdempotencyKey: "k", Method: booking.Card})
	if want := "The hold on A4 ran out: the clock was set back since it was made. Hold the seats again."; booking.ErrorMessage(err) != want {
		t.Fatalf("checkout of a swept hold: %q, want %q", booking.ErrorMessage(err), want)
	}
	dbtest.MustBeWhole(t, s)
}

// A step back within the slack (a clock correction) leaves holds alone.
func TestClock_SmallStepKeepsHolds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	show := firstShow(t, s)
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"H4"}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	clock.Add(-time.Second)
	if n, err := s.ExpireHolds(ctx); err != nil || n != 0 {
		t.Fatalf("the sweep expired %d, %v", n, err)
	}
	if _, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Card}); err != nil {
		t.Fatalf("checkout a second after a one-second step back: %v", err)
	}
}

// A jump forward expires holds, as their expiry says, and the checkout
// says so in words; the seat is free to another counter.
func TestClock_ForwardHoldLapses(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, ca, cb := twoCounters(t)
	show := firstShow(t, a)
	h, err := a.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"H4"}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	ca.Add(time.Hour)
	cb.Add(time.Hour)
	_, err = a.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "ka", Method: booking.Card})
	if want := "The hold on H4 ran out 55 min ago; hold the seats again."; booking.ErrorCode(err) != booking.EExpired || booking.ErrorMessage(err) != want {
		t.Fatalf("checkout after the clock went forward: %v, want %q", err, want)
	}
	if _, err := b.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"H4"}, Owner: "b"}); err != nil {
		t.Fatalf("the other counter's hold of H4: %v", err)
	}
}

// Issue 15 item 5: a clock set back an hour made a 5-minute PIN lockout
// last 65. Now the lock is over within its length on the moved clock, seen
// from either process, and the staff list no longer says locked.
func TestClock_BackLockout(t *testing.T) {
	t.Parallel()
	for _, moved := range []string{"both", "other counter only"} {
		t.Run(moved, func(t *testing.T) {
			ctx := context.Background()
			a, b, ca, cb := twoCounters(t)
			for i := 0; i < 5; i++ {
				a.SignIn(ctx, booking.SignInRequest{Name: "sue", PIN: "0000"})
			}
			if _, err := a.SignIn(ctx, booking.SignInRequest{Name: "sue", PIN: "1234"}); booking.ErrorCode(err) != booking.EForbidden {
				t.Fatalf("right PIN during the lock: %v", err)
			}
			back := ca.Now().Add(-time.Hour)
			cb.Set(back)
			if moved == "both" {
				ca.Set(back)
			}
			cb.Add(5*time.Minute + time.Second)
			ca.Add(5*time.Minute + time.Second)
			staff, err := b.ListStaff(ctx, storetest.Manager)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range staff {
				if st.Name == "sue" && st.Locked {
					t.Fatal("the staff list still says sue is locked")
				}
			}
			if _, err := b.SignIn(ctx, booking.SignInRequest{Name: "sue", PIN: "1234"}); err != nil {
				t.Fatalf("right PIN a lockout's length after the clock went back: %v", err)
			}
		})
	}
}

// The approval lockout (a supervisor's PIN typed at a clerk's counter) is
// over within its length on a clock set back, like the sign-in lockout.
func TestClock_BackApprovalLockout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	show := firstShow(t, s)
	b := mustSell(t, s, show.ID, "a", "H4")
	cancel := func(pin string) error {
		_, err := s.Cancel(ctx, clerk, booking.CancelRequest{Number: b.Number, Reason: "ill", Approver: &booking.Credentials{Name: "sue", PIN: pin}})
		return err
	}
	for i := 0; i < 5; i++ {
		cancel("0000")
	}
	if err := cancel("1234"); !strings.Contains(booking.ErrorMessage(err), "Too many wrong PINs") {
		t.Fatalf("right PIN during the approval lock: %v", err)
	}
	clock.Add(-time.Hour + 5*time.Minute + time.Second)
	if err := cancel("1234"); err != nil {
		t.Fatalf("approval a lockout's length after the clock went back: %v", err)
	}
}
