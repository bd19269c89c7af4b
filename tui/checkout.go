package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// checkoutState is the sale of the seats held: a ticket type per seat,
// payment and an optional customer.
type checkoutState struct {
	// hold is the hold being sold and key its idempotency key, the same
	// for every try (see checkoutKey): a double enter, a retry after an
	// error or a checkout resumed after a dropped connection lands on one
	// booking.
	hold   int64
	key    string
	seats  []booking.Seat
	types  map[string]string // seat label -> ticket type code
	focus  int               // 0..len(seats)-1 seat rows, then the fields below
	method booking.PayMethod

	tendered, name, phone field
	busy                  bool
	tries                 int
}

// Checkout focus positions after the seat rows, counted from len(seats).
const (
	focusMethod = iota
	focusTendered
	focusName
	focusPhone
	numFocus
)

type checkoutMsg struct {
	key     string
	booking *booking.Booking
	err     error
}

// checkoutKey is the idempotency key of the sale of one hold. A hold is
// confirmed at most once, so one key per hold is enough, and deriving it
// rather than making it up means a session that takes over a dropped one's
// owner (the SSH server's reconnect) sends the key the dropped session
// sent, and lands on the booking it may already have made. The owner is
// unique per session and hold ids are unique in the store, so the key
// names one hold only.
func checkoutKey(owner string, holdID int64) string {
	return owner + "/hold-" + strconv.FormatInt(holdID, 10)
}

// openCheckout starts the sale of the seats held, under the key of their
// hold.
func (m *Model) openCheckout() tea.Cmd {
	mine := m.seats.mine()
	hold := m.seats.holdID
	if hold == 0 && len(mine) > 0 && m.seats.sm != nil {
		hold = m.seats.sm.HoldID[mine[0].ID]
	}
	c := checkoutState{
		hold:     hold,
		key:      checkoutKey(m.opts.Owner, hold),
		seats:    mine,
		types:    map[string]string{},
		method:   booking.Cash,
		tendered: newField(10),
		name:     newField(60),
		phone:    newField(24),
	}
	c.tendered.accept = isAmountRune
	c.phone.accept = func(r rune) bool { return isDigit(r) || strings.ContainsRune("+ -()", r) }
	def := m.defaultType()
	for _, s := range mine {
		c.types[s.Label] = def
	}
	// Start on the tendered amount: with adult tickets and cash, a sale
	// is the amount (or nothing, for exact money) and enter.
	c.focus = len(mine) + focusTendered
	m.checkout = c
	m.screen = screenCheckout
	m.setInfo("")
	return m.ensureTick()
}

// defaultType is adult, or the first type when there is no adult.
func (m *Model) defaultType() string {
	for _, t := range m.types {
		if t.Code == "adult" {
			return t.Code
		}
	}
	if len(m.types) > 0 {
		return m.types[0].Code
	}
	return "adult"
}

func (m *Model) typeByCode(code string) (booking.TicketType, bool) {
	for _, t := range m.types {
		if t.Code == code {
			return t, true
		}
	}
	return booking.TicketType{}, false
}

func (c *checkoutState) focusedField() *field {
	if c.busy {
		return nil
	}
	switch c.focus - len(c.seats) {
	case focusTendered:
		if c.method == booking.Cash {
			return &c.tendered
		}
	case focusName:
		return &c.name
	case focusPhone:
		return &c.phone
	}
	return nil
}

// total is the price of the tickets chosen.
func (m *Model) total() (int64, bool) {
	var sum int64
	for _, s := range m.checkout.seats {
		t, ok := m.typeByCode(m.checkout.types[s.Label])
		if !ok {
			return 0, false
		}
		sum += t.Price
	}
	return sum, true
}

