package tui

import (
	"context"
	"strconv"
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
//
// A card may be sold for a customer account, as giftcard issue --customer
// does: its number typed in the Customer field, or picked with ctrl+a from
// the customer search the checkout uses. The account is read before the
// question, which names it; one that does not exist is said and nothing
// is asked or sold. The card is then listed on the account (the customer
// screen shows it). Empty is no account, the default.
//
// A cash sale refused for want of an open shift asks for the float, as
// the items screen does: a Float field under Paid by, the question then
// naming it, and y sells the card and opens the shift with that float in
// one transaction (GiftCardRequest.OpenFloat).

// giftCardFocus is the field enter acts on.
type giftCardFocus int

const (
	gcAmount giftCardFocus = iota
	gcMethod
	gcFloat // only once a cash sale met ErrNoShift
	gcCustomer
	gcNumber
)

// giftCardState is the gift-card screen's state.
type giftCardState struct {
	focus          giftCardFocus
	amount, number field
	method         booking.PayMethod
	// customer is the account number the card is sold for, empty for
	// none; who is the account it names, once read or picked.
	customer field
	who      *booking.Customer
	// float is the float counted into the drawer, asked once a cash sale
	// met ErrNoShift (noShift): the sale then opens the shift with it.
	float   field
	noShift bool

	ask  bool // the sale is asked: y sells, anything else does not
	busy bool
	card *booking.GiftCardInfo // the card sold or read last
}

// gcCustomerDigits bounds the Customer field: account numbers far beyond
// any cinema's, short enough that a number typed always parses.
const gcCustomerDigits = 12

// giftCardMsg answers the screen's store calls; who is the account a
// card was sold for, nil for none.
type giftCardMsg struct {
	card *booking.GiftCardInfo
	who  *booking.Customer
	sold bool
	err  error
}

// giftCardWhoMsg answers the read of the account a card is to be sold for.
type giftCardWhoMsg struct {
	who *booking.Customer
	err error
}

// openGiftCards opens the screen, its fields empty.
func (m *Model) openGiftCards() tea.Cmd {
	if booking.Authorize(m.actor(), booking.ActionSell) != nil {
		m.setError("Gift cards need a clerk.")
		return nil
	}
	m.giftCard = giftCardState{amount: newField(10), number: newField(24), customer: newField(gcCustomerDigits), float: newField(10), method: booking.Cash}
	m.giftCard.amount.accept, m.giftCard.float.accept = isAmountRune, isAmountRune
	m.giftCard.customer.accept = isDigit
	m.giftCard.number.accept = func(r rune) bool { return isDigit(r) || r == ' ' || r == '-' }
	m.screen = screenGiftCard
	m.setInfo("")
	return nil
}

// onGiftCard takes the answer of a sale or a balance read.
func (m *Model) onGiftCard(msg giftCardMsg) tea.Cmd {
	s := &m.giftCard
	s.busy = false
	switch {
	case msg.sold && booking.IsNoShift(msg.err):
		s.noShift, s.method, s.focus = true, booking.Cash, gcFloat
		m.setError(floatAsk)
		return nil
	case msg.err != nil:
		m.fail(msg.err)
		return nil
	}
	s.card = msg.card
	if !msg.sold {
		m.setInfo("Gift card " + booking.FormatCardNumber(msg.card.Number) + " holds " + msg.card.Balance.String() + ".")
		return nil
	}
	s.amount.Reset()
	s.customer.Reset()
	s.float.Reset()
	s.who, s.noShift = nil, false
	if s.focus == gcFloat {
		s.focus = gcAmount
	}
	said := "Sold gift card " + booking.FormatCardNumber(msg.card.Number) + " for " + msg.card.Amount.String()
	if msg.who != nil {
		said += " to " + customerName(msg.who)
	}
	m.setInfo(said + ".")
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
	case s.focus == gcFloat:
		return &s.float
	case s.focus == gcNumber:
		return &s.number
	case s.focus == gcCustomer:
		return &s.customer
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
		if m.statusErr {
			m.setInfo("") // the screen's refusal is not the shows'
		}
		return m.goBack(screenShows)
	case key.Matches(msg, k.Account):
		return m.openCustomerFrom(screenGiftCard, "")
	case key.Matches(msg, k.NextField):
		s.moveFocus(1)
	case key.Matches(msg, k.PrevField):
		s.moveFocus(-1)
	case s.focus == gcMethod && key.Matches(msg, k.Method):
		s.method = otherMethod(s.method)
		if s.noShift {
			// A card needs no shift: the float asked goes, and a cash
			// sale after it meets the refusal again and asks again.
			s.noShift = false
			s.float.Reset()
			m.setInfo("")
		}
	case key.Matches(msg, k.Confirm) && s.focus == gcNumber:
		return m.readGiftCardCmd()
	case key.Matches(msg, k.Confirm):
		return m.askGiftCard()
	default:
		if f := (giftCardScreen{}).focus(m); f != nil {
			f.key(msg, &m.keys)
		}
	}
	return nil
}

