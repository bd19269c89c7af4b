package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
)

// bench --scale: the week and the year side by side. Each counter, CLI and
// sweeper operation runs against a data dir with a week of history and
// one with DAYS, interleaved so a busy machine slows both alike, and the
// median and p99 of each are printed with their ratio. The data dirs are
// generated once (init --demo-history) and kept under the OS temp dir,
// keyed by schema version, generator version, days and date; every run
// works on a copy, so its sales do not pile up.

// scaleGenerator changes when the generator does, so cached data dirs
// made by an older one are rebuilt.
const scaleGenerator = 1

// scaleOp is one measured operation; prep, when set, runs before each
// measured call, unmeasured.
type scaleOp struct {
	name string
	run  func(st *scaleSide, i int) error
	prep func(st *scaleSide, i int) error
	// most caps the calls a side (0: --n): a report over a year takes
	// long enough that a few calls give its figure.
	most int
}

// scaleSide is one data dir under measurement.
type scaleSide struct {
	label   string
	dir     dataDir
	store   backend
	sample  []db.SampleBooking
	shows   []int64  // on sale now, most free seats first
	found   int      // bookings the find operations returned, for their answer size
	sold    []string // sales made and not yet cancelled
	sales   int
	live    int64 // a show on sale with a clash to find at AddShow
	history int
}

// scaleResult is one operation's figures on both sides.
type scaleResult struct {
	Op       string  `json:"op"`
	WeekP50  float64 `json:"week_p50_ms"`
	WeekP99  float64 `json:"week_p99_ms"`
	YearP50  float64 `json:"year_p50_ms"`
	YearP99  float64 `json:"year_p99_ms"`
	RatioP50 float64 `json:"ratio_p50"`
	RatioP99 float64 `json:"ratio_p99"`
	N        int     `json:"n"`
	// WeekFound and YearFound are the bookings a search returned on
	// average: its answer, which a cost is proportional to.
	WeekFound float64 `json:"week_found,omitempty"`
	YearFound float64 `json:"year_found,omitempty"`
}

func (c *env) benchScale(days, n int, idle time.Duration, only string) error {
	ctx := c.ctx
	week, err := c.scaleDir(ctx, 7)
	if err != nil {
		return err
	}
	year, err := c.scaleDir(ctx, days)
	if err != nil {
		return err
	}
	rawPath := filepath.Join(os.TempDir(), fmt.Sprintf("boxoffice-raw-%d.db", os.Getpid()))
	raw, err := db.RawCommitRate(rawPath, "full", time.Second)
	os.Remove(rawPath)
	if err != nil {
		return err
	}
	sides := []*scaleSide{{label: "week", history: 7}, {label: "year", history: days}}
	for i, src := range []dataDir{week, year} {
		if err := sides[i].open(ctx, src); err != nil {
			return err
		}
		defer sides[i].close()
	}
	c.print(note(fmt.Sprintf("raw limit in this run: %.0f tx/s (one connection, BEGIN IMMEDIATE; INSERT; COMMIT, synchronous=full)\n", raw) +
		fmt.Sprintf("week: %d days of history, %s; year: %d days, %s\n\n", 7, sides[0].size(ctx), days, sides[1].size(ctx)) +
		fmt.Sprintf("%-34s %9s %9s %9s %9s %7s %7s\n", "operation (ms)", "week p50", "week p99", "year p50", "year p99", "x p50", "x p99")))
	for _, op := range scaleOps() {
		if only != "" && !strings.Contains(strings.ToLower(op.name), strings.ToLower(only)) {
			continue
		}
		res, err := measure(op, sides, n)
		if err != nil {
			return fmt.Errorf("%s: %w", op.name, err)
		}
		c.print(res)
	}
	for _, side := range sides {
		side.store.Close()
	}
	if idle <= 0 {
		return nil
	}
	return c.scaleProcesses(sides, idle)
}

// writeText is one row of the scale table.
func (r scaleResult) writeText(w io.Writer) {
	found := ""
	if r.WeekFound+r.YearFound > 0 {
		found = fmt.Sprintf("  %.1f / %.1f found", r.WeekFound, r.YearFound)
	}
	fmt.Fprintf(w, "%-34s %9.3f %9.3f %9.3f %9.3f %7.2f %7.2f%s\n", r.Op, r.WeekP50, r.WeekP99, r.YearP50, r.YearP99, r.RatioP50, r.RatioP99, found)
}

