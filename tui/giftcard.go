package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
	"boxoffice/paper"
)

// The gift-card screen (docs/giftcards.md): ctrl+b from the shows. A clerk
// sells a card for an amount, paid by cash or card (space switches; the
// money goes into the clerk's shift, and the sale is asked first, No by
// default), or types a card's number to read its balance. A card sold is
// printed on the counter's printer with its number and QR code.

// giftCardFocus is the field enter acts on.
type giftCardFocus int

const (
	gcAmount giftCardFocus = iota
	gcMethod
	gcNumber
	numGCFocus
)

// giftCardState is the gift-card screen's state.
type giftCardState struct {
	focus          giftCardFocus
	amount, number field
	method         booking.PayMethod
	ask            bool // the sale is asked: y sells, anything else does not
	busy           bool
	card           *booking.GiftCardInfo // the card sold or read last
}

// giftCardMsg answers the screen's store calls.
type giftCardMsg struct {
	card *booking.GiftCardInfo
	sold bool
	err  error
}

// openGiftCards opens the screen, its fields empty.
func (m *Model) openGiftCards() tea.Cmd {
	if booking.Authorize(m.actor(), booking.ActionSell) != nil {
		m.setError("Gift cards need a clerk.")
		return nil
	}
	m.giftCard = giftCardState{amount: newField(10), number: newField(24), method: booking.Cash}
	m.giftCard.amount.accept = isAmountRune
	m.giftCard.number.accept = func(r rune) bool { return isDigit(r) || r == ' ' || r == '-' }
	m.screen = screenGiftCard
	m.setInfo("")
	return nil
}

// onGiftCard takes the answer of a sale or a balance read.
func (m *Model) onGiftCard(msg giftCardMsg) tea.Cmd {
	s := &m.giftCard
	s.busy = false
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	s.card = msg.card
	if !msg.sold {
		m.setInfo("Gift card " + booking.FormatCardNumber(msg.card.Number) + " holds " + msg.card.Balance.String() + ".")
		return nil
	}
	s.amount.Reset()
	m.setInfo("Sold gift card " + booking.FormatCardNumber(msg.card.Number) + " for " + msg.card.Amount.String() + ".")
	return m.printAlone("gift card", func(l paper.Layout) []byte { return l.GiftCardJob(msg.card) })
}

// giftCardScreen is the screen's contract.
type giftCardScreen struct{}

func (giftCardScreen) focus(m *Model) *field {
	s := &m.giftCard
	switch {
	case s.busy || s.ask:
		return nil
	case s.focus == gcAmount:
		return &s.amount
	case s.focus == gcNumber:
		return &s.number
	}
	return nil
}

func (giftCardScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	s, k := &m.giftCard, m.keys
	switch {
	case s.busy:
		return nil
	case s.ask:
		s.ask = false
		if key.Matches(msg, k.MgrYes) {
			return m.issueGiftCardCmd()
		}
		m.setInfo("No gift card sold.")
	case key.Matches(msg, k.Back):
		return m.goBack(screenShows)
	case key.Matches(msg, k.NextField):
		s.focus = (s.focus + 1) % numGCFocus
	case key.Matches(msg, k.PrevField):
		s.focus = (s.focus + numGCFocus - 1) % numGCFocus
	case s.focus == gcMethod && key.Matches(msg, k.Method):
		s.method = otherMethod(s.method)
	case key.Matches(msg, k.Confirm) && s.focus == gcNumber:
		return m.readGiftCardCmd()
	case key.Matches(msg, k.Confirm):
		return m.askGiftCard()
	case s.focus == gcAmount:
		s.amount.key(msg, &m.keys)
	case s.focus == gcNumber:
		s.number.key(msg, &m.keys)
	}
	return nil
}

// otherMethod switches cash and card.
func otherMethod(p booking.PayMethod) booking.PayMethod {
	if p == booking.Cash {
		return booking.Card
	}
	return booking.Cash
}

// askGiftCard checks the amount and asks before selling: money moves only
// after a yes.
func (m *Model) askGiftCard() tea.Cmd {
	s := &m.giftCard
	amount, err := booking.ParseMoney(s.amount.String())
	if err == nil {
		err = booking.CheckGiftCardAmount(amount)
	}
	if err != nil {
		m.fail(err)
		return nil
	}
	s.ask = true
	m.setInfo("Sell a gift card for " + amount.String() + ", paid by " + string(s.method) + "? y/N")
	return nil
}

func (m *Model) issueGiftCardCmd() tea.Cmd {
	s := &m.giftCard
	amount, err := booking.ParseMoney(s.amount.String())
	if err != nil {
		m.fail(err)
		return nil
	}
	s.busy = true
	store, actor := m.store, m.actor()
	req := booking.GiftCardRequest{Amount: amount, Method: s.method}
	return m.money(func(ctx context.Context) (tea.Msg, error) {
		c, err := store.IssueGiftCard(ctx, actor, req)
		return giftCardMsg{card: c, sold: true, err: err}, err
	})
}

func (m *Model) readGiftCardCmd() tea.Cmd {
	s := &m.giftCard
	number, err := booking.ParseCardNumber(s.number.String())
	if err != nil {
		m.fail(err)
		return nil
	}
	s.busy = true
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		c, err := store.GiftCardBalance(ctx, actor, number)
		return giftCardMsg{card: c, err: err}, err
	})
}

func (giftCardScreen) help(m *Model) helpKeys {
	s, k := &m.giftCard, m.keys
	if s.ask {
		return helpKeys{short: []key.Binding{says(k.MgrYes, "yes, sell it"), relabel(k.No, "n/esc", "no")}}
	}
	enter := says(k.Confirm, "sell…")
	if s.focus == gcNumber {
		enter = says(k.Confirm, "read the balance")
	}
	back := says(k.Back, "back")
	return helpKeys{short: []key.Binding{enter, k.NextField, back, k.Help},
		full: [][]key.Binding{{k.NextField, k.PrevField, k.Method, enter, back}, k.global()}}
}

func (giftCardScreen) view(m *Model, height int) string {
	st, s := &m.styles, &m.giftCard
	var b strings.Builder
	b.WriteString(st.Title.Render(cut("Gift cards · sell one, or read a balance", m.width)) + "\n\n")
	w := min(24, max(m.width-22, 8))
	mark := func(f giftCardFocus) string {
		if s.focus == f && !s.ask {
			return "> "
		}
		return "  "
	}
	b.WriteString(mark(gcAmount) + "Amount       " + s.amount.view(st, s.focus == gcAmount && !s.ask, w) + "\n")
	b.WriteString(mark(gcMethod) + "Paid by      " + string(s.method) + st.Subtle.Render("  (space: cash/card)") + "\n\n")
	b.WriteString(mark(gcNumber) + "Card number  " + s.number.view(st, s.focus == gcNumber && !s.ask, w) + "\n\n")
	if c := s.card; c != nil && height > 10 {
		b.WriteString("  Gift card " + booking.FormatCardNumber(c.Number) + "\n")
		b.WriteString("  Balance   " + c.Balance.String() + st.Subtle.Render("  (sold for "+c.Amount.String()+")") + "\n")
		for _, mv := range c.Moves[max(len(c.Moves)-(height-12), 0):] {
			b.WriteString(st.Subtle.Render(cut("    "+mv.At.Format("02 Jan 15:04")+"  "+string(mv.Kind)+"  "+(mv.Kind.Sign()*mv.Amount).String()+"  "+mv.Booking, m.width)) + "\n")
		}
	}
	return b.String()
}
