//go:build !race

// The soak runs without the race detector, in CI's step of its own
// (.ci/run, docs/testing.md): under it, 20 sessions cost minutes of two
// cores and its figures measure the detector.

package e2e

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"database/sql"
	"fmt"
	"io"
	"maps"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"boxoffice/booking"
	"boxoffice/internal/clitest"
	"boxoffice/internal/sshclient"
)

// The soak (issue 15, item 8): many SSH counters against one `serve` of
// the shipped binary, each a real connection driving the real screens by
// keys for a while — holds, releases, sales, cancels (a supervisor's, or
// a clerk's with a supervisor's name and PIN) and door scans — and then
// the database checks clean, what every client was told matches it, and
// the server's goroutines and memory at the end are those after warm-up.
//
//	BOXOFFICE_SOAK=10m BOXOFFICE_SOAK_SESSIONS=200 go test . -run Soak -v -timeout 30m
//
// Without BOXOFFICE_SOAK it runs the short version CI runs: 20 sessions for
// 20 seconds.

// soakPlan is one run's size and its margins.
type soakPlan struct {
	sessions int
	dur      time.Duration
	long     bool
	warm     time.Duration // when the warm-up figures are taken
	settle   time.Duration // how long the paused server settles before them
	bucket   time.Duration // a latency histogram's span (a minute when long)
	// growth bounds the end's goroutines and RSS against the warm-up's.
	goroutineGrowth, rssGrowth float64
}

func soakPlanFromEnv(t *testing.T) soakPlan {
	p := soakPlan{sessions: 20, dur: 20 * time.Second}
	if v := os.Getenv("BOXOFFICE_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 10*time.Second {
			t.Fatalf("BOXOFFICE_SOAK=%q: want a duration of at least 10s, like 10m", v)
		}
		p.dur, p.sessions, p.long = d, 200, true
	}
	if v := os.Getenv("BOXOFFICE_SOAK_SESSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 3 || n > 240 {
			t.Fatalf("BOXOFFICE_SOAK_SESSIONS=%q: want 3 to 240 (the server's default limit is 256)", v)
		}
		p.sessions = n
	}
	if p.long {
		// The figures: 10 % either way after a minute's warm-up.
		p.warm, p.bucket, p.settle = min(time.Minute, p.dur/4), min(time.Minute, p.dur/4), 4*time.Second
		p.goroutineGrowth, p.rssGrowth = 0.10, 0.10
	} else {
		// The short run's warm-up is five seconds: the server's heap is
		// still growing to its working size (the SQLite page cache
		// filling, the PDF writer's buffers, each session's seat maps)
		// and the runtime gives memory back lazily, so RSS gets a wide
		// margin; goroutines, counted with the counters paused, a
		// narrower one. What both still catch is a leak per operation:
		// a goroutine or a buffer kept per sale, scan or repaint, over
		// the run's hundreds of operations, grows past them.
		p.goroutineGrowth, p.rssGrowth = 0.15, 0.50
		p.warm, p.bucket, p.settle = p.dur/4, p.dur/4, time.Second
	}
	return p
}

func TestE2E_Soak(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs a server with many SSH sessions")
	}
	plan := soakPlanFromEnv(t)
	t0 := time.Now()
	h := newSoakHouse(t, clitest.Binary(t), plan)
	srv := h.serve()
	t.Logf("built and set up in %s", time.Since(t0).Round(time.Millisecond))
	sessions := h.connect(srv)
	t.Logf("%d sessions connected in %s", len(sessions), time.Since(t0).Round(time.Millisecond))
	led := newSoakLedger()
	start := time.Now()
	res := runSoak(t, plan, h, srv, sessions, led, start)
	for _, s := range sessions {
		s.c.Close()
	}
	srv.stop()
	checkOut := h.cli("", "check")
	h.report(res, led, checkOut)
	h.verifyLedger(led)
	if n := len(res.errs); n > 0 {
		for _, e := range res.errs[:min(n, 5)] {
			t.Errorf("%s", e)
		}
		t.Fatalf("%d operations went wrong (besides the races a counter expects)", n)
	}
	for _, l := range strings.Split(srv.out.String(), "\n") {
		if strings.Contains(l, "level=ERROR") {
			t.Errorf("server logged an error: %s", l)
		}
	}
	res.assertSteady(t, plan)
}

// soakHouse is the data dir and the CLI of one run: the demo cinema with
// one hall, film and show per few dozen sessions, and a member of staff
// with an SSH key per session.
type soakHouse struct {
	t     *testing.T
	bin   string
	dir   string
	data  string
	env   []string
	plan  soakPlan
	shows []soakShow
	staff []soakStaff
}

type soakShow struct {
	id    string
	film  string // a title no other film's contains, to filter the list by
	seats []string
}

type soakStaff struct {
	name   string
	role   string
	signer gossh.Signer
}

// soakRows are a soak hall's rows (no I or O), 30 seats each.
var soakRows = strings.Split("ABCDEFGHJKLMNPQRSTUV", "")

