package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
	"boxoffice/tui/qrtext"
)

// The booking view: one booking, from find or from the done screen (v),
// with every ticket's type, price and status, the payments (the sale,
// refunds, exchange differences, by method), each ticket's QR code again
// on screen (t), and what can be done to it: exchange, refund one ticket,
// cancel. It is the find screen's view mode, so the refund and cancel
// flows are the ones find has always had.

// bookingAction is one key of the booking view and what it does. The view
// answers and lists its actions from this table, in this order: another
// action (printing the tickets) is one row more.
type bookingAction struct {
	binding func(k *KeyMap) key.Binding
	run     func(m *Model) tea.Cmd
	// enabled, when set, says whether the action is offered here (a
	// counter without a printer or PDF directory prints nothing).
	enabled func(m *Model) bool
}

// offered is a's binding, disabled where a is not offered.
func (a bookingAction) offered(m *Model) key.Binding {
	b := a.binding(&m.keys)
	if a.enabled != nil {
		b.SetEnabled(a.enabled(m))
	}
	return b
}

var bookingActions = []bookingAction{
	{binding: func(k *KeyMap) key.Binding { return k.ExchangeBooking }, run: (*Model).startExchange},
	{binding: func(k *KeyMap) key.Binding { return k.RefundTicket }, run: func(m *Model) tea.Cmd { m.startRefund(); return nil }},
	{binding: func(k *KeyMap) key.Binding { return k.CancelBooking }, run: (*Model).startCancel},
	{binding: func(k *KeyMap) key.Binding { return k.ShowCodes }, run: (*Model).showCodes},
	// Printing (issue 12): the tickets and receipt again, on paper or PDF.
	{binding: func(k *KeyMap) key.Binding { return k.Reprint }, run: (*Model).printViewed, enabled: (*Model).canPrint},
}

// printViewed prints the booking on screen as it is stored now.
func (m *Model) printViewed() tea.Cmd {
	if m.find.booking == nil {
		return nil
	}
	return m.printAgain(m.find.booking.Number)
}

// bookingViewState is what the view draws beyond the booking: the QR
// codes, drawn once per booking, and which page of them is on screen.
type bookingViewState struct {
	codes  bool // the QR codes are on screen instead of the lists
	number string
	qrs    []string
	page   int

	// picking is choosing the tickets an exchange moves (e on a booking
	// with more than one): moving marks which, cursor is the one under
	// the cursor among the movable tickets.
	picking bool
	moving  map[int64]bool
	cursor  int
}

// openBookingView shows b in the booking view; esc goes to find's search,
// and from there to back.
func (m *Model) openBookingView(b *booking.Booking, back screen) {
	m.find = newFindState()
	m.find.back, m.find.booking, m.find.mode = back, b, findView
	m.bview = bookingViewState{}
	m.screen = screenFind
	m.setInfo("")
}

// bookingActionKey runs the view's action bound to msg, if any.
func (m *Model) bookingActionKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.bview.codes {
		return m.codesKey(msg)
	}
	if m.bview.picking {
		return m.pickMovingKey(msg)
	}
	for _, a := range bookingActions {
		if key.Matches(msg, a.offered(m)) {
			return a.run(m)
		}
	}
	return nil
}

// bookingViewHelp is the view's hint bar and ? overlay, from the table.
func (m *Model) bookingViewHelp() helpKeys {
	k := m.keys
	if m.bview.codes {
		return helpKeys{short: []key.Binding{k.PrevTicket, k.NextTicket, says(k.Back, "back to the booking"), k.Help}}
	}
	if m.bview.picking {
		return helpKeys{short: []key.Binding{relabel(k.SeatLeft, "← →", "choose"), says(k.Toggle, "move/keep"), says(k.Submit, "choose new seats"), says(k.Back, "back to the booking")}}
	}
	var acts []key.Binding
	for _, a := range bookingActions {
		acts = append(acts, a.offered(m))
	}
	return helpKeys{short: append(append([]key.Binding{}, acts...), k.Back, k.Help), full: [][]key.Binding{append(acts, k.Back), {k.Find, k.SignOut, k.Quit}}}
}

// startCancel opens the cancel form of the booking on screen.
func (m *Model) startCancel() tea.Cmd {
	f := &m.find
	if f.booking == nil || f.booking.Status != booking.BookingConfirmed {
		m.setError("Only a confirmed booking can be cancelled.")
		return nil
	}
	f.mode = findCancel
	f.cfocus = 0
	f.reason.Reset()
	f.supName.Reset()
	f.supPIN.Reset()
	f.refundSeat = ""
	m.setInfo("")
	return nil
}

