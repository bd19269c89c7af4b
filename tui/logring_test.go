package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A ring keeps the newest LogRingLines lines, each bounded, and says how
// many older ones it let go; a line written in pieces is one line.
func TestLogRing_Bounded(t *testing.T) {
	r := NewLogRing()
	for i := range LogRingLines + 50 {
		fmt.Fprintf(r, "line %d\n", i)
	}
	r.Write([]byte("half of a "))
	r.Write([]byte("line\n" + strings.Repeat("x", 3*logLineMax)))
	lines, dropped := r.Lines()
	if len(lines) != LogRingLines || dropped != 52 {
		t.Fatalf("%d lines, %d dropped; want %d and 52", len(lines), dropped, LogRingLines)
	}
	if lines[0] != "line 52" || lines[len(lines)-2] != "half of a line" || len(lines[len(lines)-1]) != logLineMax {
		t.Fatalf("first %q, last two %q %d bytes", lines[0], lines[len(lines)-2], len(lines[len(lines)-1]))
	}
}

// ctrl+l opens the lines the log file missed over any screen, signed in
// or not, cleaned and within the window; esc goes back. A counter
// without a ring (over SSH) has no such key.
func TestModel_LogLines(t *testing.T) {
	clock := newClock()
	store := MustOpenStore(t, clock)
	m := newTestModel(t, store, clock, "owner-logs", 80, 24)
	press(t, m, "ctrl+l")
	press(t, m, "L")
	if strings.Contains(screenText(m), "Log lines") {
		t.Fatalf("ctrl+l L without a ring opened:\n%s", screenText(m))
	}
	press(t, m, "esc")

	ring := NewLogRing()
	m.opts.LogRing = ring
	ring.Write([]byte("boxoffice: cannot write the log file /data/boxoffice.log (no space left on device)\n"))
	ring.SetProblem("write /data/boxoffice.log: no space left on device", clock.Now())
	ring.Write([]byte(`time=2026-03-13T10:00:00Z level=ERROR msg="disk full" op=checkout title="` + "\x1b[2J\x1b]0;pwned\x07Evil\u202e" + `"` + "\n"))
	for i := range 40 {
		fmt.Fprintf(ring, "level=WARN msg=filler n=%d\n", i)
	}
	press(t, m, "ctrl+l")
	if !strings.Contains(screenText(m), "The log file missed 42 lines: L shows them.") {
		t.Fatalf("the messages do not say the log file missed lines:\n%s", screenText(m))
	}
	press(t, m, "L")
	frame := m.View().Content
	screen := ansi.Strip(frame)
	for _, want := range []string{"Log lines the log file missed (42, newest last)", "The log file cannot be written since 10:00:00:", "  write /data/boxoffice.log: no space left on device",
		"msg=filler n=39", "esc back", "↑/↓ scroll"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the log view lacks %q:\n%s", want, screen)
		}
	}
	for _, bad := range []string{"\x1b[2J", "\x1b]0;", "\x07", "\u202e"} {
		if strings.Contains(frame, bad) {
			t.Errorf("the log view draws %q", bad)
		}
	}
	for i, l := range strings.Split(screen, "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("line %d is %d cells wide: %q", i, w, l)
		}
	}
	// Scrolling back reaches the oldest line.
	for range 60 {
		press(t, m, "up")
	}
	if !strings.Contains(screenText(m), "cannot write the log file /data/boxoffice.log") {
		t.Errorf("scrolled back, the first line is not shown:\n%s", screenText(m))
	}
	// The other keys wait while the lines are shown; esc goes back.
	typeText(t, m, "demo")
	press(t, m, "esc")
	if screen := screenText(m); strings.Contains(screen, "Log lines") || strings.Contains(screen, "Name  demo") || m.screen != screenSignIn {
		t.Fatalf("after esc:\n%s", screen)
	}

	// Signed in, over the shows; the space freed since.
	signIn(t, m, "demo", "1234")
	ring.SetProblem("", clock.Now())
	press(t, m, "ctrl+l")
	press(t, m, "L")
	if !strings.Contains(screenText(m), "The log file is written again since 10:00:00; these lines are not in it.") {
		t.Fatalf("after space was freed:\n%s", screenText(m))
	}
	press(t, m, "esc")
	if m.screen != screenShows || strings.Contains(screenText(m), "Log lines") {
		t.Fatalf("esc did not go back to the shows:\n%s", screenText(m))
	}
}