func newSoakHouse(t *testing.T, bin string, plan soakPlan) *soakHouse {
	dir := t.TempDir()
	h := &soakHouse{t: t, bin: bin, dir: dir, data: filepath.Join(dir, "data"), plan: plan}
	// The show starts ten minutes after the run ends: on sale and with its
	// doors open (two hours before) all along, and not yet started, after
	// which a cancel needs a manager.
	starts := plan.dur + 10*time.Minute
	if starts > booking.DoorsOpen {
		t.Fatalf("a soak of %s outlasts the doors' %s before a show", plan.dur, booking.DoorsOpen)
	}
	tz, loc := soakZone(t, starts)
	h.env = append(os.Environ(), "TZ="+tz)
	h.cli("", "init")
	at := time.Now().In(loc).Add(starts).Format("2006-01-02 15:04")
	nShows := max(1, plan.sessions/50)
	var files []string
	for i := range nShows {
		name := fmt.Sprintf("Soak %c", 'A'+i)
		var b strings.Builder
		fmt.Fprintf(&b, "hall: %s\n", name)
		for _, r := range soakRows {
			fmt.Fprintf(&b, "%s | %s..%s\n", r, strings.Repeat("s", 15), strings.Repeat("s", 15))
		}
		f := filepath.Join(dir, fmt.Sprintf("soak-%d.hall", i))
		if err := os.WriteFile(f, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	h.cli("", append([]string{"hall", "add"}, files...)...)
	for i := range nShows {
		film := fmt.Sprintf("Soakfilm %c", 'A'+i)
		m := regexp.MustCompile(`Added film (\d+)`).FindStringSubmatch(h.cli("", "film", "add", film, "--minutes", "300"))
		out := h.cli("", "show", "add", "--film", m[1], "--hall", fmt.Sprintf("Soak %c", 'A'+i), "--at", at, "--sales-close", "1h")
		id := regexp.MustCompile(`Added show (\d+)`).FindStringSubmatch(out)
		if id == nil {
			t.Fatalf("show add: %s", out)
		}
		s := soakShow{id: id[1], film: film}
		for _, r := range soakRows {
			for n := 1; n <= 30; n++ {
				s.seats = append(s.seats, fmt.Sprintf("%s%d", r, n))
			}
		}
		h.shows = append(h.shows, s)
	}
	h.addStaff()
	return h
}

// soakZone is the time zone the run's processes use: UTC, unless the
// show would fall on tomorrow's list there, then one whose day has longer
// to go.
func soakZone(t *testing.T, starts time.Duration) (string, *time.Location) {
	for _, tz := range []string{"UTC", "Etc/GMT-12", "Etc/GMT+12"} {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			continue
		}
		now := time.Now().In(loc)
		if now.Add(starts+10*time.Minute).Day() == now.Day() {
			return tz, loc
		}
	}
	t.Skip("no time zone at hand whose day lasts until the show (install tzdata)")
	return "", nil
}

// addStaff adds one member of staff per session, each with a key: a door
// person in ten, a supervisor in ten, clerks the rest.
func (h *soakHouse) addStaff() {
	h.staff = make([]soakStaff, h.plan.sessions)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i := range h.staff {
		role := "clerk"
		switch i % 10 {
		case 0:
			role = "door"
		case 5:
			role = "supervisor"
		}
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			h.t.Fatal(err)
		}
		signer, err := gossh.NewSignerFromKey(priv)
		if err != nil {
			h.t.Fatal(err)
		}
		st := soakStaff{name: fmt.Sprintf("%s%03d", role, i), role: role, signer: signer}
		h.staff[i] = st
		pub := filepath.Join(h.dir, st.name+".pub")
		if err := os.WriteFile(pub, gossh.MarshalAuthorizedKey(signer.PublicKey()), 0o600); err != nil {
			h.t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			h.cli("1234\n", "staff", "add", st.name, "--role", role, "--key-file", pub)
		}()
	}
	wg.Wait()
}

// supervisor is a supervisor's name, for a clerk's cancel to be approved by.
func (h *soakHouse) supervisor(r *mrand.Rand) string {
	var sups []string
	for _, s := range h.staff {
		if s.role == "supervisor" {
			sups = append(sups, s.name)
		}
	}
	return sups[r.IntN(len(sups))]
}

// cli runs the binary on the data dir and returns its output, failing the
// test when it fails.
func (h *soakHouse) cli(stdin string, args ...string) string {
	cmd := exec.Command(h.bin, append([]string{"--data", h.data}, args...)...)
	cmd.Env, cmd.Stdin = h.env, strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		h.t.Errorf("%v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (h *soakHouse) serve() *serveCmd {
	s := &serveCmd{t: h.t, out: &clitest.SyncBuffer{}, addr: "127.0.0.1:" + freePort(h.t)}
	s.metrics = "http://127.0.0.1:" + freePort(h.t) + "/metrics"
	s.cmd = exec.Command(h.bin, "--data", h.data, "serve", "--listen", s.addr,
		"--metrics", strings.TrimSuffix(strings.TrimPrefix(s.metrics, "http://"), "/metrics"))
	s.cmd.Env, s.cmd.Stdout, s.cmd.Stderr = h.env, s.out, s.out
	if err := s.cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	re := regexp.MustCompile(`Host key (SHA256:\S+)`)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(s.out.String()); m != nil {
			s.fingerprint = m[1]
			return s
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("server did not start:\n%s", s.out.String())
		}
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (s *serveCmd) stop() {
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		s.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			s.t.Fatalf("server exit: %v\n%s", err, s.out.String())
		}
	case <-time.After(30 * time.Second):
		s.t.Fatalf("server did not stop on SIGTERM")
	}
}

