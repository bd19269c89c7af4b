package kiosk

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/booking"
	"boxoffice/tui/qrtext"
)

// The kiosk's screens: large, plain and the same for everyone. Every
// string from outside the binary is cleaned before it is drawn.

// The kiosk's colours: the counter's Okabe–Ito palette, which only ever
// repeats what a glyph or attribute says.
var (
	colOrange    = lipgloss.Color("#E69F00")
	colVermilion = lipgloss.Color("#D55E00")
	colGrey      = lipgloss.Color("#8A8A8A")
)

var (
	kTitle  = lipgloss.NewStyle().Bold(true).Foreground(colOrange)
	kPick   = lipgloss.NewStyle().Bold(true).Reverse(true)
	kNote   = lipgloss.NewStyle().Bold(true).Foreground(colVermilion)
	kSubtle = lipgloss.NewStyle().Foreground(colGrey)
	kFrame  = lipgloss.NewStyle().Padding(1, 3)
	// kQR draws a QR code's light modules white on black whatever the
	// terminal's own colours, so a phone or scanner reads dark modules on
	// a light ground.
	kQR = lipgloss.NewStyle().Foreground(lipgloss.Color("#FFFFFF")).Background(lipgloss.Color("#000000"))
)

// View draws the kiosk full screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.WindowTitle = "boxoffice kiosk"
	return v
}

// Render is the screen as text: what View shows, and what tests compare.
// A screen too tall for the window (the Grand's nineteen rows at 24
// lines) is drawn compact — no title, no blank lines, no margin above and
// below — so its last rows and its key line are never cut.
func (m *Model) Render() string {
	full := m.render(false)
	if m.height > 0 && lipgloss.Height(full) > m.height {
		return m.render(true)
	}
	return full
}

func (m *Model) render(compact bool) string {
	m.compact = compact
	frame, gap := kFrame, "\n\n"
	var b strings.Builder
	if compact {
		frame, gap = kFrame.PaddingTop(0).PaddingBottom(0), "\n"
	} else {
		b.WriteString(kTitle.Render("B O X O F F I C E   ·   S E L F   S E R V I C E"))
		b.WriteString("\n\n")
	}
	b.WriteString(m.body())
	b.WriteString(gap)
	if m.note != "" {
		// The note wraps rather than being cut at the window's edge: it
		// is often what the customer must do next ("buy at the counter").
		note := kNote
		if w := m.width - kFrame.GetHorizontalFrameSize(); m.width > 0 && w > 0 {
			note = note.Width(w)
		}
		b.WriteString(note.Render(kioskTrim(m.note, 200)))
		b.WriteString("\n")
	}
	b.WriteString(kSubtle.Render(m.hint()))
	return frame.Render(m.fit(b.String()))
}

// fit cuts every line of s to the window inside the frame's padding, so a
// long film title or list of seats never draws the frame wider than the
// window.
func (m *Model) fit(s string) string {
	limit := m.width - kFrame.GetHorizontalFrameSize()
	if m.width == 0 || limit <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > limit {
			lines[i] = ansi.Truncate(l, limit, "…")
		}
	}
	return strings.Join(lines, "\n")
}

func (m *Model) hint() string {
	switch m.screen {
	case kHome:
		return "↑ ↓ choose   ⏎ go"
	case kCount:
		return "↑ ↓ ticket type   ← → how many   ⏎ find seats   esc back"
	case kSeats:
		return "← → ↑ ↓ move your seats   ⏎ these seats   esc back"
	case kFilms:
		return "↑ ↓ choose   ← → day   ⏎ go   esc back"
	case kDetails, kCollect, kUnlock:
		return "tab next field   ⏎ go on   esc start again"
	case kPay:
		return "⏎ pay   esc back"
	case kCollected:
		if len(m.collectedTickets()) > 1 {
			return "← → your other tickets   ⏎ done"
		}
		return "⏎ done"
	case kReserved:
		if m.reservation != nil && m.reservation.Status == booking.ReservationReserved {
			return "g pay here with a gift card   ⏎ done"
		}
		return "⏎ done"
	}
	return "↑ ↓ choose   ⏎ go   esc back"
}

