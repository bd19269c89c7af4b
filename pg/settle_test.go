package pg_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// Two servers settling at the same moment after a show ended settle each
// of its bookings once between them, with one audit row; a second sweep
// changes nothing.
func TestSettleShows_OnceAcrossServers(t *testing.T) {
	s, u, clk := seeded(t)
	other := MustOpen(t, u, clk)
	ctx := context.Background()
	for i, seat := range []string{"A1", "A2", "A3"} {
		h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{seat}, Owner: seat})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: seat, IdempotencyKey: seat, Method: booking.Card}); err != nil {
			t.Fatal(i, err)
		}
	}
	sh, err := s.Show(ctx, clerk, 1)
	if err != nil {
		t.Fatal(err)
	}
	clk.Add(sh.Ends().Sub(clk.Now()) + booking.SettleGrace - time.Second)
	if n, err := s.SettleShows(ctx); err != nil || n != 0 {
		t.Fatalf("within the grace: %d, %v", n, err)
	}
	clk.Add(time.Second)
	moved := make([]int, 2)
	var wg sync.WaitGroup
	for i, st := range []interface {
		SettleShows(context.Context) (int, error)
	}{s, other} {
		wg.Go(func() {
			n, err := st.SettleShows(ctx)
			if err != nil {
				t.Error(err)
			}
			moved[i] = n
		})
	}
	wg.Wait()
	if moved[0]+moved[1] != 3 {
		t.Fatalf("the two servers moved %v bookings, want 3 in all", moved)
	}
	if n, err := s.SettleShows(ctx); err != nil || n != 0 {
		t.Fatalf("a second sweep: %d, %v", n, err)
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var noShows, audits int
	conn.QueryRow(ctx, `SELECT count(*) FROM bookings WHERE status = 'no_show'`).Scan(&noShows)
	conn.QueryRow(ctx, `SELECT count(*) FROM audit WHERE action = 'settle'`).Scan(&audits)
	if noShows != 3 || audits != 1 {
		t.Fatalf("%d no-shows and %d settle audit rows; want 3 and 1", noShows, audits)
	}
}
