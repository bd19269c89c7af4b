package server_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
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

// benchKeyFile is where openDemo leaves the private key of "bench" in its
// dir, for a child process to sign in with.
const benchKeyFile = "bench_key"

// openDemo opens the demo cinema in dir with the staff key "bench" added.
func openDemo(tb testing.TB, dir string) (*db.Store, gossh.Signer) {
	tb.Helper()
	store := dbtest.Open(tb, filepath.Join(dir, "boxoffice.db"), db.Options{PollInterval: -1})
	seed, err := assets.Demo(time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	dbtest.MustSeed(tb, store, seed, true)
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		tb.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "bench")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, benchKeyFile), pem.EncodeToMemory(block), 0o600); err != nil {
		tb.Fatal(err)
	}
	pub := gossh.MarshalAuthorizedKey(signer.PublicKey())
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

// cpuTime is the user and system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serveBench serves store from dir on a loopback port with the limits
// raised for the benchmarks' sessions; adjust may change the config
// further.
func serveBench(tb testing.TB, dir string, store *db.Store, adjust ...func(*server.Config)) (*server.Server, string) {
	tb.Helper()
	c := server.Config{DataDir: dir, Store: store, Logger: slog.New(slog.DiscardHandler)}
	benchConfig(&c)
	for _, f := range adjust {
		f(&c)
	}
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
