package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
)

// bench: the real Hold + Checkout path on one hot show at a few client
// counts, beside the machine's raw commit rate from the same run. bench
// --scale (scale.go) is the week against the year.

const benchLong = `Makes a throwaway database and measures, in one run: the raw limit (one
connection, BEGIN IMMEDIATE; INSERT one row; COMMIT) at the chosen sync
mode, then the real Hold + Checkout path for 2 seats on one hot 500-seat
show, with 10% of attempts racing on purpose for the pair just taken, at
each client count. Afterwards the file is read back: every acknowledged
booking must be committed, no seat sold twice, and every invariant of
Store.CheckInvariants must hold.`

// benchConfig is the bench command line.
type benchConfig struct {
	dur                 time.Duration
	clients, cpuProfile string
	scale               bool
	days, runs          int
	idle                time.Duration
	only                string
	// db is the global --db: the PostgreSQL server to measure
	// (bench_pg.go), with pool connections per side.
	db   string
	pool int
}

func benchFlags(fs *flag.FlagSet) runFunc {
	var b benchConfig
	fs.DurationVar(&b.dur, "duration", 3*time.Second, "how long each measurement runs")
	fs.StringVar(&b.clients, "clients", "1,8,64", "the client counts to measure, a `LIST`")
	fs.StringVar(&b.cpuProfile, "cpuprofile", "", "write a CPU profile of the booking runs to this `FILE`")
	fs.BoolVar(&b.scale, "scale", false, "measure every counter operation on a week's and a year's history side by side")
	fs.IntVar(&b.days, "days", 365, "with --scale: `DAYS` of history on the long side")
	fs.IntVar(&b.runs, "n", 200, "with --scale: calls of each operation on each side")
	fs.DurationVar(&b.idle, "idle", 10*time.Second, "with --scale: how long to watch an idle server's CPU (0: skip the process checks)")
	fs.StringVar(&b.only, "op", "", "with --scale: only the operations whose name contains this `TEXT`")
	fs.IntVar(&b.pool, "pool", 0, "with --db: connections of each side's pool, `N` (0: the client count, at most 64)")
	return func(c *env, pos []string) error {
		if len(pos) > 0 {
			return usagef("bench takes no arguments")
		}
		if b.scale {
			if b.days < 8 || b.days > maxHistoryDays || b.runs < 10 || (b.idle != 0 && b.idle < time.Second) {
				return usagef("--scale wants --days 8..%d, --n 10 or more and --idle 0 or 1s or more", maxHistoryDays)
			}
			return c.benchScale(b.days, b.runs, b.idle, b.only)
		}
		url, err := resolveDB(c.dbFlag)
		if err != nil {
			return err
		}
		if b.db = url; b.db != "" {
			return c.benchPG(b)
		}
		return c.bench(b)
	}
}

