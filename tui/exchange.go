package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// Exchanging a booking (e on the booking view): the seat map of its show
// opens in exchange mode, where the clerk holds as many seats as the
// booking has tickets to move, on this map or, through esc and the shows,
// on another show's; enter then opens the confirmation instead of a
// checkout. It shows the difference at the new show's prices before
// anything moves, and asks for a supervisor's PIN when money goes back
// or the show has started, like a refund. The difference is paid or paid
// back the way the booking was paid unless the clerk changes it, and
// nothing moves until the clerk presses Yes on a last question that
// names the difference and the method, with No chosen (as a refund
// asks). The exchange takes the seats from the counter's hold in its own
// transaction.

// exchangeState is an exchange under way, from the booking view until it
// is done or the clerk opens find again.
type exchangeState struct {
	from    *booking.Booking
	tickets []booking.Ticket // the tickets that move, in ticket order

	// The confirmation, once seats are held.
	seats   []booking.Seat
	holdID  int64
	key     string
	quote   *booking.Quote
	method  booking.PayMethod
	focus   int // 0 the method, 1 the supervisor's name, 2 their PIN
	supName field
	supPIN  field
	busy    bool
	// confirming is the last question on screen; yes is its focused
	// button, false (No) until the clerk moves to Yes with an arrow or
	// tab, so no typing ever exchanges.
	confirming, yes bool
	// openFloat is the float typed when the exchange met ErrNoShift: it
	// goes again carrying it, and the shift opens in its transaction.
	openFloat *booking.Money
}

type (
	exchangeQuoteMsg struct {
		key   string
		quote *booking.Quote
		err   error
	}
	exchangedMsg struct {
		key string
		res *booking.ExchangeResult
		err error
	}
)

// movable lists the tickets of b an exchange moves: every one still
// issued.
func movable(b *booking.Booking) []booking.Ticket {
	var out []booking.Ticket
	for _, t := range b.Tickets {
		if t.Status == booking.TicketIssued {
			out = append(out, t)
		}
	}
	return out
}

// startExchange opens the seat map of the booking's show in exchange mode.
func (m *Model) startExchange() tea.Cmd {
	b := m.find.booking
	if b == nil || b.Status != booking.BookingConfirmed || len(movable(b)) == 0 {
		m.setError("Only a confirmed booking with tickets not yet used can be exchanged.")
		return nil
	}
	live := movable(b)
	if len(live) == 1 {
		return m.exchangeTickets(live)
	}
	// More than one: choose which move, all of them to start with.
	v := &m.bview
	v.picking, v.cursor, v.moving = true, 0, map[int64]bool{}
	for _, t := range live {
		v.moving[t.ID] = true
	}
	m.setInfo("Which tickets move? space marks or unmarks, enter chooses the new seats.")
	return nil
}

// exchangeTickets opens the seat map of the booking's show to choose new
// seats for tickets.
func (m *Model) exchangeTickets(tickets []booking.Ticket) tea.Cmd {
	b := m.find.booking
	x := &exchangeState{from: b, tickets: tickets, method: exchangeMethod(b), supName: newField(40), supPIN: newField(32)}
	x.supPIN.mask = true
	m.exch = x
	cmd := m.openSeatMap(b.Show)
	m.setInfo(m.exchangeHint())
	return cmd
}

// exchangeMethod is how an exchange of b pays or pays back its difference
// unless the clerk changes it: the way b was paid, card when no sale of
// it is recorded, never cash by default (a card customer's money going
// back as cash would leave the drawer over and the card account short).
func exchangeMethod(b *booking.Booking) booking.PayMethod {
	if p, ok := b.PaidBy(); ok {
		return p
	}
	return booking.Card
}

// exchangeHint says what the seat map is for while exchanging.
func (m *Model) exchangeHint() string {
	n := len(m.exch.tickets)
	return fmt.Sprintf("Exchange %s: hold %s here, or esc for another show; enter goes on.", booking.Clean(m.exch.from.Number), plural(n, "new seat", "new seats"))
}

// exchangeEnter is enter on the seat map while exchanging: with as many
// seats held as tickets move, the confirmation; otherwise what is missing.
func (m *Model) exchangeEnter() tea.Cmd {
	x := m.exch
	mine := m.seats.mine()
	if len(mine) != len(x.tickets) {
		m.setError(fmt.Sprintf("Hold %s for the exchange (%d held).", plural(len(x.tickets), "seat", "seats"), len(mine)))
		return nil
	}
	hold := m.seats.holdID
	if hold == 0 && m.seats.sm != nil {
		hold = m.seats.sm.HoldID[mine[0].ID]
	}
	x.seats, x.holdID, x.quote, x.focus, x.busy, x.confirming = mine, hold, nil, 0, false, false
	x.key = fmt.Sprintf("%s-x%d", m.opts.Owner, hold)
	x.supName.Reset()
	x.supPIN.Reset()
	m.screen = screenExchange
	m.setInfo("Pricing the new seats…")
	return tea.Batch(m.ensureTick(), m.exchangeQuoteCmd())
}

