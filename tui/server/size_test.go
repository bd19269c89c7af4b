package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"boxoffice/booking"
	"boxoffice/internal/sshclient"
	"boxoffice/tui"
	"boxoffice/tui/server"
)

// These tests are not parallel: they measure what the process allocates,
// and parallel tests only start once every other test has run. Their
// waits are long (drawDeadline): under the race detector on a loaded
// machine a 500×300 screen takes seconds to draw, and what is asserted is
// what the screen ends up showing, not how fast.

const drawDeadline = 60 * time.Second

// dialPTY opens a session whose PTY asks for ptyW×ptyH, replayed onto a
// screen a little larger than the bound, so that anything drawn beyond
// it shows.
func dialPTY(t *testing.T, addr, from string, cfg *gossh.ClientConfig, ptyW, ptyH int) *sshclient.Client {
	t.Helper()
	c, err := sshclient.DialPTY(context.Background(), addr, from, cfg, tui.MaxWidth+100, tui.MaxHeight+100, ptyW, ptyH)
	if err != nil {
		t.Fatalf("dial asking for %d×%d: %v", ptyW, ptyH, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitScreen waits until the screen shows every one of want.
func waitScreen(t *testing.T, c *sshclient.Client, want ...string) {
	t.Helper()
	if !c.WaitFor(drawDeadline, func(s string) bool {
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("the screen never showed %q; it shows:\n%s", want, c.Scr.Top(8))
	}
}

// waitGone waits until the screen no longer shows s.
func waitGone(t *testing.T, c *sshclient.Client, s string) {
	t.Helper()
	if !c.WaitFor(drawDeadline, func(text string) bool { return !strings.Contains(text, s) }) {
		t.Fatalf("the screen still shows %q:\n%s", s, c.Scr.Top(8))
	}
}

// drawnWithin fails the test when the session drew beyond the bound.
func drawnWithin(t *testing.T, c *sshclient.Client) {
	t.Helper()
	if w, h := c.Scr.Extent(); w > tui.MaxWidth || h > tui.MaxHeight {
		t.Fatalf("the session drew %d×%d, beyond %d×%d", w, h, tui.MaxWidth, tui.MaxHeight)
	}
}

func banner(w, h int) string { return fmt.Sprintf("This terminal is %d×%d", w, h) }

// allocSince returns the MB the process allocated since ms.
func allocSince(ms *runtime.MemStats) uint64 {
	var now runtime.MemStats
	runtime.ReadMemStats(&now)
	return (now.TotalAlloc - ms.TotalAlloc) >> 20
}

// heapAfterGC returns the live heap in MB.
func heapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc >> 20
}

// heapSettles waits until the live heap is back within 30 MB of heap0
// (one bounded session's screen is about 35 MB): the last handlers of a
// session return a moment after the client sees it end.
func heapSettles(t *testing.T, heap0 uint64) {
	t.Helper()
	deadline := time.Now().Add(drawDeadline)
	for h := heapAfterGC(); h > heap0+30; h = heapAfterGC() {
		if time.Now().After(deadline) {
			t.Fatalf("heap %d MB after the sessions ended, %d MB before", h, heap0)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitNoSessions waits until the server has no session open.
func waitNoSessions(t *testing.T, open func() int) {
	t.Helper()
	deadline := time.Now().Add(drawDeadline)
	for open() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions still open", open())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServer_HugeTerminal: a staff key asks the staff listener for huge
// terminals, by PTY request, window change and a size report typed into
// the input. The server allocates for at most the bound, draws within it,
// says on the banner that it draws in part of the terminal, logs the size
// asked for, keeps serving, and its heap is back where it was when the
// sessions end. The first size is one an unbounded renderer survives
// (about 450 MB), so a broken bound fails there, before 60000×60000 would
// run the test out of memory.
func TestServer_HugeTerminal(t *testing.T) {
	e := newEnv(t, nil)
	signer := e.staffKey("wide clerk", booking.RoleClerk)
	cfg := e.clientConfig(signer)
	heap0 := heapAfterGC()
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)

	c := dialPTY(t, e.addr, "", cfg, 2000, 1000)
	waitScreen(t, c, banner(2000, 1000), "First Film")
	drawnWithin(t, c)
	// A 500×300 renderer is about 17 MB a buffer; a 2000×1000 one 224 MB.
	if mb := allocSince(&ms0); mb > 100 {
		t.Fatalf("a session asking for 2000×1000 allocated %d MB", mb)
	}

	// A terminal's size report typed into the input, of a size Bubble
	// Tea itself lets through (a million cells); the help screen after
	// it shows the report was read.
	if err := c.Send("\x1b[8;1000;1000t?"); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, c, "Keys")
	drawnWithin(t, c)
	c.Close()

	big := dialPTY(t, e.addr, "", cfg, 60000, 60000)
	waitScreen(t, big, banner(60000, 60000), "First Film")
	drawnWithin(t, big)
	for _, size := range [][2]int{{60000, 60000}, {5000, 5000}} {
		if err := big.WindowChange(size[0], size[1]); err != nil {
			t.Fatal(err)
		}
	}
	waitScreen(t, big, banner(5000, 5000))
	drawnWithin(t, big)
	if err := big.WindowChange(120, 40); err != nil {
		t.Fatal(err)
	}
	waitGone(t, big, "This terminal is")
	// Bounded, these sessions allocate about 75 MB in all; one renderer
	// of a million cells, as the typed size report asks, is 112 MB.
	if mb := allocSince(&ms0); mb > 170 {
		t.Errorf("sessions asking for up to 60000×60000 allocated %d MB in all", mb)
	}
	big.Close()

	waitNoSessions(t, e.srv.Sessions)
	heapSettles(t, heap0)
	if logs := e.logs.String(); !strings.Contains(logs, "terminal size bounded") || !strings.Contains(logs, "asked=60000×60000") {
		t.Errorf("no log line names the size asked for:\n%s", logs)
	}
	e.mustDial(signer).waitText("First Film")
}

// TestKioskServer_HugeTerminal: anonymous kiosk clients ask for
// 60000×60000 and 5000×5000 terminals, then for more by window change. The
// kiosk allocates for at most the bound and draws within it, keeps
// serving, its heap is back where it was when the sessions end, and a
// normal session still gets the welcome screen.
func TestKioskServer_HugeTerminal(t *testing.T) {
	e := newEnv(t, nil)
	k, err := server.NewKioskServer(server.KioskConfig{DataDir: e.dir, Store: e.store, Logger: slog.New(slog.NewTextHandler(e.logs, nil)), Now: middayClock()})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- k.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := k.Shutdown(ctx); err != nil {
			t.Errorf("kiosk shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("kiosk Serve: %v", err)
		}
	})
	cfg := &gossh.ClientConfig{
		User:            server.KioskUser,
		Auth:            []gossh.AuthMethod{gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil })},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(),
		Timeout:         5 * time.Second,
	}
	heap0 := heapAfterGC()
	var ms0 runtime.MemStats
	runtime.ReadMemStats(&ms0)

	// As above, a size an unbounded renderer survives comes first.
	c := dialPTY(t, ln.Addr().String(), "127.0.0.21", cfg, 2000, 1000)
	waitScreen(t, c, "Welcome")
	drawnWithin(t, c)
	if mb := allocSince(&ms0); mb > 100 {
		t.Fatalf("a kiosk session asking for 2000×1000 allocated %d MB", mb)
	}
	c.Close()

	for i, size := range [][2]int{{60000, 60000}, {5000, 5000}} {
		c := dialPTY(t, ln.Addr().String(), fmt.Sprintf("127.0.0.%d", 22+i), cfg, size[0], size[1])
		waitScreen(t, c, "Welcome", "Book tickets")
		drawnWithin(t, c)
		if err := c.WindowChange(60000, 60000); err != nil {
			t.Fatal(err)
		}
		// A size report typed into the input, then down: the cursor
		// moving shows both were read.
		if err := c.Send("\x1b[8;1000;1000t\x1b[B"); err != nil {
			t.Fatal(err)
		}
		waitScreen(t, c, "▶  Collect my tickets")
		drawnWithin(t, c)
		c.Close()
	}
	// Bounded, these sessions allocate about 110 MB in all; one renderer
	// of a million cells, as each typed size report asks, is 112 MB.
	if mb := allocSince(&ms0); mb > 250 {
		t.Errorf("kiosk sessions asking for up to 60000×60000 allocated %d MB in all", mb)
	}
	heapSettles(t, heap0)
	waitScreen(t, dialPTY(t, ln.Addr().String(), "127.0.0.25", cfg, 100, 30), "Welcome", "Book tickets")
}
