package pg_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/pg"
)

// faultCluster is a PostgreSQL cluster of the fault test's own, in a
// temporary directory: stopping it mid-test must never stop the cluster
// the other pg tests of the same `go test ./...` run are using (packages
// run in parallel), and initdb takes about a second.
type faultCluster struct {
	t     *testing.T
	bin   string // the server's programs
	owner string // run them as this user ("": as this process)
	dir   string // socket, log; data in dir/data
	port  int
}

// newFaultCluster makes, starts, stops and starts again a cluster, or
// skips the test, saying why, when it cannot: the test is about stopping
// and starting a server.
func newFaultCluster(t *testing.T) *faultCluster {
	t.Helper()
	if os.Getenv("BOXOFFICE_TEST_PG") == "" {
		t.Skip("BOXOFFICE_TEST_PG is empty: no PostgreSQL to test against (.ci/pg starts one)")
	}
	bin := serverBin(os.Getenv("BOXOFFICE_TEST_PG_DATA"))
	if bin == "" {
		t.Skip("cannot stop and start a server: no pg_ctl on PATH and BOXOFFICE_TEST_PG_DATA names no cluster (.ci/pg exports it)")
	}
	owner := os.Getenv("BOXOFFICE_TEST_PG_USER")
	if os.Geteuid() == 0 && owner == "" {
		t.Skip("cannot stop and start a server: running as root and BOXOFFICE_TEST_PG_USER is empty (PostgreSQL refuses to run as root; .ci/pg exports the owner)")
	}
	dir, err := os.MkdirTemp("", "boxoffice-pgfault-")
	if err != nil {
		t.Fatal(err)
	}
	c := &faultCluster{t: t, bin: bin, owner: owner, dir: dir}
	t.Cleanup(func() {
		c.ctl("stop", "-m", "immediate")
		os.RemoveAll(dir)
	})
	if owner != "" {
		u, err := user.Lookup(owner)
		if err != nil {
			t.Skipf("cannot stop and start a server: no user %s: %v", owner, err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Skipf("cannot stop and start a server: chown: %v", err)
		}
	}
	if out, err := c.run("initdb", "-D", c.data(), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C"); err != nil {
		t.Skipf("cannot stop and start a server: initdb: %v\n%s", err, out)
	}
	if c.port = freeFixedPort(); c.port == 0 {
		t.Skip("cannot stop and start a server: no free port")
	}
	for _, step := range []func() error{c.start, c.stop, c.start} {
		if err := step(); err != nil {
			t.Skipf("cannot stop and start a server: %v", err)
		}
	}
	return c
}

// freeFixedPort is a loopback port nobody listens on, below the
// kernel's ephemeral range (32768 up), so that while the server is down
// no other test's listener on port 0, nor any outgoing connection, is
// handed it; 0 when none was found.
func freeFixedPort() int {
	for try := 0; try < 50; try++ {
		port := 10000 + rand.IntN(20000)
		if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			l.Close()
			return port
		}
	}
	return 0
}

// serverBin is the directory of the server's programs: the one that
// started the cluster in data (its postmaster.opts), else pg_ctl's on
// PATH.
func serverBin(data string) string {
	if b, err := os.ReadFile(filepath.Join(data, "postmaster.opts")); err == nil && data != "" {
		if f := strings.Fields(string(b)); len(f) > 0 {
			if d := filepath.Dir(strings.Trim(f[0], `"`)); fileExists(filepath.Join(d, "pg_ctl")) {
				return d
			}
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		return filepath.Dir(p)
	}
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func (c *faultCluster) data() string { return filepath.Join(c.dir, "data") }

// url is the cluster's database postgres.
func (c *faultCluster) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
}

// run runs one of the server's programs as the cluster's owner.
func (c *faultCluster) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(c.bin, prog)
	cmd := exec.Command(path, args...)
	if c.owner != "" {
		cmd = exec.Command("runuser", append([]string{"-u", c.owner, "--", path}, args...)...)
	}
	return cmd.CombinedOutput()
}

func (c *faultCluster) ctl(args ...string) error {
	out, err := c.run("pg_ctl", append([]string{"-D", c.data(), "-w", "-t", "60"}, args...)...)
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		return fmt.Errorf("pg_ctl %s: %v\n%s\n%s", strings.Join(args, " "), err, out, log)
	}
	return nil
}

// start starts the server and returns once it accepts connections
// (pg_ctl -w).
func (c *faultCluster) start() error {
	return c.ctl("-l", filepath.Join(c.dir, "server.log"), "-o",
		fmt.Sprintf("-k %s -p %d -c listen_addresses=127.0.0.1 -c max_connections=100", c.dir, c.port), "start")
}

