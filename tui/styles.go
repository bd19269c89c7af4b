package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// Palette is the Okabe–Ito colour-blind-safe palette. Colour only ever
// repeats what a glyph or an attribute already says, so a terminal without
// colour (NO_COLOR, the Ascii profile) loses nothing a clerk needs.
var (
	colOrange    = lipgloss.Color("#E69F00")
	colSky       = lipgloss.Color("#56B4E9")
	colGreen     = lipgloss.Color("#009E73")
	colYellow    = lipgloss.Color("#F0E442")
	colVermilion = lipgloss.Color("#D55E00")
	colPurple    = lipgloss.Color("#CC79A7")
	colGrey      = lipgloss.Color("#8A8A8A")
	colDim       = lipgloss.Color("#5F5F5F")
	colWhite     = lipgloss.Color("#FFFFFF")
	colBlack     = lipgloss.Color("#000000")
)

// seatLook is how one seat state is drawn: a glyph that tells it apart
// without colour, and a style that adds colour and an attribute.
type seatLook struct {
	Glyph string
	Style lipgloss.Style
	// cell is Style.Render(Glyph), computed once: the seat map draws
	// hundreds of seats per frame and must not run lipgloss for each.
	cell string
	// cursor is the same glyph drawn under the cursor in compact mode.
	cursor string
	// open and close are the escape sequences around the glyph in cell,
	// so a run of seats that look the same is styled once, not per seat:
	// fewer sequences for every terminal renderer to parse each frame.
	open, close string
}

// Look indexes for the seat map and legend.
const (
	lookFree = iota
	lookPremium
	lookWheelchair
	lookCompanion
	lookMine
	lookOther
	lookSold
	lookBlocked
	lookOffer
	lookHouse
	numLooks
)

// Styles is every style the counter draws with, built by DefaultStyles.
type Styles struct {
	App       lipgloss.Style
	Title     lipgloss.Style
	Subtle    lipgloss.Style
	Faint     lipgloss.Style
	Bold      lipgloss.Style
	Selected  lipgloss.Style // the highlighted row of a list
	Label     lipgloss.Style // field labels
	Input     lipgloss.Style // a text field's value
	InputOn   lipgloss.Style // the focused text field
	Error     lipgloss.Style
	Info      lipgloss.Style
	Banner    lipgloss.Style // the clash banner
	Notice    lipgloss.Style // server notices ("restarting")
	Money     lipgloss.Style
	Screen    lipgloss.Style // the cinema screen bar above the seats
	RowLabel  lipgloss.Style
	Cursor    lipgloss.Style // the brackets around the seat under the cursor
	Countdown lipgloss.Style
	Warn      lipgloss.Style // a countdown about to run out
	BarFull   lipgloss.Style
	BarEmpty  lipgloss.Style
	QR        lipgloss.Style
	Help      help.Styles

	Seats [numLooks]seatLook
}

// DefaultStyles returns the counter's styles.
func DefaultStyles() Styles {
	base := lipgloss.NewStyle()
	s := Styles{
		App:       base,
		Title:     base.Bold(true).Foreground(colSky),
		Subtle:    base.Foreground(colGrey),
		Faint:     base.Faint(true),
		Bold:      base.Bold(true),
		Selected:  base.Bold(true).Reverse(true),
		Label:     base.Foreground(colGrey),
		Input:     base.Underline(true),
		InputOn:   base.Underline(true).Bold(true).Foreground(colYellow),
		Error:     base.Bold(true).Foreground(colVermilion),
		Info:      base.Foreground(colGreen),
		Banner:    base.Bold(true).Foreground(colBlack).Background(colYellow),
		Notice:    base.Bold(true).Foreground(colWhite).Background(colVermilion),
		Money:     base.Bold(true),
		Screen:    base.Foreground(colGrey).Bold(true),
		RowLabel:  base.Foreground(colGrey),
		Cursor:    base.Bold(true).Foreground(colYellow),
		Countdown: base.Foreground(colSky),
		Warn:      base.Bold(true).Foreground(colVermilion),
		BarFull:   base.Foreground(colOrange),
		BarEmpty:  base.Foreground(colDim),
		QR:        base.Foreground(colWhite).Background(colBlack),
	}
	hs := help.DefaultDarkStyles()
	hs.ShortKey = base.Foreground(colSky)
	hs.ShortDesc = base.Foreground(colGrey)
	hs.FullKey = base.Foreground(colSky)
	hs.FullDesc = base.Foreground(colGrey)
	s.Help = hs

	// Glyphs are plain ASCII: every terminal draws them one cell wide.
	s.Seats = [numLooks]seatLook{
		lookFree:       {Glyph: "o", Style: base.Foreground(colGreen)},
		lookPremium:    {Glyph: "O", Style: base.Foreground(colGreen).Bold(true)},
		lookWheelchair: {Glyph: "w", Style: base.Foreground(colPurple).Bold(true)},
		lookCompanion:  {Glyph: "c", Style: base.Foreground(colPurple)},
		lookMine:       {Glyph: "@", Style: base.Foreground(colSky).Bold(true)},
		lookOther:      {Glyph: "=", Style: base.Foreground(colOrange)},
		lookSold:       {Glyph: "x", Style: base.Foreground(colDim).Faint(true)},
		lookBlocked:    {Glyph: "#", Style: base.Foreground(colDim).Faint(true)},
		lookOffer:      {Glyph: "+", Style: base.Foreground(colBlack).Background(colYellow).Bold(true).Underline(true)},
		lookHouse:      {Glyph: "H", Style: base.Foreground(colVermilion)},
	}
	for i := range s.Seats {
		l := &s.Seats[i]
		l.cell = l.Style.Render(l.Glyph)
		l.cursor = l.Style.Reverse(true).Render(l.Glyph)
		if i := strings.Index(l.cell, l.Glyph); i >= 0 {
			l.open, l.close = l.cell[:i], l.cell[i+len(l.Glyph):]
		}
	}
	return s
}

type legendItem struct {
	look int
	text string
}

// seatLegend lists the looks in the order the legend shows them, with the
// word that explains each.
var seatLegend = []legendItem{
	{lookFree, "free"},
	{lookMine, "held here"},
	{lookOther, "held elsewhere"},
	{lookSold, "sold"},
	{lookWheelchair, "wheelchair"},
	{lookCompanion, "companion"},
	{lookBlocked, "blocked"},
	{lookPremium, "premium"},
	{lookOffer, "offer"},
	{lookHouse, "house seat"},
}
