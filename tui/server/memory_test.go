package server_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/internal/sshclient"
)

// TestServer_IdleSessionMemory: ten clerks sit idle on a seat map at
// 120×40. The live heap grows by less than 1 MiB a session, clients and
// all (this process runs both ends; a client's screen and connection are
// a small part of it), and is back where it was once they have gone.
// BenchmarkServer_IdleSessionRSS measures the server alone, and its
// resident memory too. Not parallel: it measures the process.
func TestServer_IdleSessionMemory(t *testing.T) {
	const n = 10
	e := newEnv(t, nil)
	key := e.staffKey("idle", booking.RoleClerk)
	// The first session loads the hall and the day into the store's
	// caches; it stays open through the measurement.
	e.mustDial(key).openFirstShow()
	heap0 := heapAfterGCBytes()

	// From five addresses, as counters on a network are: one address
	// may have only eight handshakes under way.
	cs := make([]*sshclient.Client, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := sshclient.Dial(context.Background(), e.addr, fmt.Sprintf("127.0.0.%d", 2+i%5), e.clientConfig(key), 120, 40)
			if err != nil {
				errs[i] = err
				return
			}
			cs[i] = c
			switch {
			case !c.WaitFor(drawDeadline, func(s string) bool { return strings.Contains(s, "First Film") }):
				errs[i] = fmt.Errorf("session %d: no shows list:\n%s", i, c.Scr.Top(3))
			case c.Send("\r") != nil:
				errs[i] = fmt.Errorf("session %d: could not type", i)
			case !c.WaitFor(drawDeadline, func(s string) bool { return strings.Contains(s, "SCREEN") && freeSeats(s) >= 0 }):
				errs[i] = fmt.Errorf("session %d: no seat map:\n%s", i, c.Scr.Top(3))
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); errors.Is(err, syscall.EADDRNOTAVAIL) {
		t.Skip("this system has no loopback addresses besides 127.0.0.1")
	} else if err != nil {
		t.Fatal(err)
	}
	open := heapAfterGCBytes()
	if per := (open - heap0) / n; per >= 1<<20 {
		t.Errorf("%d idle sessions at 120×40: %d KiB of heap each, want under 1 MiB", n, per>>10)
	} else {
		t.Logf("%d idle sessions at 120×40: %d KiB of heap each (both ends)", n, per>>10)
	}

	for _, c := range cs {
		c.Close()
	}
	waitOpen(t, e.srv.Sessions, 1)
	deadline := time.Now().Add(drawDeadline)
	for h := heapAfterGCBytes(); h > heap0+(1<<20); h = heapAfterGCBytes() {
		if time.Now().After(deadline) {
			t.Fatalf("heap %d KiB after the sessions closed, %d KiB before they opened", h>>10, heap0>>10)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// heapAfterGCBytes returns the live heap in bytes.
func heapAfterGCBytes() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// waitOpen waits until the server has want sessions open.
func waitOpen(t *testing.T, open func() int, want int) {
	t.Helper()
	deadline := time.Now().Add(drawDeadline)
	for open() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions open, want %d", open(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