// benchResult is one client count's figures. raw_tx_per_sec is the
// machine's own limit measured in the same run, so the ratio travels with
// the number.
type benchResult struct {
	Clients        int     `json:"clients"`
	Sync           string  `json:"sync"`
	Seconds        float64 `json:"seconds"`
	Bookings       int64   `json:"bookings_acknowledged"`
	Committed      int64   `json:"bookings_committed"`
	Clashes        int64   `json:"clashes"`
	Errors         int64   `json:"errors"`
	BookingsPerSec float64 `json:"bookings_per_sec"`
	P50ms          float64 `json:"p50_ms"`
	P99ms          float64 `json:"p99_ms"`
	Maxms          float64 `json:"max_ms"`
	DoubleSold     int     `json:"double_sold"`
	RawTxPerSec    float64 `json:"raw_tx_per_sec"`
	Ratio          float64 `json:"ratio_to_raw"`
	MeanBatch      float64 `json:"mean_batch"`
	AuditSales     int64   `json:"audit_sale_rows"`

	// What the writer wrote per booking acknowledged (the clashes' work
	// included): statements, rows changed (triggers' too) and WAL bytes
	// on SQLite; on PostgreSQL statements sent, rows inserted, updated
	// or deleted, and WAL bytes generated.
	StatementsPerBooking float64 `json:"statements_per_booking"`
	RowsPerBooking       float64 `json:"rows_per_booking"`
	WALBytesPerBooking   float64 `json:"wal_bytes_per_booking"`
	// The writer's dearest statements (SQLite): runs and microseconds
	// per booking, and the fsyncs of the WAL the syncer runs beside it.
	DearestStatements []benchStatement `json:"dearest_statements,omitempty"`

	// bench --db only (bench_pg.go): the seeds' FOR UPDATE shape on the
	// same server in the same run, and this path's ratio to it.
	SeedBookingsPerSec float64 `json:"seed_bookings_per_sec,omitempty"`
	SeedP99ms          float64 `json:"seed_p99_ms,omitempty"`
	SeedDoubleSold     int     `json:"seed_double_sold,omitempty"`
	RatioToSeed        float64 `json:"ratio_to_seed,omitempty"`
	// The seeds' shape's statements, rows and WAL bytes per booking.
	SeedStatementsPerBooking float64 `json:"seed_statements_per_booking,omitempty"`
	SeedRowsPerBooking       float64 `json:"seed_rows_per_booking,omitempty"`
	SeedWALBytesPerBooking   float64 `json:"seed_wal_bytes_per_booking,omitempty"`
}

// benchStatement is one statement's share of a booking on the writer.
type benchStatement struct {
	SQL              string  `json:"sql"`
	RunsPerBooking   float64 `json:"runs_per_booking"`
	MicrosPerBooking float64 `json:"us_per_booking"`
}

// dearestShown is how many of the writer's dearest statements bench
// prints.
const dearestShown = 6

// dearest is the writer's dearest statements of costs, per booking of n,
// each named by the start of its SQL on one line.
func dearest(costs []db.StatementCost, n float64) []benchStatement {
	var out []benchStatement
	for _, sc := range costs[:min(len(costs), dearestShown)] {
		text := strings.Join(strings.Fields(sc.SQL), " ")
		if len(text) > 60 {
			text = text[:57] + "..."
		}
		out = append(out, benchStatement{SQL: text, RunsPerBooking: float64(sc.Runs) / n, MicrosPerBooking: float64(sc.Time.Microseconds()) / n})
	}
	return out
}

// writeText is one row of the bench table.
func (r *benchResult) writeText(w io.Writer) {
	fmt.Fprintf(w, "%7d %12.0f %8.2f %8.2f %8.2f %8d %9d %9d %8.2f %7.1f\n",
		r.Clients, r.BookingsPerSec, r.P50ms, r.P99ms, r.Maxms, r.Clashes, r.Bookings, r.Committed, r.Ratio, r.MeanBatch)
	if r.StatementsPerBooking > 0 {
		fmt.Fprintf(w, "        per booking: %.1f statements, %.1f rows, %.0f WAL bytes\n", r.StatementsPerBooking, r.RowsPerBooking, r.WALBytesPerBooking)
	}
	for _, st := range r.DearestStatements {
		fmt.Fprintf(w, "        %7.1f µs %5.2f× %s\n", st.MicrosPerBooking, st.RunsPerBooking, st.SQL)
	}
	if r.DoubleSold != 0 || r.Bookings != r.Committed || r.Errors != 0 {
		fmt.Fprintf(w, "        !! double sold %d, errors %d\n", r.DoubleSold, r.Errors)
	}
}

const (
	benchRows, benchCols = 25, 20 // a 500-seat hall
	benchShows           = 2000
)

// parseClients reads --clients.
func parseClients(list string) ([]int, error) {
	var clients []int
	for _, f := range strings.Split(list, ",") {
		if f == "" {
			continue
		}
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n < 1 || n > 1024 {
			return nil, usagef("--clients wants numbers like 1,8,64")
		}
		clients = append(clients, n)
	}
	return clients, nil
}