// exchangeQuoteCmd prices the new seats, each at its old ticket's type.
func (m *Model) exchangeQuoteCmd() tea.Cmd {
	x := m.exch
	req := booking.QuoteRequest{ShowID: m.seats.show.ID, Types: map[string]string{}}
	for i, s := range x.seats {
		req.SeatIDs = append(req.SeatIDs, s.ID)
		req.Types[s.Label] = x.tickets[i].Type
	}
	store, actor, key := m.store, m.actor(), x.key
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		q, err := store.Quote(ctx, actor, req)
		return exchangeQuoteMsg{key: key, quote: q, err: err}, err
	})
}

func (m *Model) onExchangeQuote(msg exchangeQuoteMsg) tea.Cmd {
	if m.exch == nil || msg.key != m.exch.key {
		return nil
	}
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	m.exch.quote = msg.quote
	m.exch.confirming = false // a new figure is asked about again
	m.setInfo("")
	return nil
}

// credit is what the moving tickets cost; difference what the new seats
// cost more (negative: less). ok is false until the quote is in.
func (x *exchangeState) credit() booking.Money {
	var c booking.Money
	for _, t := range x.tickets {
		c += t.Price
	}
	return c
}

func (x *exchangeState) difference() (booking.Money, bool) {
	if x.quote == nil {
		return 0, false
	}
	return x.quote.Total - x.credit(), true
}

// exchangeApprover is the least role that must make or approve the
// exchange on screen: a supervisor when money goes back, a manager once
// the booking's show has started, or nobody beyond the clerk (0).
func (m *Model) exchangeApprover() booking.Role {
	x := m.exch
	need := booking.MinRole(booking.ActionExchange)
	if d, ok := x.difference(); ok && d < 0 {
		need = booking.MinRole(booking.ActionRefund)
	}
	if !m.now().Before(x.from.Show.Starts) {
		need = booking.MinRole(booking.ActionCancelStarted)
	}
	if m.clerk != nil && m.clerk.role >= need {
		return 0
	}
	return need
}

// exchangeScreen is the exchange's confirmation (see exchangeState).
type exchangeScreen struct{}

func (exchangeScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	x, k := m.exch, m.keys
	if x == nil || x.busy {
		return nil
	}
	if x.confirming {
		return m.exchangeConfirmKey(msg)
	}
	last := 0
	if m.exchangeApprover() != 0 {
		last = 2
	}
	switch {
	case key.Matches(msg, k.Back):
		m.screen = screenSeatMap
		m.setInfo(m.exchangeHint())
	case key.Matches(msg, k.NextField):
		x.focus = min(x.focus+1, last)
	case key.Matches(msg, k.PrevField):
		x.focus = max(x.focus-1, 0)
	case x.focus == 0 && key.Matches(msg, k.Method):
		x.method = map[booking.PayMethod]booking.PayMethod{booking.Cash: booking.Card, booking.Card: booking.Cash}[x.method]
	case key.Matches(msg, k.Submit):
		return m.submitExchange(last)
	default:
		if f := m.exchangeField(); f != nil {
			f.key(msg, &m.keys)
		}
	}
	return nil
}

// exchangeField is the approval field with focus, or nil.
func (m *Model) exchangeField() *field {
	x := m.exch
	if x == nil || x.busy {
		return nil
	}
	switch x.focus {
	case 1:
		return &x.supName
	case 2:
		return &x.supPIN
	}
	return nil
}

// submitExchange is enter on the exchange: once the quote is in and,
// when one is needed, the approval typed, the last question (see
// exchangeConfirmKey). It never exchanges by itself.
func (m *Model) submitExchange(last int) tea.Cmd {
	x := m.exch
	if _, ok := x.difference(); !ok {
		m.setError("Still pricing the new seats.")
		return nil
	}
	if role := m.exchangeApprover(); role != 0 {
		if x.focus < last && (x.supName.String() == "" || x.supPIN.Empty()) {
			x.focus++
			return nil
		}
		if x.supName.String() == "" || x.supPIN.Empty() {
			m.setError("A " + role.String() + " types their name and PIN to approve.")
			x.focus = 1
			return nil
		}
	}
	x.confirming, x.yes = true, false
	m.setInfo("")
	return nil
}

