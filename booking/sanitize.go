package booking

import (
	"strings"
	"unicode"
)

// Clean strips from s every character that could steer a terminal or
// reorder text: C0 and C1 controls (ESC, CSI, BEL…), DEL, and the Unicode
// bidi controls and invisible formatters. Tabs and newlines become spaces.
// It is applied to every string from outside the binary before it is stored
// and again before it is drawn.
func Clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			return -1
		case isBidiOrFormat(r):
			return -1
		case r == unicode.ReplacementChar:
			return -1
		}
		return r
	}, s)
}

func isBidiOrFormat(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F: // zero-width, LRM, RLM
		return true
	case r >= 0x202A && r <= 0x202E: // LRE RLE PDF LRO RLO
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
