package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// lockFile takes the file's write lock on a connection of its own, as
// another process writing would; the store's writer waits for it in its
// busy handler. unlock lets it go.
func lockFile(t *testing.T, path string) (unlock func()) {
	t.Helper()
	conn, err := openRaw(t, path).Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	done := false
	unlock = func() {
		if !done {
			done = true
			conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
		}
	}
	t.Cleanup(unlock)
	return unlock
}

// waitWrites waits until n writes are under way in s.
func waitWrites(t *testing.T, s *db.Store, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for db.WritesUnderWay(s) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes under way, want %d", db.WritesUnderWay(s), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// Quiesce waits for the write under way and refuses every new one but the
// releases a shutdown needs; reads go on. The write under way is a hold
// waiting for another process's lock, so Quiesce cannot return before it.
func TestStore_Quiesce(t *testing.T) {
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1, BusyTimeout: 30 * time.Second})
	show := firstShow(t, s)
	kept := mustHold(t, s, show.ID, "ssh-1:a", "A1")

	unlock := lockFile(t, path)
	held := make(chan error, 1)
	go func() {
		_, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"B2"}, Owner: "ssh-1:b"})
		held <- err
	}()
	waitWrites(t, s, 1)

	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := s.Quiesce(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Quiesce with a write under way: %v, want the deadline", err)
	}
	// Every write from now on is refused, whatever the method.
	_, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"C3"}, Owner: "ssh-1:c"})
	if booking.ErrorCode(err) != booking.EInternal || booking.ErrorMessage(err) != "The box office is shutting down." {
		t.Fatalf("hold after Quiesce: %v", err)
	}
	for name, err := range map[string]error{
		"Checkout":     checkoutErr(s, kept),
		"Release":      s.Release(ctx, clerk, kept.ID, "ssh-1:a"),
		"SetPrice":     s.SetPrice(ctx, storetest.Manager, booking.TicketType{Code: "adult", Name: "Adult", Price: 1}),
		"DisableStaff": s.DisableStaff(ctx, storetest.Manager, "carl"),
	} {
		if booking.ErrorMessage(err) != "The box office is shutting down." {
			t.Errorf("%s after Quiesce: %v", name, err)
		}
	}
	if _, err := s.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "1234"}); booking.ErrorMessage(err) != "The box office is shutting down." {
		t.Errorf("SignIn after Quiesce: %v", err)
	}
	// Reads go on.
	if _, err := s.SeatMap(ctx, clerk, show.ID, ""); err != nil {
		t.Errorf("SeatMap after Quiesce: %v", err)
	}

	quiesced := make(chan error, 1)
	go func() { quiesced <- s.Quiesce(ctx) }()
	select {
	case err := <-quiesced:
		t.Fatalf("Quiesce returned %v with a hold under way", err)
	case <-time.After(50 * time.Millisecond):
	}
	unlock()
	if err := <-held; err != nil {
		t.Fatalf("the hold under way at Quiesce: %v", err)
	}
	if err := <-quiesced; err != nil {
		t.Fatalf("Quiesce: %v", err)
	}
	// A shutdown's releases still run: both holds of this "server" go.
	n, err := s.ReleasePrefix(ctx, "ssh-1:")
	if err != nil || n != 2 {
		t.Fatalf("ReleasePrefix on a quiesced store: %d, %v", n, err)
	}
	if n, err := s.ReleaseOwner(ctx, "ssh-1:a"); err != nil || n != 0 {
		t.Fatalf("ReleaseOwner on a quiesced store: %d, %v", n, err)
	}
	dbtest.MustBeWhole(t, s)
	raw := openRaw(t, path)
	var live int
	raw.QueryRow(`SELECT count(*) FROM seat_claims WHERE status IN ('held', 'sold')`).Scan(&live)
	if live != 0 {
		t.Fatalf("%d live claims after the shutdown's release", live)
	}
}

func checkoutErr(s *db.Store, h *booking.Hold) error {
	_, err := s.Checkout(context.Background(), clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: h.Owner, IdempotencyKey: "q", Method: booking.Card})
	return err
}

// Sales close on the transaction's clock: a hold asked for a moment
// before sales close, that reaches the writer after, is refused. The hold
// waits for another process's lock while the clock passes the close.
func TestStore_Hold_SalesCloseInTransaction(t *testing.T) {
	clock := storetest.FixedClock()
	s, path := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1, BusyTimeout: 30 * time.Second})
	show := firstShow(t, s)
	clock.Set(show.Starts.Add(booking.DefaultSalesClose - time.Second))

	for _, c := range []struct {
		name  string
		write func() error
	}{
		{"Hold", func() error {
			_, err := s.Hold(context.Background(), clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"E5"}, Owner: "a"})
			return err
		}},
		{"HoldBest", func() error {
			_, err := s.HoldBest(context.Background(), clerk, booking.HoldBestRequest{ShowID: show.ID, N: 2, Owner: "a"})
			return err
		}},
		{"AddWaitlist", func() error {
			_, err := s.AddWaitlist(context.Background(), clerk, show.ID, "Ann", "0123", 2)
			return err
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock.Set(show.Starts.Add(booking.DefaultSalesClose - time.Second))
			unlock := lockFile(t, path)
			done := make(chan error, 1)
			go func() { done <- c.write() }()
			waitWrites(t, s, 1)
			clock.Add(2 * time.Second) // sales close while it waits
			unlock()
			err := <-done
			if booking.ErrorCode(err) != booking.EInvalid {
				t.Fatalf("%s that reached the writer after sales closed: %v", c.name, err)
			}
		})
	}
	raw := openRaw(t, path)
	var holds, waiting int
	raw.QueryRow(`SELECT count(*) FROM holds`).Scan(&holds)
	raw.QueryRow(`SELECT count(*) FROM waitlist`).Scan(&waiting)
	if holds != 0 || waiting != 0 {
		t.Fatalf("%d holds and %d waiting after sales closed", holds, waiting)
	}
}
