package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"boxoffice/internal/sshclient"
	"boxoffice/tui/server"
)

// BenchmarkServer_IdleSessionRSS is what an idle SSH session costs the
// server. The server runs in this process; the counters are opened on its
// demo cinema from a child process (this test binary again, see
// TestBenchClientsProcess), signed in and each on a seat map, spread over
// loopback addresses, so that whatever this process holds is the server's.
// With the sessions open it reports, per session, the live heap after a
// GC, the goroutine stacks, the resident memory (VmRSS, after the GC and
// returning freed memory to the OS) and the goroutines; then it closes
// them and reports what the heap kept of them. It does that twice (two
// rounds), so a leak shows as a heap that does not come back. The figures
// are for the second round.
//
//	go test -run '^$' -bench IdleSessionRSS -benchtime 1x ./tui/server/
//
// opens 100 sessions from 10 addresses (127.0.0.2 to 127.0.0.11, all
// loopback on Linux), at 80×24 and at 120×40. BOXOFFICE_BENCH_SESSIONS,
// BOXOFFICE_BENCH_ADDRS and BOXOFFICE_BENCH_SIZES (120x40,500x300 …)
// change those; BOXOFFICE_BENCH_HEAPPROFILE=dir writes heap profiles of
// the second round, before the sessions, with them open and after they
// closed, to compare with go tool pprof -sample_index=inuse_space -base.
func BenchmarkServer_IdleSessionRSS(b *testing.B) {
	n := benchEnvInt(b, "BOXOFFICE_BENCH_SESSIONS", 100, 1, 250)
	addrs := benchEnvInt(b, "BOXOFFICE_BENCH_ADDRS", 10, 1, 200)
	sizes := "80x24,120x40"
	if v := os.Getenv("BOXOFFICE_BENCH_SIZES"); v != "" {
		sizes = v
	}
	for size := range strings.SplitSeq(sizes, ",") {
		var w, h int
		if _, err := fmt.Sscanf(size, "%dx%d", &w, &h); err != nil || w < 80 || h < 24 || w > 1000 || h > 1000 {
			b.Fatalf("BOXOFFICE_BENCH_SIZES: %q is not a size from 80x24 to 1000x1000", size)
		}
		b.Run(fmt.Sprintf("%dx%d", w, h), func(b *testing.B) {
			benchIdle(b, n, addrs, w, h)
		})
	}
}

func benchEnvInt(tb testing.TB, name string, def, lo, hi int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		tb.Fatalf("%s=%q: want %d to %d", name, v, lo, hi)
	}
	return n
}

// footprint is what the process holds at one moment, after a GC.
type footprint struct {
	heap, stack, rss uint64
	goroutines       int
}

// settled waits for the goroutines to settle (a session's last handlers
// return a moment after its client has gone), collects garbage, returns
// what it freed to the OS and measures.
func settled(tb testing.TB) footprint {
	tb.Helper()
	for last, deadline := -1, time.Now().Add(5*time.Second); time.Now().Before(deadline); {
		g := runtime.NumGoroutine()
		if g == last {
			break
		}
		last = g
		time.Sleep(200 * time.Millisecond)
	}
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return footprint{heap: ms.HeapAlloc, stack: ms.StackInuse, rss: selfRSS(tb), goroutines: runtime.NumGoroutine()}
}