func (c *env) bench(b benchConfig) error {
	clients, err := parseClients(b.clients)
	if err != nil {
		return err
	}
	mode := c.syncFlag
	if mode != "full" && mode != "normal" {
		return usagef("--sync must be full or normal")
	}
	dir, err := os.MkdirTemp("", "boxoffice-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	raw, err := db.RawCommitRate(filepath.Join(dir, "raw.db"), mode, b.dur)
	if err != nil {
		return err
	}
	c.print(note(fmt.Sprintf("raw limit: one connection, BEGIN IMMEDIATE; INSERT; COMMIT at synchronous=%s: %.0f tx/s\n\n", mode, raw) +
		fmt.Sprintf("%7s %12s %8s %8s %8s %8s %9s %9s %8s %7s\n", "clients", "bookings/s", "p50 ms", "p99 ms", "max ms", "clashes", "acked", "committed", "x raw", "batch")))
	if b.cpuProfile != "" {
		f, err := os.Create(b.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	for i, n := range clients {
		res, err := benchBooking(c.ctx, filepath.Join(dir, fmt.Sprintf("book-%d.db", i)), mode, n, b.dur)
		if err != nil {
			return err
		}
		res.RawTxPerSec = raw
		res.Ratio = res.BookingsPerSec / raw
		c.print(res)
	}
	return nil
}

// benchSeed is one 500-seat hall (two aisles) and many shows, so the run
// moves to a new show whenever the hot one fills.
func benchSeed() booking.Seed {
	h := booking.Hall{Name: "Bench", Width: benchCols + 2}
	for r := 0; r < benchRows; r++ {
		tag := string(rune('A'+r%26)) + string(rune('A'+r/26))
		h.Rows = append(h.Rows, tag)
		for i := 0; i < benchCols; i++ {
			col := i
			if i >= 5 {
				col++
			}
			if i >= 15 {
				col++
			}
			h.Seats = append(h.Seats, booking.Seat{Label: fmt.Sprintf("%s%d", tag, i+1), RowTag: tag, Number: i + 1, Row: r, Col: col})
		}
	}
	seed := booking.Seed{
		Halls:       []booking.Hall{h},
		Films:       []booking.Film{{Title: "Bench", Minutes: 90}},
		TicketTypes: []booking.TicketType{{Code: "adult", Name: "Adult", Price: 1250}},
	}
	start := time.Now().Add(24 * time.Hour)
	for i := 0; i < benchShows; i++ {
		seed.Shows = append(seed.Shows, booking.SeedShow{Film: 0, Hall: 0, Starts: start.Add(time.Duration(i) * time.Minute)})
	}
	return seed
}

// hotShow hands out seat pairs of the current show in order; when it is
// full the next show becomes hot.
type hotShow struct {
	mu    sync.Mutex
	show  int64
	next  int // next free pair index
	seats []string
}

// take returns the next pair, or (10% of the time) the pair just taken,
// to race on purpose.
func (h *hotShow) take(clash bool) (int64, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if clash && h.next > 0 {
		p := h.next - 1
		return h.show, h.seats[2*p : 2*p+2]
	}
	if 2*h.next+2 > len(h.seats) {
		h.show++
		h.next = 0
	}
	p := h.next
	h.next++
	return h.show, h.seats[2*p : 2*p+2]
}

// benchCounts are what the clients of one run saw.
type benchCounts struct {
	acked, clashes, errs atomic.Int64
	lat                  [][]time.Duration // each client's latencies
}

// benchBooking runs clients selling on a new file at path for dur, then
// reads the file back.
func benchBooking(ctx context.Context, path, mode string, clients int, dur time.Duration) (*benchResult, error) {
	store, err := db.Open(path, db.Options{Sync: mode, TicketKey: booking.TicketKey{ID: 1, Secret: []byte("bench-only-secret-0123456789abcd")}, SweepInterval: -1})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	seed := benchSeed()
	seed.Staff = nil
	if err := store.Seed(ctx, seed, false); err != nil {
		return nil, err
	}
	var labels []string
	for _, s := range seed.Halls[0].Seats {
		labels = append(labels, s.Label)
	}
	hot := &hotShow{show: 1, seats: labels}
	// Each client is a counter with its clerk's shift open, as at the box
	// office: every sale then finds and names its shift.
	for i := 0; i < clients; i++ {
		if _, err := store.OpenShift(ctx, benchActor(i), booking.OpenShiftRequest{Float: 100_00}); err != nil {
			return nil, err
		}
	}
	before := store.Stats()
	costsBefore, err := store.WriteCosts(ctx)
	if err != nil {
		return nil, err
	}
	counts := &benchCounts{lat: make([][]time.Duration, clients)}
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			benchClient(ctx, store, hot, counts, i, deadline)
		}(i)
	}
	start := time.Now()
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	after := store.Stats()
	costs, err := store.WriteCosts(ctx)
	if err != nil {
		return nil, err
	}
	costs = costs.Sub(costsBefore)

	all := slices.Concat(counts.lat...)
	slices.Sort(all)
	pct := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[int(p*float64(len(all)-1))].Microseconds()) / 1000
	}
	res := &benchResult{
		Clients: clients, Sync: mode, Seconds: elapsed,
		Bookings: counts.acked.Load(), Clashes: counts.clashes.Load(), Errors: counts.errs.Load(),
		BookingsPerSec: float64(counts.acked.Load()) / elapsed,
		P50ms:          pct(0.50), P99ms: pct(0.99), Maxms: pct(1),
	}
	if c := after.Commits - before.Commits; c > 0 {
		res.MeanBatch = float64(after.Jobs-before.Jobs) / float64(c)
	}
	if n := float64(res.Bookings); n > 0 {
		res.StatementsPerBooking = float64(costs.Statements) / n
		res.RowsPerBooking = float64(costs.Rows) / n
		res.WALBytesPerBooking = float64(costs.WALBytes) / n
		res.DearestStatements = dearest(costs.ByStatement, n)
	}
	return res, auditBench(ctx, store, path, res)
}