// sample reads the server's goroutines (from its metrics) and resident
// memory (from /proc).
func (s *serveCmd) sample() (goroutines, rssKB float64, err error) {
	resp, err := http.Get(s.metrics)
	if err != nil {
		return 0, 0, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, 0, err
	}
	m := regexp.MustCompile(`(?m)^go_goroutines (\S+)$`).FindSubmatch(b)
	if m == nil {
		return 0, 0, fmt.Errorf("no go_goroutines in the metrics")
	}
	goroutines, _ = strconv.ParseFloat(string(m[1]), 64)
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	r := regexp.MustCompile(`(?m)^VmRSS:\s+(\d+) kB`).FindSubmatch(st)
	if r == nil {
		return 0, 0, fmt.Errorf("no VmRSS in /proc/%d/status", s.cmd.Process.Pid)
	}
	rssKB, _ = strconv.ParseFloat(string(r[1]), 64)
	return goroutines, rssKB, nil
}

// cpuSeconds is the server's user and system CPU time so far.
func (s *serveCmd) cpuSeconds() float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	stat := string(b)
	f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ is 100 on Linux
}

// soakSession is one counter.
type soakSession struct {
	i     int
	staff soakStaff
	show  soakShow
	c     *sshclient.Client
	r     *mrand.Rand
	last  string // the door's last result, to tell the next one apart
	// lastOp is what the session did last, for an error's message.
	lastOp string
}

// connect opens every session, a few at a time, each from its own
// loopback address in eight: counters on a network of their own, which
// the server's per-address limits (32 sessions, 2 connections a second)
// are there for.
func (h *soakHouse) connect(srv *serveCmd) []*soakSession {
	ss := make([]*soakSession, len(h.staff))
	errs := make(chan error, len(ss))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, st := range h.staff {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cfg := &gossh.ClientConfig{User: st.name, Auth: []gossh.AuthMethod{gossh.PublicKeys(st.signer)}, Timeout: 30 * time.Second,
				HostKeyCallback: func(_ string, _ net.Addr, key gossh.PublicKey) error {
					if fp := gossh.FingerprintSHA256(key); fp != srv.fingerprint {
						return fmt.Errorf("host key %s, want %s", fp, srv.fingerprint)
					}
					return nil
				}}
			c, err := sshclient.Dial(context.Background(), srv.addr, fmt.Sprintf("127.0.0.%d", 10+i/8), cfg, 120, 40)
			if err != nil && strings.Contains(err.Error(), "assign requested address") {
				errs <- errNoLoopbackAliases
				return
			}
			if err != nil {
				errs <- fmt.Errorf("session %d: %v", i, err)
				return
			}
			s := &soakSession{i: i, staff: st, show: h.shows[i%len(h.shows)], c: c, r: mrand.New(mrand.NewPCG(uint64(i), 15))}
			want := "Free  Sold"
			if st.role == "door" {
				want = "Door · scan a ticket"
			}
			if !c.WaitFor(60*time.Second, func(s string) bool { return strings.Contains(s, want) }) {
				errs <- fmt.Errorf("session %d (%s) never showed %q:\n%s", i, st.name, want, c.Scr.Text())
				return
			}
			ss[i] = s
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err == errNoLoopbackAliases {
			h.t.Skip(err)
		}
		h.t.Fatal(err)
	}
	return ss
}

// errNoLoopbackAliases is a system that answers only on 127.0.0.1 (Linux
// answers on all of 127/8).
var errNoLoopbackAliases = fmt.Errorf("this system has no loopback addresses besides 127.0.0.1 for the sessions to come from")

// soakTicket is a ticket a clerk read off the done screen.
type soakTicket struct{ number, seat, code string }

// soakLedger is what the clients were told: bookings sold, cancelled,
// tickets admitted. The database must say the same afterwards.
type soakLedger struct {
	mu        sync.Mutex
	live      [][]soakTicket // sold bookings nobody has picked to cancel
	unscanned []soakTicket
	sold      map[string]bool
	cancelled map[string]bool
	admitted  map[string]bool // number + " " + seat
}

func newSoakLedger() *soakLedger {
	return &soakLedger{sold: map[string]bool{}, cancelled: map[string]bool{}, admitted: map[string]bool{}}
}

// addSale makes a sold booking's tickets the door's to scan and the
// counters' to cancel (it is marked sold as soon as a clerk sees it).
func (l *soakLedger) addSale(tickets []soakTicket) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.live = append(l.live, tickets)
	l.unscanned = append(l.unscanned, tickets...)
}

// takeLive picks a sold booking to cancel, or nil.
func (l *soakLedger) takeLive(r *mrand.Rand) []soakTicket {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.live) == 0 {
		return nil
	}
	i := r.IntN(len(l.live))
	b := l.live[i]
	l.live[i] = l.live[len(l.live)-1]
	l.live = l.live[:len(l.live)-1]
	return b
}

// takeTicket picks a ticket nobody has scanned whose seat is not notSeat
// (so the door's next result reads differently from its last), or false.
func (l *soakLedger) takeTicket(r *mrand.Rand, notSeat string) (soakTicket, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for range 4 {
		if len(l.unscanned) == 0 {
			break
		}
		i := r.IntN(len(l.unscanned))
		if tk := l.unscanned[i]; tk.seat != notSeat {
			l.unscanned[i] = l.unscanned[len(l.unscanned)-1]
			l.unscanned = l.unscanned[:len(l.unscanned)-1]
			return tk, true
		}
	}
	return soakTicket{}, false
}