func (m *Model) checkoutKey(msg tea.KeyPressMsg) tea.Cmd {
	c := &m.checkout
	k := m.keys
	if c.busy {
		// Enter again while the sale is under way does nothing: the
		// answer to the first is on its way.
		return nil
	}
	rel := c.focus - len(c.seats)
	switch {
	case key.Matches(msg, k.Confirm):
		return m.confirmSale()
	case key.Matches(msg, k.Back):
		m.screen = screenSeatMap
		m.setInfo("Back to the seats; the hold is kept.")
		return m.loadSeatMapCmd()
	case key.Matches(msg, k.NextField):
		c.focus = (c.focus + 1) % (len(c.seats) + numFocus)
		if c.focus-len(c.seats) == focusTendered && c.method == booking.Card {
			c.focus++
		}
		return nil
	case key.Matches(msg, k.PrevField):
		c.focus = (c.focus - 1 + len(c.seats) + numFocus) % (len(c.seats) + numFocus)
		if c.focus-len(c.seats) == focusTendered && c.method == booking.Card {
			c.focus--
		}
		return nil
	case rel < 0 && key.Matches(msg, k.CycleType):
		m.cycleType(c.seats[c.focus].Label, msg.String() == "left")
		return nil
	case rel == focusMethod && key.Matches(msg, k.Method):
		if c.method == booking.Cash {
			c.method = booking.Card
		} else {
			c.method = booking.Cash
		}
		return nil
	}
	if f := c.focusedField(); f != nil {
		f.key(msg)
	}
	return nil
}

// cycleType moves a seat to the next (or previous) ticket type.
func (m *Model) cycleType(label string, back bool) {
	if len(m.types) == 0 {
		return
	}
	cur := 0
	for i, t := range m.types {
		if t.Code == m.checkout.types[label] {
			cur = i
		}
	}
	d := 1
	if back {
		d = len(m.types) - 1
	}
	m.checkout.types[label] = m.types[(cur+d)%len(m.types)].Code
}

// confirmSale sends the checkout. The hold and its key are the ones the
// screen opened with, however many times this runs.
func (m *Model) confirmSale() tea.Cmd {
	c := &m.checkout
	total, ok := m.total()
	if !ok {
		m.setError("Ticket prices are not loaded yet.")
		return m.loadTypesCmd()
	}
	var tendered int64
	if c.method == booking.Cash && !c.tendered.Empty() {
		t, ok := parseMoney(c.tendered.String())
		if !ok {
			m.setError("Type the cash handed over, like 20 or 20.50.")
			return nil
		}
		if t < total {
			m.setError(fmt.Sprintf("%s is less than the total %s.", money(t), money(total)))
			return nil
		}
		tendered = t
	}
	types := make(map[string]string, len(c.types))
	for k, v := range c.types {
		types[k] = v
	}
	req := booking.CheckoutRequest{
		HoldID:         c.hold,
		Owner:          m.opts.Owner,
		IdempotencyKey: c.key,
		Types:          types,
		Customer:       booking.CleanLine(c.name.String(), 60),
		Phone:          booking.CleanLine(c.phone.String(), 24),
		Method:         c.method,
		Tendered:       tendered,
	}
	c.busy = true
	c.tries++
	m.setInfo("Selling…")
	store, actor := m.store, *m.actor
	return m.call(func(ctx context.Context) tea.Msg {
		b, err := store.Checkout(ctx, actor, req)
		return checkoutMsg{key: req.IdempotencyKey, booking: b, err: err}
	})
}

func (m *Model) onCheckout(msg checkoutMsg) tea.Cmd {
	c := &m.checkout
	if msg.key != c.key {
		return nil
	}
	c.busy = false
	if msg.err != nil {
		m.fail(msg.err)
		if booking.ErrorCode(msg.err) == booking.EExpired {
			m.seats.expires = time.Time{}
		}
		return m.loadSeatMapCmd()
	}
	m.seats.holdID, m.seats.expires = 0, time.Time{}
	m.openDone(msg.booking)
	return m.loadSeatMapCmd()
}