// scaleDir returns a pristine data dir with days of history, generating
// it when no current one is cached.
func (c *env) scaleDir(ctx context.Context, days int) (dataDir, error) {
	prefix := fmt.Sprintf("boxoffice-scale-s%d-g%d-%dd-", db.SchemaVersion(), scaleGenerator, days)
	dir := dataDir(filepath.Join(os.TempDir(), prefix+time.Now().Format("20060102")))
	if _, err := os.Stat(dir.file("complete")); err == nil {
		return dir, nil
	}
	old, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("boxoffice-scale-*-%dd-*", days)))
	for _, o := range old {
		os.RemoveAll(o) // another day's, or an older schema's
	}
	c.print(note(fmt.Sprintf("generating %d days of history into %s…\n", days, dir)))
	o, err := dir.open(ctx, scaleOpen)
	if err != nil {
		return "", err
	}
	o.store.Close()
	stats, err := playHistory(ctx, dir, days, time.Now(), nil)
	if err != nil {
		return "", err
	}
	c.print(note(fmt.Sprintf("  %d bookings in %.1fs\n", stats.Bookings, stats.Elapsed.Seconds())))
	return dir, os.WriteFile(dir.file("complete"), nil, 0o600)
}

// scaleOpen opens a scale data dir as a server would, logging nothing.
var scaleOpen = dataOptions{sync: "full", now: time.Now, logger: slog.New(slog.DiscardHandler)}

// open copies the pristine dir and opens the copy as a server would.
func (st *scaleSide) open(ctx context.Context, src dataDir) error {
	tmp, err := os.MkdirTemp("", "boxoffice-scale-run-")
	if err != nil {
		return err
	}
	st.dir = dataDir(tmp)
	for _, f := range []string{dbFile, ticketKeyFile} {
		if err := copyFile(src.file(f), st.dir.file(f)); err != nil {
			return err
		}
	}
	// Bookings with a name and phone to look up, from the whole history
	// (a one-off scan, not measured).
	if st.sample, err = db.SampleBookings(ctx, st.dir.dbPath(), 500); err != nil {
		return err
	}
	if len(st.sample) == 0 {
		return fmt.Errorf("%s: no bookings to look up", st.dir)
	}
	o, err := st.dir.open(ctx, scaleOpen)
	if err != nil {
		return err
	}
	st.store = o.store
	return st.findShows(ctx)
}

func (st *scaleSide) close() {
	st.store.Close()
	os.RemoveAll(string(st.dir))
}

func (st *scaleSide) size(ctx context.Context) string {
	info, err := os.Stat(st.dir.dbPath())
	if err != nil {
		return "?"
	}
	bookings, _ := db.CountBookings(ctx, st.dir.dbPath())
	return fmt.Sprintf("%d bookings, %.0f MiB", bookings, float64(info.Size())/(1<<20))
}

// findShows lists the shows still on sale today or tomorrow, emptiest
// first: the sales and holds go there.
func (st *scaleSide) findShows(ctx context.Context) error {
	now := time.Now()
	var shows []booking.Show
	for _, day := range []time.Time{now, now.AddDate(0, 0, 1)} {
		list, err := st.store.Shows(ctx, booking.System, day)
		if err != nil {
			return err
		}
		for _, sh := range list {
			if booking.SalesOpen(sh, now) == nil {
				shows = append(shows, sh)
			}
		}
	}
	slices.SortStableFunc(shows, func(a, b booking.Show) int { return b.Free() - a.Free() })
	for _, sh := range shows {
		st.shows = append(st.shows, sh.ID)
	}
	if len(shows) == 0 {
		return fmt.Errorf("no show on sale today or tomorrow")
	}
	// The clash AddShow looks for is with the show on sale that starts
	// last: one on sale may have started already (sales close after the
	// start), and a show a minute after it would then be refused for
	// starting in the past, not for the clash.
	last := slices.MaxFunc(shows, func(a, b booking.Show) int { return a.Starts.Compare(b.Starts) })
	st.live = last.ID
	return nil
}

