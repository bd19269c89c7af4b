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
// booking is committed, no seat is sold twice on either side, each side's
// rows per booking are what its statements write, and the schema it ran
// in is gone afterwards. Its speeds are not asserted.
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
	// A booking of the seeds' shape writes 3 rows (two seats' bookings and
	// the sold counter) and a clash none; one of the project's at least 14
	// (the hold, its two claims and audit row; the hold again, the
	// booking, the claims, two tickets, the payment and the sale's audit
	// row; the seal's hash on both audit rows).
	if res.SeedRowsPerBooking != 3 || res.SeedStatementsPerBooking < 6 || res.SeedWALBytesPerBooking <= 0 {
		t.Errorf("the seeds' shape per booking: %.2f statements, %.2f rows, %.0f WAL bytes", res.SeedStatementsPerBooking, res.SeedRowsPerBooking, res.SeedWALBytesPerBooking)
	}
	if res.RowsPerBooking < 14 || res.StatementsPerBooking < 7 || res.WALBytesPerBooking < 1000 {
		t.Errorf("the project per booking: %.2f statements, %.2f rows, %.0f WAL bytes", res.StatementsPerBooking, res.RowsPerBooking, res.WALBytesPerBooking)
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
	t.Logf("8 clients: %.0f bookings/s (p99 %.1f ms, %.1f rows a booking), seed shape %.0f/s (p99 %.1f ms), x%.2f",
		res.BookingsPerSec, res.P99ms, res.RowsPerBooking, res.SeedBookingsPerSec, res.SeedP99ms, res.RatioToSeed)
}
