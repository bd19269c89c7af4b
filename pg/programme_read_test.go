package pg_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// The programme's reads and the upkeep serve runs, on PostgreSQL: halls
// with their seats, films, the price table, whether anything was sold, and
// ExpireHolds moving a lapsed hold once, with one audit row.
func TestProgrammeReadsAndExpiry(t *testing.T) {
	s, u, clk := seeded(t)
	ctx := context.Background()
	halls, err := s.Halls(ctx, clerk)
	if err != nil || len(halls) != 1 || halls[0].Name != "One" || len(halls[0].Seats) != 20 {
		t.Fatalf("halls: %+v, %v", halls, err)
	}
	films, err := s.Films(ctx, clerk)
	if err != nil || len(films) != 1 || films[0].Title != "Test Film" || films[0].Retired {
		t.Fatalf("films: %+v, %v", films, err)
	}
	pt, err := s.Prices(ctx, clerk)
	if err != nil || len(pt.Types) != 2 || pt.Types[0].Code != "adult" || pt.Types[0].Price != 1250 {
		t.Fatalf("prices: %+v, %v", pt, err)
	}
	if _, err := s.Prices(ctx, booking.Actor{Name: "nobody"}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("prices for no role: %v", err)
	}
	if sold, err := s.HasSales(ctx); err != nil || sold {
		t.Fatalf("has sales before a sale: %v, %v", sold, err)
	}
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A1"}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k1", Method: booking.Card}); err != nil {
		t.Fatal(err)
	}
	if sold, err := s.HasSales(ctx); err != nil || !sold {
		t.Fatalf("has sales after a sale: %v, %v", sold, err)
	}

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
