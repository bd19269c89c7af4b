package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"

	"boxoffice/booking"
)

func (checkoutScreen) help(m *Model) helpKeys {
	k := m.keys
	c := &m.checkout
	enter := says(k.Confirm, "next")
	switch rel := c.focus - len(c.seats); {
	case c.lapsed:
		enter = says(k.Confirm, "hold the seats again")
	case rel == focusSell:
		enter = says(k.Confirm, "sell")
	case rel == focusTendered, rel == focusMethod && c.method == booking.Card:
		enter = says(k.Confirm, "to Sell")
	}
	pay := k.PayCard
	if c.method == booking.Card {
		pay = says(k.PayCard, "cash")
	}
	short := []key.Binding{enter}
	if !c.typing() && !c.lapsed {
		short = append(short, pay)
	}
	return helpKeys{
		short: append(short, k.CycleType, k.NextField, k.Extend, k.Back, k.Help),
		full: [][]key.Binding{
			{k.NextField, k.PrevField},
			{k.CycleType, k.PayCard, k.Method, k.Confirm, k.Extend, k.SaleItems, k.Account, k.GiftCards, k.CardPart},
			k.global(),
		},
	}
}

func (checkoutScreen) view(m *Model, height int) string {
	st := &m.styles
	c := &m.checkout
	s := &m.seats
	var b strings.Builder
	sh := s.show
	left := st.Title.Render("Checkout · "+cut(sh.Film.Title, m.width-50)) + st.Subtle.Render(" · "+cut(sh.HallName, 12)+" · "+sh.Starts.In(m.now().Location()).Format("Mon 2 Jan 15:04"))
	b.WriteString(spread(left, m.countdown(), m.width))
	b.WriteString("\n\n")
	m.viewCheckoutSeats(&b, height)
	total, ok := m.total()
	totalText := "—"
	if ok {
		totalText = total.String()
	}
	b.WriteString(st.Bold.Render(fmt.Sprintf("  %-19s %9s", "Total", totalText)))
	b.WriteString("\n\n")
	m.viewCheckoutForm(&b, total, ok)
	b.WriteString("\n")
	switch {
	case c.busy && c.lapsed:
		b.WriteString(st.Subtle.Render("  Holding the seats again…"))
	case c.busy:
		b.WriteString(st.Subtle.Render("  Selling…"))
	case c.lapsed:
		b.WriteString(st.Banner.Render(padRight(cut(" The hold on "+joinLabels(c.seats)+" ran out · enter holds them again · esc back", m.width), m.width)))
	case c.focus-len(c.seats) == focusSell:
		b.WriteString(st.Bold.Render("  enter") + st.Subtle.Render(" sells · tab or ↑ goes back to the form"))
	case c.focus-len(c.seats) == focusTendered || (c.focus-len(c.seats) == focusMethod && c.method == booking.Card):
		b.WriteString(st.Bold.Render("  enter") + st.Subtle.Render(" goes to Sell, enter again sells · c card · tab the customer's name"))
	default:
		b.WriteString(st.Bold.Render("  enter") + st.Subtle.Render(" next field · the sale is made on Sell"))
	}
	return b.String()
}

// viewCheckoutSeats draws one row per seat; rows scroll when the party is
// large.
func (m *Model) viewCheckoutSeats(b *strings.Builder, height int) {
	st := &m.styles
	c := &m.checkout
	rows := max(height-13, 2)
	first := 0
	if c.focus < len(c.seats) && c.focus >= rows {
		first = c.focus - rows + 1
	}
	b.WriteString(st.Subtle.Render(fmt.Sprintf("  %-6s %-12s %9s", "Seat", "Ticket", "Price")))
	b.WriteString("\n")
	lines, _, priced := m.lines()
	for i := first; i < len(c.seats) && i < first+rows; i++ {
		seat := c.seats[i]
		name, price, source := c.types[seat.Label], "—", ""
		if t, ok := m.typeByCode(name); ok {
			name = t.Name
		}
		if priced {
			price, source = lines[i].Amount.String(), lines[i].Source
		}
		line := fmt.Sprintf("  %-6s %-12s %9s", cut(seat.Label, 6), "‹"+cut(name, 10)+"›", price)
		if c.focus == i && !c.busy {
			b.WriteString(st.Selected.Render(line))
		} else {
			b.WriteString(line)
		}
		if source != "" {
			b.WriteString(st.Subtle.Render("  " + cut(booking.CleanLine(source, 60), max(m.width-36, 8))))
		}
		b.WriteString("\n")
	}
	if n := len(c.seats) - first - rows; n > 0 {
		b.WriteString(st.Subtle.Render(fmt.Sprintf("  … %d more", n)))
		b.WriteString("\n")
	}
}