func (l *soakLedger) mark(set map[string]bool, key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	set[key] = true
}

// soakStats counts operations by kind and outcome, keeps the errors, and
// the sale latencies per bucket of time since the start.
type soakStats struct {
	mu     sync.Mutex
	start  time.Time
	bucket time.Duration
	counts map[string]int
	errs   []string
	kinds  map[string]int // the errors, told apart by their words alone
	lat    map[int][]time.Duration
}

func (st *soakStats) count(kind string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.counts[kind]++
}

func (st *soakStats) sale(d time.Duration, at time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	b := int(at.Sub(st.start) / st.bucket)
	st.lat[b] = append(st.lat[b], d)
}

func (st *soakStats) fail(s *soakSession, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.errs = append(st.errs, fmt.Sprintf("session %d (%s), %s: %v\n%s", s.i, s.staff.name, s.lastOp, err, s.c.Scr.Text()))
	// Told apart by the error and what the screen's status line said.
	kind := err.Error()
	if status := s.status(); strings.HasPrefix(strings.TrimSpace(status), "! ") {
		kind += "; the screen said " + strings.TrimSpace(status)
	}
	st.kinds[regexp.MustCompile(`BO-\w+|\b[A-V]\d+\b`).ReplaceAllString(kind, "…")]++
}

// wait waits up to a generous time (the machine is loaded on purpose) for
// every one of texts on the screen.
func (s *soakSession) wait(texts ...string) error {
	_, err := s.waitAny([][]string{texts})
	return err
}

// waitAny waits for the first of several screens, each a set of texts
// that must all show, and returns which.
func (s *soakSession) waitAny(alts [][]string) (int, error) {
	got := -1
	ok := s.c.WaitFor(60*time.Second, func(scr string) bool {
		for i, texts := range alts {
			all := true
			for _, t := range texts {
				all = all && strings.Contains(scr, t)
			}
			if all {
				got = i
				return true
			}
		}
		return false
	})
	if !ok {
		return -1, fmt.Errorf("screen never showed any of %q", alts)
	}
	return got, nil
}

func (s *soakSession) send(keys string) error { return s.c.Send(keys) }

// status is the screen's status line, above the key hints.
func (s *soakSession) status() string {
	lines := strings.Split(strings.TrimRight(s.c.Scr.Text(), "\n"), "\n")
	if len(lines) < 2 {
		return ""
	}
	return lines[len(lines)-2]
}

var holdRE = regexp.MustCompile(`hold \d+:\d\d`)

// full is how full the seat map on screen says the show is, 0 to 1.
func (s *soakSession) full() float64 {
	m := freeRE.FindStringSubmatch(s.c.Scr.Text())
	if m == nil {
		return 0
	}
	free, _ := strconv.Atoi(m[1])
	all, _ := strconv.Atoi(m[2])
	return 1 - float64(free)/float64(max(all, 1))
}

// openShow goes from the shows list to the session's show's seat map,
// filtering the list by its film.
func (s *soakSession) openShow() error {
	if err := s.wait("Free  Sold"); err != nil {
		return err
	}
	want := "filter: " + s.show.film + "_"
	if !strings.Contains(s.c.Scr.Text(), want) {
		if strings.Contains(s.c.Scr.Text(), "filter: ") {
			s.send("\x1b") // esc clears the filter
			if err := s.wait("type to filter"); err != nil {
				return err
			}
		}
		s.send(s.show.film)
		if err := s.wait(want); err != nil {
			return err
		}
	}
	if err := s.wait(want, "  "+s.show.film+" "); err != nil {
		return err
	}
	s.send("\r")
	return s.wait("SCREEN", s.show.film+" · ", "free ")
}

// selling is a clerk's or supervisor's loop: from the seat map with
// nothing held, one operation, back to the seat map with nothing held.
func (s *soakSession) selling(h *soakHouse, led *soakLedger, st *soakStats) error {
	if holdRE.MatchString(s.c.Scr.Text()) {
		return fmt.Errorf("seats still held after %s", s.lastOp)
	}
	x := s.r.Float64()
	switch {
	case s.full() > 0.5 && x < 0.6, x >= 0.9:
		return s.cancel(h, led, st)
	case x < 0.45:
		return s.sell(led, st)
	case x < 0.65:
		return s.holdRelease(st)
	default:
		return s.goTo(st)
	}
}

// holdBest holds the best n seats; false when the show has no n left.
func (s *soakSession) holdBest(n int) (bool, error) {
	s.send(strconv.Itoa(n) + "b")
	i, err := s.waitAny([][]string{{fmt.Sprintf("Holding %d: ", n)}, {"! This show is sold out."}, {"! Only "}, {"! No "}})
	return i == 0, err
}

func (s *soakSession) releaseAll() error {
	s.send("x")
	if err := s.wait("y yes, release"); err != nil {
		return err
	}
	s.send("y")
	return s.wait("Released ")
}

func (s *soakSession) holdRelease(st *soakStats) error {
	n := 1 + s.r.IntN(3)
	s.lastOp = fmt.Sprintf("hold best %d and release", n)
	ok, err := s.holdBest(n)
	if err != nil || !ok {
		st.count("hold refused: sold out")
		return err
	}
	st.count("hold (best), released")
	return s.releaseAll()
}

