package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"boxoffice/booking"
	"boxoffice/pg"
)

// bench --db: the project's Hold + Checkout path on PostgreSQL (package
// pg), and in the same run, on the same server, the seeds' shape: one
// transaction that locks the show's row FOR UPDATE, checks the seats,
// inserts and bumps the sold counter. Each client count runs in a
// throwaway schema of its own, dropped afterwards.

// pgBenchResult prints a bench --db row; under --json it is the
// benchResult with the seed's figures.
type pgBenchResult struct{ *benchResult }

func (r pgBenchResult) writeText(w io.Writer) {
	fmt.Fprintf(w, "%7d %12.0f %8.2f %8.2f %9d %9d %12.0f %8.2f %8.2f %8.0f\n",
		r.Clients, r.BookingsPerSec, r.P50ms, r.P99ms, r.Bookings, r.Committed, r.SeedBookingsPerSec, r.SeedP99ms, r.RatioToSeed, r.RawTxPerSec)
	if r.DoubleSold != 0 || r.SeedDoubleSold != 0 || r.Bookings != r.Committed || r.Errors != 0 {
		fmt.Fprintf(w, "        !! double sold %d (seed shape %d), errors %d\n", r.DoubleSold, r.SeedDoubleSold, r.Errors)
	}
	fmt.Fprintf(w, "        per booking: %.1f statements, %.1f rows, %.0f WAL bytes; the seeds' shape %.1f, %.1f, %.0f\n",
		r.StatementsPerBooking, r.RowsPerBooking, r.WALBytesPerBooking, r.SeedStatementsPerBooking, r.SeedRowsPerBooking, r.SeedWALBytesPerBooking)
}

func (r pgBenchResult) jsonValue() any { return r.benchResult }

func (c *env) benchPG(b benchConfig) error {
	clients, err := parseClients(b.clients)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(b.db, "postgres://") && !strings.HasPrefix(b.db, "postgresql://") {
		return usagef("--db wants a URL like postgres://user@host/dbname")
	}
	c.print(note("PostgreSQL: the project's Hold + Checkout of 2 seats on one hot 500-seat show, then the seeds' shape\n" +
		"(SELECT the show FOR UPDATE; check; INSERT; bump sold) on the same server; raw: one connection, BEGIN; INSERT; COMMIT\n\n" +
		fmt.Sprintf("%7s %12s %8s %8s %9s %9s %12s %8s %8s %8s\n", "clients", "bookings/s", "p50 ms", "p99 ms", "acked", "committed", "seed book/s", "seed p99", "x seed", "raw tx/s")))
	for _, n := range clients {
		pool := b.pool
		if pool <= 0 {
			pool = min(n, 64)
		}
		res, err := benchPGOnce(c.ctx, b.db, n, pool, b.dur)
		if err != nil {
			return err
		}
		c.print(pgBenchResult{res})
	}
	return nil
}