// stop is PostgreSQL's fast shutdown: every session is ended (57P01),
// every open transaction rolled back, a checkpoint written.
func (c *faultCluster) stop() error { return c.ctl("-m", "fast", "stop") }

// crash is the immediate shutdown: the server's processes quit at once,
// with no checkpoint, and the next start recovers from the WAL, as after
// a power cut (the machine's own disk cache aside).
func (c *faultCluster) crash() error { return c.ctl("-m", "immediate", "stop") }

// faultSeed is 4 shows of a 26x40 hall: room for 2,080 sales of 2.
func faultSeed(now time.Time) booking.Seed {
	h := booking.Hall{Name: "Big", Width: 40}
	for r := 0; r < 26; r++ {
		tag := string(rune('A' + r))
		h.Rows = append(h.Rows, tag)
		for i := 0; i < 40; i++ {
			h.Seats = append(h.Seats, booking.Seat{Label: fmt.Sprintf("%s%d", tag, i+1), RowTag: tag, Number: i + 1, Row: r, Col: i})
		}
	}
	seed := booking.Seed{
		Halls:       []booking.Hall{h},
		Films:       []booking.Film{{Title: "Test Film", Minutes: 100}},
		TicketTypes: []booking.TicketType{{Code: "adult", Name: "Adult", Price: 1250}},
	}
	for i := 0; i < 4; i++ {
		seed.Shows = append(seed.Shows, booking.SeedShow{Film: 0, Hall: 0, Starts: now.Add(time.Duration(24+3*i) * time.Hour)})
	}
	return seed
}

// sale is what a selling goroutine was told: a booking, its seats, when.
type sale struct {
	key, number string
	show        int64
	seats       []string
	at          time.Time
}

// faultLoad is the 16 counters selling: what they were told, and every
// refusal, by its words.
type faultLoad struct {
	s     *pg.Store
	stop  atomic.Bool
	mu    sync.Mutex
	sales []sale
	said  map[string]int // "code: message" -> times
	wrong []string       // errors other than unavailable

	// crash: a hold may be lost (holds commit without waiting for the
	// disk), and its checkout then finds it gone; lost counts them.
	crash bool
	lost  int
	// settled counts the sales told after their COMMIT's answer was
	// lost (and the same key tried again until it answered).
	settled int
}

func (l *faultLoad) refused(what string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if booking.ErrorCode(err) != booking.EUnavailable {
		l.wrong = append(l.wrong, fmt.Sprintf("%s: %v", what, err))
		return
	}
	l.said[booking.ErrorCode(err)+": "+booking.ErrorMessage(err)]++
}

func (l *faultLoad) sold(sl sale) {
	l.mu.Lock()
	l.sales = append(l.sales, sl)
	l.mu.Unlock()
}