// goTo holds a seat by its label, as a customer asks for one, and lets it
// go; another counter may have it already, which is the race a counter
// expects.
func (s *soakSession) goTo(st *soakStats) error {
	seat := s.show.seats[s.r.IntN(len(s.show.seats))]
	if strings.Contains(s.status(), seat+" ") || strings.Contains(s.status(), seat+".") {
		return nil // the same status line again would not tell this try apart
	}
	s.lastOp = "go to " + seat + " after status " + strconv.Quote(s.status())
	s.send("/")
	if err := s.wait("Go to seat"); err != nil {
		return err
	}
	s.send(seat + "\r")
	i, err := s.waitAny([][]string{{"Holding 1: " + seat}, {"! " + seat + " is sold."}, {seat + " is held at another counter"}, {seat + " was just taken"},
		{"would be left as a single seat", "anyway (logged)"}})
	switch {
	case err != nil:
		return err
	case i == 0:
		st.count("hold (seat), released")
		return s.releaseAll()
	case i == 3:
		s.lastOp += ", just taken"
		st.count("hold (seat) refused: just taken")
		s.send("\x1b") // choose again
		return s.waitGone(seat + " was just taken")
	case i == 4:
		// The seat alone would strand its neighbour: the single-seat
		// rule's banner, and esc chooses again.
		s.lastOp += ", leaves a single"
		st.count("hold (seat) refused: leaves a single")
		s.send("\x1b")
		return s.waitGone("anyway (logged)")
	}
	s.lastOp += fmt.Sprintf(", refused (%d)", i)
	st.count("hold (seat) refused: taken")
	return nil
}

func (s *soakSession) waitGone(text string) error {
	if !s.c.WaitFor(60*time.Second, func(scr string) bool { return !strings.Contains(scr, text) }) {
		return fmt.Errorf("%q stayed on the screen", text)
	}
	return nil
}

var (
	soldRE = regexp.MustCompile(`Sold (BO-\S+)`)
	codeRE = regexp.MustCompile(`\b[A-Z2-7]{24,}\b`)
)

// sell holds the best one to three seats and sells them for exact cash,
// timing the keys that confirm to the frame that says Sold; reads the
// booking number and the tickets' codes off the done screen; and comes
// back to the show through the next sale.
func (s *soakSession) sell(led *soakLedger, st *soakStats) error {
	n := 1 + s.r.IntN(3)
	s.lastOp = fmt.Sprintf("sell %d", n)
	ok, err := s.holdBest(n)
	if err != nil || !ok {
		st.count("hold refused: sold out")
		return err
	}
	s.send("\r")
	if err := s.wait("Checkout ·", "[ Sell "); err != nil {
		return err
	}
	t0 := time.Now()
	s.send("\r\r") // Tendered (empty: exact money) to Sell, and sell
	i, err := s.waitAny([][]string{{"Sold BO-"}, {"Open a shift first"}})
	if err != nil {
		return err
	}
	if i == 1 { // the first cash sale of this person: open the shift
		s.send("100\r")
		if err := s.wait("Sold BO-"); err != nil {
			return err
		}
	} else {
		st.sale(time.Since(t0), t0)
	}
	tickets, err := s.readTickets(n)
	if err != nil {
		return err
	}
	led.mark(led.sold, tickets[0].number)
	// The tickets' PDF is written after the sale, and its line would
	// take the place of the next screen's status: wait for it here. Only
	// then are the tickets in the customer's hand, for the door to scan
	// or a counter to cancel (a ticket let in before it is printed is not
	// printed at all).
	if err := s.wait("Tickets of " + tickets[0].number + " saved as PDF"); err != nil {
		return err
	}
	led.addSale(tickets)
	st.count("sale")
	s.send("\r") // next sale
	return s.openShow()
}

// readTickets reads the booking number, seats and codes of the done
// screen: a caption per ticket ("B13 adult"), its code under it.
func (s *soakSession) readTickets(n int) ([]soakTicket, error) {
	var tickets []soakTicket
	ok := s.c.WaitFor(60*time.Second, func(scr string) bool {
		tickets = tickets[:0]
		m := soldRE.FindStringSubmatch(scr)
		lines := strings.Split(scr, "\n")
		for i, l := range lines {
			if m == nil || !strings.HasPrefix(l, "Seats ") || i+2 >= len(lines) {
				continue
			}
			seats := strings.Fields(strings.TrimPrefix(strings.Split(l, "   Total")[0], "Seats "))
			codes := codeRE.FindAllString(lines[i+2], -1)
			if len(seats) != n || len(codes) != n {
				return false
			}
			for j := range seats {
				tickets = append(tickets, soakTicket{number: m[1], seat: seats[j], code: codes[j]})
			}
			return true
		}
		return false
	})
	if !ok {
		return nil, fmt.Errorf("no %d tickets with codes on the done screen", n)
	}
	return tickets, nil
}

