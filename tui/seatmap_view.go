package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"boxoffice/booking"
)

// mapGeom is where the seat map sits on the screen; View and mouse clicks
// both use it, so a click lands on the seat that was drawn there.
type mapGeom struct {
	top    int // screen line of the first drawn row
	first  int // first hall row drawn
	rows   int // number of hall rows drawn
	left   int // screen column of the map's first cell (left row label)
	cellW  int // 2: glyph and a space; 1: compact
	seatX0 int // screen column of column 0's glyph
	mapW   int // cells from the left label to the right label
	// panel is set when the legend and the seat details fit to the right
	// of the map; panelX is their first column.
	panel  bool
	panelX int
	// below is how many lines under the rows the legend, the details and
	// the banner take.
	below int
	// spill is how many lines of the side panel go on under the map, in
	// its column: on a hall shorter than the panel (the seat details and
	// the party come after the legend), so none of it is cut.
	spill int
	// panelLines is the side panel, drawn once for both the layout and
	// the frame.
	panelLines []string
	// more is set when the hall has more rows than fit: a line under the
	// rows says which are above and below.
	more bool
}

// panelWidth is the least width of the side panel.
const panelWidth = 20

func (m *Model) mapGeom() mapGeom {
	s := &m.seats
	g := mapGeom{cellW: 2}
	topLines := 1 // title bar
	if m.notice != "" {
		topLines++
	}
	bottom := m.seats.bottomH // the frame being drawn, or the last one (a click)
	if bottom == 0 {
		bottom = len(m.bottomLines())
	}
	bodyRows := m.height - topLines - bottom
	width := len(s.grid[0])
	g.mapW = 2*s.labelW + 2*width + 1
	if g.mapW+2 > m.width {
		g.cellW = 1
		g.mapW = 2*s.labelW + width + 2
	}
	if m.width-g.mapW-4 >= panelWidth {
		g.panel = true
		g.left = max((m.width-g.mapW-panelWidth-4)/2, 1)
		g.panelX = g.left + g.mapW + 4
	} else {
		g.left = max((m.width-g.mapW)/2, 0)
	}
	g.seatX0 = g.left + s.labelW + 1
	banner := lineCount(m.mapBanner())
	if g.panel {
		g.below = banner
	} else {
		footer := banner
		if footer == 0 {
			footer = len(m.cursorLines())
		}
		g.below = 1 + strings.Count(m.legend(), "\n") + 1 + max(footer, 1)
	}
	avail := max(bodyRows-2-g.below, 1)
	g.rows = min(len(s.grid), avail)
	if g.rows < len(s.grid) {
		// Rows scroll with the cursor; one line says what is off screen.
		if avail > 1 {
			g.rows, g.more = avail-1, true
		}
		g.first = min(max(s.curRow-g.rows/2, 0), len(s.grid)-g.rows)
	}
	if g.panel {
		// What of the panel is longer than the map goes on under it, in
		// the lines the hall leaves free.
		room := max(bodyRows-1-g.beside()-banner, 0)
		g.panelLines = m.sidePanel(m.width - g.panelX)
		g.spill = min(max(len(g.panelLines)-g.beside(), 0), room)
		g.below += g.spill
	}
	g.top = topLines + 2 // the show header and the screen come first
	return g
}

// beside is how many lines the side panel has beside the map: the screen
// edge, the rows and the line saying which rows are off screen.
func (g mapGeom) beside() int {
	n := 1 + g.rows
	if g.more {
		n++
	}
	return n
}

// lineCount is how many lines s takes: 0 for "".
func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

// showLapsed reports whether the map shows the banner of a hold that ran
// out: until a new hold is made.
func (s *seatMapState) showLapsed() bool {
	return len(s.lapsed) > 0 && s.clash == nil && len(s.mine()) == 0
}