// focuses are the screen's stops in order: the float only while a cash
// sale waits for it.
func (s *giftCardState) focuses() []giftCardFocus {
	out := []giftCardFocus{gcAmount, gcMethod}
	if s.asksFloat() {
		out = append(out, gcFloat)
	}
	return append(out, gcCustomer, gcNumber)
}

// asksFloat reports whether the sale carries a float to open the shift.
func (s *giftCardState) asksFloat() bool { return s.noShift && s.method == booking.Cash }

func (s *giftCardState) moveFocus(d int) { s.focus = nextStop(s.focuses(), s.focus, d) }

// otherMethod switches cash and card.
func otherMethod(p booking.PayMethod) booking.PayMethod {
	if p == booking.Cash {
		return booking.Card
	}
	return booking.Cash
}

// askGiftCard checks the amount and asks before selling: money moves only
// after a yes. A customer account typed and not read yet is read first,
// so the question names whom the card is for.
func (m *Model) askGiftCard() tea.Cmd {
	s := &m.giftCard
	req, err := s.request()
	if err != nil {
		m.fail(err)
		return nil
	}
	id := req.CustomerID
	if id != 0 && (s.who == nil || s.who.ID != id) {
		return m.readCardCustomerCmd(id)
	}
	q := "Sell a gift card for " + req.Amount.String() + ", paid by " + string(s.method)
	if id != 0 {
		q += ", to " + customerName(s.who)
	}
	if req.OpenFloat != nil {
		q += ", and open your shift with a float of " + req.OpenFloat.String()
	}
	s.ask = true
	m.setInfo(q + "? y/N")
	return nil
}

// request is the sale as typed, checked by booking's rules: the amount,
// the account number and, while one is asked, the float. A float refused
// puts the focus back on it.
func (s *giftCardState) request() (booking.GiftCardRequest, error) {
	amount, err := booking.ParseMoney(s.amount.String())
	if err == nil {
		err = booking.CheckGiftCardAmount(amount)
	}
	var id int64
	if err == nil {
		id, err = s.customerID()
	}
	if err != nil {
		return booking.GiftCardRequest{}, err
	}
	req := booking.GiftCardRequest{Amount: amount, Method: s.method, CustomerID: id}
	if !s.asksFloat() {
		return req, req.Validate()
	}
	float, err := typedFloat(&s.float)
	if err == nil {
		req.OpenFloat = &float
		// The amount and method are good by now: what Validate refuses
		// is the float (negative, or beyond any drawer).
		err = req.Validate()
	}
	if err != nil {
		s.focus = gcFloat
	}
	return req, err
}

// customerID is the account number typed, 0 for none.
func (s *giftCardState) customerID() (int64, error) {
	t := strings.TrimSpace(s.customer.String())
	if t == "" {
		return 0, nil
	}
	id, err := strconv.ParseInt(t, 10, 64)
	if err != nil || id < 1 {
		return 0, booking.Errorf(booking.EInvalid, "Type the customer's account number, like 12, or leave it empty for none.")
	}
	return id, nil
}

// customerName is "customer 12 (Ann Lee)", as the screen names an account.
func customerName(c *booking.Customer) string {
	return "customer " + strconv.FormatInt(c.ID, 10) + " (" + booking.CleanLine(c.Name, 30) + ")"
}