// exchangeConfirmKey is the exchange's last question: No is focused and
// enter on it goes back to the exchange with nothing moved. Only an
// arrow (or tab) moves to Yes, so no typing — letters, space, enter,
// however many — can ever exchange.
func (m *Model) exchangeConfirmKey(msg tea.KeyPressMsg) tea.Cmd {
	x, k := m.exch, m.keys
	switch {
	case key.Matches(msg, k.Back):
		x.confirming = false
	case key.Matches(msg, k.Choose):
		x.yes = !x.yes
	case key.Matches(msg, k.Submit) && x.yes:
		x.confirming = false
		return m.sendExchange()
	case key.Matches(msg, k.Submit):
		x.confirming = false
		m.setInfo("Not exchanged: nothing moved.")
	}
	return nil
}

// sendExchange sends the exchange the clerk confirmed, with the approval
// typed when one is needed.
func (m *Model) sendExchange() tea.Cmd {
	x := m.exch
	diff, ok := x.difference()
	if !ok {
		m.setError("Still pricing the new seats.")
		return nil
	}
	var approver *booking.Credentials
	if m.exchangeApprover() != 0 {
		approver = &booking.Credentials{Name: x.supName.String(), PIN: string(x.supPIN.value)}
	}
	req := booking.ExchangeRequest{Number: x.from.Number, ToShow: m.seats.show.ID, IdempotencyKey: x.key, Method: x.method,
		ExpectedDifference: diff, CheckDifference: true, Approver: approver, Addr: m.opts.Addr, HoldID: x.holdID, Owner: m.opts.Owner,
		OpenFloat: x.openFloat}
	for i, t := range x.tickets {
		req.Tickets = append(req.Tickets, t.Seat.Label)
		req.Seats = append(req.Seats, x.seats[i].Label)
	}
	x.busy = true
	m.setInfo("Exchanging…")
	store, actor, key := m.store, m.actor(), x.key
	return m.money(func(ctx context.Context) (tea.Msg, error) {
		res, err := store.Exchange(ctx, actor, req)
		return exchangedMsg{key: key, res: res, err: err}, err
	})
}

func (m *Model) onExchanged(msg exchangedMsg) tea.Cmd {
	x := m.exch
	if x == nil || msg.key != x.key {
		return nil
	}
	x.busy = false
	if booking.IsNoShift(msg.err) {
		// Keep the approval typed: the exchange goes again with the float.
		m.askFloat(floatExchange, screenExchange)
		return nil
	}
	x.supPIN.Reset()
	x.openFloat = nil
	if msg.err != nil {
		return m.exchangeFailed(msg.err)
	}
	m.exch = nil
	m.seats.holdID, m.seats.expires = 0, time.Time{}
	res := msg.res
	m.openBookingView(res.To, screenShows)
	what := "no difference"
	switch {
	case res.Difference > 0:
		what = res.Difference.String() + " to pay by " + string(res.To.Payments[0].Method)
	case res.Difference < 0:
		what = (-res.Difference).String() + " to pay back by " + string(res.To.Payments[0].Method)
	}
	m.setInfo(fmt.Sprintf("Exchanged %s for %s: %s.", booking.Clean(res.From.Number), booking.Clean(res.To.Number), what))
	return m.loadSeatMapCmd()
}

// exchangeFailed shows why the exchange did not happen: a seat gone goes
// back to the map with its clash, a price changed prices again.
func (m *Model) exchangeFailed(err error) tea.Cmd {
	m.exch.confirming = false
	var taken *booking.SeatsTakenError
	switch {
	case errors.As(err, &taken):
		m.screen = screenSeatMap
		m.seats.clash = newClash(taken)
		m.setInfo("")
		return m.loadSeatMapCmd()
	case booking.ErrorCode(err) == booking.EConflict:
		m.fail(err)
		return m.exchangeQuoteCmd()
	}
	m.fail(err)
	if booking.ErrorCode(err) == booking.EForbidden && m.exchangeApprover() != 0 {
		m.exch.focus = 2
	}
	return nil
}

func (exchangeScreen) focus(m *Model) *field { return m.exchangeField() }

// back is where find or the door return to from the confirmation.
func (exchangeScreen) back(*Model) screen { return screenExchange }

func (exchangeScreen) help(m *Model) helpKeys {
	k := m.keys
	if m.exch != nil && m.exch.confirming {
		short := []key.Binding{k.Choose, says(k.Submit, "press the button"), says(k.Back, "back to the exchange"), k.Help}
		return helpKeys{short: short, full: [][]key.Binding{short, k.global()}}
	}
	short := []key.Binding{says(k.Submit, "confirm"), k.Method, k.NextField, says(k.Back, "back to the map"), k.Help}
	return helpKeys{short: short, full: [][]key.Binding{{says(k.Submit, "confirm"), k.Method, k.NextField, k.PrevField, says(k.Back, "back to the map")}, k.global()}}
}