// moreRows says which rows are scrolled off the map: "▲ A–C above · ▼ T below".
func (m *Model) moreRows(g mapGeom) string {
	s := &m.seats
	label := func(r int) string {
		if r < len(s.hall.Rows) {
			return cut(s.hall.Rows[r], 3)
		}
		return "?"
	}
	span := func(from, to int) string {
		if from == to {
			return "row " + label(from)
		}
		return "rows " + label(from) + "–" + label(to)
	}
	var parts []string
	if g.first > 0 {
		parts = append(parts, "▲ "+span(0, g.first-1)+" above")
	}
	if last := g.first + g.rows; last < len(s.grid) {
		parts = append(parts, "▼ "+span(last, len(s.grid)-1)+" below")
	}
	return m.styles.Subtle.Render(strings.Repeat(" ", g.left+s.labelW+1) + strings.Join(parts, " · ") + " (↑↓ scroll)")
}

// lapsedBanner tells the clerk the hold ran out and what enter does now.
func (m *Model) lapsedBanner() string {
	return strings.Join(m.bannerLines(" The hold on "+joinLabels(m.seats.lapsed)+" ran out · "+together("enter holds them again")), "\n")
}

// lookOf picks how a seat is drawn.
func (s *seatMapState) lookOf(seat *booking.Seat) int {
	switch s.sm.States[seat.ID] {
	case booking.SeatHeldByMe:
		return lookMine
	case booking.SeatHeldByOther:
		return lookOther
	case booking.SeatSold:
		return lookSold
	case booking.SeatBlocked:
		return lookBlocked
	case booking.SeatHouse:
		return lookHouse
	}
	if s.clash != nil && s.clash.offer[seat.ID] {
		return lookOffer
	}
	switch seat.Kind {
	case booking.Premium:
		return lookPremium
	case booking.Wheelchair:
		return lookWheelchair
	case booking.Companion:
		return lookCompanion
	}
	return lookFree
}

func (seatMapScreen) view(m *Model, height int) string {
	st := &m.styles
	s := &m.seats
	var b strings.Builder
	b.Grow(16384)

	// Header: the show, how full it is and the hold countdown.
	sh := s.show
	left := st.Title.Render(cut(sh.Film.Title, m.width-45)) + st.Subtle.Render(" · "+cut(sh.HallName, 12)+" · "+sh.Starts.In(m.now().Location()).Format("Mon 2 Jan 15:04"))
	if m.exch != nil {
		left = st.Warn.Render("Exchange ") + left
	}
	right := st.Subtle.Render(fmt.Sprintf("free %d/%d", sh.Free(), sh.Capacity))
	if sh.Cancelled() {
		// Said where the free count was, so even the smallest map says why.
		right = st.Error.Render(cut("CANCELLED — "+booking.CleanLine(sh.CancelReason, 120), max(m.width-ansi.StringWidth(left)-2, 9)))
	}
	if cd := m.countdown(); cd != "" {
		right += "  " + cd
	}
	b.WriteString(spread(left, right, m.width))
	b.WriteString("\n")
	if s.sm == nil || len(s.grid) == 0 || len(s.grid[0]) == 0 {
		b.WriteString("\n" + st.Subtle.Render("  Loading seats…"))
		return b.String()
	}
	g := m.mapGeom()
	pad := strings.Repeat(" ", g.left)
	var panel []string
	gutter := ""
	if g.panel {
		panel = g.panelLines
		gutter = strings.Repeat(" ", g.panelX-g.left-g.mapW)
	}
	withPanel := func(i int) {
		if i < len(panel) {
			b.WriteString(gutter)
			b.WriteString(panel[i])
		}
		b.WriteByte('\n')
	}

	// The screen.
	b.WriteString(pad + m.screenEdge(g))
	withPanel(0)

	// The rows.
	cursorOn := s.clash == nil
	for r := g.first; r < g.first+g.rows; r++ {
		b.WriteString(pad)
		b.WriteString(s.rowL[r])
		if g.cellW == 2 {
			m.drawRowWide(&b, r, cursorOn)
		} else {
			m.drawRowCompact(&b, r, cursorOn)
		}
		b.WriteString(s.rowR[r])
		withPanel(r - g.first + 1)
	}
	if g.more {
		more := m.moreRows(g)
		if g.panel {
			more = padRight(cutStyled(more, g.left+g.mapW), g.left+g.mapW)
		}
		b.WriteString(more)
		withPanel(g.rows + 1)
	}
	for i := g.beside(); i < g.beside()+g.spill && i < len(panel); i++ {
		b.WriteString(strings.Repeat(" ", g.panelX) + panel[i] + "\n")
	}
	if !g.panel {
		b.WriteString("\n")
		b.WriteString(m.legend())
		b.WriteString("\n")
	}

	b.WriteString(m.mapFooter(g))
	return strings.TrimSuffix(b.String(), "\n")
}

