package tui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"boxoffice/booking"
)

// This file is the layout helpers every screen draws with: the size the
// counter needs, and lines padded, cut and spread to a width in cells.

// MinWidth and MinHeight are the smallest terminal the counter draws in.
const (
	MinWidth  = 80
	MinHeight = 24
)

// tooSmall reports whether the window is below the counter's minimum:
// then it draws only renderTooSmall.
func (m *Model) tooSmall() bool { return m.width < MinWidth || m.height < MinHeight }

// dayOf returns local midnight of t's day in t's location.
func dayOf(t time.Time) time.Time {
	y, mo, d := t.Date()
	return time.Date(y, mo, d, 0, 0, 0, 0, t.Location())
}

// renderTooSmall is the whole screen below MinWidth×MinHeight.
func (m *Model) renderTooSmall() string {
	msg := fmt.Sprintf("Make the window larger: the counter needs %d×%d, this one is %d×%d.", MinWidth, MinHeight, m.width, m.height)
	msg += "\nctrl+c quits."
	out := make([]string, 0, max(m.height, 1))
	for _, l := range strings.Split(msg, "\n") {
		out = append(out, ansi.Truncate(ansi.Wordwrap(l, max(m.width, 10), " "), max(m.width, 1)*4, ""))
	}
	return strings.Join(out, "\n")
}

// spread puts left and right on one line of width cells.
func spread(left, right string, width int) string {
	rw := ansi.StringWidth(right)
	if ansi.StringWidth(left)+rw+1 > width {
		left = ansi.Truncate(left, max(width-rw-1, 0), "…")
	}
	gap := width - ansi.StringWidth(left) - rw
	if gap < 1 {
		return left
	}
	return left + strings.Repeat(" ", gap) + right
}

// padRight pads s with spaces to width cells.
func padRight(s string, width int) string {
	if w := ansi.StringWidth(s); w < width {
		return s + strings.Repeat(" ", width-w)
	}
	return s
}

// cut shortens an untrusted string to n cells after cleaning it.
func cut(s string, n int) string {
	s = booking.Clean(s)
	if ansi.StringWidth(s) > n {
		return ansi.Truncate(s, n, "…")
	}
	return s
}

// fit cleans s and pads or cuts it to exactly n cells.
func fit(s string, n int) string { return padRight(cut(s, n), n) }

// plural writes "1 ticket" or "3 tickets".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// indent shifts every line of s right by n spaces.
func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n")
}

// cutStyled truncates a styled line to width cells.
func cutStyled(s string, width int) string {
	if ansi.StringWidth(s) > width {
		return ansi.Truncate(s, width, "…")
	}
	return s
}

// seatLabels are the seats' labels, cleaned for the screen.
func seatLabels(seats []booking.Seat) []string {
	out := make([]string, len(seats))
	for i, s := range seats {
		out[i] = booking.Clean(s.Label)
	}
	return out
}

// joinLabels lists seats as "G7, G8 and G9".
func joinLabels(seats []booking.Seat) string {
	l := seatLabels(seats)
	switch len(l) {
	case 0:
		return "the seats"
	case 1:
		return l[0]
	}
	return strings.Join(l[:len(l)-1], ", ") + " and " + l[len(l)-1]
}

// glue is the space inside a phrase that wrapWords keeps on one line (a
// no-break space while it wraps, a space when drawn).
const glue = "\u00a0"

// together glues the words of s so wrapWords never parts them: a key and
// what it does ("ctrl+k called") move to the next line whole.
func together(s string) string { return strings.ReplaceAll(s, " ", glue) }

// wrapWords wraps plain text to lines of at most width cells, at spaces
// where it can (a word longer than the width is broken), without trailing
// spaces. It is how a message too long for one line keeps every word.
func wrapWords(s string, width int) []string {
	if width < 1 {
		return []string{strings.ReplaceAll(s, glue, " ")}
	}
	lines := strings.Split(ansi.Wrap(s, width, ""), "\n")
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(strings.TrimRight(l, " "), glue, " ")
	}
	return lines
}

// fitWords shortens a line of plain text to at most width cells by
// leaving out whole words from its end: a line that must be shorter ends
// on a word, never in the middle of one.
func fitWords(s string, width int) string {
	for ansi.StringWidth(s) > width {
		i := strings.LastIndexByte(strings.TrimRight(s, " "), ' ')
		if i <= 0 {
			return ansi.Truncate(s, max(width, 0), "")
		}
		s = strings.TrimRight(s[:i], " ")
	}
	return s
}