// benchPGOnce measures one client count in a schema of its own.
func benchPGOnce(ctx context.Context, dbURL string, clients, pool int, dur time.Duration) (*benchResult, error) {
	schemaURL, drop, err := pg.BenchSchema(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer drop()
	raw, err := pg.RawCommitRate(ctx, schemaURL, min(dur, 2*time.Second))
	if err != nil {
		return nil, err
	}
	res, err := benchPGProject(ctx, schemaURL, clients, pool, dur)
	if err != nil {
		return nil, err
	}
	seed, err := benchSeedShape(ctx, schemaURL, clients, pool, dur)
	if err != nil {
		return nil, err
	}
	res.Sync = "on"
	res.RawTxPerSec = raw
	res.Ratio = res.BookingsPerSec / raw
	res.SeedBookingsPerSec, res.SeedP99ms, res.SeedDoubleSold = seed.BookingsPerSec, seed.P99ms, seed.DoubleSold
	res.SeedStatementsPerBooking, res.SeedRowsPerBooking, res.SeedWALBytesPerBooking = seed.StatementsPerBooking, seed.RowsPerBooking, seed.WALBytesPerBooking
	if seed.BookingsPerSec > 0 {
		res.RatioToSeed = res.BookingsPerSec / seed.BookingsPerSec
	}
	return res, nil
}

// benchPGProject runs the project's path on pg.Store: set up with one
// pool, measured with another, so the server's counts before and after
// (perBooking) take in the run's work only.
func benchPGProject(ctx context.Context, schemaURL string, clients, pool int, dur time.Duration) (*benchResult, error) {
	opts := pg.Options{TicketKey: booking.TicketKey{ID: 1, Secret: []byte("bench-only-secret-0123456789abcd")}, MaxConns: int32(pool)}
	if err := benchPGSetup(ctx, schemaURL, opts, clients); err != nil {
		return nil, err
	}
	before, err := pg.ReadServerCosts(ctx, schemaURL)
	if err != nil {
		return nil, err
	}
	var stmts pg.StatementCounter
	opts.Tracer = &stmts
	store, err := pg.Open(ctx, schemaURL, opts)
	if err != nil {
		return nil, err
	}
	opened := stmts.Count()
	hot := &hotShow{show: 1, seats: seatLabels(benchSeed())}
	counts := &benchCounts{lat: make([][]time.Duration, clients)}
	elapsed := runClients(clients, func(i int, deadline time.Time) { benchClient(ctx, store, hot, counts, i, deadline) }, dur)
	err = store.SealNow(ctx)
	ran := stmts.Count() - opened
	store.Close()
	if err != nil {
		return nil, err
	}
	res := countsResult(counts, clients, elapsed)
	if err := perBooking(ctx, schemaURL, before, ran, res); err != nil {
		return nil, err
	}
	a, err := pg.AuditSales(ctx, schemaURL)
	if err != nil {
		return nil, err
	}
	res.Committed, res.DoubleSold, res.AuditSales = a.Bookings, a.DoubleSold, a.AuditSales
	if a.AuditSales != a.Bookings {
		return nil, fmt.Errorf("the bench left %d sale rows in the audit trail for %d bookings", a.AuditSales, a.Bookings)
	}
	return res, nil
}

// benchPGSetup makes the bench's programme and opens every client's
// shift, with a store of its own.
func benchPGSetup(ctx context.Context, schemaURL string, opts pg.Options, clients int) error {
	store, err := pg.Open(ctx, schemaURL, opts)
	if err != nil {
		return err
	}
	defer store.Close()
	seed := benchSeed()
	seed.Staff = nil
	if err := store.Seed(ctx, seed, false); err != nil {
		return err
	}
	for i := 0; i < clients; i++ {
		if _, err := store.OpenShift(ctx, benchActor(i), booking.OpenShiftRequest{Float: 100_00}); err != nil {
			return err
		}
	}
	return nil
}

// perBooking sets res's statements, rows and WAL bytes per booking from
// the statements the run sent and the server's counts since before.
func perBooking(ctx context.Context, schemaURL string, before pg.ServerCosts, statements int64, res *benchResult) error {
	after, err := pg.ReadServerCosts(ctx, schemaURL)
	if err != nil {
		return err
	}
	if n := float64(res.Bookings); n > 0 {
		d := after.Sub(before)
		res.StatementsPerBooking = float64(statements) / n
		res.RowsPerBooking = float64(d.Rows) / n
		res.WALBytesPerBooking = float64(d.WALBytes) / n
	}
	return nil
}

// benchSeedShape runs the seeds' shape on the same hot-show pattern.
func benchSeedShape(ctx context.Context, schemaURL string, clients, pool int, dur time.Duration) (*benchResult, error) {
	var stmts pg.StatementCounter
	shape, err := pg.OpenSeedShape(ctx, schemaURL, benchShows, benchRows*benchCols, int32(pool), &stmts)
	if err != nil {
		return nil, err
	}
	defer shape.Close()
	before, err := pg.ReadServerCosts(ctx, schemaURL)
	if err != nil {
		return nil, err
	}
	seed := benchSeed()
	hot := &hotShow{show: 1, seats: seatLabels(seed)}
	counts := &benchCounts{lat: make([][]time.Duration, clients)}
	elapsed := runClients(clients, func(i int, deadline time.Time) {
		for k := 0; time.Now().Before(deadline); k++ {
			show, seats := hot.take(k%10 == 9)
			t0 := time.Now()
			ok, err := shape.Book(ctx, show, seats)
			switch {
			case err != nil:
				counts.errs.Add(1)
			case !ok:
				counts.clashes.Add(1)
			default:
				counts.lat[i] = append(counts.lat[i], time.Since(t0))
				counts.acked.Add(1)
			}
		}
	}, dur)
	res := countsResult(counts, clients, elapsed)
	ran := stmts.Count()
	res.DoubleSold, err = shape.SeedDoubleSold(ctx)
	shape.Close()
	if err != nil {
		return nil, err
	}
	if err := perBooking(ctx, schemaURL, before, ran, res); err != nil {
		return nil, err
	}
	if res.Errors > 0 {
		return nil, fmt.Errorf("the seeds' shape failed %d times", res.Errors)
	}
	return res, nil
}

// runClients runs clients goroutines of fn until dur is up and says how
// long they took.
func runClients(clients int, fn func(i int, deadline time.Time), dur time.Duration) float64 {
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			fn(i, deadline)
		}(i)
	}
	wg.Wait()
	return time.Since(start).Seconds()
}

// countsResult turns what the clients saw into a result.
func countsResult(counts *benchCounts, clients int, elapsed float64) *benchResult {
	all := slices.Concat(counts.lat...)
	slices.Sort(all)
	pct := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[int(p*float64(len(all)-1))].Microseconds()) / 1000
	}
	return &benchResult{
		Clients: clients, Seconds: elapsed,
		Bookings: counts.acked.Load(), Clashes: counts.clashes.Load(), Errors: counts.errs.Load(),
		BookingsPerSec: float64(counts.acked.Load()) / elapsed,
		P50ms:          pct(0.50), P99ms: pct(0.99), Maxms: pct(1),
	}
}

func seatLabels(seed booking.Seed) []string {
	var labels []string
	for _, s := range seed.Halls[0].Seats {
		labels = append(labels, s.Label)
	}
	return labels
}