// mapFooter is the line (or two) under the map: the banner of a clash, a
// refused single seat, a prompt or a hold that ran out, or else, without
// the side panel, what is under the cursor.
func (m *Model) mapFooter(g mapGeom) string {
	if banner := m.mapBanner(); banner != "" || g.panel {
		return banner
	}
	return strings.Join(m.cursorLines(), "\n")
}

// mapBanner is the banner or prompt under the map, "" when there is none.
func (m *Model) mapBanner() string {
	st := &m.styles
	s := &m.seats
	switch {
	case s.show.Cancelled():
		var out []string
		for _, l := range wrapWords(" "+cancelledLine(s.show)+" · no seats can be held", m.width-1) {
			out = append(out, st.Error.Render(l))
		}
		return strings.Join(out[:min(len(out), 2)], "\n")
	case s.clash != nil:
		return m.clashBanner()
	case s.single != nil:
		return m.singleBanner()
	case s.prompt:
		return st.Label.Render(" Go to seat (G7 or G7-9): ") + s.input.view(st, true, 12)
	case s.waitPrompt:
		return st.Label.Render(" Waiting list — name, phone, seats: ") + s.waitInput.view(st, true, max(m.width-40, 10))
	case s.blockAsk:
		return m.blockPromptView()
	case s.showLapsed():
		return m.lapsedBanner()
	}
	return ""
}

// singleBanner says which seat a hold refused by the single-seat rule
// would strand, and the two ways on: the seats with the single, or the
// override.
func (m *Model) singleBanner() string {
	e := m.seats.single
	msg := " " + booking.Clean(e.Message())
	hint := " " + together("enter holds") + " " + joinLabels(e.Fill()) + " · " + together("y holds") + " " + joinLabels(e.Picked) + " " + together("anyway (logged)") + " · esc"
	if full := msg + " ·" + hint; ansi.StringWidth(full) <= m.width {
		return strings.Join(m.bannerLines(full), "\n") // one line
	}
	return strings.Join(append(m.bannerLines(msg), m.bannerLines(hint)...), "\n")
}

// screenEdge is the line that stands for the screen, above row A.
func (m *Model) screenEdge(g mapGeom) string {
	st := &m.styles
	s := &m.seats
	width := len(s.grid[0])
	inner := (width-1)*g.cellW + 1
	scr := strings.Repeat("▔", max(inner, 6))
	label := " SCREEN "
	if inner > len(label)+4 {
		mid := (inner - len(label)) / 2
		scr = strings.Repeat("▔", mid) + label + strings.Repeat("▔", inner-mid-len(label))
	}
	return strings.Repeat(" ", s.labelW+1) + st.Screen.Render(scr) + strings.Repeat(" ", max(g.mapW-s.labelW-1-max(inner, 6), 0))
}

