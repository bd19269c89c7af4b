package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// A gift card on the checkout (docs/giftcards.md): ctrl+b asks for the
// card's number (typed, or sent by a scanner), enter takes it. The card
// then pays first, as much as it holds, and the rest goes by the payment
// chosen below it, cash or card; ctrl+b again with the field empty takes
// the card off.

// giftCardKey answers a key while the card's number is asked.
func (m *Model) giftCardKey(msg tea.KeyPressMsg) tea.Cmd {
	c, k := &m.checkout, m.keys
	switch {
	case key.Matches(msg, k.Back):
		c.giftOn = false
		c.gift.Reset()
	case key.Matches(msg, k.Confirm):
		if c.gift.Empty() {
			c.giftOn, c.giftCard = false, ""
			m.setInfo("No gift card: the sale is paid by " + string(c.method) + ".")
			return nil
		}
		n, err := booking.ParseCardNumber(c.gift.String())
		if err != nil {
			m.fail(err)
			return nil
		}
		c.giftOn, c.giftCard = false, n
		m.setInfo("Gift card " + booking.FormatCardNumber(n) + " pays first; the rest by " + string(c.method) + ".")
	default:
		c.gift.key(msg, &m.keys)
	}
	return nil
}

// askCheckoutGiftCard opens the card's number on the checkout.
func (m *Model) askCheckoutGiftCard() {
	c := &m.checkout
	c.giftOn = true
	c.gift = newField(24)
	c.gift.accept = func(r rune) bool { return isDigit(r) || r == ' ' || r == '-' }
	if c.giftCard != "" {
		c.gift.Set(c.giftCard)
	}
	m.setInfo("Type or scan the gift card's number; enter takes it, empty takes it off.")
}

// withGiftCard is req paid by the checkout's gift card first, the rest by
// its method; req as it is without a card.
func (m *Model) withGiftCard(req booking.CheckoutRequest) booking.CheckoutRequest {
	c := &m.checkout
	if c.giftCard == "" {
		return req
	}
	req.Tender = []booking.TenderPart{{Method: booking.GiftCard, Card: c.giftCard}, {Method: c.method}}
	return req
}

// giftCardLine is the checkout's line for its gift card: the number asked
// for, or the card taken; "" for none.
func (m *Model) giftCardLine() string {
	st, c := &m.styles, &m.checkout
	switch {
	case c.giftOn:
		return st.Cursor.Render("› ") + st.Bold.Render("Gift card ") + c.gift.view(st, true, 20) + "\n"
	case c.giftCard != "":
		return "  " + st.Label.Render("Gift card ") + booking.FormatCardNumber(c.giftCard) + st.Subtle.Render("  pays first; the rest by "+string(c.method)) + "\n"
	}
	return ""
}

// paidInParts is the done screen's payment of a sale paid in parts,
// "Paid giftcard 10.00 + cash 20.00   Change due 5.00"; "" for a sale
// paid one way.
func (m *Model) paidInParts(b *booking.Booking) string {
	st := &m.styles
	var parts []string
	for _, p := range b.Payments {
		if p.Kind == booking.PaymentSale {
			amount := p.Amount
			if p.Method == booking.Cash {
				amount = max(p.Tendered, p.Amount)
			}
			parts = append(parts, string(p.Method)+" "+amount.String())
		}
	}
	if len(parts) < 2 {
		return ""
	}
	return st.Label.Render("   Paid ") + strings.Join(parts, " + ") + st.Label.Render("   Change due ") + st.Money.Render(b.Change().String())
}
