package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// Refunding one ticket of a booking (r on the booking): choose the seat,
// then the cancel form and its explicit confirmation (No first, typed
// text never completes it), then RefundTickets. The seat comes free and
// its price goes back by the way it was paid.

// refundable lists the seats of b whose ticket can still be refunded.
func refundable(b *booking.Booking) []string {
	var out []string
	for _, t := range b.Tickets {
		if t.Status == booking.TicketIssued {
			out = append(out, t.Seat.Label)
		}
	}
	return out
}

// startRefund opens the seat choice of the booking on screen.
func (m *Model) startRefund() {
	f := &m.find
	if f.booking == nil || f.booking.Status != booking.BookingConfirmed || len(refundable(f.booking)) == 0 {
		m.setError("Only a ticket of a confirmed booking, not yet used, can be refunded.")
		return
	}
	f.mode, f.cursor, f.refundSeat = findPick, 0, ""
	f.reason.Reset()
	f.supName.Reset()
	f.supPIN.Reset()
	m.setInfo("")
}

// pickKey chooses the seat: ← → move, enter goes on to the form.
func (m *Model) pickKey(msg tea.KeyPressMsg) tea.Cmd {
	f := &m.find
	k := m.keys
	seats := refundable(f.booking)
	f.cursor = min(f.cursor, len(seats)-1)
	switch {
	case key.Matches(msg, k.Back):
		f.mode = findView
		m.setInfo("Not refunded.")
	case key.Matches(msg, k.SeatLeft), key.Matches(msg, k.PrevField):
		f.cursor = (f.cursor + len(seats) - 1) % len(seats)
	case key.Matches(msg, k.SeatRight), key.Matches(msg, k.NextField):
		f.cursor = (f.cursor + 1) % len(seats)
	case key.Matches(msg, k.Submit):
		f.refundSeat = seats[f.cursor]
		f.mode, f.cfocus = findCancel, 0
	}
	return nil
}

// refundCmd refunds the chosen seat's ticket.
func (m *Model) refundCmd(approver *booking.Credentials) tea.Cmd {
	f := &m.find
	req := m.refundRequest(f.booking.Number, booking.CleanLine(f.reason.String(), 80), []string{f.refundSeat}, approver)
	req.OpenFloat = f.openFloat
	f.busy = true
	m.setInfo("Refunding…")
	store, actor := m.store, m.actor()
	return m.money(func(ctx context.Context) (tea.Msg, error) {
		b, err := store.RefundTickets(ctx, actor, req)
		return cancelMsg{booking: b, err: err}, err
	})
}

// ticketPrice is the price of the ticket on seat in b.
func ticketPrice(b *booking.Booking, seat string) booking.Money {
	for _, t := range b.Tickets {
		if t.Seat.Label == seat {
			return t.Price
		}
	}
	return 0
}

// refundedNow is what the refund of seat paid back.
func refundedNow(b *booking.Booking, seat string) booking.Money { return ticketPrice(b, seat) }

// refundWords are what the form, the confirmation and its Yes button say
// about a cancel of the whole booking or the refund of one seat's ticket.
type refundWords struct{ form, question, yes string }

func (m *Model) refundWhat() refundWords {
	f := &m.find
	bk := f.booking
	number, line := cut(bk.Number, 20), refundLine(bk)
	if f.refundSeat == "" {
		return refundWords{"Cancel " + number + " and refund " + line + "?", "Refund " + line + " and cancel " + number + "?", "cancel and refund " + line}
	}
	amount := ticketPrice(bk, f.refundSeat).String() + line[strings.LastIndexByte(line, ' '):]
	seat := cut(f.refundSeat, 8)
	of := "seat " + seat + " of " + number
	return refundWords{"Refund " + of + ": " + amount + "?", "Refund " + amount + " for " + of + "?", "refund " + amount + " for " + seat}
}

// viewPick draws the seats to choose from.
func (m *Model) viewPick(b *strings.Builder) {
	st := &m.styles
	f := &m.find
	b.WriteString("\n" + st.Warn.Render("  Refund one ticket: which seat?") + "\n  ")
	for i, seat := range refundable(f.booking) {
		label := " " + cut(seat, 8) + " " + ticketPrice(f.booking, seat).String() + " "
		if i == f.cursor {
			b.WriteString(st.Selected.Render(label))
		} else {
			b.WriteString(st.Label.Render(label))
		}
		b.WriteString(" ")
	}
	b.WriteString("\n" + st.Subtle.Render("  ← → choose · enter goes on · esc keeps the booking"))
}
