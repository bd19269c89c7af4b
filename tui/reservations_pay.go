package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// Paying a reservation at the counter, as a sale is paid: the amount on
// screen before anything moves (a quote of its seats at their ticket
// types), cash tendered and the change, the float asked for when no
// shift is open, and the done screen with the tickets, printed when the
// counter has a printer.

type resvQuoteMsg struct {
	number string
	q      *booking.Quote
	err    error
}

// newResvState is the reservations screen's state, back to back.
func newResvState(back screen) reservationsState {
	r := reservationsState{back: back, query: newField(40), card: true, tendered: newField(10)}
	r.tendered.accept = isAmountRune
	return r
}

// chosen is the reservation under the cursor still to pay, or nil.
func (r *reservationsState) chosen() *booking.Reservation {
	if r.cursor >= len(r.results) || r.results[r.cursor].Status != booking.ReservationReserved {
		return nil
	}
	return &r.results[r.cursor]
}

// resvQuoteCmd prices the chosen reservation's seats at its ticket types:
// the amount the customer pays.
func (m *Model) resvQuoteCmd() tea.Cmd {
	r := &m.resv
	r.quote = nil
	res := r.chosen()
	if res == nil {
		return nil
	}
	req := booking.QuoteRequest{ShowID: res.Show.ID, Types: res.Types}
	for _, s := range res.Seats {
		req.SeatIDs = append(req.SeatIDs, s.ID)
	}
	number, store, actor := res.Number, m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		q, err := store.Quote(ctx, actor, req)
		return resvQuoteMsg{number: number, q: q, err: err}, err
	})
}

func (m *Model) onResvQuote(msg resvQuoteMsg) tea.Cmd {
	r := &m.resv
	if res := r.chosen(); res == nil || res.Number != msg.number {
		return nil // the clerk moved on
	}
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	// The voucher the reservation took comes off: the amount the clerk
	// confirms is the amount the sale records.
	q := *msg.q
	if v := r.chosen().Voucher; v != nil && !v.Returned {
		q.Total -= v.Discount
	}
	r.quote = &q
	return nil
}

// resvTendered is the cash typed, 0 for exact money or a card, refused
// when it is not an amount or short of the amount.
func (m *Model) resvTendered() (booking.Money, error) {
	r := &m.resv
	if r.card || r.tendered.Empty() {
		return 0, nil
	}
	t, err := booking.ParseMoney(r.tendered.String())
	if err != nil {
		return 0, booking.Errorf(booking.EInvalid, "Type the cash handed over, like 20 or 20.50.")
	}
	if r.quote != nil && t < r.quote.Total {
		return 0, booking.Errorf(booking.EInvalid, "%s is less than the amount %s.", t.String(), r.quote.Total.String())
	}
	return t, nil
}

// resvPaid ends a reservation's payment as a sale ends: the done screen
// with its tickets, printed on the counter's printer.
func (m *Model) resvPaid(b *booking.Booking) tea.Cmd {
	m.resv.openFloat = nil
	m.openDone(b)
	how := string(b.Payments[0].Method)
	if p := b.Payments[0]; p.Change > 0 {
		how += fmt.Sprintf(", change %s", p.Change.String())
	}
	m.setInfo(fmt.Sprintf("Paid %s: %s %s. It is a booking now.", booking.Clean(b.Number), b.Total.String(), how))
	return m.printBooking(b.Number)
}

// payWithFloat pays the reservation again with the float typed after
// the store found no shift open.
func (m *Model) payWithFloat(float booking.Money) tea.Cmd {
	m.screen, m.resv.openFloat = screenReservations, &float
	return m.payReservationCmd()
}

// viewResvPayment draws what the chosen reservation costs and how it is
// paid: the method, and for cash the tendered amount and the change.
func (m *Model) viewResvPayment(b *strings.Builder) {
	st := &m.styles
	r := &m.resv
	if r.chosen() == nil {
		return
	}
	amount := "…"
	if r.quote != nil {
		amount = r.quote.Total.String()
	}
	b.WriteString("\n  " + st.Label.Render("Amount   ") + st.Money.Render(amount))
	if r.card {
		b.WriteString("\n  " + st.Label.Render("Payment  ") + "card" + st.Subtle.Render("  (tab: cash)"))
		return
	}
	b.WriteString("\n  " + st.Label.Render("Payment  ") + "cash" + st.Subtle.Render("  (tab: card)"))
	b.WriteString("\n  " + st.Label.Render("Tendered ") + r.tendered.view(st, !r.busy, 10))
	if t, err := m.resvTendered(); err == nil && t > 0 && r.quote != nil {
		b.WriteString(st.Label.Render("   Change ") + st.Money.Render((t - r.quote.Total).String()))
	} else if r.tendered.Empty() {
		b.WriteString(st.Subtle.Render("  empty: exact money"))
	}
}
