package pg_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// ExpireHolds on PostgreSQL moves a lapsed hold and its claims once,
// with one audit row, and writes nothing before the hold lapsed or
// again after; TrimChanges has nothing to trim.
func TestExpireHolds_Once(t *testing.T) {
	t.Parallel()
	s, u, clk := seeded(t)
	ctx := context.Background()
	if _, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"B1", "B2"}, Owner: "b"}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.ExpireHolds(ctx); err != nil || n != 0 {
		t.Fatalf("expire before the hold lapsed: %d, %v", n, err)
	}
	clk.Add(booking.DefaultHoldTTL + time.Second)
	if n, err := s.ExpireHolds(ctx); err != nil || n != 1 {
		t.Fatalf("expire after the hold lapsed: %d, %v", n, err)
	}
	if n, err := s.ExpireHolds(ctx); err != nil || n != 0 {
		t.Fatalf("expire again: %d, %v", n, err)
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var audits, expiredClaims int
	conn.QueryRow(ctx, `SELECT count(*) FROM audit WHERE action = 'expire'`).Scan(&audits)
	conn.QueryRow(ctx, `SELECT count(*) FROM seat_claims WHERE status = 'expired'`).Scan(&expiredClaims)
	if audits != 1 || expiredClaims != 2 {
		t.Fatalf("%d expire audit rows, %d expired claims; want 1 and 2", audits, expiredClaims)
	}
	if n, err := s.TrimChanges(ctx); err != nil || n != 0 {
		t.Fatalf("trim changes: %d, %v", n, err)
	}
}