func (exchangeScreen) view(m *Model, height int) string {
	st := &m.styles
	x := m.exch
	if x == nil {
		return ""
	}
	var b strings.Builder
	loc := m.now().Location()
	title := st.Title.Render("Exchange "+cut(x.from.Number, 20)) + st.Subtle.Render(" · new seats, priced as a sale now")
	b.WriteString(spread(title, m.countdown(), m.width) + "\n\n")
	row := func(label, value string) {
		b.WriteString("  " + st.Label.Render(fmt.Sprintf("%-11s", label)) + value + "\n")
	}
	show := func(sh booking.Show) string {
		return cut(sh.Film.Title, 30) + st.Subtle.Render(" · "+cut(sh.HallName, 12)+" · "+sh.Starts.In(loc).Format("Mon 2 Jan 15:04"))
	}
	row("From", show(x.from.Show))
	row("To", show(m.seats.show))
	for i, t := range x.tickets {
		price := "…"
		if x.quote != nil && i < len(x.quote.Lines) {
			price = x.quote.Lines[i].Amount.String()
		}
		row("", fmt.Sprintf("%-5s → %-5s %-8s %8s → %8s", cut(t.Seat.Label, 5), cut(x.seats[i].Label, 5), cut(t.Type, 8), t.Price.String(), price))
	}
	diff, ok := x.difference()
	switch {
	case !ok:
		row("Difference", st.Subtle.Render("pricing…"))
	case diff > 0:
		row("Difference", st.Money.Render(diff.Signed())+"  the customer pays")
	case diff < 0:
		row("Difference", st.Money.Render(diff.Signed())+"  paid back to the customer")
	default:
		row("Difference", st.Money.Render("none"))
	}
	cash, card := "cash", "card"
	if x.method == booking.Cash {
		cash = "[cash]"
	} else {
		card = "[card]"
	}
	method := cash + " " + card
	if x.focus == 0 && !x.busy && !x.confirming {
		method = st.Selected.Render(method)
	}
	if p, ok := x.from.PaidBy(); ok {
		method += st.Subtle.Render("  the booking was paid by " + string(p))
	}
	row("Pay by", method)
	if role := m.exchangeApprover(); role != 0 {
		b.WriteString(st.Subtle.Render("  A "+role.String()+" approves: their name and PIN.") + "\n")
		row("Supervisor", x.supName.view(st, x.focus == 1 && !x.busy, 30))
		row("PIN", x.supPIN.view(st, x.focus == 2 && !x.busy, 30))
	}
	switch {
	case x.busy:
		b.WriteString(st.Subtle.Render("  Exchanging…"))
	case x.confirming:
		b.WriteString("\n" + st.Warn.Render("  "+m.exchangeQuestion()) + "\n\n")
		no, yes := "[ No, keep the booking ]", "[ Yes, exchange ]"
		if x.yes {
			b.WriteString("  " + st.Label.Render(no) + "  " + st.Selected.Render(yes) + "\n")
		} else {
			b.WriteString("  " + st.Selected.Render(no) + "  " + st.Label.Render(yes) + "\n")
		}
		b.WriteString(st.Subtle.Render("  ← → choose · enter presses the chosen button · esc back to the exchange"))
	default:
		b.WriteString(st.Subtle.Render("  enter goes on to confirm · space cash/card · esc back to the map"))
	}
	return b.String()
}

// exchangeQuestion is the last question of an exchange: the booking, the
// seats, the difference and the method it moves by.
func (m *Model) exchangeQuestion() string {
	x := m.exch
	q := "Exchange " + cut(x.from.Number, 20) + " to " + strings.Join(seatLabels(x.seats), " ") + ": "
	diff, _ := x.difference()
	switch {
	case diff > 0:
		q += "the customer pays " + diff.String() + " by " + string(x.method)
	case diff < 0:
		q += (-diff).String() + " paid back by " + string(x.method)
	default:
		q += "no money moves"
	}
	return q + "?"
}

// exchangeWithFloat sends the exchange on screen again with the float
// typed on the shift screen.
func (m *Model) exchangeWithFloat(float booking.Money) tea.Cmd {
	m.screen = screenExchange
	if m.exch == nil {
		return nil
	}
	m.exch.openFloat = &float
	last := 0
	if m.exchangeApprover() != 0 {
		last = 2
	}
	m.exch.focus = last
	return m.sendExchange() // the clerk said Yes before the float was asked for
}
