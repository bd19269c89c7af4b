package cli

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestBenchPG_BothShapesNoDoubleSale runs bench --db's measurement
// briefly on BOXOFFICE_TEST_PG: both shapes sell, every acknowledged
// booking is committed, no seat is sold twice on either side, and the
// schema it ran in is gone afterwards. Its figures are not asserted.
func TestBenchPG_BothShapesNoDoubleSale(t *testing.T) {
	t.Parallel()
	url := os.Getenv("BOXOFFICE_TEST_PG")
	if url == "" {
		t.Skip("BOXOFFICE_TEST_PG is empty: no PostgreSQL to test against (.ci/pg starts one)")
	}
	res, err := benchPGOnce(context.Background(), url, 8, 8, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if res.Bookings == 0 || res.SeedBookingsPerSec == 0 || res.RatioToSeed == 0 {
		t.Fatalf("nothing sold: %+v", res)
	}
	if res.Bookings != res.Committed || res.DoubleSold != 0 || res.SeedDoubleSold != 0 || res.Errors != 0 {
		t.Fatalf("acked %d, committed %d, double sold %d (seed shape %d), errors %d", res.Bookings, res.Committed, res.DoubleSold, res.SeedDoubleSold, res.Errors)
	}
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var left int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'boxoffice\_bench\_%'`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d bench schemas left behind, %v", left, err)
	}
	t.Logf("8 clients: %.0f bookings/s (p99 %.1f ms), seed shape %.0f/s (p99 %.1f ms), x%.2f", res.BookingsPerSec, res.P99ms, res.SeedBookingsPerSec, res.SeedP99ms, res.RatioToSeed)
}