// readCardCustomerCmd reads account id, to name it in the question. The
// store checks it again in the sale's own transaction.
func (m *Model) readCardCustomerCmd(id int64) tea.Cmd {
	m.giftCard.busy = true
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		d, err := store.Customer(ctx, actor, id)
		if err != nil {
			return giftCardWhoMsg{err: err}, err
		}
		c := d.Customer
		if c.Erased() {
			err = booking.ErrCustomerErased(id)
		}
		return giftCardWhoMsg{who: &c, err: err}, err
	})
}

// onGiftCardWho takes the account read: refused, it is said and nothing
// is asked; else the sale is asked, naming it.
func (m *Model) onGiftCardWho(msg giftCardWhoMsg) tea.Cmd {
	s := &m.giftCard
	s.busy = false
	if msg.err != nil {
		s.who = nil
		m.fail(msg.err)
		return nil
	}
	s.who = msg.who
	return m.askGiftCard()
}

// pickCardCustomer sells the card for c, picked on the customer search,
// and goes back to the gift-card screen.
func (m *Model) pickCardCustomer(c booking.Customer) {
	s := &m.giftCard
	s.customer.Set(strconv.FormatInt(c.ID, 10))
	s.who = &c
	m.screen = screenGiftCard
	m.setInfo("The gift card is sold to " + customerName(&c) + ".")
}

func (m *Model) issueGiftCardCmd() tea.Cmd {
	s := &m.giftCard
	req, err := s.request()
	if err != nil {
		m.fail(err)
		return nil
	}
	var who *booking.Customer
	if req.CustomerID != 0 {
		who = s.who
	}
	s.busy = true
	store, actor := m.store, m.actor()
	return m.money(func(ctx context.Context) (tea.Msg, error) {
		c, err := store.IssueGiftCard(ctx, actor, req)
		return giftCardMsg{card: c, who: who, sold: true, err: err}, err
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
	back, account := says(k.Back, "back"), says(k.Account, "customer")
	return helpKeys{short: []key.Binding{enter, k.NextField, account, back, k.Help},
		full: [][]key.Binding{{k.NextField, k.PrevField, k.Method, account, enter, back}, k.global()}}
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
	b.WriteString(mark(gcMethod) + "Paid by      " + string(s.method) + st.Subtle.Render("  (space: cash/card)") + "\n")
	rows := 0 // rows drawn only while a float is asked
	if s.asksFloat() {
		b.WriteString(mark(gcFloat) + "Float        " + s.float.view(st, s.focus == gcFloat && !s.ask, w) +
			st.Subtle.Render("  "+cut(floatNote, max(m.width-w-17, 8))) + "\n")
		rows = 1
	}
	b.WriteString(mark(gcCustomer) + "Customer     " + s.customer.view(st, s.focus == gcCustomer && !s.ask, min(w, gcCustomerDigits)) +
		st.Subtle.Render("  "+cut(s.customerNote(), max(m.width-31, 8))) + "\n\n")
	b.WriteString(mark(gcNumber) + "Card number  " + s.number.view(st, s.focus == gcNumber && !s.ask, w) + "\n\n")
	if c := s.card; c != nil && height > 11+rows {
		b.WriteString("  Gift card " + booking.FormatCardNumber(c.Number) + "\n")
		b.WriteString("  Balance   " + c.Balance.String() + st.Subtle.Render("  (sold for "+c.Amount.String()+")") + "\n")
		for _, mv := range c.Moves[max(len(c.Moves)-(height-13-rows), 0):] {
			b.WriteString(st.Subtle.Render(cut("    "+mv.At.Format("02 Jan 15:04")+"  "+string(mv.Kind)+"  "+(mv.Kind.Sign()*mv.Amount).String()+"  "+mv.Booking, m.width)) + "\n")
		}
	}
	return b.String()
}

// customerNote is said beside the Customer field: whom the number names,
// once read, else how to fill it.
func (s *giftCardState) customerNote() string {
	if id, err := s.customerID(); err == nil && s.who != nil && s.who.ID == id {
		return booking.CleanLine(s.who.Name, 60)
	}
	return "account number, optional · ctrl+a finds one"
}
