package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
)

// MaxWidth and MaxHeight bound the terminal size any screen is drawn at,
// over SSH (counter and kiosk) or in this process. Bubble Tea's renderer
// makes a cell (about 112 bytes) for every column × row of the size it is
// given, twice, before it draws anything, so the size a client asks for is
// an allocation it chooses: a 60000×60000 PTY request asked for 400 GB and
// ended the server. 500×300 is more than any real window (a 4K monitor at
// a small font is about 400×120) and costs at most about 35 MB a session.
// A larger terminal is drawn in at this size, in its top-left corner.
const (
	MaxWidth  = 500
	MaxHeight = 300
)

// BoundSize returns w×h cut to MaxWidth×MaxHeight (a negative side to 0)
// and whether it was cut.
func BoundSize(w, h int) (bw, bh int, cut bool) {
	bw, bh = min(max(w, 0), MaxWidth), min(max(h, 0), MaxHeight)
	return bw, bh, bw != w || bh != h
}

// SizeNotice is the banner of a counter whose terminal, w×h, is larger
// than MaxWidth×MaxHeight: the screen uses only part of it.
func SizeNotice(w, h int) string {
	return fmt.Sprintf("This terminal is %d×%d: the counter draws in the top-left %d×%d of it.", w, h, MaxWidth, MaxHeight)
}

// Filter is a Bubble Tea message filter (tea.WithFilter).
type Filter = func(tea.Model, tea.Msg) tea.Msg

// BoundSizeFilter returns the filter that cuts every tea.WindowSizeMsg to
// MaxWidth×MaxHeight before next (nil: none) and the program see it. The
// size a program starts at is bounded by whoever makes it (NewLocalProgram,
// the SSH server); this bounds every later one, including a size report
// typed into the input (CSI 8;rows;cols t), which Bubble Tea takes for a
// resize of up to a million cells. A program has one filter: tea.WithFilter
// keeps the last one given.
func BoundSizeFilter(next Filter) Filter {
	return func(m tea.Model, msg tea.Msg) tea.Msg {
		if size, ok := msg.(tea.WindowSizeMsg); ok {
			size.Width, size.Height, _ = BoundSize(size.Width, size.Height)
			msg = size
		}
		if next == nil {
			return msg
		}
		return next(m, msg)
	}
}

// SizeBanner keeps a counter's banner saying whether its terminal is
// larger than the screen is drawn at. Not safe for concurrent use: one
// goroutine follows one terminal.
type SizeBanner struct {
	text string
}

// Update takes the size the terminal asks for, before the bound, and
// returns the ServerNoticeMsg to send when the banner must change, nil when
// it stays: a client that sends window changes without end costs a
// comparison each, not a repaint.
func (b *SizeBanner) Update(w, h int) tea.Msg {
	text := ""
	if _, _, cut := BoundSize(w, h); cut {
		text = SizeNotice(w, h)
	}
	if text == b.text {
		return nil
	}
	b.text = text
	return ServerNoticeMsg{Text: text}
}