// cancel finds a booking sold earlier (by any counter) and cancels it: a
// supervisor by themself, a clerk with a supervisor's name and PIN typed
// at the clerk's counter. The door may have let one of its tickets in
// first, which refuses the cancel: the race a cinema expects.
func (s *soakSession) cancel(h *soakHouse, led *soakLedger, st *soakStats) error {
	b := led.takeLive(s.r)
	if b == nil {
		return s.sell(led, st)
	}
	number := b[0].number
	s.lastOp = "cancel " + number + " after " + s.lastOp
	s.send("\x06") // ctrl+f
	if err := s.wait("Find a booking"); err != nil {
		return err
	}
	s.send(number + "\r")
	if err := s.wait("Booking   "+number, "tab work on this booking"); err != nil {
		return err
	}
	s.send("\t") // into the booking: its letters are keys now
	if err := s.wait("c cancel/refund"); err != nil {
		return err
	}
	s.send("c")
	if s.staff.role == "supervisor" {
		if err := s.wait("Reason"); err != nil {
			return err
		}
		s.send("soak\r")
	} else {
		if err := s.wait("A supervisor approves"); err != nil {
			return err
		}
		s.send("soak\r")
		s.send(h.supervisor(s.r) + "\r")
		s.send("1234\r")
	}
	if err := s.wait("[ No, keep the booking ]"); err != nil {
		return err
	}
	s.send("\x1b[C\r") // → Yes, enter
	i, err := s.waitAny([][]string{{"Cancelled " + number}, {"already admitted; it cannot be cancelled"}, {"Open a shift first"}})
	if err == nil && i == 2 { // the first cash refund of this person: open the shift
		s.send("100\r")
		i, err = s.waitAny([][]string{{"Cancelled " + number}, {"already admitted; it cannot be cancelled"}})
	}
	if err != nil {
		return err
	}
	if i == 0 {
		led.mark(led.cancelled, number)
		st.count("cancel")
	} else {
		st.count("cancel refused: a ticket was admitted")
	}
	return s.backToMap()
}

// backToMap leaves the booking for the seat map it was opened from: esc
// goes from the booking to the search, and from there back; should a
// stray esc reach the seat map and take it to the shows list, the show is
// opened again.
func (s *soakSession) backToMap() error {
	onMap := func(scr string) bool {
		return strings.Contains(scr, "SCREEN") && strings.Contains(scr, s.show.film+" · ")
	}
	for range 10 {
		before := s.c.Scr.Text()
		switch {
		case onMap(before):
			return nil
		case strings.Contains(before, "Free  Sold"):
			return s.openShow()
		}
		// The find screen ignores keys while it is busy: when an esc
		// changes nothing, the next one goes after a pause.
		s.send("\x1b")
		s.c.WaitFor(5*time.Second, func(scr string) bool { return scr != before })
		time.Sleep(100 * time.Millisecond)
	}
	return s.wait("SCREEN", s.show.film+" · ")
}

var admittedRE = regexp.MustCompile(`(\d+) admitted here`)

// door scans a ticket sold earlier at some counter: it is let in, or, if
// its booking was cancelled first, refused as cancelled.
func (s *soakSession) door(led *soakLedger, st *soakStats) error {
	tk, ok := led.takeTicket(s.r, s.last)
	if !ok {
		time.Sleep(200 * time.Millisecond)
		return nil
	}
	before := -1
	if m := admittedRE.FindStringSubmatch(s.c.Scr.Text()); m != nil {
		before, _ = strconv.Atoi(m[1])
	}
	s.last = tk.seat
	s.send(tk.code + "\r")
	var result string
	ok = s.c.WaitFor(60*time.Second, func(scr string) bool {
		m := admittedRE.FindStringSubmatch(scr)
		_, rest, _ := strings.Cut(scr, "Code ")
		switch {
		case strings.Contains(rest, "✔ ADMIT") && m != nil && m[1] == strconv.Itoa(before+1):
			result = "admit"
		case strings.Contains(rest, "DO NOT ADMIT") && strings.Contains(rest, tk.seat+" "):
			result = rest
		default:
			return false
		}
		return true
	})
	switch {
	case !ok:
		return fmt.Errorf("no answer to the scan of %s (%s %s)", tk.code, tk.number, tk.seat)
	case result == "admit":
		if !strings.Contains(s.c.Scr.Text(), "Booking "+tk.number) {
			return fmt.Errorf("admitted, but not %s %s", tk.number, tk.seat)
		}
		led.mark(led.admitted, tk.number+" "+tk.seat)
		st.count("door: admitted")
	case strings.Contains(result, "was cancelled and refunded"):
		st.count("door: refused, cancelled")
	default:
		return fmt.Errorf("the door refused %s %s: %s", tk.number, tk.seat, strings.TrimSpace(result))
	}
	return nil
}

// loop runs one session's operations until ctx ends, each after a pause
// a clerk serving a customer would take. The pause grows with the number
// of counters, so the offered load stays near a dozen operations a second
// whatever the run's size: inside what one server answers on two busy
// shared cores (about 20 a second at 0.6 of a core, measured), so the run
// shows whether it stays steady, not how a queue grows past saturation.
// After an error (which fails the test, with its screen) the session finds
// its way home and goes on, so one fault does not end the soak's load.
func (s *soakSession) loop(ctx context.Context, h *soakHouse, led *soakLedger, st *soakStats, gate *sync.RWMutex) {
	door := s.staff.role == "door"
	if !door {
		if err := s.openShow(); err != nil {
			st.fail(s, err)
			return
		}
	}
	think := time.Duration(len(h.staff)) * 75 * time.Millisecond
	for ctx.Err() == nil {
		var err error
		gate.RLock()
		if door {
			err = s.door(led, st)
		} else {
			err = s.selling(h, led, st)
		}
		if err != nil {
			st.fail(s, err)
			if err := s.home(door); err != nil {
				st.fail(s, fmt.Errorf("lost its way: %v", err))
				gate.RUnlock()
				return
			}
		}
		gate.RUnlock()
		time.Sleep(think/2 + time.Duration(s.r.Int64N(int64(think))))
	}
}