func (m *Model) body() string {
	switch m.screen {
	case kHome:
		return m.list("Welcome", []string{"Book tickets", "Collect my tickets"})
	case kFilms:
		items := make([]string, len(m.films))
		for i, f := range m.films {
			items[i] = kioskTrim(f.title, 40)
		}
		return m.list("Choose a film · "+m.dayLabel(m.day), items)
	case kShows:
		f := m.films[m.film]
		items := make([]string, len(f.shows))
		for i, sh := range f.shows {
			items[i] = fmt.Sprintf("%s   %s   %d seats free", sh.Starts.Format("15:04"), kioskTrim(sh.HallName, 20), sh.Free())
		}
		return m.list(kioskTrim(f.title, 40)+" · "+m.dayLabel(m.day), items)
	case kCount:
		return m.countView()
	case kSeats:
		return m.seatsView()
	case kDetails:
		return m.formView("Your seats are held for 5 minutes. Who are they for?")
	case kReserved:
		return m.reservedView()
	case kCollect:
		return m.formView("Collect your tickets")
	case kCollected:
		return m.collectedView()
	case kUnlock:
		return m.formView("Close the kiosk (staff only)")
	case kPay:
		return m.formView("Pay " + kioskTrim(m.reservation.Number, 20) + " with a gift card: the whole amount")
	}
	return ""
}

// list draws a title and items, the one under the cursor picked out.
func (m *Model) list(title string, items []string) string {
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Render(title))
	b.WriteString("\n\n")
	for i, it := range items {
		line := "   " + it + "   "
		if i == m.cursor {
			line = kPick.Render("▶  " + it + "   ")
		}
		b.WriteString(line + "\n\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func (m *Model) countView() string {
	sh := m.show
	items := make([]string, len(m.types))
	for i, t := range m.types {
		items[i] = fmt.Sprintf("%-10s %7s   ‹ %2d ›", kioskTrim(t.Name, 10), t.Price.String(), m.counts[i])
	}
	out := m.list(fmt.Sprintf("%s · %s · how many tickets?", kioskTrim(sh.Film.Title, 40), sh.Starts.Format("Mon 2 Jan 15:04")), items) +
		fmt.Sprintf("\n\n%d of at most %d seats", m.total(), booking.MaxSeatsPerReservation)
	if from, ok := m.countFrom(); ok && m.total() > 0 {
		out += "   ·   from " + from.String() + " (premium seats cost more)"
	}
	return out + m.idNote(sh.Film)
}

// seatsView draws the hall, front at the top: ● your seats, ○ free,
// ✕ taken; the screen is drawn on the first row.
func (m *Model) seatsView() string {
	sm := m.seats
	var b strings.Builder
	head := "Your seats: " + kioskSeats(m.hold.Seats)
	if total, ok := m.heldTotal(); ok {
		head += "  ·  " + total.String() + " to pay"
	}
	b.WriteString(lipgloss.NewStyle().Bold(true).Render(head))
	if m.compact {
		b.WriteString("\n      " + screenLine(sm.Hall.Width*2) + "\n")
	} else {
		b.WriteString("\n\n      " + strings.Repeat("▔", sm.Hall.Width*2) + "\n      " + centre("SCREEN", sm.Hall.Width*2) + "\n")
	}
	grid := make([][]string, len(sm.Hall.Rows))
	for r := range grid {
		grid[r] = make([]string, sm.Hall.Width)
		for c := range grid[r] {
			grid[r][c] = "  "
		}
	}
	for _, s := range sm.Hall.Seats {
		if s.Row >= len(grid) || s.Col >= sm.Hall.Width {
			continue
		}
		g := "○ "
		if s.Kind == booking.Premium {
			g = "◇ "
		}
		switch {
		case sm.State(s.ID) == booking.SeatHeldByMe:
			g = "● "
		case sm.Taken(s.ID) || s.Blocked:
			g = "✕ "
		}
		grid[s.Row][s.Col] = g
	}
	for r, row := range grid {
		fmt.Fprintf(&b, "  %-3s %s\n", kioskTrim(sm.Hall.Rows[r], 3), strings.Join(row, ""))
	}
	if !m.compact {
		b.WriteString("\n")
	}
	b.WriteString("  ● your seats   ○ free   ◇ premium, free   ✕ taken")
	return b.String()
}

func kioskSeats(seats []booking.Seat) string {
	labels := make([]string, len(seats))
	for i, s := range seats {
		labels[i] = kioskTrim(s.Label, 8)
	}
	return strings.Join(labels, " ")
}

// screenLine is the screen drawn on one line: SCREEN in the middle of
// the bar.
func screenLine(width int) string {
	left := max((width-8)/2, 0)
	return strings.Repeat("▔", left) + " SCREEN " + strings.Repeat("▔", max(width-left-8, 0))
}

func centre(s string, width int) string {
	if pad := (width - len(s)) / 2; pad > 0 {
		return strings.Repeat(" ", pad) + s
	}
	return s
}

// formView draws the fields, cleaned, the focused one marked.
func (m *Model) formView(title string) string {
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Render(title))
	b.WriteString("\n\n")
	for i, f := range m.fields {
		shown := shownField(f)
		if r := []rune(shown); len(r) > 40 {
			shown = "…" + string(r[len(r)-39:])
		}
		mark := "  "
		if i == m.focus {
			mark = "▶ "
		}
		label := f.label
		if f.again {
			label += " (check and type again)"
		}
		fmt.Fprintf(&b, "%s%s\n    [ %-40s ]\n\n", mark, label, shown)
	}
	return strings.TrimRight(b.String(), "\n")
}