// benchActor is the clerk of bench client i, with a shift of their own.
func benchActor(i int) booking.Actor {
	return booking.Actor{Name: fmt.Sprintf("bench-%d", i), Role: booking.RoleClerk, Terminal: "bench"}
}

// benchClient sells pairs of the hot show until deadline, as one counter.
func benchClient(ctx context.Context, store booking.Sales, hot *hotShow, counts *benchCounts, i int, deadline time.Time) {
	actor := benchActor(i)
	owner := fmt.Sprintf("bench-%d", i)
	rng := rand.New(rand.NewPCG(uint64(i), 42))
	for k := 0; time.Now().Before(deadline); k++ {
		show, seats := hot.take(rng.IntN(10) == 0)
		t0 := time.Now()
		h, err := store.Hold(ctx, actor, booking.HoldRequest{ShowID: show, Seats: seats, Owner: owner})
		if err != nil {
			if booking.ErrorCode(err) == booking.EConflict {
				counts.clashes.Add(1)
			} else {
				counts.errs.Add(1)
			}
			continue
		}
		_, err = store.Checkout(ctx, actor, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: fmt.Sprintf("%s-%d", owner, k), Method: booking.Card})
		if err != nil {
			counts.errs.Add(1)
			continue
		}
		counts.lat[i] = append(counts.lat[i], time.Since(t0))
		counts.acked.Add(1)
	}
}

// auditBench reads the file back with a fresh connection (bookings really
// there, seats sold more than once) and checks every invariant of the
// store: a broken one fails the bench.
func auditBench(ctx context.Context, store backend, path string, res *benchResult) error {
	a, err := db.AuditSales(ctx, path)
	if err != nil {
		return err
	}
	res.Committed, res.DoubleSold, res.AuditSales = a.Bookings, a.DoubleSold, a.AuditSales
	if a.AuditSales != a.Bookings {
		return fmt.Errorf("the bench left %d sale rows in the audit trail for %d bookings", a.AuditSales, a.Bookings)
	}
	problems, err := store.CheckInvariants(ctx)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("the bench broke an invariant: %s", strings.Join(problems, "; "))
	}
	return nil
}
