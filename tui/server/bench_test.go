package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/tui/server"
)

// Run the benchmarks with, for example:
//
//	go test -run '^$' -bench . -benchtime 20x ./tui/server/
//
// Each sets its sessions up once, outside the timer.

// benchSessions is how many counters the repaint benchmark opens.
const benchSessions = 200

// openDemo opens the demo cinema in dir with the staff key "bench" added.
func openDemo(tb testing.TB, dir string) (*db.Store, gossh.Signer) {
	tb.Helper()
	store := dbtest.Open(tb, filepath.Join(dir, "boxoffice.db"), db.Options{PollInterval: -1})
	seed, err := assets.Demo(time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	dbtest.MustSeed(tb, store, seed, true)
	signer, pub := newKey(tb)
	if _, err := store.AddStaff(context.Background(), booking.System, "bench", booking.RoleClerk, "1234", pub); err != nil {
		tb.Fatal(err)
	}
	dbtest.MustStaffShift(tb, store, "bench", booking.RoleClerk)
	return store, signer
}

func benchConfig(c *server.Config) {
	c.MaxSessions, c.MaxPerAddr = 2*benchSessions, 2*benchSessions
	c.MaxPending, c.MaxPendingPerAddr = 2*benchSessions, 2*benchSessions
	c.ConnRate, c.ConnBurst = 1e6, 1e6
}

var freeRE = regexp.MustCompile(`free (\d+)/(\d+)`)

// freeSeats reads "free N/M" from a seat map header, or -1.
func freeSeats(text string) int {
	m := freeRE.FindStringSubmatch(text)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// openCounters dials n sessions with key and opens the first show on each.
func openCounters(tb testing.TB, addr string, cfg *gossh.ClientConfig, n, w, h int) []*client {
	tb.Helper()
	cs := make([]*client, n)
	errs := make(chan error, n)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			conn, err := gossh.Dial("tcp", addr, cfg)
			if err != nil {
				errs <- err
				return
			}
			c, err := openCounter(tb, conn, w, h, true)
			if err != nil {
				errs <- err
				return
			}
			if !c.waitFor(30*time.Second, func(t string) bool { return strings.Contains(t, "Today, ") && strings.Contains(t, "/") }) {
				errs <- fmt.Errorf("session %d: no shows list:\n%s", i, c.scr.Text())
				return
			}
			_, _ = io.WriteString(c.stdin, "\r")
			if !c.waitFor(30*time.Second, func(t string) bool { return strings.Contains(t, "SCREEN") && freeSeats(t) >= 0 }) {
				errs <- fmt.Errorf("session %d: no seat map:\n%s", i, c.scr.Text())
				return
			}
			cs[i] = c
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
	return cs
}

// waitHeader waits until the seat map header says "free want/" and
// returns the time since start. It reads only the top rows on each write,
// to keep the client side of the benchmark light.
func (c *client) waitHeader(want int, start time.Time) time.Duration {
	deadline := time.After(10 * time.Second)
	for {
		ch := c.scr.changed()
		if freeSeats(c.scr.Top(3)) == want {
			return time.Since(start)
		}
		select {
		case <-ch:
		case <-deadline:
			return 10 * time.Second
		}
	}
}

// BenchmarkServer_Repaint200 opens 200 SSH sessions on the same show and
// changes one seat per iteration (a hold, then its release, in turn) from
// outside them. It reports how long each session took to show the change
// (p50, p99, max over all sessions and iterations) and how many bytes one
// session was sent for one change.
func BenchmarkServer_Repaint200(b *testing.B) {
	dir := b.TempDir()
	store, key := openDemo(b, dir)
	defer store.Close()
	srv, addr := serveBench(b, dir, store)
	defer shutdownBench(b, srv)
	cfg := &gossh.ClientConfig{
		User: "bench", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 30 * time.Second,
	}
	cs := openCounters(b, addr, cfg, benchSessions, 120, 40)
	free := freeSeats(cs[0].scr.Text())
	shows, err := store.Shows(context.Background(), booking.System, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	show := shows[0]
	actor := booking.Actor{Name: "bench", Role: booking.RoleClerk}

	var lat []time.Duration
	var bytes int64
	var hold *booking.Hold
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := make([]int64, len(cs))
		for j, c := range cs {
			before[j] = c.scr.Bytes()
		}
		want := free - 1
		cpu0 := cpuTime()
		start := time.Now()
		if hold == nil {
			hold, err = store.HoldBest(context.Background(), actor, booking.HoldBestRequest{ShowID: show.ID, N: 1, Owner: "bench-outside"})
		} else {
			err, hold, want = store.Release(context.Background(), actor, hold.ID, "bench-outside"), nil, free
		}
		if err != nil {
			b.Fatal(err)
		}
		got := make([]time.Duration, len(cs))
		var wg sync.WaitGroup
		for j, c := range cs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[j] = c.waitHeader(want, start)
			}()
		}
		wg.Wait()
		b.StopTimer()
		time.Sleep(30 * time.Millisecond) // let the last frame out
		cpu += cpuTime() - cpu0
		for j, c := range cs {
			bytes += c.scr.Bytes() - before[j]
		}
		lat = append(lat, got...)
		b.StartTimer()
	}
	b.StopTimer()
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(int(float64(len(lat))*p), len(lat)-1)]) / float64(time.Millisecond)
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
	b.ReportMetric(float64(bytes)/float64(len(cs)*b.N), "bytes/session/change")
	// CPU of the whole process (server and the 200 test clients) per
	// change: with fewer cores than that divided by the p99, the p99 is
	// bound by CPU.
	b.ReportMetric(float64(cpu)/float64(b.N)/float64(time.Millisecond), "cpu-ms/change")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkServer_IdleSessionRSS runs the server in a child process (this
// test binary, see TestBenchServerProcess), opens idle sessions on a seat
// map and reports the child's resident memory growth per session, for the
// smallest counter window and a large one: most of a session's memory is
// the renderer's two cell buffers, which grow with the window.
func BenchmarkServer_IdleSessionRSS(b *testing.B) {
	for _, size := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		b.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(b *testing.B) {
			benchIdleRSS(b, size.w, size.h)
		})
	}
}