// drawRowWide draws hall row r two cells a seat, with the cursor as
// brackets around its seat.
func (m *Model) drawRowWide(b *strings.Builder, r int, cursorOn bool) {
	st := &m.styles
	s := &m.seats
	row := s.grid[r]
	// Seats that look alike side by side share one styled run.
	open := -1
	closeRun := func() {
		if open >= 0 {
			b.WriteString(st.Seats[open].close)
			open = -1
		}
	}
	for c, i := range row {
		switch {
		case cursorOn && r == s.curRow && c == s.curCol:
			closeRun()
			b.WriteString(st.Cursor.Render("["))
		case cursorOn && r == s.curRow && c == s.curCol+1:
			closeRun()
			b.WriteString(st.Cursor.Render("]"))
		default:
			b.WriteByte(' ')
		}
		if i < 0 {
			b.WriteByte(' ')
			continue
		}
		look := s.lookOf(&s.hall.Seats[i])
		if look != open {
			closeRun()
			b.WriteString(st.Seats[look].open)
			open = look
		}
		b.WriteString(st.Seats[look].Glyph)
	}
	closeRun()
	if cursorOn && r == s.curRow && s.curCol == len(row)-1 {
		b.WriteString(st.Cursor.Render("]"))
	} else {
		b.WriteByte(' ')
	}
}

// drawRowCompact draws hall row r one cell a seat, for a hall too wide
// for two.
func (m *Model) drawRowCompact(b *strings.Builder, r int, cursorOn bool) {
	st := &m.styles
	s := &m.seats
	row := s.grid[r]
	b.WriteByte(' ')
	for c, i := range row {
		if i < 0 {
			b.WriteByte(' ')
			continue
		}
		look := &st.Seats[s.lookOf(&s.hall.Seats[i])]
		if cursorOn && r == s.curRow && c == s.curCol {
			b.WriteString(look.cursor)
		} else {
			b.WriteString(look.cell)
		}
	}
	b.WriteByte(' ')
}