func (st *scaleSide) pick(i int) db.SampleBooking { return st.sample[i%len(st.sample)] }

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// measure runs op n times on each side, alternating sides, after one
// unmeasured warm-up call each.
func measure(op scaleOp, sides []*scaleSide, n int) (scaleResult, error) {
	if op.most > 0 {
		n = min(n, op.most)
	}
	lat := make([][]time.Duration, len(sides))
	for _, side := range sides {
		side.found = 0
	}
	for i := -1; i < n; i++ {
		if i == 0 {
			for _, side := range sides {
				side.found = 0 // not the warm-up's
			}
		}
		for k, side := range sides {
			if op.prep != nil {
				if err := op.prep(side, max(i, 0)); err != nil {
					return scaleResult{}, fmt.Errorf("%s: %w", side.label, err)
				}
			}
			t0 := time.Now()
			if err := op.run(side, max(i, 0)); err != nil {
				return scaleResult{}, fmt.Errorf("%s: %w", side.label, err)
			}
			if i >= 0 {
				lat[k] = append(lat[k], time.Since(t0))
			}
		}
	}
	r := scaleResult{Op: op.name, N: n}
	r.WeekP50, r.WeekP99 = percentiles(lat[0])
	r.YearP50, r.YearP99 = percentiles(lat[1])
	r.RatioP50, r.RatioP99 = r.YearP50/r.WeekP50, r.YearP99/r.WeekP99
	r.WeekFound, r.YearFound = float64(sides[0].found)/float64(n), float64(sides[1].found)/float64(n)
	return r, nil
}

func percentiles(d []time.Duration) (p50, p99 float64) {
	slices.Sort(d)
	return ms(d[len(d)/2]), ms(d[(len(d)*99+99)/100-1])
}

// scaleProcesses starts the real server on each side's data dir and
// measures what other processes see meanwhile: CLI commands, a second
// counter selling, and the idle server's CPU.
func (c *env) scaleProcesses(sides []*scaleSide, idle time.Duration) error {
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	c.print(note(fmt.Sprintf("\nwith `boxoffice serve` running on the data dir (real processes, %d runs each):\n", processRuns)))
	for _, side := range sides {
		if err := c.scaleServe(bin, side, idle); err != nil {
			return err
		}
	}
	return nil
}

// processRuns is how often each command runs beside the server.
const processRuns = 10

func (c *env) scaleServe(bin string, side *scaleSide, idle time.Duration) error {
	srv, err := startServe(bin, side.dir)
	if err != nil {
		return err
	}
	defer srv.stop()
	time.Sleep(1100 * time.Millisecond) // its first sweep
	sample := side.pick(7)
	for _, cmd := range [][]string{
		{"shows", "--json"},
		{"booking", sample.Number},
		{"sell", fmt.Sprint(side.shows[len(side.shows)/2]), "--best", "2", "--pay", "card"},
	} {
		var lat []time.Duration
		for i := 0; i < processRuns; i++ {
			run := exec.Command(bin, append(cmd, "--data", string(side.dir))...)
			t0 := time.Now()
			out, err := run.CombinedOutput()
			lat = append(lat, time.Since(t0))
			if err != nil {
				return fmt.Errorf("%s %v: %v\n%s", side.label, cmd, err, out)
			}
		}
		slices.Sort(lat)
		c.print(processRow{side.label, "boxoffice " + cmd[0] + " (serve running)", lat[len(lat)/2], lat[len(lat)-1]})
	}
	cpu, err := idleCPU(srv.cmd.Process.Pid, idle)
	if err != nil {
		return err
	}
	c.print(idleRow{side.label, idle, cpu})
	return nil
}

// serveProcess is a running `boxoffice serve`.
type serveProcess struct {
	cmd  *exec.Cmd
	done chan error // its exit
}