// selfRSS is this process's VmRSS in bytes.
func selfRSS(tb testing.TB) uint64 {
	tb.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	tb.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// perSession is (after − before) / n in KiB; negative when memory went
// down.
func perSession(after, before uint64, n int) float64 {
	return (float64(after) - float64(before)) / float64(n) / 1024
}

func benchIdle(b *testing.B, n, addrs, w, h int) {
	profiles := os.Getenv("BOXOFFICE_BENCH_HEAPPROFILE")
	if profiles != "" {
		// A sample every 4 KiB rather than 512: a session's few hundred
		// KiB show up piece by piece.
		defer func(rate int) { runtime.MemProfileRate = rate }(runtime.MemProfileRate)
		runtime.MemProfileRate = 4 << 10
	}
	dir := b.TempDir()
	store, _ := openDemo(b, dir)
	defer store.Close()
	// No grace for dropped sessions: each round's sessions start afresh
	// rather than take over the last round's, and what the heap keeps
	// after a round is what nothing should keep.
	srv, addr := serveBench(b, dir, store, func(c *server.Config) { c.HoldGrace = -1 })
	defer shutdownBench(b, srv)
	clients := startBenchClients(b, dir, addr, w, h)
	defer clients.stop()

	// Warm up on 127.0.0.1: the first sessions load the hall, the
	// programme and the prices into the store's caches and grow its pools.
	const warm = 4
	clients.do("open 127.0.0.1 %d", warm)
	var open, base, closed footprint
	for round := 1; round <= 2; round++ {
		base = settled(b)
		if profiles != "" && round == 2 {
			writeHeapProfile(b, filepath.Join(profiles, fmt.Sprintf("idle-%dx%d-before.pprof", w, h)))
		}
		clients.do("open %s %d", benchAddrs(addrs), n)
		if got := srv.Sessions(); got != warm+n {
			b.Fatalf("%d sessions open, want %d", got, warm+n)
		}
		open = settled(b)
		if profiles != "" && round == 2 {
			writeHeapProfile(b, filepath.Join(profiles, fmt.Sprintf("idle-%dx%d-open.pprof", w, h)))
		}
		clients.do("close %d", n)
		waitSessions(b, srv, warm)
		closed = settled(b)
		if profiles != "" && round == 2 {
			writeHeapProfile(b, filepath.Join(profiles, fmt.Sprintf("idle-%dx%d-closed.pprof", w, h)))
		}
		b.Logf("round %d: %d sessions at %d×%d from %d addresses: heap %.1f → %.1f → %.1f MiB, RSS %.1f → %.1f → %.1f MiB, %d → %d → %d goroutines",
			round, n, w, h, addrs, mib(base.heap), mib(open.heap), mib(closed.heap), mib(base.rss), mib(open.rss), mib(closed.rss),
			base.goroutines, open.goroutines, closed.goroutines)
	}
	b.ReportMetric(perSession(open.heap, base.heap, n), "KiB-heap/session")
	b.ReportMetric(perSession(open.stack, base.stack, n), "KiB-stack/session")
	b.ReportMetric(perSession(open.rss, base.rss, n), "KiB-RSS/session")
	b.ReportMetric(float64(open.goroutines-base.goroutines)/float64(n), "goroutines/session")
	b.ReportMetric(perSession(closed.heap, base.heap, n), "KiB-heap-kept/session")
	b.ReportMetric(mib(base.rss), "MiB-RSS-base")
	b.ReportMetric(0, "ns/op")
}

func mib(v uint64) float64 { return float64(v) / (1 << 20) }

// benchAddrs lists n loopback addresses from 127.0.0.2, comma-separated.
func benchAddrs(n int) string {
	as := make([]string, n)
	for i := range as {
		as[i] = fmt.Sprintf("127.0.%d.%d", (i+2)/256, (i+2)%256)
	}
	return strings.Join(as, ",")
}

func writeHeapProfile(tb testing.TB, path string) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("heap profile: %s", path)
}