// sidePanel is the legend and the seat details, one string per line,
// drawn to the right of the map.
func (m *Model) sidePanel(width int) []string {
	st := &m.styles
	s := &m.seats
	var out []string
	for _, item := range m.legendItems() {
		out = append(out, st.Seats[item.look].cell+" "+st.Subtle.Render(item.text))
	}
	out = append(out, "")
	if seat, ok := s.current(); ok {
		// The seat, its state and why it is kept out of sale, wrapped
		// to the panel: the reason is what the clerk tells the customer.
		for i, l := range wrapWords(booking.Clean(seat.Label)+" "+m.seatSays(seat)+s.blockNote(seat), width) {
			if i == 0 {
				l = st.Bold.Render(cut(seat.Label, 6)) + strings.TrimPrefix(l, booking.Clean(seat.Label))
			}
			out = append(out, l)
		}
	}
	if mine := s.mine(); len(mine) > 0 {
		out = append(out, "", st.Seats[lookMine].Style.Render(fmt.Sprintf("holding %d:", len(mine))))
		line := ""
		for _, l := range seatLabels(mine) {
			if ansi.StringWidth(line)+len(l)+1 > width {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += l
		}
		out = append(out, line, st.Subtle.Render("enter checkout"))
	}
	if !s.party.empty() {
		out = append(out, "", st.Bold.Render(fmt.Sprintf("party of %d:", s.party.size())))
		out = append(out, wrapWords(m.partyText(), width)...)
		if len(s.mine()) == 0 {
			for _, l := range wrapWords("enter: best seats and checkout", width) {
				out = append(out, st.Subtle.Render(l))
			}
		}
	}
	for i, l := range out {
		out[i] = cutStyled(l, width)
	}
	return out
}

// countdown is the time left on this session's hold, "hold 4:59", with
// what the clerk can do about it as it runs low.
func (m *Model) countdown() string {
	if m.seats.expires.IsZero() || m.heldCount() == 0 {
		return ""
	}
	text := m.countdownText()
	left := m.seats.expires.Sub(m.now())
	switch {
	case m.seats.capped:
		return m.styles.Warn.Render(text + " · limit")
	case left < time.Minute:
		return m.styles.Warn.Render(text + " + extends")
	}
	return m.styles.Countdown.Render(text)
}

// countdownText is "hold 4:59".
func (m *Model) countdownText() string {
	left := max(m.seats.expires.Sub(m.now()), 0)
	secs := int(left.Round(time.Second) / time.Second)
	return fmt.Sprintf("hold %d:%02d", secs/60, secs%60)
}

// legend explains each glyph the hall can show, wrapped to the width.
func (m *Model) legend() string {
	st := &m.styles
	var lines []string
	line := " "
	for _, item := range m.legendItems() {
		part := st.Seats[item.look].cell + " " + st.Subtle.Render(item.text)
		if ansi.StringWidth(line)+ansi.StringWidth(part)+2 > m.width {
			lines = append(lines, line)
			line = " "
		}
		if line != " " {
			line += "  "
		}
		line += part
	}
	lines = append(lines, line)
	return strings.Join(lines, "\n")
}

// legendItems are the looks this hall can show, in legend order.
func (m *Model) legendItems() []legendItem {
	s := &m.seats
	var out []legendItem
	for _, item := range seatLegend {
		switch item.look {
		case lookOffer:
			if s.clash == nil {
				continue
			}
		case lookPremium, lookWheelchair, lookCompanion, lookBlocked, lookHouse:
			if !s.hallHas[item.look] && !s.mapHas(item.look) {
				continue
			}
		}
		out = append(out, item)
	}
	return out
}

// clashBanner is the two-line banner after a clash.
func (m *Model) clashBanner() string {
	st := &m.styles
	c := m.seats.clash
	msg := " " + booking.Clean(c.err.Message())
	hint := " esc choose again"
	if offer := c.offerSeats(); len(offer) == 1 {
		hint = " enter take it · esc choose again"
	} else if len(offer) > 1 {
		hint = " enter take them · esc choose again"
	}
	full := msg + " ·" + hint
	if ansi.StringWidth(full) <= m.width {
		return st.Banner.Render(padRight(full, m.width))
	}
	return st.Banner.Render(padRight(ansi.Truncate(msg, m.width, "…"), m.width)) + "\n" +
		st.Banner.Render(padRight(hint, m.width))
}

// cursorLines describe the seat under the cursor, the seats held and the
// party, under a map with no side panel: a line, two when it is longer
// than the width.
func (m *Model) cursorLines() []string {
	s := &m.seats
	if s.sm == nil {
		return nil
	}
	var parts []string
	if seat, ok := s.current(); ok {
		parts = append(parts, booking.Clean(seat.Label)+" "+m.seatSays(seat)+s.blockNote(seat))
	}
	if mine := s.mine(); len(mine) > 0 {
		parts = append(parts, fmt.Sprintf("holding %d: %s", len(mine), strings.Join(seatLabels(mine), " ")))
	}
	if !s.party.empty() {
		parts = append(parts, fmt.Sprintf("party of %d: %s", s.party.size(), m.partyText()))
	}
	lines := wrapWords(" "+strings.Join(parts, " · "), m.width)
	if len(lines) > 2 {
		lines = lines[:2] // the seat and the hold come first
	}
	for i, l := range lines {
		lines[i] = m.styles.Bold.Render(l)
	}
	return lines
}

// seatSays is what a seat of the map is now: a held seat of a
// reservation says until when it is kept for its customer.
func (m *Model) seatSays(seat booking.Seat) string {
	sm := m.seats.sm
	if cut, ok := sm.Reserved[seat.ID]; ok && sm.State(seat.ID) == booking.SeatHeldByOther {
		return "reserved until " + cut.In(m.now().Location()).Format("15:04")
	}
	return seatWord(sm.State(seat.ID), seat.Kind)
}

func seatWord(state booking.SeatState, kind booking.SeatKind) string {
	switch state {
	case booking.SeatHeldByMe:
		return "held here"
	case booking.SeatHeldByOther:
		return "held at another counter"
	case booking.SeatSold:
		return "sold"
	case booking.SeatBlocked:
		return "blocked"
	case booking.SeatHouse:
		return "house seat"
	}
	if kind != booking.Standard {
		return "free (" + kind.String() + ")"
	}
	return "free"
}