// viewCheckoutForm draws payment, tendered, customer, phone and Sell.
func (m *Model) viewCheckoutForm(b *strings.Builder, total booking.Money, ok bool) {
	st := &m.styles
	c := &m.checkout
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
	b.WriteString(m.giftCardLine())
	b.WriteString(m.cardPartLine())
	b.WriteString(label(focusMethod, "Payment   ") + cash + " " + card + "\n")
	if c.method == booking.Cash {
		line := label(focusTendered, "Tendered  ") + c.tendered.view(st, on(focusTendered), 10)
		if ok {
			line += "  " + m.changeText(total)
		}
		b.WriteString(line + "\n")
	} else {
		b.WriteString(st.Subtle.Render("  Card: take the payment on the terminal, then sell.") + "\n")
	}
	b.WriteString(label(focusName, "Customer  ") + c.name.view(st, on(focusName), 30) + m.customerLine() + "\n")
	b.WriteString(label(focusPhone, "Phone     ") + c.phone.view(st, on(focusPhone), 18) + st.Subtle.Render("  optional") + "\n")
	b.WriteString(label(focusVoucher, "Voucher   ") + c.voucher.view(st, on(focusVoucher), 18) + st.Subtle.Render("  optional, taken off at the sale") + "\n")
	b.WriteString(label(focusItems, "Items     ") + c.items.view(st, on(focusItems), 30) + st.Subtle.Render("  i · popcorn:2 cola") + "\n")
	button := "[ Sell ]"
	if ok && !c.lapsed {
		button = "[ Sell " + plural(len(c.seats), "ticket", "tickets") + " · " + m.paymentSummary(total) + " ]"
	}
	if on(focusSell) && !c.lapsed {
		b.WriteString(st.Cursor.Render("› ") + st.Selected.Render(button) + "\n")
	} else {
		b.WriteString("  " + st.Label.Render(button) + "\n")
	}
}

// paymentSummary is what the Sell button says will be recorded.
func (m *Model) paymentSummary(total booking.Money) string {
	c := &m.checkout
	if c.giftCard != "" {
		return total.String() + ", gift card first"
	}
	if s := m.splitSummary(total); s != "" {
		return s
	}
	if c.extras() {
		return "tickets " + total.String() + ", voucher and items at the sale"
	}
	if c.method == booking.Card {
		return total.String() + " by card"
	}
	t, err := m.tendered()
	if err != nil || t == 0 {
		return total.String() + " cash, exact"
	}
	return total.String() + " cash, change " + (t - total).String()
}

// changeText is the change due for the amount typed, or exact money.
func (m *Model) changeText(total booking.Money) string {
	st := &m.styles
	c := &m.checkout
	if c.giftCard != "" {
		return st.Subtle.Render("cash for what the gift card does not pay")
	}
	total -= c.cardPartOf()
	if c.tendered.Empty() {
		return st.Subtle.Render("empty = exact money")
	}
	if c.extras() {
		return st.Subtle.Render("change worked out at the sale")
	}
	t, err := booking.ParseMoney(c.tendered.String())
	switch {
	case err != nil:
		return st.Error.Render("not an amount")
	case t < total:
		return st.Error.Render("short by " + (total - t).String())
	}
	return st.Label.Render("Change due ") + st.Money.Render((t - total).String())
}