func benchIdleRSS(b *testing.B, w, h int) {
	const n = 100
	dir := b.TempDir()
	store, key := openDemo(b, dir)
	store.Close()

	cmd := exec.Command(os.Args[0], "-test.run", "^TestBenchServerProcess$")
	cmd.Env = append(os.Environ(), "BOXOFFICE_BENCH_SERVER_DIR="+dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stdin.Close()
		_ = cmd.Wait()
	}()
	var addr string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "ADDR "); ok {
			addr = a
			break
		}
	}
	if addr == "" {
		b.Fatal("the server process did not start")
	}
	lines := make(chan string, 16)
	go func() {
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// settle asks the server to collect garbage and return it to the OS,
	// so RSS counts what sessions keep, not what the GC has yet to free.
	settle := func() {
		io.WriteString(stdin, "gc\n")
		for l := range lines {
			if l == "GC done" {
				return
			}
		}
		b.Fatal("the server process stopped")
	}
	cfg := &gossh.ClientConfig{
		User: "bench", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 30 * time.Second,
	}
	// Warm up: the first sessions load the hall and grow the pools.
	warm := openCounters(b, addr, cfg, 4, w, h)
	time.Sleep(500 * time.Millisecond)
	settle()
	base := rssOf(b, cmd.Process.Pid)
	cs := openCounters(b, addr, cfg, n, w, h)
	time.Sleep(time.Second)
	settle()
	after := rssOf(b, cmd.Process.Pid)
	b.ReportMetric(float64(after-base)/n/1024, "KiB-RSS/session")
	b.ReportMetric(float64(base)/(1<<20), "MiB-RSS-base")
	b.ReportMetric(0, "ns/op")
	for _, c := range append(warm, cs...) {
		c.close()
	}
}

// cpuTime is the user and system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rssOf reads VmRSS of a process in bytes.
func rssOf(tb testing.TB, pid int) int64 {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024
		}
	}
	tb.Fatal("no VmRSS")
	return 0
}

// TestBenchServerProcess is the server half of BenchmarkServer_IdleSessionRSS:
// run by the benchmark in a child process, it serves the data dir it is
// given until its stdin closes. It is skipped otherwise.
func TestBenchServerProcess(t *testing.T) {
	dir := os.Getenv("BOXOFFICE_BENCH_SERVER_DIR")
	if dir == "" {
		t.Skip("only run by BenchmarkServer_IdleSessionRSS")
	}
	store := dbtest.Open(t, filepath.Join(dir, "boxoffice.db"), db.Options{PollInterval: -1})
	srv, addr := serveBench(t, dir, store)
	fmt.Printf("ADDR %s\n", addr)
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() == "gc" {
			runtime.GC()
			debug.FreeOSMemory()
			fmt.Println("GC done")
		}
	}
	shutdownBench(t, srv)
}

func serveBench(tb testing.TB, dir string, store *db.Store) (*server.Server, string) {
	tb.Helper()
	c := server.Config{DataDir: dir, Store: store, Logger: slog.New(slog.DiscardHandler)}
	benchConfig(&c)
	srv, err := server.New(c)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	return srv, ln.Addr().String()
}

func shutdownBench(tb testing.TB, srv *server.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		tb.Error(err)
	}
}