// showCodes puts the QR codes of the tickets still to be used on screen:
// a reprint the customer can scan from the counter's screen or photograph.
func (m *Model) showCodes() tea.Cmd {
	b := m.find.booking
	live := movable(b)
	if len(live) == 0 {
		m.setError("No ticket of this booking can still be used.")
		return nil
	}
	if m.bview.number != b.Number || len(m.bview.qrs) != len(live) {
		m.bview = bookingViewState{number: b.Number}
		for _, t := range live {
			m.bview.qrs = append(m.bview.qrs, qrtext.Render(t.Code))
		}
	}
	m.bview.codes, m.bview.page = true, 0
	m.setInfo("")
	return nil
}

// codesKey pages through the QR codes; esc goes back to the booking.
func (m *Model) codesKey(msg tea.KeyPressMsg) tea.Cmd {
	k, v := m.keys, &m.bview
	per := qrPerLine(v.qrs, m.width)
	switch {
	case key.Matches(msg, k.Back):
		v.codes = false
	case key.Matches(msg, k.NextTicket):
		if v.page+per < len(v.qrs) {
			v.page += per
		}
	case key.Matches(msg, k.PrevTicket):
		v.page = max(v.page-per, 0)
	}
	return nil
}

// qrPerLine is how many of the drawn codes fit side by side in width.
func qrPerLine(qrs []string, width int) int {
	w := 0
	for _, q := range qrs {
		w = max(w, len([]rune(strings.SplitN(q, "\n", 2)[0])))
	}
	if w == 0 {
		return 1
	}
	return max((width+2)/(w+2), 1)
}

// writeBookingDetails draws the booking on screen into b in at most height
// lines: its show and customer, the tickets, the payments, or the QR
// codes when they are asked for.
func (m *Model) writeBookingDetails(b *strings.Builder, height int) {
	st := &m.styles
	bk := m.find.booking
	loc := m.now().Location()
	row := func(label, value string) {
		b.WriteString("  " + st.Label.Render(fmt.Sprintf("%-10s", label)) + value + "\n")
	}
	row("Booking", st.Bold.Render(cut(bk.Number, 20))+"  "+statusWord(st, bk.Status)+"  "+st.Money.Render(bk.Total.String()))
	if m.bview.codes && m.find.mode == findView {
		// The codes need every line a small screen has.
		m.writeCodes(b)
		return
	}
	row("Show", cut(bk.Show.Film.Title, 40)+st.Subtle.Render(" · "+cut(bk.Show.HallName, 12)+" · "+bk.Show.Starts.In(loc).Format("Mon 2 Jan 15:04")))
	sold := "Sold by " + cut(bk.SoldBy, 20)
	if bk.Terminal != "" {
		sold += " at " + cut(bk.Terminal, 16)
	}
	sold += " · " + bk.CreatedAt.In(loc).Format("2 Jan 15:04")
	if bk.ExchangedFrom != "" {
		sold += " · exchanged from " + cut(bk.ExchangedFrom, 12)
	}
	if bk.Customer != "" || bk.Phone != "" {
		row("Customer", cut(bk.Customer, 30)+" "+cut(bk.Phone, 20))
	}
	row("", st.Subtle.Render(sold))
	if bk.Status == booking.BookingCancelled {
		text := "Cancelled by " + cut(bk.CancelledBy, 20)
		if bk.ApprovedBy != "" {
			text += ", approved by " + cut(bk.ApprovedBy, 20)
		}
		if bk.Reason != "" {
			text += ": " + cut(bk.Reason, 50)
		}
		row("", st.Subtle.Render(text))
	}
	room := height - strings.Count(b.String(), "\n") - len(bk.Payments) - 1
	if m.find.mode != findView {
		room = min(room, 3) // the form below needs the lines
	}
	m.writeTickets(b, bk, max(room, 1))
	for i, p := range bk.Payments {
		label := ""
		if i == 0 {
			label = "Payments"
		}
		row(label, paymentLine(st, bk, p))
	}
}

// writeTickets lists the tickets, at most room lines of them.
func (m *Model) writeTickets(b *strings.Builder, bk *booking.Booking, room int) {
	st := &m.styles
	for i, t := range bk.Tickets {
		label := ""
		if i == 0 {
			label = "Tickets"
		}
		if i == room-1 && len(bk.Tickets) > room {
			b.WriteString("  " + fmt.Sprintf("%-10s", label) + st.Subtle.Render(fmt.Sprintf("… and %d more", len(bk.Tickets)-i)) + "\n")
			return
		}
		line := fmt.Sprintf("%-5s %-8s %7s  ", cut(t.Seat.Label, 5), cut(t.Type, 8), t.Price.String()) + ticketStatus(st, t)
		if m.bview.picking {
			line = m.pickMark(t) + line
		}
		b.WriteString("  " + st.Label.Render(fmt.Sprintf("%-10s", label)) + line + "\n")
	}
}

