package main

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
)

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
}

const (
	benchRows, benchCols = 25, 20 // a 500-seat hall
	benchShows           = 2000
)

func (c *cli) bench(args []string) int {
	fs := c.flags("bench")
	fs.BoolVar(&c.jsonOut, "json", false, "one JSON object per client count")
	dur := fs.Duration("duration", 3*time.Second, "how long each measurement runs")
	clientsFlag := fs.String("clients", "1,8,64", "client counts to measure")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the booking runs to this file")
	scale := fs.Bool("scale", false, "measure every counter operation on a week's and a year's history side by side")
	days := fs.Int("days", 365, "with --scale: days of history on the long side")
	runs := fs.Int("n", 200, "with --scale: calls of each operation on each side")
	idle := fs.Duration("idle", 10*time.Second, "with --scale: how long to watch an idle server's CPU (0: skip the process checks)")
	only := fs.String("op", "", "with --scale: only the operations whose name contains this")
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if len(pos) > 0 {
		return c.usageErr("bench takes no arguments")
	}
	if *scale {
		if *days < 8 || *days > maxHistoryDays || *runs < 10 || (*idle != 0 && *idle < time.Second) {
			return c.usageErr("--scale wants --days 8..%d, --n 10 or more and --idle 0 or 1s or more", maxHistoryDays)
		}
		return c.benchScale(*days, *runs, *idle, *only)
	}
	var clients []int
	for _, f := range splitComma(*clientsFlag) {
		var n int
		if _, err := fmt.Sscan(f, &n); err != nil || n < 1 || n > 1024 {
			return c.usageErr("--clients wants numbers like 1,8,64")
		}
		clients = append(clients, n)
	}
	mode := c.syncFlag
	if mode != "full" && mode != "normal" {
		return c.usageErr("--sync must be full or normal")
	}
	dir, err := os.MkdirTemp("", "boxoffice-bench-")
	if err != nil {
		return c.fail(err)
	}
	defer os.RemoveAll(dir)

	raw, err := rawTxPerSec(filepath.Join(dir, "raw.db"), mode, *dur)
	if err != nil {
		return c.fail(err)
	}
	if !c.jsonOut {
		fmt.Fprintf(c.stdout, "raw limit: one connection, BEGIN IMMEDIATE; INSERT; COMMIT at synchronous=%s: %.0f tx/s\n\n", mode, raw)
		fmt.Fprintf(c.stdout, "%7s %12s %8s %8s %8s %8s %9s %9s %8s %7s\n", "clients", "bookings/s", "p50 ms", "p99 ms", "max ms", "clashes", "acked", "committed", "x raw", "batch")
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return c.fail(err)
		}
		defer f.Close()
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	for i, n := range clients {
		res, err := benchBooking(c.ctx, filepath.Join(dir, fmt.Sprintf("book-%d.db", i)), mode, n, *dur)
		if err != nil {
			return c.fail(err)
		}
		res.RawTxPerSec = raw
		res.Ratio = res.BookingsPerSec / raw
		if c.jsonOut {
			c.printJSON(res)
			continue
		}
		fmt.Fprintf(c.stdout, "%7d %12.0f %8.2f %8.2f %8.2f %8d %9d %9d %8.2f %7.1f\n",
			res.Clients, res.BookingsPerSec, res.P50ms, res.P99ms, res.Maxms, res.Clashes, res.Bookings, res.Committed, res.Ratio, res.MeanBatch)
		if res.DoubleSold != 0 || res.Bookings != res.Committed || res.Errors != 0 {
			fmt.Fprintf(c.stdout, "        !! double sold %d, errors %d\n", res.DoubleSold, res.Errors)
		}
	}
	return exitOK
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if i > start {
				out = append(out, s[start:i])
			}
			start = i + 1
		}
	}
	return out
}

// rawTxPerSec is the machine's limit for durable single-row transactions
// on one connection: what any one-transaction-per-booking design is
// capped at.
func rawTxPerSec(path, mode string, dur time.Duration) (float64, error) {
	dbh, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous("+mode+")&_txlock=immediate")
	if err != nil {
		return 0, err
	}
	defer dbh.Close()
	dbh.SetMaxOpenConns(1)
	if _, err := dbh.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)`); err != nil {
		return 0, err
	}
	n := 0
	start := time.Now()
	for time.Since(start) < dur {
		tx, err := dbh.Begin()
		if err != nil {
			return 0, err
		}
		if _, err := tx.Exec(`INSERT INTO t (v) VALUES ('x')`); err != nil {
			tx.Rollback()
			return 0, err
		}
		if err := tx.Commit(); err != nil {
			return 0, err
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), nil
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
	actor := booking.Actor{Name: "bench", Role: booking.RoleClerk, Terminal: "bench"}
	before := store.Stats()

	var acked, clashes, errs atomic.Int64
	lat := make([][]time.Duration, clients)
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			owner := fmt.Sprintf("bench-%d", i)
			rng := rand.New(rand.NewPCG(uint64(i), 42))
			for k := 0; time.Now().Before(deadline); k++ {
				show, seats := hot.take(rng.IntN(10) == 0)
				t0 := time.Now()
				h, err := store.Hold(ctx, actor, booking.HoldRequest{ShowID: show, Seats: seats, Owner: owner})
				if err != nil {
					if booking.ErrorCode(err) == booking.EConflict {
						clashes.Add(1)
					} else {
						errs.Add(1)
					}
					continue
				}
				_, err = store.Checkout(ctx, actor, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: fmt.Sprintf("%s-%d", owner, k), Method: booking.Card})
				if err != nil {
					errs.Add(1)
					continue
				}
				lat[i] = append(lat[i], time.Since(t0))
				acked.Add(1)
			}
		}(i)
	}
	start := time.Now()
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	after := store.Stats()

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	slices.Sort(all)
	pct := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[int(p*float64(len(all)-1))].Microseconds()) / 1000
	}
	res := &benchResult{
		Clients: clients, Sync: mode, Seconds: elapsed,
		Bookings: acked.Load(), Clashes: clashes.Load(), Errors: errs.Load(),
		BookingsPerSec: float64(acked.Load()) / elapsed,
		P50ms:          pct(0.50), P99ms: pct(0.99), Maxms: pct(1),
	}
	if c := after.Commits - before.Commits; c > 0 {
		res.MeanBatch = float64(after.Jobs-before.Jobs) / float64(c)
	}
	res.Committed, res.DoubleSold, err = auditBench(path)
	return res, err
}

// auditBench reads the file back with a fresh connection: bookings that
// are really there, and seats sold more than once (must be 0).
func auditBench(path string) (committed int64, doubleSold int, err error) {
	dbh, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		return 0, 0, err
	}
	defer dbh.Close()
	if err := dbh.QueryRow(`SELECT count(*) FROM bookings`).Scan(&committed); err != nil {
		return 0, 0, err
	}
	err = dbh.QueryRow(`SELECT count(*) FROM (
		SELECT b.show_id, t.seat_id FROM tickets t JOIN bookings b ON b.id = t.booking_id
		WHERE t.status != 'void' GROUP BY 1, 2 HAVING count(*) > 1)`).Scan(&doubleSold)
	return committed, doubleSold, err
}
