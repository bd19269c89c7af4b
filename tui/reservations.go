package tui

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The counter's reservations screen (issue 13): find a reservation by its
// number (what its QR holds, so a scanner types it) or the customer's
// phone, and take its payment in one step: the store sells its hold and
// the reservation becomes a booking with the same number.

// The screen's keys, in DefaultKeyMap: ctrl+y opens it (or, on the seat
// map with seats held, reserves them for a customer on the phone).
var (
	reservationsKey = key.NewBinding(key.WithKeys("ctrl+y"), key.WithHelp("ctrl+y", "reservations"))
	resvPayKey      = key.NewBinding(key.WithKeys("ctrl+p"), key.WithHelp("ctrl+p", "take payment"))
	resvMethodKey   = key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "cash/card"))
)

// reservationsState is the screen's state.
type reservationsState struct {
	back    screen
	query   field
	results []booking.Reservation
	cursor  int
	card    bool   // the payment's method: card, else cash
	key     string // the payment's idempotency key: one per reservation chosen
	busy    bool
	paid    *booking.Booking
	// confirming is ctrl+p asked: only y takes the money, any other key
	// leaves it unpaid.
	confirming bool

	// The payment (reservations_pay.go): the chosen reservation's amount,
	// the cash handed over, and the float typed when no shift was open.
	quote     *booking.Quote
	tendered  field
	openFloat *booking.Money

	// reserving is the form that reserves the seats held on the map for
	// a customer on the phone: name and phone, focus 0 or 1.
	reserving   bool
	holdID      int64
	name, phone field
	rfocus      int
}

type (
	reservationsMsg struct {
		results []booking.Reservation
		err     error
	}
	reservationPaidMsg struct {
		b   *booking.Booking
		err error
	}
	reservedForMsg struct {
		r   *booking.Reservation
		err error
	}
)

// openReserveFor opens the form that reserves the seats held on the map
// for a customer on the phone.
func (m *Model) openReserveFor() tea.Cmd {
	m.resv = newResvState(screenSeatMap)
	m.resv.reserving, m.resv.holdID, m.resv.name, m.resv.phone = true, m.seats.holdID, newField(booking.MaxNameLen), newField(20)
	m.screen = screenReservations
	m.setInfo("Reserve the held seats for a customer on the phone: they pay at the counter before the cut-off.")
	return nil
}

// reserveForKey answers the reserve form's keys.
func (m *Model) reserveForKey(msg tea.KeyPressMsg) tea.Cmd {
	r, k := &m.resv, m.keys
	switch {
	case key.Matches(msg, k.Back):
		return m.goBack(screenSeatMap)
	case key.Matches(msg, k.NextField), key.Matches(msg, k.PrevField):
		r.rfocus = 1 - r.rfocus
	case key.Matches(msg, k.Submit):
		if r.rfocus == 0 {
			r.rfocus = 1
			return nil
		}
		req := booking.ReserveRequest{HoldID: r.holdID, Owner: m.opts.Owner, Name: r.name.String(), Phone: r.phone.String()}
		if err := req.Validate(); err != nil {
			m.fail(err)
			return nil
		}
		r.busy = true
		store, actor := m.store, m.actor()
		return m.call(func(ctx context.Context) (tea.Msg, error) {
			res, err := store.Reserve(ctx, actor, req)
			return reservedForMsg{res, err}, err
		})
	default:
		if f := m.resv.reserveField(); f != nil {
			f.key(msg, &m.keys)
		}
	}
	return nil
}

func (r *reservationsState) reserveField() *field {
	if r.rfocus == 0 {
		return &r.name
	}
	return &r.phone
}

// onReservedFor shows the reservation made; the seats are its now, not
// this session's.
func (m *Model) onReservedFor(msg reservedForMsg) tea.Cmd {
	r := &m.resv
	r.busy = false
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	r.reserving, r.back, r.results, r.cursor = false, screenShows, []booking.Reservation{*msg.r}, 0
	m.seats.holdID, m.seats.expires = 0, time.Time{}
	m.setInfo(fmt.Sprintf("Reserved %s for %s: pay by %s.", msg.r.Number, booking.CleanLine(msg.r.Name, 30), msg.r.CutOff.Format("15:04")))
	return tea.Batch(m.loadSeatMapCmd(), m.resvQuoteCmd())
}

