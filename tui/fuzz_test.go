package tui

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// fuzzKeys are the keys a fuzzed session presses: everything the counter
// answers to, plus text, control characters and terminal escapes pasted
// into its fields.
var fuzzKeys = []tea.Msg{
	keyMsg("enter"), keyMsg("esc"), keyMsg("space"), keyMsg("tab"), keyMsg("shift+tab"), keyMsg("backspace"),
	keyMsg("up"), keyMsg("down"), keyMsg("left"), keyMsg("right"),
	keyMsg("h"), keyMsg("j"), keyMsg("k"), keyMsg("l"), keyMsg("b"), keyMsg("x"), keyMsg("t"), keyMsg("c"),
	keyMsg("n"), keyMsg("y"), keyMsg("/"), keyMsg("+"), keyMsg("?"), keyMsg("2"), keyMsg("9"), keyMsg("G"), keyMsg("7"),
	keyMsg("ctrl+f"), keyMsg("ctrl+o"), keyMsg("ctrl+c"),
	tea.PasteMsg{Content: "G7-9"},
	tea.PasteMsg{Content: "\x1b[2J\x1b]0;pwned\x07\u202eevil"},
	tea.MouseClickMsg{X: 30, Y: 8, Button: tea.MouseLeft},
	tea.WindowSizeMsg{Width: 79, Height: 23},
	tea.WindowSizeMsg{Width: 120, Height: 40},
	tea.WindowSizeMsg{Width: 80, Height: 24},
	keyMsg("W"), keyMsg("d"), keyMsg("k"), keyMsg("ctrl+d"), tickMsg{},
}

// FuzzModel drives a signed-in counter with arbitrary key sequences on a
// real store: it never panics, every frame fits the window, and no
// control character from pasted input reaches the screen.
func FuzzModel(f *testing.F) {
	clock := newClock()
	store := MustOpenStore(f, clock)
	var sessions atomic.Int64
	f.Add([]byte{2, 0, 23, 24, 0, 0, 7})         // open a show, best two, checkout, sell
	f.Add([]byte{27, 29, 0, 30, 31, 0, 1, 1, 1}) // find, paste, cancel, escapes
	f.Add([]byte{35, 20, 24, 33, 3, 34, 21})     // resize small and back, go to, prompt
	f.Fuzz(func(t *testing.T, keys []byte) {
		if len(keys) > 200 {
			keys = keys[:200]
		}
		m := newTestModel(t, store, clock, fmt.Sprint("fuzz-", sessions.Add(1)), 80, 24)
		m.parkBlocking = true
		typeText(t, m, "demo")
		press(t, m, "enter")
		typeText(t, m, "1234")
		press(t, m, "enter")
		for _, k := range keys {
			send(t, m, fuzzKeys[int(k)%len(fuzzKeys)])
			m.parked = nil
			frame := m.View().Content
			lines := strings.Split(frame, "\n")
			if len(lines) > m.height {
				t.Fatalf("%d lines in a %d-line window", len(lines), m.height)
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > m.width {
					t.Fatalf("a line of %d cells in a %d-wide window: %q", w, m.width, ansi.Strip(l))
				}
			}
			plain := ansi.Strip(frame)
			if strings.ContainsAny(plain, "\x07\x1b\u202e") {
				t.Fatalf("a control character reached the screen: %q", plain)
			}
		}
	})
}