// counter sells pairs on show until the load stops or the show is full:
// HoldBest, then Checkout, each tried again every 50 ms while the server
// cannot be reached, the checkout with the same idempotency key until it
// answers.
func (l *faultLoad) counter(g int, show int64) {
	owner := fmt.Sprintf("c%d", g)
	call := func(f func(ctx context.Context) error) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return f(ctx)
	}
	for n := 0; !l.stop.Load(); n++ {
		var h *booking.Hold
		for h == nil {
			err := call(func(ctx context.Context) (err error) {
				h, err = l.s.HoldBest(ctx, clerk, booking.HoldBestRequest{ShowID: show, N: 2, Owner: owner})
				return err
			})
			var taken *booking.SeatsTakenError
			switch {
			case err == nil:
			case errors.As(err, &taken):
			case booking.ErrorCode(err) == booking.EConflict:
				return // the show is full
			default:
				l.refused("hold", err)
				if booking.ErrorCode(err) != booking.EUnavailable {
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		key := fmt.Sprintf("fault-%d-%d", g, n)
		unsure := false
		for {
			var b *booking.Booking
			err := call(func(ctx context.Context) (err error) {
				b, err = l.s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: key, Method: booking.Card})
				return err
			})
			if err == nil {
				sl := sale{key: key, number: b.Number, show: show, at: time.Now()}
				for _, tk := range b.Tickets {
					sl.seats = append(sl.seats, tk.Seat.Label)
				}
				l.sold(sl)
				if unsure {
					l.mu.Lock()
					l.settled++
					l.mu.Unlock()
				}
				break
			}
			if l.crash && booking.ErrorCode(err) == booking.ENotFound {
				l.mu.Lock()
				l.lost++ // the hold went in the crash, unsold: hold again, with a new key
				l.mu.Unlock()
				break
			}
			l.refused("checkout "+key, err)
			unsure = unsure || strings.Contains(booking.ErrorMessage(err), "may have gone through")
			if booking.ErrorCode(err) != booking.EUnavailable {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func (l *faultLoad) count() int { l.mu.Lock(); defer l.mu.Unlock(); return len(l.sales) }

// soldBetween counts the sales told between from and to.
func (l *faultLoad) soldBetween(from, to time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, sl := range l.sales {
		if sl.at.After(from) && sl.at.Before(to) {
			n++
		}
	}
	return n
}

// firstSaleAfter is when the first sale after t was told, or zero.
func (l *faultLoad) firstSaleAfter(t time.Time) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	var first time.Time
	for _, sl := range l.sales {
		if sl.at.After(t) && (first.IsZero() || sl.at.Before(first)) {
			first = sl.at
		}
	}
	return first
}

// TestFault_PostgresStopsMidSale is issue 14's fifth must-show: the
// server stopped (fast shutdown) for 10 s while 16 counters sell. Every
// refusal meanwhile is unavailable, in the clerk's words; afterwards
// every sale a counter was told about is in the database and nothing
// else is, no seat has two live claims or two tickets, and the first
// sale after the server is back comes within 5 s.
func TestFault_PostgresStopsMidSale(t *testing.T) {
	faultRun(t, false, 10*time.Second)
}

// TestFault_PostgresCrashesMidSale is the same with an immediate shutdown
// for 3 s: what was told sold survives the server's crash recovery.
func TestFault_PostgresCrashesMidSale(t *testing.T) {
	faultRun(t, true, 3*time.Second)
}

// faultRun stops the server (crash: immediately) for down under 16
// selling counters, and checks what they were told against the database.
// It runs beside the other tests: the server it stops is its own, and
// most of its time is that server being down.
func faultRun(t *testing.T, crash bool, down time.Duration) {
	t.Parallel()
	c := newFaultCluster(t)
	clk := &clock{now: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)}
	s := MustOpen(t, c.url(), clk)
	if err := s.Seed(context.Background(), faultSeed(clk.Now()), false); err != nil {
		t.Fatal(err)
	}
	other := listenOther(t, c.url(), clk)
	l := &faultLoad{s: s, said: map[string]int{}, crash: crash}
	stop := c.stop
	if crash {
		stop = c.crash
	}
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.counter(g, int64(g%4+1))
		}()
	}
	defer func() { l.stop.Store(true); wg.Wait() }()

	waitFor(t, 20*time.Second, func() bool { return l.count() >= 100 }, "100th sale before the stop")
	stopAt := time.Now()
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	before := l.count()
	time.Sleep(down)
	startAt := time.Now()
	during := l.soldBetween(stopped.Add(time.Second), startAt)
	if err := c.start(); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	raw := rawConnect(t, c.url())
	waitFor(t, 30*time.Second, func() bool { return !l.firstSaleAfter(startAt).IsZero() }, "sale after the server came back")
	first := l.firstSaleAfter(startAt)
	// The selling goes on while the other server's LISTEN connection
	// comes back (its reconnect backoff tops out at 2 s), so that it has
	// sales to hear.
	waitFor(t, 30*time.Second, func() bool { _, heard := other.after(back); return !heard.IsZero() }, "change heard by another server")
	time.Sleep(500 * time.Millisecond)
	l.stop.Store(true)
	wg.Wait()

	t.Logf("%d sales before the stop (%v to stop), %d told while it was down (a second after the stop on), %d after; pg_ctl start took %v; first sale %v after the server was back (%v after start began); a bare connect+SELECT 1 right after it took %v",
		before, stopped.Sub(stopAt).Round(time.Millisecond), during, l.count()-before,
		back.Sub(startAt).Round(time.Millisecond), first.Sub(back).Round(time.Millisecond), first.Sub(startAt).Round(time.Millisecond), raw.Round(time.Millisecond))
	words := make([]string, 0, len(l.said))
	for w, n := range l.said {
		words = append(words, fmt.Sprintf("%5d × %s", n, w))
	}
	sort.Strings(words)
	t.Logf("refusals:\n%s", strings.Join(words, "\n"))
	t.Logf("%d sales whose COMMIT answer was lost, settled by their key once the server was back", l.settled)
	if l.lost > 0 {
		t.Logf("%d holds lost in the crash, their checkouts told the hold was gone", l.lost)
	}

	if len(l.wrong) > 0 {
		t.Errorf("%d refusals were not unavailable, first: %s", len(l.wrong), l.wrong[0])
	}
	if len(l.said) == 0 {
		t.Error("no counter was told the server could not be reached")
	}
	for w := range l.said {
		if !strings.Contains(w, "The database server cannot be reached: ") || !strings.HasSuffix(w, "Trying again…") {
			t.Errorf("refused in words of its own: %q", w)
		}
	}
	if during != 0 {
		t.Errorf("%d sales told while the server was down", during)
	}
	if d := first.Sub(back); d > 5*time.Second {
		t.Errorf("first sale %v after the server was back, want within 5 s", d)
	}
	reload, heard := other.after(back)
	sinceBack := func(at time.Time) string {
		if at.IsZero() {
			return "never"
		}
		return at.Sub(back).Round(time.Millisecond).String()
	}
	t.Logf("another server on the same database: told to reload %s after the server was back, heard a change %s after", sinceBack(reload), sinceBack(heard))
	if heard.Sub(back) > 5*time.Second {
		t.Errorf("another server heard a change %v after the server's return, want within 5 s", heard.Sub(back))
	}
	checkFaultDatabase(t, c.url(), l.sales)
}

