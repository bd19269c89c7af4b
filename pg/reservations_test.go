package pg_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

var kioskActor = booking.Actor{Name: "kiosk", Role: booking.RoleKiosk, Terminal: "kiosk-1"}

// TestReservation_TwoServers: a reservation made on one server is paid
// at two servers at once, 10 rounds: one sale each round, under the
// reservation's number, the other told it is paid; a reservation left
// unpaid lapses once though both servers sweep, and its seats go back
// on sale.
func TestReservation_TwoServers(t *testing.T) {
	t.Parallel()
	a, u, clk := seeded(t)
	b := MustOpen(t, u, clk)
	ctx := context.Background()
	for round := range 10 {
		owner := fmt.Sprint("k", round)
		h, err := a.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: 1, Owner: owner, N: 1})
		if err != nil {
			t.Fatal(err)
		}
		res, err := a.Reserve(ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: owner, Name: "Ann", Phone: fmt.Sprintf("0123 45678%d", round)})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, 2)
		for i, s := range []interface {
			PayReservation(context.Context, booking.Actor, booking.PayReservationRequest) (*booking.Booking, error)
		}{a, b} {
			wg.Go(func() {
				<-start
				var bk *booking.Booking
				bk, errs[i] = s.PayReservation(ctx, clerk, booking.PayReservationRequest{Number: res.Number, Method: booking.Card, IdempotencyKey: fmt.Sprint(owner, i)})
				if errs[i] == nil && bk.Number != res.Number {
					errs[i] = fmt.Errorf("paid as %s, want %s", bk.Number, res.Number)
				}
			})
		}
		close(start)
		wg.Wait()
		var stale *booking.StaleError
		if (errs[0] == nil) == (errs[1] == nil) || !errors.As(errors.Join(errs[0], errs[1]), &stale) {
			t.Fatalf("round %d: %v and %v, want one sale and one stale error", round, errs[0], errs[1])
		}
	}
	h, err := b.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: 1, Owner: "late", N: 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Reserve(ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "late", Name: "Bo", Phone: "0999 999999"})
	if err != nil {
		t.Fatal(err)
	}
	clk.Add(res.CutOff.Sub(clk.Now()))
	var wg sync.WaitGroup
	expired := make([]int, 6)
	errs := make([]error, 6)
	for i := range expired {
		s := a
		if i%2 == 1 {
			s = b
		}
		wg.Go(func() { expired[i], errs[i] = s.ExpireHolds(ctx) })
	}
	wg.Wait()
	total := 0
	for i := range expired {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		total += expired[i]
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var lapsed, paid int
	if err := conn.QueryRow(ctx, `SELECT count(*) FILTER (WHERE status = 'lapsed' AND lapsed_at IS NOT NULL), count(*) FILTER (WHERE status = 'paid') FROM reservations`).Scan(&lapsed, &paid); err != nil {
		t.Fatal(err)
	}
	if total != 1 || lapsed != 1 || paid != 10 {
		t.Fatalf("%d holds expired by 6 sweeps, %d reservations lapsed, %d paid; want 1, 1 and 10", total, lapsed, paid)
	}
	if _, err := a.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: booking.Labels(res.Seats), Owner: "till"}); err != nil {
		t.Fatalf("the lapsed reservation's seats: %v", err)
	}
	if problems, err := a.CheckInvariants(ctx); err != nil || len(problems) > 0 {
		t.Fatalf("invariants: %v %v", problems, err)
	}
}
