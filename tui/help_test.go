package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/internal/storetest"
)

// helpStep is one state of a session whose keys the help golden records:
// reach brings the session there from the step before.
type helpStep struct {
	name  string
	reach func(t *testing.T, m *Model)
}

// helpSteps walk one session through every screen and every state that
// changes what the hint bar or the ? overlay offers.
func helpSteps(s Backend, clock *storetest.Clock, showID *int64) []helpStep {
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
		{"seat map block prompt", func(t *testing.T, m *Model) { press(t, m, "esc", "B") }},
		{"seat map party", func(t *testing.T, m *Model) { press(t, m, "esc", "2", "a") }},
		{"seat map single seat", func(t *testing.T, m *Model) {
			press(t, m, "esc")
			goTo(t, m, "G7")
		}},
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
		{"customer search", func(t *testing.T, m *Model) { press(t, m, "ctrl+a") }},
		{"customer new account", func(t *testing.T, m *Model) { press(t, m, "ctrl+a") }},
		{"checkout customer again", func(t *testing.T, m *Model) { press(t, m, "esc", "esc") }},
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
		{"find booking typing a new search", func(t *testing.T, m *Model) { typeText(t, m, "ec") }},
		{"find booking, moved into", func(t *testing.T, m *Model) { press(t, m, "ctrl+u", "tab") }},
		{"find cancel form", func(t *testing.T, m *Model) { press(t, m, "c") }},
		{"find refund confirmation", func(t *testing.T, m *Model) { press(t, m, "enter") }},
		{"find list", func(t *testing.T, m *Model) {
			press(t, m, "esc", "esc", "esc")
			m.find.results = make([]booking.Booking, 2)
			m.find.mode = findList
		}},
		{"door", func(t *testing.T, m *Model) { press(t, m, "ctrl+d") }},
		{"door typing", func(t *testing.T, m *Model) { typeText(t, m, "ABC") }},

		// audit
		{"audit", func(t *testing.T, m *Model) { press(t, m, "esc", "ctrl+e") }},
		{"audit typing", func(t *testing.T, m *Model) { typeText(t, m, "demo") }},

		// Shifts and refunds.
		{"find refund pick", func(t *testing.T, m *Model) {
			press(t, m, "ctrl+f")
			typeText(t, m, m.done.booking.Number)
			press(t, m, "enter", "tab", "r")
		}},
		{"my shift", func(t *testing.T, m *Model) { press(t, m, "ctrl+t") }},
		{"my shift X report", func(t *testing.T, m *Model) { press(t, m, "x") }},
		{"my shift count", func(t *testing.T, m *Model) { press(t, m, "esc", "c") }},
		{"my shift count confirmation", func(t *testing.T, m *Model) {
			typeText(t, m, "100")
			press(t, m, "enter", "enter")
		}},
		{"my shift Z report", func(t *testing.T, m *Model) { press(t, m, "right", "enter") }},
		{"my shift none", func(t *testing.T, m *Model) { press(t, m, "esc", "ctrl+t") }},

		// Manager screens (issue 11).
		{"manager menu", func(t *testing.T, m *Model) { press(t, m, "esc", "ctrl+g") }},
		{"manager films", func(t *testing.T, m *Model) { press(t, m, "1") }},
		{"manager film form", func(t *testing.T, m *Model) { press(t, m, "e") }},
		{"manager film retire", func(t *testing.T, m *Model) { press(t, m, "esc", "r") }},
		{"manager week", func(t *testing.T, m *Model) { press(t, m, "n", "esc", "3") }},
		{"manager week move", func(t *testing.T, m *Model) { press(t, m, "m", "tab", "tab") }},
		{"manager prices", func(t *testing.T, m *Model) { press(t, m, "esc", "esc", "4") }},
		{"manager staff", func(t *testing.T, m *Model) { press(t, m, "esc", "5") }},
		{"manager terminals", func(t *testing.T, m *Model) { press(t, m, "esc", "6") }},
		// The booking view and exchanges (issue 11).
		{"booking view codes", func(t *testing.T, m *Model) {
			press(t, m, "esc", "ctrl+f")
			typeText(t, m, m.done.booking.Number)
			press(t, m, "enter", "tab", "t")
		}},
		{"exchange pick", func(t *testing.T, m *Model) { press(t, m, "esc", "e") }},
		{"exchange seat map", func(t *testing.T, m *Model) { press(t, m, "enter") }},
		{"exchange confirmation", func(t *testing.T, m *Model) {
			goTo(t, m, "A1-2")
			press(t, m, "enter")
		}},
		{"exchange last question", func(t *testing.T, m *Model) { press(t, m, "enter") }},
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
		fmt.Fprintf(&out, "bar: %s\n", ansi.Strip(m.hintBar(h.ShortHelp())))
		for _, b := range h.ShortHelp() {
			fmt.Fprintf(&out, "  short %q %q enabled=%v\n", b.Help().Key, b.Help().Desc, b.Enabled())
		}
		if full := h.FullHelp(); len(full) > 0 {
			fmt.Fprintf(&out, "overlay:\n%s\n", ansi.Strip(m.fullHelp(full, 21)))
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

// keyMapBindings returns every binding of km by field name.
func keyMapBindings(km KeyMap) map[string]key.Binding {
	out := map[string]key.Binding{}
	v := reflect.ValueOf(km)
	for i := 0; i < v.NumField(); i++ {
		if b, ok := v.Field(i).Interface().(key.Binding); ok {
			out[v.Type().Field(i).Name] = b
		}
	}
	return out
}

// TestKeyMap_EveryBindingHasHelp: every key the counter answers to is in
// the KeyMap with its help text.
func TestKeyMap_EveryBindingHasHelp(t *testing.T) {
	t.Parallel()
	bindings := keyMapBindings(DefaultKeyMap())
	if len(bindings) != reflect.TypeFor[KeyMap]().NumField() {
		t.Fatalf("KeyMap has %d fields, %d of them bindings", reflect.TypeFor[KeyMap]().NumField(), len(bindings))
	}
	for name, b := range bindings {
		if len(b.Keys()) == 0 || b.Help().Key == "" || b.Help().Desc == "" {
			t.Errorf("KeyMap.%s: keys %q, help %q %q", name, b.Keys(), b.Help().Key, b.Help().Desc)
		}
	}
}

// TestHelp_OffersKeyMapBindings: whatever the hint bar and the ? overlay
// offer, on every screen and in every state, is a KeyMap binding (perhaps
// described for that state), so what the help says is a key is the key
// the screen matches.
func TestHelp_OffersKeyMapBindings(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "help-keys", 80, 24)
	byKeys := map[string]string{}
	for name, b := range keyMapBindings(m.keys) {
		byKeys[strings.Join(b.Keys(), "|")] = name
	}
	var showID int64
	for _, step := range helpSteps(s, clock, &showID) {
		step.reach(t, m)
		h := m.helpFor()
		all := slices.Concat(append([][]key.Binding{h.ShortHelp()}, h.FullHelp()...)...)
		for _, b := range all {
			if _, ok := byKeys[strings.Join(b.Keys(), "|")]; !ok {
				t.Errorf("%s: %q %q answers to %q, which no KeyMap binding does", step.name, b.Help().Key, b.Help().Desc, b.Keys())
			}
			if b.Help().Key == "" || b.Help().Desc == "" {
				t.Errorf("%s: a binding without help text: %q", step.name, b.Keys())
			}
		}
	}
}

// TestScreens_Table: every screen has its row, a name and its behaviour.
func TestScreens_Table(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for s := range numScreens {
		spec := s.spec()
		if spec.ui == nil || spec.name == "" || names[spec.name] {
			t.Errorf("screen %d: row %+v", int(s), spec)
		}
		names[spec.name] = true
		if s.String() != spec.name {
			t.Errorf("screen %d is called %q", int(s), s.String())
		}
	}
}

// TestKeys_FieldEditingEverywhere: the shows filter is edited with the
// KeyMap's editing keys, like every text field, so ctrl+h (what some
// terminals send for backspace) deletes there too.
func TestKeys_FieldEditingEverywhere(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "edit", 80, 24)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	typeText(t, m, "lig")
	for _, k := range []string{"backspace", "ctrl+h"} {
		before := string(m.shows.filter)
		press(t, m, k)
		if got := string(m.shows.filter); got != before[:len(before)-1] {
			t.Fatalf("%s on the filter %q left %q", k, before, got)
		}
	}
	press(t, m, "ctrl+f")
	typeText(t, m, "ann lee")
	for k, want := range map[string]string{"ctrl+h": "ann le", "ctrl+w": "ann ", "ctrl+u": ""} {
		m.find.query.Set("ann lee")
		press(t, m, k)
		if got := string(m.find.query.value); got != want {
			t.Fatalf("%s on %q left %q, want %q", k, "ann lee", got, want)
		}
	}
}
