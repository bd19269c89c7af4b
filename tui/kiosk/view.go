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
func (m *Model) Render() string {
	var b strings.Builder
	b.WriteString(kTitle.Render("B O X O F F I C E   ·   S E L F   S E R V I C E"))
	b.WriteString("\n\n")
	b.WriteString(m.body())
	b.WriteString("\n\n")
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
	return kFrame.Render(m.fit(b.String()))
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
	case kDetails, kCollect, kUnlock:
		return "tab next field   ⏎ go on   esc start again"
	case kCollected:
		if len(m.collectedTickets()) > 1 {
			return "← → your other tickets   ⏎ done"
		}
		return "⏎ done"
	case kReserved:
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
		return m.list("Choose a film", items)
	case kShows:
		f := m.films[m.film]
		items := make([]string, len(f.shows))
		for i, sh := range f.shows {
			items[i] = fmt.Sprintf("%s   %s   %d seats free", sh.Starts.Format("15:04"), kioskTrim(sh.HallName, 20), sh.Free())
		}
		return m.list(kioskTrim(f.title, 40)+" today", items)
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
	return m.list(fmt.Sprintf("%s · %s · how many tickets?", kioskTrim(sh.Film.Title, 40), sh.Starts.Format("15:04")), items) +
		fmt.Sprintf("\n\n%d of at most %d seats", m.total(), booking.MaxSeatsPerReservation)
}

// seatsView draws the hall, front at the top: ● your seats, ○ free,
// ✕ taken; the screen is drawn on the first row.
func (m *Model) seatsView() string {
	sm := m.seats
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Render("Your seats: " + kioskSeats(m.hold.Seats)))
	b.WriteString("\n\n      " + strings.Repeat("▔", sm.Hall.Width*2) + "\n      " + centre("SCREEN", sm.Hall.Width*2) + "\n")
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
	b.WriteString("\n  ● your seats   ○ free   ✕ taken")
	return b.String()
}

func kioskSeats(seats []booking.Seat) string {
	labels := make([]string, len(seats))
	for i, s := range seats {
		labels[i] = kioskTrim(s.Label, 8)
	}
	return strings.Join(labels, " ")
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
		shown := booking.Clean(f.String())
		if f.mask {
			shown = strings.Repeat("•", len(f.value))
		}
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

func (m *Model) reservedView() string {
	r := m.reservation
	var b strings.Builder
	b.WriteString(lipgloss.NewStyle().Bold(true).Render("Reserved. Your booking number is"))
	b.WriteString("\n\n      " + kTitle.Render(kioskTrim(r.Number, 20)) + "\n\n")
	fmt.Fprintf(&b, "%s · %s · seats %s\n", kioskTrim(r.Show.Film.Title, 40), r.Show.Starts.Format("15:04"), kioskSeats(r.Seats))
	fmt.Fprintf(&b, "Pay at the counter by %s, or the seats go back on sale.\n\n", r.CutOff.Format("15:04"))
	b.WriteString(qrtext.Render(r.Number))
	return b.String()
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