// waitSessions waits until the server has want sessions open and their
// handlers have returned.
func waitSessions(tb testing.TB, srv *server.Server, want int) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for srv.Sessions() != want {
		if time.Now().After(deadline) {
			tb.Fatalf("%d sessions open, want %d", srv.Sessions(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// benchClients is the child process that holds the benchmark's counters.
type benchClients struct {
	tb    testing.TB
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
}

func startBenchClients(tb testing.TB, dir, addr string, w, h int) *benchClients {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestBenchClientsProcess$")
	cmd.Env = append(os.Environ(), "BOXOFFICE_BENCH_CLIENTS="+strings.Join([]string{addr, filepath.Join(dir, benchKeyFile), strconv.Itoa(w), strconv.Itoa(h)}, " "))
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	c := &benchClients{tb: tb, cmd: cmd, in: in, lines: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	return c
}

// do sends the child a command and waits for its "ok".
func (c *benchClients) do(format string, args ...any) {
	c.tb.Helper()
	line := fmt.Sprintf(format, args...)
	if _, err := fmt.Fprintln(c.in, line); err != nil {
		c.tb.Fatalf("%s: %v", line, err)
	}
	for l := range c.lines {
		switch {
		case l == "ok":
			return
		case strings.HasPrefix(l, "skip "):
			c.tb.Skip(strings.TrimPrefix(l, "skip "))
		case strings.HasPrefix(l, "error "):
			c.tb.Fatalf("%s: %s", line, strings.TrimPrefix(l, "error "))
		}
	}
	c.tb.Fatalf("%s: the client process ended", line)
}

func (c *benchClients) stop() {
	c.in.Close()
	_ = c.cmd.Wait()
}

// TestBenchClientsProcess is the client half of
// BenchmarkServer_IdleSessionRSS, run by it in a child process; it is
// skipped otherwise. It reads commands on stdin, answering each with "ok"
// (or "error …", "skip …"):
//
//	open ADDR[,ADDR…] N  open N counters from the addresses in turn, each on a seat map
//	close N              close the N opened last
func TestBenchClientsProcess(t *testing.T) {
	env := strings.Fields(os.Getenv("BOXOFFICE_BENCH_CLIENTS"))
	if len(env) != 4 {
		t.Skip("only run by BenchmarkServer_IdleSessionRSS")
	}
	addr := env[0]
	pemBytes, err := os.ReadFile(env[1])
	if err != nil {
		t.Fatal(err)
	}
	key, err := gossh.ParsePrivateKey(pemBytes)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := strconv.Atoi(env[2])
	h, _ := strconv.Atoi(env[3])
	cfg := &gossh.ClientConfig{
		User: "bench", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 30 * time.Second,
	}
	var open []*sshclient.Client
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		switch {
		case len(f) == 3 && f[0] == "open":
			n, _ := strconv.Atoi(f[2])
			cs, err := openIdle(addr, strings.Split(f[1], ","), cfg, n, w, h)
			open = append(open, cs...)
			switch {
			case errors.Is(err, syscall.EADDRNOTAVAIL):
				fmt.Println("skip this system has no loopback addresses besides 127.0.0.1")
			case err != nil:
				fmt.Println("error", strings.ReplaceAll(err.Error(), "\n", " | "))
			default:
				fmt.Println("ok")
			}
		case len(f) == 2 && f[0] == "close":
			n, _ := strconv.Atoi(f[1])
			n = min(n, len(open))
			for _, c := range open[len(open)-n:] {
				c.Close()
			}
			open = open[:len(open)-n]
			fmt.Println("ok")
		default:
			fmt.Println("error unknown command", in.Text())
		}
	}
	for _, c := range open {
		c.Close()
	}
}

// openIdle opens n counters, a few at a time, from the addresses in turn,
// each signed in with cfg's key and left on the first show's seat map.
func openIdle(addr string, from []string, cfg *gossh.ClientConfig, n, w, h int) ([]*sshclient.Client, error) {
	cs := make([]*sshclient.Client, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			c, err := sshclient.Dial(context.Background(), addr, from[i%len(from)], cfg, w, h)
			if err != nil {
				errs[i] = err
				return
			}
			cs[i] = c
			if !c.WaitFor(30*time.Second, func(s string) bool { return strings.Contains(s, "Today, ") && strings.Contains(s, "/") }) {
				errs[i] = fmt.Errorf("session %d: no shows list:\n%s", i, c.Scr.Top(3))
				return
			}
			if err := c.Send("\r"); err != nil {
				errs[i] = err
				return
			}
			if !c.WaitFor(30*time.Second, func(s string) bool { return strings.Contains(s, "SCREEN") && freeSeats(s) >= 0 }) {
				errs[i] = fmt.Errorf("session %d: no seat map:\n%s", i, c.Scr.Top(3))
			}
		}()
	}
	wg.Wait()
	var opened []*sshclient.Client
	for _, c := range cs {
		if c != nil {
			opened = append(opened, c)
		}
	}
	return opened, errors.Join(errs...)
}