// openReservations opens the screen from any screen the seats wait on.
func (m *Model) openReservations() tea.Cmd {
	if m.screen.spec().held != heldAway {
		m.setError("Finish the sale or let the seats go before the reservations.")
		return nil
	}
	m.resv = newResvState(m.returnScreen())
	m.screen = screenReservations
	m.setInfo("")
	return nil
}

// reservationsScreen is the screen's contract.
type reservationsScreen struct{}

func (reservationsScreen) focus(m *Model) *field {
	if m.resv.busy {
		return nil
	}
	if m.resv.reserving {
		return m.resv.reserveField()
	}
	if !m.resv.card && m.resv.chosen() != nil {
		return &m.resv.tendered // cash for the chosen one: digits are money
	}
	return &m.resv.query
}

func (reservationsScreen) back(m *Model) screen { return m.resv.back }

func (reservationsScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	r, k := &m.resv, m.keys
	if r.busy {
		return nil
	}
	if r.reserving {
		return m.reserveForKey(msg)
	}
	if r.confirming {
		r.confirming = false
		if msg.String() == "y" {
			return m.payReservationCmd()
		}
		m.setInfo("Not paid: nothing was taken.")
		return nil
	}
	switch {
	case key.Matches(msg, k.Back) && r.back == screenFind:
		m.screen = screenFind // the search that found it, as it was
		return nil
	case key.Matches(msg, k.Back):
		return m.goBack(r.back)
	case key.Matches(msg, k.Down):
		if r.cursor < len(r.results)-1 {
			r.cursor++
			r.key = ""
			return m.resvQuoteCmd()
		}
	case key.Matches(msg, k.Up):
		if r.cursor > 0 {
			r.cursor--
			r.key = ""
			return m.resvQuoteCmd()
		}
	case key.Matches(msg, k.ResvMethod):
		r.card = !r.card
	case key.Matches(msg, k.ResvPay):
		m.askPayReservation()
	case key.Matches(msg, k.Submit):
		return m.findReservationsCmd()
	case !r.card && r.chosen() != nil && msg.Text != "" && strings.IndexFunc(msg.Text, func(c rune) bool { return !isAmountRune(c) }) < 0,
		!r.card && r.chosen() != nil && msg.String() == "backspace" && !r.tendered.Empty():
		r.tendered.key(msg, &m.keys) // the cash handed over
	default:
		r.query.key(msg, &m.keys)
	}
	return nil
}

func (m *Model) findReservationsCmd() tea.Cmd {
	r := &m.resv
	q := r.query.String()
	if q == "" {
		m.setError("Type or scan a reservation number, or the customer's phone number.")
		return nil
	}
	r.busy, r.paid = true, nil
	m.setInfo("Searching…")
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		res, err := store.FindReservations(ctx, actor, q)
		return reservationsMsg{res, err}, err
	})
}

func (m *Model) onReservations(msg reservationsMsg) tea.Cmd {
	r := &m.resv
	r.busy = false
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	r.results, r.cursor, r.key = msg.results, 0, ""
	if len(r.results) == 0 {
		m.setError("No reservation found.")
	} else {
		m.setInfo("")
	}
	return m.resvQuoteCmd()
}

// askPayReservation asks, on ctrl+p, before any money is taken: the
// amount, the way and the reservation, y to take it, any other key (enter
// too) not.
func (m *Model) askPayReservation() {
	r := &m.resv
	res, ok := m.payable()
	if !ok {
		return
	}
	if _, err := m.resvTendered(); err != nil {
		m.fail(err)
		return
	}
	way := "in cash"
	if r.card {
		way = "by card"
	}
	amount := ""
	if r.quote != nil {
		amount = r.quote.Total.String() + " "
	}
	r.confirming = true
	m.setInfo(fmt.Sprintf("Take %s%s for %s? y yes · any other key no", amount, way, res.Number))
}

// payable is the chosen reservation when it can be paid, saying why not
// when it cannot.
func (m *Model) payable() (booking.Reservation, bool) {
	r := &m.resv
	if len(r.results) == 0 {
		m.setError("Find a reservation first.")
		return booking.Reservation{}, false
	}
	res := r.results[r.cursor]
	if res.Status != booking.ReservationReserved {
		m.setError(fmt.Sprintf("%s is %s: nothing to pay.", res.Number, res.Status))
		return booking.Reservation{}, false
	}
	return res, true
}