// startServe starts `boxoffice serve` on dir and returns once it says it
// is serving (it listens first, then opens the data dir, then says so).
func startServe(bin string, dir dataDir) (*serveProcess, error) {
	cmd := exec.Command(bin, "serve", "--data", string(dir), "--listen", "127.0.0.1:0")
	said := &lineWatch{want: []byte("Serving the counter"), seen: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = said, io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &serveProcess{cmd: cmd, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }()
	select {
	case <-said.seen:
		return p, nil
	case err := <-p.done:
		return nil, fmt.Errorf("boxoffice serve on %s: %v", dir, err)
	case <-time.After(time.Minute):
		p.stop()
		return nil, fmt.Errorf("boxoffice serve on %s did not start in a minute", dir)
	}
}

// stop interrupts the server and waits for it to exit.
func (p *serveProcess) stop() {
	p.cmd.Process.Signal(os.Interrupt)
	<-p.done
}

// lineWatch is a process's stdout that closes seen once want was written.
// exec writes to it from one goroutine.
type lineWatch struct {
	want []byte
	tail []byte
	seen chan struct{}
	once sync.Once
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.tail = append(w.tail, p...)
	if bytes.Contains(w.tail, w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	if len(w.tail) > 4096 {
		w.tail = w.tail[len(w.tail)-len(w.want):]
	}
	return len(p), nil
}

// processRow is what a command took while serve ran.
type processRow struct {
	side, what   string
	p50, slowest time.Duration
}

func (r processRow) jsonValue() any {
	return map[string]any{"side": r.side, "op": r.what, "p50_ms": ms(r.p50), "max_ms": ms(r.slowest), "n": processRuns}
}

func (r processRow) writeText(w io.Writer) {
	fmt.Fprintf(w, "%-5s %-44s p50 %7.1f ms, slowest of 10 %7.1f ms\n", r.side, r.what, ms(r.p50), ms(r.slowest))
}

// idleRow is an idle server's CPU.
type idleRow struct {
	side string
	idle time.Duration
	cpu  float64
}

func (r idleRow) jsonValue() any {
	return map[string]any{"side": r.side, "op": "idle serve CPU", "seconds": r.idle.Seconds(), "cpu_percent_of_core": r.cpu}
}

func (r idleRow) writeText(w io.Writer) {
	fmt.Fprintf(w, "%-5s %-44s %6.2f %% of a core over %s\n", r.side, "idle `serve` process", r.cpu, r.idle)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// idleCPU is a process's CPU use over d, as a percentage of one core,
// from each thread's /proc/PID/task/TID/schedstat (nanoseconds on a CPU).
// A thread that ends meanwhile takes its time with it, so this can only
// under-count by what such threads ran; Go keeps its threads.
func idleCPU(pid int, d time.Duration) (float64, error) {
	onCPU := func() (int64, error) {
		tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
		if err != nil || len(tasks) == 0 {
			return 0, fmt.Errorf("idle CPU needs /proc/%d/task", pid)
		}
		var sum int64
		for _, t := range tasks {
			b, err := os.ReadFile(t)
			if err != nil {
				continue // a thread that just ended
			}
			var ns int64
			fmt.Sscan(string(b), &ns)
			sum += ns
		}
		return sum, nil
	}
	t0, err := onCPU()
	if err != nil {
		return 0, err
	}
	time.Sleep(d)
	t1, err := onCPU()
	if err != nil {
		return 0, err
	}
	return float64(t1-t0) / float64(d.Nanoseconds()) * 100, nil
}

// find is FindBookings as the counter's find screen calls it, counting
// what it found.
func (st *scaleSide) find(ctx context.Context, clerk booking.Actor, text string) ([]booking.Booking, error) {
	got, err := st.store.FindBookings(ctx, clerk, booking.BookingQuery{Text: text, Limit: 20})
	st.found += len(got)
	return got, err
}

// sale sells two seats of the next show that has them.
func (st *scaleSide) sale(ctx context.Context, clerk booking.Actor, i int) error {
	for k := 0; k < len(st.shows); k++ {
		show := st.shows[(i+k)%len(st.shows)]
		h, err := st.store.HoldBest(ctx, clerk, booking.HoldBestRequest{ShowID: show, N: 2, Owner: "bench-sale"})
		if booking.ErrorCode(err) == booking.EConflict {
			continue
		}
		if err != nil {
			return err
		}
		b, err := st.store.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "bench-sale",
			IdempotencyKey: fmt.Sprintf("bench-%s-%d", st.label, st.sales), Method: booking.Card, Customer: "Bench Customer", Phone: "07000 000000"})
		if err != nil {
			return err
		}
		st.sales++
		st.sold = append(st.sold, b.Number)
		return nil
	}
	return fmt.Errorf("every show on sale is full")
}

func firstLetters(name string, n int) string {
	r := []rune(name)
	return string(r[:min(n, len(r))])
}