// home brings a session that went wrong back to where its operations
// start: the door's screen, or its show's seat map with nothing held.
func (s *soakSession) home(door bool) error {
	for range 12 {
		scr := s.c.Scr.Text()
		switch {
		case door && strings.Contains(scr, "Door · scan a ticket") && !strings.Contains(scr, "Checking"):
			return nil
		case !door && strings.Contains(scr, "k keep them and go"):
			s.send("y") // release the seats first
		case !door && strings.Contains(scr, "SCREEN") && holdRE.MatchString(scr):
			s.send("x")
			s.c.WaitFor(5*time.Second, func(scr string) bool { return strings.Contains(scr, "y yes, release") })
			s.send("y")
		case !door && strings.Contains(scr, "SCREEN") && strings.Contains(scr, s.show.film+" · "):
			return nil
		case !door && strings.Contains(scr, "Free  Sold"):
			return s.openShow()
		default:
			s.send("\x1b")
		}
		s.c.WaitFor(5*time.Second, func(now string) bool { return now != scr })
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("not home after a dozen tries")
}

// soakResult is one run's figures.
type soakResult struct {
	st                   *soakStats
	errs                 []string
	warm, end            [][2]float64 // goroutines, RSS kB
	load                 []float64    // the 1-minute load average, every 5 s
	serverCPU, clientCPU float64      // seconds
	wall                 time.Duration
}

func runSoak(t *testing.T, plan soakPlan, h *soakHouse, srv *serveCmd, ss []*soakSession, led *soakLedger, start time.Time) *soakResult {
	st := &soakStats{start: start, bucket: plan.bucket, counts: map[string]int{}, kinds: map[string]int{}, lat: map[int][]time.Duration{}}
	res := &soakResult{st: st}
	ctx, cancel := context.WithDeadline(context.Background(), start.Add(plan.dur))
	defer cancel()
	cpu0, client0 := srv.cpuSeconds(), processCPU()
	// The figures are read with the counters paused: every operation
	// under way finishes (an operation holds gate's read lock), none
	// starts, and the server settles, so the warm-up's and the end's
	// counts compare the same idle sessions, not whatever was in flight.
	var gate sync.RWMutex
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.loop(ctx, h, led, st, &gate)
		}()
	}
	samples := func() [][2]float64 {
		gate.Lock()
		defer gate.Unlock()
		time.Sleep(plan.settle)
		var out [][2]float64
		for range 5 {
			g, rss, err := srv.sample()
			if err != nil {
				t.Errorf("sample: %v", err)
				return nil
			}
			out = append(out, [2]float64{g, rss})
			time.Sleep(plan.settle / 4)
		}
		return out
	}
	var sw sync.WaitGroup
	sw.Add(1)
	go func() {
		defer sw.Done()
		time.Sleep(time.Until(start.Add(plan.warm)))
		res.warm = samples()
	}()
	for tick := time.NewTicker(5 * time.Second); ctx.Err() == nil; {
		select {
		case <-tick.C:
			res.load = append(res.load, loadAverage())
		case <-ctx.Done():
		}
	}
	wg.Wait()
	t.Logf("sessions stopped %s after the deadline", time.Since(start.Add(plan.dur)).Round(time.Millisecond))
	sw.Wait()
	res.end = samples()
	res.wall = time.Since(start)
	res.serverCPU, res.clientCPU = srv.cpuSeconds()-cpu0, processCPU()-client0
	st.mu.Lock()
	res.errs = st.errs
	st.mu.Unlock()
	return res
}