// payReservationCmd takes payment for the chosen reservation. The key is
// made once per reservation chosen, so a second ctrl+p after a dropped
// answer lands on the booking the first made.
func (m *Model) payReservationCmd() tea.Cmd {
	r := &m.resv
	res, ok := m.payable()
	if !ok {
		return nil
	}
	if r.key == "" {
		var b [8]byte
		rand.Read(b[:])
		r.key = "resv-" + hex.EncodeToString(b[:])
	}
	method := booking.Cash
	if r.card {
		method = booking.Card
	}
	tendered, err := m.resvTendered()
	if err != nil {
		m.fail(err)
		return nil
	}
	req := booking.PayReservationRequest{Number: res.Number, Method: method, Tendered: tendered, IdempotencyKey: r.key, OpenFloat: r.openFloat}
	r.busy = true
	m.setInfo("Taking payment…")
	store, actor := m.store, m.actor()
	return m.money(func(ctx context.Context) (tea.Msg, error) {
		b, err := store.PayReservation(ctx, actor, req)
		return reservationPaidMsg{b, err}, err
	})
}

func (m *Model) onReservationPaid(msg reservationPaidMsg) tea.Cmd {
	r := &m.resv
	r.busy = false
	if booking.IsNoShift(msg.err) {
		m.askFloat(floatReservation, screenReservations)
		return nil
	}
	r.openFloat = nil
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	r.paid = msg.b
	if r.cursor < len(r.results) {
		r.results[r.cursor].Status = booking.ReservationPaid
	}
	return m.resvPaid(msg.b)
}

func (reservationsScreen) help(m *Model) helpKeys {
	k := m.keys
	if m.resv.reserving {
		return helpKeys{short: []key.Binding{says(k.Submit, "next field, then reserve"), k.NextField, k.Back}}
	}
	return helpKeys{short: []key.Binding{says(k.Submit, "find"), k.ResvPay, k.ResvMethod, k.Back},
		full: [][]key.Binding{{says(k.Submit, "find"), k.Up, k.Down}, {k.ResvPay, k.ResvMethod, k.Back}}}
}

func (reservationsScreen) view(m *Model, height int) string {
	st := &m.styles
	r := &m.resv
	var b strings.Builder
	if r.reserving {
		b.WriteString(st.Title.Render("Reserve for a customer on the phone") + "\n\n")
		b.WriteString(st.Label.Render("  Name  ") + r.name.view(st, !r.busy && r.rfocus == 0, 40) + "\n\n")
		b.WriteString(st.Label.Render("  Phone ") + r.phone.view(st, !r.busy && r.rfocus == 1, 20))
		return b.String()
	}
	b.WriteString(st.Title.Render("Reservations") + st.Subtle.Render(" · by number (scan the QR) or phone"))
	b.WriteString("\n\n")
	b.WriteString(st.Label.Render("  Search ") + r.query.view(st, !r.busy && (r.card || r.chosen() == nil), 40))
	b.WriteString("\n\n")
	lines := 0
	for i, res := range r.results {
		mark := "  "
		if i == r.cursor {
			mark = "▶ "
		}
		say := fmt.Sprintf("reserved till %s, unpaid", res.CutOff.Format("15:04"))
		if res.Status != booking.ReservationReserved {
			say = booking.Clean(string(res.Status))
		}
		row := []string{mark + cut(res.Number, 20) + "  " + say,
			"    " + cut(res.Show.Film.Title, max(m.width-20, 10)) + " · " + res.Show.Starts.Format("Mon 15:04")}
		row = append(row, wrapWords("    "+strings.Join(seatLabels(res.Seats), " ")+" · "+booking.CleanLine(res.Name, 24)+" · "+booking.CleanLine(res.Phone, 20), m.width)...)
		if v := res.Voucher; v != nil && !v.Returned {
			row = append(row, "    voucher "+booking.CleanLine(v.Code, booking.MaxVoucherCode)+" −"+v.Discount.String())
		}
		if lines+len(row) > height-12 {
			break
		}
		lines += len(row)
		b.WriteString(strings.Join(row, "\n") + "\n")
	}
	m.viewResvPayment(&b)
	return b.String()
}