// reservedView is the reservation made: its number and QR code for the
// counter, what it costs and until when it is kept.
func (m *Model) reservedView() string {
	r := m.reservation
	list := ""
	if m.seats != nil && m.seats.Show.ID == r.Show.ID {
		list = m.seats.Show.PriceList
	}
	info := []string{
		lipgloss.NewStyle().Bold(true).Render("Reserved. Your booking number is"),
		kTitle.Render(kioskTrim(r.Number, 20)),
		"",
		kioskTrim(r.Show.Film.Title, 38),
		r.Show.Starts.Format("Mon 2 Jan 15:04") + " · " + kioskTrim(r.Show.HallName, 16),
	}
	info = append(info, wrapLine("Seats "+kioskSeats(r.Seats), 38)...)
	if total, ok := m.seatsTotal(list, r.Seats, r.Types); ok {
		if r.Voucher != nil {
			total -= r.Voucher.Discount
		}
		info = append(info, "", lipgloss.NewStyle().Bold(true).Render("To pay: "+total.String()))
	}
	if v := voucherLine(r); v != "" {
		info = append(info, v)
	}
	info = append(info, "", "Pay at the counter by "+r.CutOff.Format("15:04")+",", "or the seats go back on sale.", "Or pay here now with a gift card: g.")
	if note := strings.TrimSpace(m.idNote(r.Show.Film)); note != "" {
		info = append(info, wrapLine(note, 38)...)
	}
	qr := strings.Split(qrtext.Render(r.Number), "\n")
	for i, l := range qr {
		qr[i] = kQR.Render(l)
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, strings.Join(qr, "\n"), "   ", strings.Join(info, "\n"))
}

// wrapLine breaks s at spaces into lines of at most width runes.
func wrapLine(s string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			out, line = append(out, line), "      "+w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(out, line)
}

func (m *Model) collectedView() string {
	c := m.collection
	var b strings.Builder
	if r := c.Reservation; r != nil {
		fmt.Fprintf(&b, "%s · %s\n\n%s · %s · seats %s\n\n", kioskTrim(r.Number, 20), r.Status, kioskTrim(r.Show.Film.Title, 40),
			r.Show.Starts.Format("Mon 2 Jan 15:04"), kioskSeats(r.Seats))
		if r.Status == booking.ReservationReserved {
			fmt.Fprintf(&b, "Not paid yet: pay at the counter by %s.", r.CutOff.Format("15:04"))
		}
		return b.String()
	}
	bk := c.Booking
	tickets := m.collectedTickets()
	if len(tickets) == 0 {
		fmt.Fprintf(&b, "%s · %s · %s %s\n\n", kioskTrim(bk.Number, 20), bk.Status, kioskTrim(bk.Show.Film.Title, 40), bk.Show.Starts.Format("Mon 2 Jan 15:04"))
		for _, t := range bk.Tickets {
			fmt.Fprintf(&b, "  Seat %-4s %-8s %s\n", kioskTrim(t.Seat.Label, 8), kioskTrim(t.Type, 10), t.Status)
		}
		b.WriteString("\nNo ticket of this booking can come in now: ask at the counter.")
		return b.String()
	}
	t := tickets[min(m.ticket, len(tickets)-1)]
	info := []string{
		lipgloss.NewStyle().Bold(true).Render(kioskTrim(bk.Number, 20)),
		"",
		kioskTrim(bk.Show.Film.Title, 36),
		bk.Show.Starts.Format("Mon 2 Jan 15:04") + " · " + kioskTrim(bk.Show.HallName, 16),
		"",
		kTitle.Render(fmt.Sprintf("Ticket %d of %d", min(m.ticket, len(tickets)-1)+1, len(tickets))),
		fmt.Sprintf("Seat %s · %s", kioskTrim(t.Seat.Label, 8), kioskTrim(t.Type, 12)),
		"",
		"Show this code at the door:",
		"no need to print it.",
	}
	qr := strings.Split(qrtext.Render(t.Code), "\n")
	for i, l := range qr {
		qr[i] = kQR.Render(l)
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, strings.Join(qr, "\n"), "   ", strings.Join(info, "\n"))
}

// idNote tells a customer a film needs ID at the door (docs/books.md),
// on a line of its own; "" for a film that needs none.
func (m *Model) idNote(f booking.Film) string {
	if !booking.NeedsID(f.Rating, m.idAbove) {
		return ""
	}
	return "\n" + booking.IDAtDoor(f)
}
