package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"boxoffice/assets"
	"boxoffice/booking"
)

// helpStep is one state of a session whose keys the help golden records:
// reach brings the session there from the step before.
type helpStep struct {
	name  string
	reach func(t *testing.T, m *Model)
}

// helpSteps walk one session through every screen and every state that
// changes what the hint bar or the ? overlay offers.
func helpSteps(s Backend, clock *testClock, showID *int64) []helpStep {
	other := func(t *testing.T, seats ...string) {
		t.Helper()
		if _, err := s.Hold(context.Background(), booking.System, booking.HoldRequest{ShowID: *showID, Seats: seats, Owner: "other"}); err != nil {
			t.Fatal(err)
		}
	}
	return []helpStep{
		{"sign-in", func(t *testing.T, m *Model) {}},
		{"sign-in typing", func(t *testing.T, m *Model) { typeText(t, m, "de") }},
		{"shows", func(t *testing.T, m *Model) {
			typeText(t, m, "mo")
			press(t, m, "enter")
			typeText(t, m, assets.DemoPIN)
			press(t, m, "enter")
		}},
		{"shows filtered", func(t *testing.T, m *Model) { typeText(t, m, "e") }},
		{"seat map", func(t *testing.T, m *Model) {
			press(t, m, "esc")
			for m.shows.visible()[m.shows.cursor].HallName != "Grand" {
				press(t, m, "down")
			}
			press(t, m, "enter")
			*showID = m.seats.show.ID
		}},
		{"seat map go-to prompt", func(t *testing.T, m *Model) { press(t, m, "/") }},
		{"seat map go-to prompt typing", func(t *testing.T, m *Model) { typeText(t, m, "N8") }},
		{"seat map waiting-list prompt", func(t *testing.T, m *Model) { press(t, m, "esc", "w") }},
		{"seat map holding", func(t *testing.T, m *Model) {
			press(t, m, "esc")
			goTo(t, m, "N8-9")
		}},
		{"seat map clash", func(t *testing.T, m *Model) {
			other(t, "G7")
			goTo(t, m, "G7-8")
		}},
		{"leaving the map", func(t *testing.T, m *Model) { press(t, m, "esc", "esc") }},
		{"leaving for find", func(t *testing.T, m *Model) { press(t, m, "n", "ctrl+f") }},
		{"checkout", func(t *testing.T, m *Model) { press(t, m, "n", "enter") }},
		{"checkout seat row", func(t *testing.T, m *Model) { press(t, m, "shift+tab", "shift+tab") }},
		{"checkout payment", func(t *testing.T, m *Model) { press(t, m, "tab") }},
		{"checkout payment by card", func(t *testing.T, m *Model) { press(t, m, "space") }},
		{"checkout customer", func(t *testing.T, m *Model) { press(t, m, "space", "tab", "tab") }},
		{"checkout sell", func(t *testing.T, m *Model) { press(t, m, "tab", "tab") }},
		{"checkout lapsed", func(t *testing.T, m *Model) {
			clock.Add(booking.DefaultHoldTTL)
			send(t, m, tickMsg{})
		}},
		{"seat map lapsed", func(t *testing.T, m *Model) { press(t, m, "esc") }},
		{"waiting list", func(t *testing.T, m *Model) { press(t, m, "W") }},
		{"waiting list removing", func(t *testing.T, m *Model) {
			m.waitlist.confirm = &booking.WaitlistEntry{ID: 1, Name: "Ann Lee", Phone: "0123"}
		}},
		{"done", func(t *testing.T, m *Model) {
			m.waitlist.confirm = nil
			press(t, m, "esc")
			goTo(t, m, "N8-9")
			press(t, m, "enter", "enter", "enter")
		}},
		{"find", func(t *testing.T, m *Model) { press(t, m, "ctrl+f") }},
		{"find typing", func(t *testing.T, m *Model) { typeText(t, m, m.done.booking.Number) }},
		{"find booking", func(t *testing.T, m *Model) { press(t, m, "enter") }},
		{"find cancel form", func(t *testing.T, m *Model) { press(t, m, "c") }},
		{"find refund confirmation", func(t *testing.T, m *Model) { press(t, m, "enter") }},
		{"find list", func(t *testing.T, m *Model) {
			press(t, m, "esc", "esc", "esc")
			m.find.results = make([]booking.Booking, 2)
			m.find.mode = findList
		}},
		{"door", func(t *testing.T, m *Model) { press(t, m, "ctrl+d") }},
		{"door typing", func(t *testing.T, m *Model) { typeText(t, m, "ABC") }},
	}
}

// TestHelp_EveryScreen records, for every screen and state, the hint bar
// and the ? overlay the clerk sees, in testdata/help.golden: the keys
// offered follow the screen, its mode and the focused field.
func TestHelp_EveryScreen(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "help", 80, 24)
	var showID int64
	var out strings.Builder
	for _, step := range helpSteps(s, clock, &showID) {
		step.reach(t, m)
		t.Logf("%s: screen %v leaving %v status %q", step.name, m.screen, m.leaving != nil, m.status)
		h := m.helpFor()
		fmt.Fprintf(&out, "== %s (screen %v)\n", step.name, m.screen)
		fmt.Fprintf(&out, "bar: %s\n", ansi.Strip(m.help.ShortHelpView(h.ShortHelp())))
		for _, b := range h.ShortHelp() {
			fmt.Fprintf(&out, "  short %q %q enabled=%v\n", b.Help().Key, b.Help().Desc, b.Enabled())
		}
		if full := h.FullHelp(); len(full) > 0 {
			fmt.Fprintf(&out, "overlay:\n%s\n", ansi.Strip(m.fullHelp(full)))
		}
	}
	path := filepath.Join("testdata", "help.golden")
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui/ -run Help -update)", err)
	}
	if got := out.String(); got != string(want) {
		t.Errorf("the keys offered differ from %s (run with -update if the change is intended)\ngot:\n%s", path, got)
	}
}
