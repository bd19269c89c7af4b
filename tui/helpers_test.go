package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// testStart is the fixed clock every test starts at: a Friday morning, so
// the demo programme has shows later the same day.
var testStart = time.Date(2026, 3, 13, 10, 0, 0, 0, time.UTC)

// newClock is a clock the test moves by hand, at testStart.
func newClock() *storetest.Clock { return storetest.NewClock(testStart) }

// testTicketKey signs the tickets of the goldens' done screens: the codes
// drawn there follow from it.
var testTicketKey = booking.TicketKey{ID: 1, Secret: []byte("tui-test-ticket-key-0123456789ab")}

// storeOptions are the counter tests' store options: the test clock, no
// sweeper or poll (tests deliver changes themselves), synchronous=NORMAL.
func storeOptions(clock *storetest.Clock) db.Options {
	return db.Options{Clock: clock.Now, TicketKey: testTicketKey, SweepInterval: -1, PollInterval: -1, Sync: "normal"}
}

// MustOpenStore opens the demo cinema on a file in a temp dir.
func MustOpenStore(tb testing.TB, clock *storetest.Clock) *db.Store {
	tb.Helper()
	s, _ := dbtest.MustOpenDemo(tb, storeOptions(clock))
	return s
}

// addStaff creates a member of staff for a test.
func addStaff(tb testing.TB, s *db.Store, name string, role booking.Role, pin string) {
	tb.Helper()
	if _, err := s.AddStaff(context.Background(), booking.System, name, role, pin, nil); err != nil {
		tb.Fatal(err)
	}
	dbtest.MustStaffShift(tb, s, name, role)
}

// newTestModel opens a counter session on store, sized w×h, with blocking
// commands parked so every other command runs synchronously in send.
func newTestModel(tb testing.TB, store Backend, clock *storetest.Clock, owner string, w, h int) *Model {
	tb.Helper()
	m := New(Options{
		Store:           store,
		Demo:            true,
		DemoCredentials: booking.Credentials{Name: assets.DemoUser, PIN: assets.DemoPIN},
		Owner:           owner,
		Terminal:        "counter-1",
		Now:             clock.Now,
	})
	m.parkBlocking = true
	tb.Cleanup(m.Close)
	send(tb, m, tea.WindowSizeMsg{Width: w, Height: h})
	run(tb, m, m.Init())
	return m
}

// send delivers msg and, one after another, every message the commands it
// leads to return.
func send(tb testing.TB, m *Model, msgs ...tea.Msg) {
	tb.Helper()
	queue := append([]tea.Msg(nil), msgs...)
	for len(queue) > 0 {
		msg := queue[0]
		queue = queue[1:]
		_, cmd := m.Update(msg)
		queue = append(queue, exec(cmd)...)
	}
}

// run runs cmd and delivers what it returns.
func run(tb testing.TB, m *Model, cmd tea.Cmd) {
	tb.Helper()
	send(tb, m, exec(cmd)...)
}

// exec runs a command and flattens batches into their messages.
func exec(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, exec(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}

// keyMsg builds the key press a terminal would send for a key name.
func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	}
	if rest, ok := strings.CutPrefix(k, "ctrl+"); ok && len(rest) == 1 {
		return tea.KeyPressMsg{Code: rune(rest[0]), Mod: tea.ModCtrl}
	}
	r := []rune(k)
	if len(r) != 1 {
		panic("keyMsg: unknown key " + k)
	}
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// press sends key presses by name.
func press(tb testing.TB, m *Model, keys ...string) {
	tb.Helper()
	for _, k := range keys {
		send(tb, m, keyMsg(k))
	}
}

// typeText types s one key at a time.
func typeText(tb testing.TB, m *Model, s string) {
	tb.Helper()
	for _, r := range s {
		if r == ' ' {
			press(tb, m, "space")
			continue
		}
		press(tb, m, string(r))
	}
}

// screenText is the view without styling.
func screenText(m *Model) string { return ansi.Strip(m.View().Content) }

// signIn signs in with name and PIN and checks the shows list opened.
func signIn(tb testing.TB, m *Model, name, pin string) {
	tb.Helper()
	typeText(tb, m, name)
	press(tb, m, "enter")
	typeText(tb, m, pin)
	press(tb, m, "enter")
	if m.screen != screenShows || m.clerk == nil {
		tb.Fatalf("sign-in as %s failed: screen %v, status %q", name, m.screen, m.status)
	}
}

// openGrandShow signs in as the demo manager and opens the first show of
// the Grand hall today.
func openGrandShow(tb testing.TB, m *Model) booking.Show {
	tb.Helper()
	signIn(tb, m, assets.DemoUser, assets.DemoPIN)
	return openGrand(tb, m)
}

// openGrand opens the first show of the Grand hall today from the shows
// list.
func openGrand(tb testing.TB, m *Model) booking.Show {
	tb.Helper()
	vis := m.shows.visible()
	for i, sh := range vis {
		if sh.HallName == "Grand" {
			for m.shows.cursor < i {
				press(tb, m, "down")
			}
			press(tb, m, "enter")
			if m.screen != screenSeatMap || m.seats.sm == nil {
				tb.Fatalf("seat map did not open: %q", m.status)
			}
			return sh
		}
	}
	tb.Fatal("no show in the Grand hall today")
	return booking.Show{}
}

// storeMap reads the seat map as owner sees it, straight from the store.
func storeMap(tb testing.TB, s Backend, showID int64, owner string) *booking.SeatMap {
	tb.Helper()
	sm, err := s.SeatMap(context.Background(), booking.System, showID, owner)
	if err != nil {
		tb.Fatal(err)
	}
	return sm
}

// stateOf returns a seat's state by label.
func stateOf(tb testing.TB, sm *booking.SeatMap, label string) booking.SeatState {
	tb.Helper()
	seat, ok := sm.Hall.SeatByLabel(label)
	if !ok {
		tb.Fatalf("no seat %s", label)
	}
	return sm.State(seat.ID)
}

// goTo types a seat or range at the / prompt.
func goTo(tb testing.TB, m *Model, text string) {
	tb.Helper()
	press(tb, m, "/")
	typeText(tb, m, text)
	press(tb, m, "enter")
}

// screenLine is one line of the view without styling.
func screenLine(l string) string { return ansi.Strip(l) }

// takeParked returns the last parked command of kind and drops every
// parked command (timers a test does not run), failing when none of kind
// is parked.
func takeParked(tb testing.TB, m *Model, kind parkKind) tea.Cmd {
	tb.Helper()
	var cmd tea.Cmd
	for _, p := range m.parked {
		if p.kind == kind {
			cmd = p.cmd
		}
	}
	m.parked = nil
	if cmd == nil {
		tb.Fatalf("no parked command of kind %d", kind)
	}
	return cmd
}
