package booking

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unsafe reports whether r could steer a terminal or reorder text: C0 and
// C1 controls (ESC, CSI, BEL…), DEL, the Unicode bidi controls and
// invisible formatters, and U+FFFD (what a broken byte decodes to). It is
// the one test every sanitiser here applies.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20 || (r >= 0x7f && r <= 0x9f):
		return true
	case r == unicode.ReplacementChar:
		return true
	}
	return isBidiOrFormat(r)
}

// Clean strips from s every character that could steer a terminal or
// reorder text (see Unsafe). Tabs and newlines become spaces. It is
// applied to every string from outside the binary before it is stored
// and again before it is drawn.
func Clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case Unsafe(r):
			return -1
		}
		return r
	}, s)
}

// CleanText is Clean for text of several lines on its way to a terminal:
// newlines and tabs stay, everything else Unsafe goes, and so do bytes
// that are not UTF-8 (a lone 0x9B is a CSI to some terminals).
func CleanText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == '\n' || r == '\t' || !Unsafe(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isBidiOrFormat(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F: // zero-width, LRM, RLM
		return true
	case r >= 0x2028 && r <= 0x202E: // line and paragraph separators, LRE RLE PDF LRO RLO
		return true
	case r >= 0x2060 && r <= 0x206F: // word joiner, isolates LRI RLI FSI PDI, deprecated formatters
		return true
	case r == 0xFEFF, r == 0x061C, r == 0x00AD:
		return true
	case r >= 0xFFF9 && r <= 0xFFFB: // interlinear annotation
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// CleanLine is Clean followed by trimming and a length cap in runes, for
// names and phone numbers typed at a counter.
func CleanLine(s string, max int) string {
	s = strings.TrimSpace(Clean(s))
	if r := []rune(s); len(r) > max {
		s = string(r[:max])
	}
	return s
}

// EscapeJSON rewrites JSON text so that every Unsafe character inside its
// strings is a \uXXXX escape (a surrogate pair above U+FFFF). JSON puts
// such characters only inside strings, so the text stays valid JSON that
// decodes to the same data, and a terminal shown it sees only the escape.
func EscapeJSON(js []byte) []byte {
	const hex = "0123456789abcdef"
	out := make([]byte, 0, len(js))
	esc := func(u rune) {
		out = append(out, '\\', 'u', hex[u>>12&0xf], hex[u>>8&0xf], hex[u>>4&0xf], hex[u&0xf])
	}
	for i := 0; i < len(js); {
		r, size := utf8.DecodeRune(js[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			esc(unicode.ReplacementChar) // not UTF-8; encoding/json never makes it
		case r > 0xFFFF && Unsafe(r):
			r -= 0x10000
			esc(0xD800 + r>>10)
			esc(0xDC00 + r&0x3ff)
		case r >= 0x7f && Unsafe(r):
			esc(r)
		default:
			out = append(out, js[i:i+size]...)
		}
		i += size
	}
	return out
}
