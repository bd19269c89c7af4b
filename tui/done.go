package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/booking"
	"boxoffice/tui/qrtext"
)

// doneState is the receipt of a sale with its tickets as QR codes.
type doneState struct {
	booking *booking.Booking
	qrs     []string // one drawn QR code per ticket, made once
	page    int      // first ticket shown
}

func (m *Model) openDone(b *booking.Booking) {
	d := doneState{booking: b}
	for _, t := range b.Tickets {
		d.qrs = append(d.qrs, qrtext.Render(t.Code))
	}
	m.done = d
	m.screen = screenDone
	m.setInfo("Sold " + booking.Clean(b.Number) + ".")
}

// doneScreen is the receipt of a sale (see doneState).
type doneScreen struct{}

func (doneScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	d := &m.done
	per := m.qrPerPage()
	switch {
	case key.Matches(msg, k.NewSale), key.Matches(msg, k.Back):
		m.screen = screenShows
		m.done = doneState{}
		m.setInfo("")
		return m.loadShowsCmd()
	case key.Matches(msg, k.ViewBooking):
		// The booking view of the sale: its tickets, payments, exchange.
		m.openBookingView(d.booking, screenShows)
		m.done = doneState{}
		return nil
	case key.Matches(msg, k.NextTicket):
		if d.page+per < len(d.qrs) {
			d.page += per
		}
	case key.Matches(msg, k.PrevTicket):
		d.page = max(d.page-per, 0)
	case key.Matches(msg, k.Reprint) && m.canPrint() && d.booking != nil:
		return m.printAgain(d.booking.Number)
	}
	return nil
}

// qrPerPage is how many QR codes fit side by side.
func (m *Model) qrPerPage() int {
	w := 0
	for _, q := range m.done.qrs {
		w = max(w, len([]rune(strings.SplitN(q, "\n", 2)[0])))
	}
	if w == 0 {
		return 1
	}
	return max((m.width+2)/(w+2), 1)
}

func (doneScreen) focus(*Model) *field { return nil }

func (doneScreen) help(m *Model) helpKeys {
	k := m.keys
	if m.canPrint() {
		return helpKeys{
			short: []key.Binding{k.NewSale, k.PrevTicket, k.NextTicket, k.Reprint, k.ViewBooking, k.Find, k.Help},
			full:  [][]key.Binding{{k.NewSale, k.PrevTicket, k.NextTicket, k.Reprint, k.ViewBooking}, k.global()},
		}
	}
	return helpKeys{
		short: []key.Binding{k.NewSale, k.PrevTicket, k.NextTicket, k.ViewBooking, k.Find, k.Help},
		full:  [][]key.Binding{{k.NewSale, k.PrevTicket, k.NextTicket, k.ViewBooking}, k.global()},
	}
}

func (doneScreen) view(m *Model, height int) string {
	st := &m.styles
	d := &m.done
	b := d.booking
	var out strings.Builder
	if b == nil {
		return ""
	}
	sh := b.Show
	per := m.qrPerPage()
	end := min(d.page+per, len(d.qrs))
	pager := ""
	if len(d.qrs) > per {
		pager = fmt.Sprintf("%d–%d of %d tickets ←/→", d.page+1, end, len(d.qrs))
	}
	// The title leaves out what does not fit, whole: the hall first,
	// then the time; the number and the film always show.
	head := "Sold " + cut(b.Number, 20)
	rest := []string{cut(sh.Film.Title, 30), sh.Starts.In(m.now().Location()).Format("Mon 2 Jan 15:04"), cut(sh.HallName, 12)}
	for len(rest) > 1 && ansi.StringWidth(head+" · "+strings.Join(rest, " · "))+ansi.StringWidth(pager)+1 > m.width {
		rest = rest[:len(rest)-1]
	}
	title := st.Title.Render(head) + st.Subtle.Render(" · "+strings.Join(rest, " · "))
	out.WriteString(spread(title, st.Subtle.Render(pager), m.width))
	out.WriteString("\n")
	money := st.Label.Render("   Total ") + st.Money.Render(b.Total.String())
	if parts := m.paidInParts(b); parts != "" {
		money += parts // checkout_giftcard.go
	}
	for _, p := range b.Payments {
		if p.Kind != booking.PaymentSale || m.paidInParts(b) != "" {
			continue
		}
		money += st.Label.Render("   Paid ") + string(p.Method)
		if p.Method == booking.Cash && p.Tendered > 0 {
			money += " " + p.Tendered.String()
		}
		money += st.Label.Render("   Change due ") + st.Money.Render(p.Change.String())
	}
	// The seats as many as fit beside the money, and how many more: the
	// codes below need every line, and the booking view lists them all.
	labels := seatLabelsOf(b)
	room := m.width - ansi.StringWidth(money) - len("Seats ")
	shown := strings.Join(labels, " ")
	for n := len(labels); n > 0 && ansi.StringWidth(shown) > room; n-- {
		shown = strings.Join(labels[:n-1], " ") + fmt.Sprintf(" +%d more", len(labels)-n+1)
	}
	line := st.Label.Render("Seats ") + st.Bold.Render(strings.TrimSpace(shown)) + money
	out.WriteString(cutStyled(line, m.width))
	out.WriteString("\n")
	blocks := m.ticketBlocks(d.page, end)
	if (b.Customer != "" || b.Phone != "") && len(blocks) > 0 && height > 2+len(blocks[0]) {
		// The customer only when the codes still fit whole below.
		out.WriteString(st.Subtle.Render(cut("Customer "+b.Customer+" "+b.Phone, m.width)) + "\n")
	}
	for row := 0; ; row++ {
		var parts []string
		any := false
		for _, bl := range blocks {
			if row < len(bl) {
				parts = append(parts, bl[row])
				any = true
			}
		}
		if !any {
			break
		}
		out.WriteString(strings.Join(parts, "  "))
		out.WriteString("\n")
	}
	return strings.TrimSuffix(out.String(), "\n")
}

// ticketBlocks draws tickets [from, to) as QR codes, each captioned with
// its seat and type and with its code as text — for a scanner that cannot
// read the screen, or a customer who writes it down.
func (m *Model) ticketBlocks(from, to int) [][]string {
	return drawTickets(&m.styles, m.done.booking.Tickets, m.done.qrs, from, to)
}

// drawTickets draws tickets [from, to) with their drawn QR codes qrs (one
// per ticket), as the done screen and the booking view show them.
func drawTickets(st *Styles, tickets []booking.Ticket, qrs []string, from, to int) [][]string {
	var blocks [][]string
	for i := from; i < to; i++ {
		t := tickets[i]
		lines := strings.Split(qrs[i], "\n")
		w := len([]rune(lines[0]))
		block := []string{st.Bold.Render(fit(t.Seat.Label+" "+t.Type, w))}
		for code := booking.Clean(t.Code); code != ""; {
			n := min(len(code), w)
			block = append(block, st.Subtle.Render(padRight(code[:n], w)))
			code = code[n:]
		}
		for _, l := range lines {
			block = append(block, st.QR.Render(l))
		}
		blocks = append(blocks, block)
	}
	return blocks
}

func seatLabelsOf(b *booking.Booking) []string {
	out := make([]string, len(b.Tickets))
	for i, t := range b.Tickets {
		out[i] = booking.Clean(t.Seat.Label)
	}
	return out
}
