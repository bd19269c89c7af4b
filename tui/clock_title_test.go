package tui

import (
	"strings"
	"testing"
	"time"

	"boxoffice/assets"
)

// TestModel_TitleClockTicks: the title bar's clock moves on while nobody
// touches the counter. Before, nothing woke an idle screen, so the
// title kept the minute of the last key for as long as the counter sat.
func TestModel_TitleClockTicks(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "clock", 100, 30)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	title := func() string { return strings.SplitN(screenText(m), "\n", 2)[0] }
	before := clock.Now().Format("Mon 2 Jan 15:04")
	if !strings.Contains(title(), before) {
		t.Fatalf("title %q, want %q", title(), before)
	}
	clock.Add(2 * time.Minute)
	if !strings.Contains(title(), before) {
		t.Fatalf("the frame changed with nothing arriving: %q", title())
	}
	// The session waits for the next minute; when it comes the title
	// shows it, and the session waits for the one after.
	takeParked(t, m, parkClock)
	send(t, m, clockMsg{})
	if after := clock.Now().Format("Mon 2 Jan 15:04"); !strings.Contains(title(), after) {
		t.Fatalf("title %q after the clock's tick, want %q", title(), after)
	}
	takeParked(t, m, parkClock)
}
