package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// A card part on the checkout (docs/giftcards.md, "Paying in parts"):
// ctrl+s asks for the amount the customer pays by card, enter takes it,
// and the rest is paid in cash with the amount handed over and its
// change (beside a gift card, the card part comes after the gift card
// and cash pays what is left). ctrl+s again with the field empty takes
// the part off; paying the whole sale by card (c) sets it aside.

// cardPartKey answers a key while the card part's amount is asked.
func (m *Model) cardPartKey(msg tea.KeyPressMsg) tea.Cmd {
	c, k := &m.checkout, m.keys
	switch {
	case key.Matches(msg, k.Back):
		c.partOn = false
	case key.Matches(msg, k.Confirm):
		if c.part.Empty() {
			c.partOn, c.cardPart = false, 0
			m.setInfo("No card part: the sale is paid by " + string(c.method) + ".")
			return nil
		}
		amount, err := booking.ParseMoney(c.part.String())
		if err == nil && amount <= 0 {
			err = booking.Errorf(booking.EInvalid, "A card part is more than 0.00; empty takes it off.")
		}
		if total, ok := m.total(); err == nil && ok && amount >= total && !c.extras() {
			err = booking.Errorf(booking.EInvalid, "The card part must be less than the total %s: press c to pay it all by card.", total.String())
		}
		if err != nil {
			m.fail(err)
			return nil
		}
		c.partOn, c.cardPart, c.method = false, amount, booking.Cash
		c.focus = len(c.seats) + focusTendered
		m.setInfo(amount.String() + " by card; the rest in cash: type what is handed over.")
	default:
		c.part.key(msg, &m.keys)
	}
	return nil
}

// askCardPart opens the card part's amount on the checkout.
func (m *Model) askCardPart() {
	c := &m.checkout
	c.partOn = true
	c.part = newField(10)
	c.part.accept = isAmountRune
	if c.cardPart > 0 {
		c.part.Set(c.cardPart.String())
	}
	m.setInfo("Type the amount paid by card; the rest is cash. Enter takes it, empty takes it off.")
}

// cardPartOf is the checkout's card part, 0 when none is taken or the
// sale is paid by card anyway.
func (c *checkoutState) cardPartOf() booking.Money {
	if c.method != booking.Cash {
		return 0
	}
	return c.cardPart
}

// withCardPart is req with the checkout's card part before its cash:
// card 10.00, then cash the rest; req as it is without one.
func (m *Model) withCardPart(req booking.CheckoutRequest) booking.CheckoutRequest {
	part := m.checkout.cardPartOf()
	if part == 0 {
		return req
	}
	parts := req.Tender
	if len(parts) == 0 {
		parts = []booking.TenderPart{{Method: booking.Cash}}
	}
	var out []booking.TenderPart
	for _, p := range parts {
		if p.Method == booking.Cash {
			out = append(out, booking.TenderPart{Method: booking.Card, Amount: part})
		}
		out = append(out, p)
	}
	req.Tender = out
	return req
}

// cardPartLine is the checkout's line for its card part: the amount
// asked for, or the part taken; "" for none.
func (m *Model) cardPartLine() string {
	st, c := &m.styles, &m.checkout
	switch {
	case c.partOn:
		return st.Cursor.Render("› ") + st.Bold.Render("Card part ") + c.part.view(st, true, 10) + "\n"
	case c.cardPartOf() > 0:
		return "  " + st.Label.Render("Card part ") + c.cardPartOf().String() + st.Subtle.Render("  by card; the rest in cash") + "\n"
	}
	return ""
}

// splitSummary is the Sell button's words for a sale with a card part,
// "10.00 card + 15.00 cash, change 5.00"; "" without one (or beside a
// gift card, whose share is known only at the sale).
func (m *Model) splitSummary(total booking.Money) string {
	c := &m.checkout
	part := c.cardPartOf()
	if part == 0 || c.giftCard != "" || c.extras() {
		return ""
	}
	cash := total - part
	s := part.String() + " card + " + cash.String() + " cash, "
	t, err := m.tendered()
	if err != nil || t == 0 {
		return s + "exact"
	}
	return s + "change " + (t - cash).String()
}
