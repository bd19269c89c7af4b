// Package hostile is a test kit: one table of strings built to steer a
// terminal, reorder text, break a width or break a file format, shared by
// the tests of every package, and the checks that say whether any of
// them reached an output. It holds no code the program runs; it is not a
// test file only so that every package's tests can import it.
package hostile

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// String is one entry of the table: a name for the failure message and
// the bytes themselves (not always UTF-8).
type String struct {
	Name string
	S    string
}

// Long is the 10,000-character entry (wide characters among them),
// kept apart so tests can name it.
var Long = strings.Repeat("Ab測x", 2500)

// Strings is the table. Each entry is wrapped in ordinary letters where
// that matters, so a sanitiser that drops the whole value is seen too.
var Strings = []String{
	{"csi colour", "Red\x1b[5;31;47mBlink\x1b[0m"},
	{"csi cursor moves", "Up\x1b[2A\x1b[10;10HHome\x1b[6D"},
	{"csi clear screen", "Wipe\x1b[2J\x1b[3J\x1b[H"},
	{"csi erase line and scroll region", "Line\x1b[2K\x1b[1;2r\x1b[?1049h"},
	{"osc title bel", "Title\x1b]0;pwned\x07After"},
	{"osc title st", "Title\x1b]2;pwned\x1b\\After"},
	{"osc 52 clipboard", "Clip\x1b]52;c;ZWNobyBvd25lZA==\x07After"},
	{"osc 8 hyperlink", "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"},
	{"dcs", "Dcs\x1bP+q544e\x1b\\After"},
	{"apc", "Apc\x1b_Gf=100;AAAA\x1b\\After"},
	{"pm", "Pm\x1b^private\x1b\\After"},
	{"sos", "Sos\x1bXstart of string\x1b\\After"},
	{"c1 csi u+009b", "C1\u009b2J\u009b31mAfter"},
	{"c1 osc u+009d", "C1\u009d0;pwned\u009cAfter"},
	{"c1 dcs u+0090", "C1\u0090q\u009cAfter"},
	{"raw byte 0x9b", "Raw\x9b2J\x9b31mAfter"},
	{"bare esc", "Bare\x1bAfter\x1b"},
	{"bel", "Bell\x07\x07After"},
	{"backspace", "Back\x08\x08\x08After"},
	{"carriage return", "Over\rwritten"},
	{"line feed", "Two\nLines\n"},
	{"tab", "Tab\tbed\t"},
	{"del", "Del\x7fAfter"},
	{"nul", "Nul\x00After"},
	{"bidi override u+202e", "Ann \u202eeeL\u202c Lee"},
	{"bidi isolates u+2066..2069", "Iso\u2066L\u2067R\u2068F\u2069After"},
	{"rlm u+200f and embeddings", "Rlm\u200f\u202a\u202b\u202dAfter"},
	{"zero width space joiner non-joiner", "Zero\u200b\u200c\u200dWidth"},
	{"bom", "\ufeffBom\ufeff"},
	{"invalid utf-8 lone continuation", "Lone\x80\xbfAfter"},
	{"invalid utf-8 overlong", "Over\xc0\xaflong\xe0\x80\xaf"},
	{"invalid utf-8 surrogate", "Surr\xed\xa0\x80\xed\xbf\xbfAfter"},
	{"invalid utf-8 truncated", "Cut\xe6\x97"},
	{"10000 characters", Long},
	{"wide cjk", "映画館の座席予約システム東京新宿劇場大ホール特別上映会"},
	{"emoji zwj and skin tone", "👩🏽‍👩🏿‍👧🏻‍👦 🏳️‍🌈 👍🏾"},
	{"zalgo", "Z" + strings.Repeat("\u0301\u0316\u0347\u036f", 30) + "algo"},
	{"hangul jamo", "\u1100\u1161\u11a8\u1112\u1161\u11ab"},
	{"tag characters", "Flag\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F\U000E0001"},
	{"line and paragraph separators", "Line\u2028Para\u2029After"},
	{"soft hyphen and other format", "Soft\u00adHy\u2060phen\u180e\ufff9"},
	{"full-width digits", "０１２３４５６７８９"},
	{"sql", "Robert'); DROP TABLE bookings;--"},
	{"format verbs", "%s%n%d%x%!%v%%"},
	{"shell metacharacters", "$(rm -rf ~) `id` ; | & > /dev/null"},
	{"json breakers", "Quote\" back\\slash \\u001b \"}]"},
	{"csv formula", "=cmd|' /C calc'!A0"},
	{"csv breakers", "a,b\",\"c\nd\r\n+1-2@SUM(A1)"},
	{"empty after cleaning", "\x1b\x07\u202e\u200b"},
}

// Without is every entry whose name is not in skip (for an input that
// refuses, on purpose, some of them: a phone number field, say).
func Without(skip ...string) []String {
	var out []String
outer:
	for _, h := range Strings {
		for _, s := range skip {
			if h.Name == s {
				continue outer
			}
		}
		out = append(out, h)
	}
	return out
}