func (m *Model) viewCheckout(height int) string {
	st := &m.styles
	c := &m.checkout
	s := &m.seats
	var b strings.Builder
	sh := s.show
	left := st.Title.Render("Checkout · "+cut(sh.Film.Title, m.width-50)) + st.Subtle.Render(" · "+cut(sh.HallName, 12)+" · "+sh.Starts.In(m.now().Location()).Format("Mon 2 Jan 15:04"))
	b.WriteString(spread(left, m.countdown(), m.width))
	b.WriteString("\n\n")

	// One row per seat; rows scroll when the party is large.
	rows := max(height-12, 2)
	first := 0
	if c.focus < len(c.seats) && c.focus >= rows {
		first = c.focus - rows + 1
	}
	b.WriteString(st.Subtle.Render(fmt.Sprintf("  %-6s %-12s %9s", "Seat", "Ticket", "Price")))
	b.WriteString("\n")
	for i := first; i < len(c.seats) && i < first+rows; i++ {
		seat := c.seats[i]
		name, price := c.types[seat.Label], "—"
		if t, ok := m.typeByCode(name); ok {
			name, price = t.Name, money(t.Price)
		}
		line := fmt.Sprintf("  %-6s %-12s %9s", cut(seat.Label, 6), "‹"+cut(name, 10)+"›", price)
		if c.focus == i && !c.busy {
			b.WriteString(st.Selected.Render(line))
		} else {
			b.WriteString(line)
		}
		b.WriteString("\n")
	}
	if n := len(c.seats) - first - rows; n > 0 {
		b.WriteString(st.Subtle.Render(fmt.Sprintf("  … %d more", n)))
		b.WriteString("\n")
	}
	total, ok := m.total()
	totalText := "—"
	if ok {
		totalText = money(total)
	}
	b.WriteString(st.Bold.Render(fmt.Sprintf("  %-19s %9s", "Total", totalText)))
	b.WriteString("\n\n")

	rel := c.focus - len(c.seats)
	on := func(f int) bool { return !c.busy && rel == f }
	label := func(f int, text string) string {
		if on(f) {
			return st.Cursor.Render("› ") + st.Bold.Render(text)
		}
		return "  " + st.Label.Render(text)
	}
	cash, card := " cash ", " card "
	if c.method == booking.Cash {
		cash = st.Selected.Render("[cash]")
	} else {
		card = st.Selected.Render("[card]")
	}
	b.WriteString(label(focusMethod, "Payment   ") + cash + " " + card + "\n")
	if c.method == booking.Cash {
		line := label(focusTendered, "Tendered  ") + c.tendered.view(st, on(focusTendered), 10)
		if ok {
			line += "  " + m.changeText(total)
		}
		b.WriteString(line + "\n")
	} else {
		b.WriteString(st.Subtle.Render("  Card: take the payment on the terminal, then confirm.") + "\n")
	}
	b.WriteString(label(focusName, "Customer  ") + c.name.view(st, on(focusName), 30) + st.Subtle.Render("  optional") + "\n")
	b.WriteString(label(focusPhone, "Phone     ") + c.phone.view(st, on(focusPhone), 18) + st.Subtle.Render("  optional") + "\n")
	b.WriteString("\n")
	if c.busy {
		b.WriteString(st.Subtle.Render("  Selling…"))
	} else {
		b.WriteString(st.Bold.Render("  enter") + st.Subtle.Render(" confirms the sale"))
	}
	return b.String()
}

// changeText is the change due for the amount typed, or exact money.
func (m *Model) changeText(total int64) string {
	st := &m.styles
	c := &m.checkout
	if c.tendered.Empty() {
		return st.Subtle.Render("enter alone = exact money")
	}
	t, ok := parseMoney(c.tendered.String())
	switch {
	case !ok:
		return st.Error.Render("not an amount")
	case t < total:
		return st.Error.Render("short by " + money(total-t))
	}
	return st.Label.Render("Change due ") + st.Money.Render(money(t-total))
}
