package hostile

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHostile_Table: at least 40 strings, each named once, Long is 10,000
// characters, and Leaks sees every entry printed raw except those harmless
// to a terminal (wide, combining, SQL, format verbs and the like, which
// test widths and formats instead).
func TestHostile_Table(t *testing.T) {
	if len(Strings) < 40 {
		t.Fatalf("%d strings, want at least 40", len(Strings))
	}
	names := map[string]bool{}
	for _, h := range Strings {
		if names[h.Name] {
			t.Errorf("two entries named %q", h.Name)
		}
		names[h.Name] = true
	}
	if n := utf8.RuneCountInString(Long); n != 10000 {
		t.Errorf("Long has %d characters", n)
	}
	harmless := map[string]bool{"10000 characters": true, "wide cjk": true, "emoji zwj and skin tone": false,
		"zalgo": true, "hangul jamo": true, "full-width digits": true, "sql": true, "format verbs": true,
		"shell metacharacters": true, "json breakers": true, "csv formula": true, "line feed": true, "tab": true}
	for _, h := range Strings {
		if got := len(Leaks(h.S, false)) > 0; got == harmless[h.Name] {
			t.Errorf("%s: Leaks says %v for %q", h.Name, got, h.S)
		}
	}
}

// TestHostile_ScreenLeaks: a frame's own styles pass, the table's escape
// sequences and a C1 CSI added to it do not, and Overflow counts cells.
func TestHostile_ScreenLeaks(t *testing.T) {
	own := "\x1b[1mTitle\x1b[m plain \x1b[38;2;1;2;3mseat\x1b[m"
	known := Known(own)
	if l := ScreenLeaks(own, known); len(l) != 0 {
		t.Errorf("the program's own styles leak: %v", l)
	}
	for _, h := range Strings[:12] {
		if l := ScreenLeaks(own+h.S, known); len(l) == 0 {
			t.Errorf("%s: not seen in a styled frame", h.Name)
		}
	}
	if l := ScreenLeaks("A\u009b2J", known); len(l) == 0 {
		t.Error("a C1 CSI is not seen")
	}
	if b := Overflow("ab\n"+strings.Repeat("測", 5), 9, 2); len(b) != 1 {
		t.Errorf("Overflow: %v", b)
	}
}