// Leak is one character of a hostile string found in an output.
type Leak struct {
	At   int    // byte offset in the output
	What string // what it is
	Near string // the output around it, quoted
}

func (l Leak) String() string { return l.What + " at " + itoa(l.At) + " near " + l.Near }

// Leaks lists what in out could steer a terminal or reorder text: ESC,
// every other C0 control but newline and tab (and carriage return when
// crlf is true, for CSV), DEL, C1 controls (as UTF-8 or as a lone byte),
// bytes that are not UTF-8, bidi controls and invisible formatters. It is
// the test for plain output: the command line, CSV, JSON, paper text.
func Leaks(out string, crlf bool) []Leak {
	var leaks []Leak
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRuneInString(out[i:])
		if what := judge(r, size, crlf); what != "" {
			leaks = append(leaks, Leak{At: i, What: what, Near: near(out, i)})
			if len(leaks) == 20 {
				break
			}
		}
		i += size
	}
	return leaks
}

func judge(r rune, size int, crlf bool) string {
	switch {
	case r == utf8.RuneError && size == 1:
		return "a byte that is not UTF-8"
	case r == 0x1b:
		return "ESC"
	case r == '\n' || r == '\t' || (crlf && r == '\r'):
		return ""
	case r < 0x20 || r == 0x7f:
		return "a C0 control " + hex(r)
	case r >= 0x80 && r <= 0x9f:
		return "a C1 control " + hex(r)
	case r == utf8.RuneError:
		return "U+FFFD (a broken byte passed through)"
	case bidi(r):
		return "a bidi or format control " + hex(r)
	}
	return ""
}

func bidi(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, r >= 0x2028 && r <= 0x202E, r >= 0x2060 && r <= 0x206F:
		return true
	case r == 0xFEFF, r == 0x061C, r == 0x00AD, r == 0x180E, r >= 0xFFF9 && r <= 0xFFFB:
		return true
	case r >= 0xE0000 && r <= 0xE007F:
		return true
	}
	return false
}

// Styles are the escape sequences a program draws with itself, gathered
// from frames drawn without any hostile text (see Known).
type Styles map[string]bool

// Known collects every escape sequence in frames drawn from benign data.
func Known(frames ...string) Styles {
	k := Styles{}
	for _, f := range frames {
		for _, seq := range sequences(f) {
			k[seq.s] = true
		}
	}
	return k
}

type seq struct {
	at int
	s  string
}

// sequences splits out every escape sequence of f by the terminal's own
// parser, so a hostile sequence is seen as a terminal would see it.
func sequences(f string) []seq {
	var out []seq
	var state byte
	for i := 0; i < len(f); {
		s, _, n, st := ansi.DecodeSequence(f[i:], state, nil)
		state = st
		if n <= 0 {
			break
		}
		if len(s) > 0 && s[0] == 0x1b {
			out = append(out, seq{i, s})
		}
		i += n
	}
	return out
}

// ScreenLeaks is Leaks for a frame the program styled itself: escape
// sequences that the program draws with (known, from a frame without the
// hostile text) are allowed; any other, and anything Leaks finds in what
// remains, is a leak. A hostile colour that matched one of the program's
// own would pass, so the table's colours use attributes the program never
// draws with (blink, reverse background).
func ScreenLeaks(frame string, known Styles) []Leak {
	var leaks []Leak
	var b strings.Builder
	last := 0
	for _, sq := range sequences(frame) {
		if !known[sq.s] {
			leaks = append(leaks, Leak{At: sq.at, What: "an escape sequence the program never draws " + quote(sq.s), Near: near(frame, sq.at)})
		}
		b.WriteString(frame[last:sq.at])
		last = sq.at + len(sq.s)
	}
	b.WriteString(frame[last:])
	return append(leaks, Leaks(b.String(), false)...)
}

// Overflow lists the lines of frame wider than width cells (escape
// sequences take no cells) and reports whether there are more than
// height lines.
func Overflow(frame string, width, height int) []string {
	var bad []string
	lines := strings.Split(frame, "\n")
	if height > 0 && len(lines) > height {
		bad = append(bad, itoa(len(lines))+" lines in a "+itoa(height)+"-line window")
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w > width {
			bad = append(bad, "line "+itoa(i+1)+" is "+itoa(w)+" cells in a "+itoa(width)+"-cell window: "+quote(ansi.Strip(l)))
		}
	}
	return bad
}

func near(s string, i int) string {
	lo, hi := max(i-24, 0), min(i+24, len(s))
	return quote(s[lo:hi])
}

// quote is s with every character Leaks would name written as an escape,
// so a failure message is itself safe to print.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r < 0x20 || (r >= 0x7f && r <= 0x9f) || bidi(r) {
			if size == 1 {
				b.WriteString(fmt.Sprintf(`\x%02x`, s[i]))
			} else {
				b.WriteString(fmt.Sprintf(`\u%04x`, r))
			}
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

func hex(r rune) string { return fmt.Sprintf("U+%04X", r) }

func itoa(n int) string { return strconv.Itoa(n) }