func loadAverage() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// processCPU is this test process's user and system CPU time (the
// clients: SSH, the screens' emulation).
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// median is the median of column i of samples.
func median(samples [][2]float64, i int) float64 {
	var v []float64
	for _, s := range samples {
		v = append(v, s[i])
	}
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// p99 is the 99th percentile of d (nearest rank), and the count.
func p99(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	d = slices.Clone(d)
	slices.Sort(d)
	return d[min(len(d)-1, (len(d)*99+99)/100-1)]
}

// firstLast are the sale latencies of the first and the last full bucket.
func (st *soakStats) firstLast(plan soakPlan) (first, last []time.Duration) {
	st.mu.Lock()
	defer st.mu.Unlock()
	n := int(plan.dur/plan.bucket) - 1
	return st.lat[0], st.lat[n]
}

// assertSteady holds the end's goroutines and RSS to the warm-up's and,
// in the long run, the last minute's p99 sale to the first's.
func (res *soakResult) assertSteady(t *testing.T, plan soakPlan) {
	for i, what := range []string{"goroutines", "RSS (kB)"} {
		margin := []float64{plan.goroutineGrowth, plan.rssGrowth}[i]
		w, e := median(res.warm, i), median(res.end, i)
		if w == 0 || e > w*(1+margin) || e < w*(1-margin) {
			t.Errorf("%s: %.0f after warm-up, %.0f at the end: more than %.0f %% apart (samples %v, %v)", what, w, e, 100*margin, res.warm, res.end)
		}
	}
	first, last := res.st.firstLast(plan)
	if len(first) == 0 || len(last) == 0 {
		t.Errorf("no sales timed in the first or the last %s", plan.bucket)
		return
	}
	if plan.long && p99(last) > p99(first)*12/10 {
		t.Errorf("p99 of a sale: %s in the last %s, %s in the first: more than 20 %% slower", p99(last), plan.bucket, p99(first))
	}
}

// report logs the run's figures, the check's words among them.
func (h *soakHouse) report(res *soakResult, led *soakLedger, check string) {
	if !strings.Contains(check, "Invariants: every one holds") || !strings.Contains(check, "SQLite integrity: ok") {
		h.t.Errorf("boxoffice check:\n%s", check)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "soak: %d sessions for %s (%d shows), %d errors\n", h.plan.sessions, h.plan.dur, len(h.shows), len(res.errs))
	res.st.mu.Lock()
	kinds := slices.Sorted(maps.Keys(res.st.counts))
	total := 0
	for _, k := range kinds {
		fmt.Fprintf(&b, "  %-40s %7d\n", k, res.st.counts[k])
		total += res.st.counts[k]
	}
	res.st.mu.Unlock()
	fmt.Fprintf(&b, "  %-40s %7d (%.1f a second)\n", "operations", total, float64(total)/h.plan.dur.Seconds())
	res.st.mu.Lock()
	for _, k := range slices.Sorted(maps.Keys(res.st.kinds)) {
		fmt.Fprintf(&b, "  error ×%d: %s\n", res.st.kinds[k], k)
	}
	res.st.mu.Unlock()
	fmt.Fprintf(&b, "goroutines: %.0f after warm-up, %.0f at the end (medians of %v and %v)\n", median(res.warm, 0), median(res.end, 0), res.warm, res.end)
	fmt.Fprintf(&b, "RSS: %.1f MB after warm-up, %.1f MB at the end\n", median(res.warm, 1)/1024, median(res.end, 1)/1024)
	first, last := res.st.firstLast(h.plan)
	fmt.Fprintf(&b, "sale, confirm to Sold: p99 %s over %d in the first %s, p99 %s over %d in the last\n", p99(first), len(first), h.plan.bucket, p99(last), len(last))
	res.st.mu.Lock()
	for _, k := range slices.Sorted(maps.Keys(res.st.lat)) {
		d := slices.Clone(res.st.lat[k])
		slices.Sort(d)
		fmt.Fprintf(&b, "  sales from %s: %4d, p50 %s, p99 %s\n", time.Duration(k)*h.plan.bucket, len(d), d[len(d)/2].Round(time.Millisecond), p99(d).Round(time.Millisecond))
	}
	res.st.mu.Unlock()
	var loadMax, loadSum float64
	for _, l := range res.load {
		loadMax, loadSum = max(loadMax, l), loadSum+l
	}
	fmt.Fprintf(&b, "machine: %d cores; load average mean %.1f, max %.1f; server CPU %.0f s and clients' %.0f s over %.0f s (%.2f and %.2f cores)\n",
		runtime.NumCPU(), loadSum/float64(max(len(res.load), 1)), loadMax, res.serverCPU, res.clientCPU, res.wall.Seconds(), res.serverCPU/res.wall.Seconds(), res.clientCPU/res.wall.Seconds())
	led.mu.Lock()
	fmt.Fprintf(&b, "ledger: %d bookings sold, %d cancelled, %d tickets admitted\n", len(led.sold), len(led.cancelled), len(led.admitted))
	led.mu.Unlock()
	fmt.Fprintf(&b, "check: %s", strings.TrimSpace(check))
	h.t.Log(b.String())
}

// verifyLedger holds the database to what the clients were told: every
// booking a client saw sold is there and no other, cancelled exactly when
// a client saw it cancelled, and the tickets admitted are the ones a door
// saw let in.
func (h *soakHouse) verifyLedger(led *soakLedger) {
	d, err := sql.Open("sqlite", "file:"+filepath.Join(h.data, "boxoffice.db")+"?mode=ro")
	if err != nil {
		h.t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.Query(`SELECT number, status FROM bookings`)
	if err != nil {
		h.t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var number, status string
		rows.Scan(&number, &status)
		n++
		if !led.sold[number] {
			h.t.Errorf("booking %s is in the database, but no client was told it was sold", number)
		}
		if (status == "cancelled") != led.cancelled[number] {
			h.t.Errorf("booking %s is %s; cancelled as a client was told: %v", number, status, led.cancelled[number])
		}
	}
	rows.Close()
	if n != len(led.sold) {
		h.t.Errorf("%d bookings in the database, %d sold as the clients were told", n, len(led.sold))
	}
	rows, err = d.Query(`SELECT b.number || ' ' || s.label FROM tickets t JOIN bookings b ON b.id = t.booking_id JOIN seats s ON s.id = t.seat_id WHERE t.status = 'admitted'`)
	if err != nil {
		h.t.Fatal(err)
	}
	defer rows.Close()
	admitted := 0
	for rows.Next() {
		var k string
		rows.Scan(&k)
		admitted++
		if !led.admitted[k] {
			h.t.Errorf("ticket %s is admitted, but no door let it in", k)
		}
	}
	if admitted != len(led.admitted) {
		h.t.Errorf("%d tickets admitted in the database, %d let in at the doors", admitted, len(led.admitted))
	}
}