// heardLog is what another server's seat maps were told, and when.
type heardLog struct {
	mu    sync.Mutex
	at    []time.Time
	shows []int64
}

// listenOther opens a second store on url, a server that sells nothing,
// and logs every change it hears from the selling one.
func listenOther(t *testing.T, url string, clk *clock) *heardLog {
	t.Helper()
	o := MustOpen(t, url, clk)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := o.WaitListening(ctx); err != nil {
		t.Fatal(err)
	}
	h := &heardLog{}
	ch := o.Changes().Subscribe(ctx)
	go func() {
		for c := range ch {
			h.mu.Lock()
			h.at, h.shows = append(h.at, time.Now()), append(h.shows, c.ShowID)
			h.mu.Unlock()
		}
	}()
	return h
}

// after is when, after t, the other server was first told to reload
// everything (show 0: its LISTEN connection is back) and first heard a
// show change.
func (h *heardLog) after(t time.Time) (reload, heard time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, at := range h.at {
		switch {
		case !at.After(t):
		case h.shows[i] == 0 && reload.IsZero():
			reload = at
		case h.shows[i] != 0 && heard.IsZero():
			heard = at
		}
	}
	return reload, heard
}

// checkFaultDatabase compares what the counters were told with the
// database: every sale there with its seats, nothing more, and no seat
// with two live claims or two tickets.
func checkFaultDatabase(t *testing.T, url string, sales []sale) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	seatOwner := map[string]string{}
	for _, sl := range sales {
		var number, status string
		var seats []string
		err := conn.QueryRow(ctx, `SELECT b.number, b.status, array(SELECT t.seat_id::text FROM tickets t WHERE t.booking_id = b.id ORDER BY t.seat_id)
			FROM bookings b WHERE b.idem_key = $1`, sl.key).Scan(&number, &status, &seats)
		if err != nil {
			t.Errorf("sale %s (%s), told to its counter, is not in the database: %v", sl.number, sl.key, err)
			continue
		}
		if number != sl.number || status != "confirmed" || len(seats) != 2 || len(sl.seats) != 2 {
			t.Errorf("sale %s: told %s with %v, the database has %s %s with seats %v", sl.key, sl.number, sl.seats, number, status, seats)
		}
		for _, label := range sl.seats {
			k := fmt.Sprintf("%d/%s", sl.show, label)
			if other, ok := seatOwner[k]; ok {
				t.Errorf("seat %s told sold twice: %s and %s", k, other, sl.number)
			}
			seatOwner[k] = sl.number
		}
	}
	var bookings, doubleClaims, doubleTickets int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM bookings`).Scan(&bookings); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM (SELECT show_id, seat_id FROM seat_claims
		WHERE status IN ('held', 'sold') GROUP BY 1, 2 HAVING count(*) > 1) x`).Scan(&doubleClaims); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM (SELECT b.show_id, t.seat_id FROM tickets t JOIN bookings b ON b.id = t.booking_id
		WHERE t.status = 'issued' GROUP BY 1, 2 HAVING count(*) > 1) x`).Scan(&doubleTickets); err != nil {
		t.Fatal(err)
	}
	t.Logf("database: %d bookings (%d told), %d seats with two live claims, %d with two tickets", bookings, len(sales), doubleClaims, doubleTickets)
	if bookings != len(sales) || doubleClaims != 0 || doubleTickets != 0 {
		t.Errorf("%d bookings for %d sales told; %d seats with two live claims, %d with two tickets", bookings, len(sales), doubleClaims, doubleTickets)
	}
}

// rawConnect is the machine's own limit beside the recovery figure: how
// long one bare connection and SELECT 1 take right after the server is
// back.
func rawConnect(t *testing.T, url string) time.Duration {
	t.Helper()
	start := time.Now()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatalf("connect after the restart: %v", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `SELECT 1`); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// waitFor polls cond every 10 ms until it holds, or fails the test after
// d.
func waitFor(t *testing.T, d time.Duration, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
