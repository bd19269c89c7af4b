//go:build unix

package tui

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"boxoffice/internal/sshclient"
)

// TestRun_HugeTerminal runs the local counter on a real terminal (a pty)
// that says it is larger than the bound, at start and after resizes: what
// the program allocates stays that of a MaxWidth×MaxHeight screen, it
// draws within that, its banner says the terminal is larger, and the
// banner goes when the terminal fits again. The first size is one an
// unbounded renderer survives (about 450 MB), so a broken bound fails here
// rather than running the test out of memory. Not parallel: it signals
// the process, and measures what it allocates.
func TestRun_HugeTerminal(t *testing.T) {
	clock := newClock()
	s := MustOpenStore(t, clock)
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptm.Close()
	defer pts.Close()
	resize := func(w, h int) {
		t.Helper()
		if err := pty.Setsize(ptm, &pty.Winsize{Cols: uint16(w), Rows: uint16(h)}); err != nil {
			t.Fatal(err)
		}
	}
	resize(2000, 1000)
	scr := sshclient.NewScreen(MaxWidth+100, MaxHeight+100)
	go func() { _, _ = io.Copy(scr, ptm) }()

	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Options{Store: s, Owner: "local-test", Terminal: "local:test", Now: clock.Now}, pts, pts)
	}()
	wait := func(what string, ok func(string) bool) {
		t.Helper()
		// Long: under the race detector on a loaded machine a 500×300
		// screen takes seconds to draw.
		deadline := time.After(60 * time.Second)
		for {
			ch := scr.Changed()
			if ok(scr.Text()) {
				return
			}
			select {
			case <-ch:
			case err := <-done:
				t.Fatalf("the counter ended (%v) waiting for %s; it shows:\n%s", err, what, scr.Top(10))
			case <-deadline:
				t.Fatalf("never %s; the screen shows:\n%s", what, scr.Top(10))
			}
		}
	}
	bounded := func() {
		t.Helper()
		if w, h := scr.Extent(); w > MaxWidth || h > MaxHeight {
			t.Fatalf("the counter drew %d×%d, beyond %d×%d", w, h, MaxWidth, MaxHeight)
		}
	}
	banner := func(w, h int) func(string) bool {
		return func(s string) bool { return strings.Contains(s, fmt.Sprintf("This terminal is %d×%d", w, h)) }
	}

	wait("showed the banner at 2000×1000", banner(2000, 1000))
	bounded()
	// A 500×300 renderer is about 17 MB a buffer; a 2000×1000 one 224 MB.
	var ms1 runtime.MemStats
	runtime.ReadMemStats(&ms1)
	if mb := (ms1.TotalAlloc - ms0.TotalAlloc) >> 20; mb > 100 {
		t.Errorf("the counter allocated %d MB starting on a 2000×1000 terminal", mb)
	}

	// The size the kernel reports is 16 bits a side: 65535 is the most a
	// local terminal can claim.
	resize(65535, 65535)
	if err := syscall.Kill(os.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	wait("showed the banner at 65535×65535", banner(65535, 65535))
	bounded()

	resize(100, 30)
	if err := syscall.Kill(os.Getpid(), syscall.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	wait("dropped the banner at 100×30", func(s string) bool {
		return !strings.Contains(s, "This terminal is") && strings.Contains(s, "boxoffice")
	})

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Run did not return")
	}
}