// ticketStatus is a ticket's status as the view writes it: issued,
// admitted (when and by whom), void (and where an exchange took it) or
// refunded.
func ticketStatus(st *Styles, t booking.Ticket) string {
	switch t.Status {
	case booking.TicketIssued:
		return st.Info.Render("issued")
	case booking.TicketAdmitted:
		s := "admitted"
		if t.AdmittedAt != nil {
			s += " " + t.AdmittedAt.Format("15:04") + " by " + cut(t.AdmittedBy, 16)
		}
		return st.Bold.Render(s)
	case booking.TicketVoid:
		if t.ExchangedTo != "" {
			return st.Warn.Render("void") + st.Subtle.Render(" exchanged → "+cut(t.ExchangedTo, 12))
		}
		return st.Warn.Render("void")
	}
	return st.Warn.Render(booking.Clean(string(t.Status)))
}

// paymentLine is one payment: what it was, by which method, how much,
// who took it and when.
func paymentLine(st *Styles, bk *booking.Booking, p booking.Payment) string {
	what := string(p.Kind)
	switch {
	case bk.ExchangePayment(p) && p.Kind == booking.PaymentRefund:
		what = "exchange back"
	case bk.ExchangePayment(p):
		what = "exchange"
	case p.Kind == booking.PaymentRefund && p.TicketID != 0:
		for _, t := range bk.Tickets {
			if t.ID == p.TicketID {
				what = "refund " + cut(t.Seat.Label, 5)
			}
		}
	}
	by := " by " + cut(p.Staff, 16)
	if p.ApprovedBy != "" {
		by += ", approved by " + cut(p.ApprovedBy, 16)
	}
	return fmt.Sprintf("%-14s %-4s %8s", what, p.Method, p.Amount.String()) + st.Subtle.Render(by)
}

// writeCodes draws a page of the tickets still to be used as QR codes,
// each captioned with its seat and type and its code as text.
func (m *Model) writeCodes(b *strings.Builder) {
	st := &m.styles
	v := &m.bview
	live := movable(m.find.booking)
	per := qrPerLine(v.qrs, m.width)
	end := min(v.page+per, len(v.qrs))
	if len(v.qrs) > per {
		b.WriteString(st.Subtle.Render(fmt.Sprintf("  tickets %d–%d of %d · ←/→", v.page+1, end, len(v.qrs))) + "\n")
	}
	blocks := drawTickets(st, live, v.qrs, v.page, min(end, len(live)))
	for r := 0; ; r++ {
		var parts []string
		for _, bl := range blocks {
			if r < len(bl) {
				parts = append(parts, bl[r])
			}
		}
		if len(parts) == 0 {
			break
		}
		b.WriteString(strings.Join(parts, "  ") + "\n")
	}
}

// pickMark is a ticket's box while choosing what an exchange moves: [x]
// moves, [ ] stays, nothing for a ticket that cannot move; the one under
// the cursor is highlighted.
func (m *Model) pickMark(t booking.Ticket) string {
	v := &m.bview
	live := movable(m.find.booking)
	for i, l := range live {
		if l.ID != t.ID {
			continue
		}
		box := "[ ] "
		if v.moving[t.ID] {
			box = "[x] "
		}
		if i == v.cursor {
			return m.styles.Selected.Render(box)
		}
		return box
	}
	return "    "
}

// pickMovingKey chooses the tickets to move: ← → (or tab) move, space
// marks or unmarks, enter opens the seat map for those marked.
func (m *Model) pickMovingKey(msg tea.KeyPressMsg) tea.Cmd {
	k, v := m.keys, &m.bview
	live := movable(m.find.booking)
	switch {
	case key.Matches(msg, k.Back):
		v.picking = false
		m.setInfo("Not exchanged.")
	case key.Matches(msg, k.SeatLeft), key.Matches(msg, k.PrevField), key.Matches(msg, k.SeatUp):
		v.cursor = (v.cursor + len(live) - 1) % len(live)
	case key.Matches(msg, k.SeatRight), key.Matches(msg, k.NextField), key.Matches(msg, k.SeatDown):
		v.cursor = (v.cursor + 1) % len(live)
	case key.Matches(msg, k.Toggle):
		id := live[v.cursor].ID
		v.moving[id] = !v.moving[id]
	case key.Matches(msg, k.Submit):
		var chosen []booking.Ticket
		for _, t := range live {
			if v.moving[t.ID] {
				chosen = append(chosen, t)
			}
		}
		if len(chosen) == 0 {
			m.setError("Mark at least one ticket to move (space).")
			return nil
		}
		v.picking = false
		return m.exchangeTickets(chosen)
	}
	return nil
}
