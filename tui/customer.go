package tui

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The customer screen (docs/customers.md): ctrl+a on the checkout finds
// a customer account by e-mail address, phone or name, or opens a new
// one, and puts it on the sale (CheckoutRequest.CustomerID). An address
// that is someone's already is answered with a search for it, so the
// clerk picks the account that has it. ctrl+a on the gift-card screen
// opens the same search for the card sold there (giftcard.go). Its
// drawing is in customer_view.go.

// customerState is the customer screen's state.
type customerState struct {
	// from is the screen the customer is picked for, and esc goes back
	// to: the checkout or the gift-card screen.
	from    screen
	adding  bool // the new-account form, else the search
	query   field
	results []booking.Customer
	// searched is the query the results answer; enter on it again picks
	// the highlighted customer instead of searching again.
	searched string
	cursor   int
	busy     bool
	seq      int

	name, email, phone field
	focus              int // the form's: 0 name, 1 e-mail, 2 phone, 3 Open

	// cards are the gift cards of the customer highlighted, cardsOf
	// (customer_cards.go).
	cards   []booking.GiftCardSummary
	cardsOf int64
}

// Form positions of the new-account form.
const (
	custName = iota
	custEmail
	custPhone
	custOpen
	custFields
)

// customerMsg answers a search (added nil) or a new account.
type customerMsg struct {
	seq   int
	found []booking.Customer
	added *booking.Customer
	err   error
}

// openCustomer opens the search from the checkout, the query the name
// typed there, if any.
func (m *Model) openCustomer() tea.Cmd {
	return m.openCustomerFrom(screenCheckout, m.checkout.name.String())
}

// openCustomerFrom opens the search for screen from (the checkout or the
// gift-card screen), searching for query unless it is empty.
func (m *Model) openCustomerFrom(from screen, query string) tea.Cmd {
	if booking.Authorize(m.actor(), booking.ActionCustomers) != nil {
		m.setError("Customer accounts need a clerk.")
		return nil
	}
	s := customerState{from: from, query: newField(60), name: newField(booking.MaxNameLen), email: newField(80), phone: newField(24)}
	s.phone.accept = isPhoneRune
	s.query.Set(query)
	m.customer = s
	m.screen = screenCustomer
	m.setInfo("")
	if s.query.Empty() {
		return nil
	}
	return m.findCustomersCmd()
}

func (m *Model) findCustomersCmd() tea.Cmd {
	s := &m.customer
	s.seq++
	s.busy, s.searched, s.cursor = true, s.query.String(), 0
	store, actor, seq, text := m.store, m.actor(), s.seq, s.query.String()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		list, err := store.FindCustomers(ctx, actor, text)
		return customerMsg{seq: seq, found: list, err: err}, err
	})
}

func (m *Model) addCustomerCmd() tea.Cmd {
	s := &m.customer
	s.seq++
	s.busy = true
	store, actor, seq := m.store, m.actor(), s.seq
	nc := booking.NewCustomer{Name: s.name.String(), Email: s.email.String(), Phone: s.phone.String()}
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		c, err := store.AddCustomer(ctx, actor, nc)
		return customerMsg{seq: seq, added: c, err: err}, err
	})
}

// onCustomer takes a search's answer or a new account's. An address that
// is taken turns into a search for it: the account that has it is then
// on screen, to pick.
func (m *Model) onCustomer(msg customerMsg) tea.Cmd {
	s := &m.customer
	if msg.seq != s.seq {
		return nil
	}
	s.busy = false
	var taken *booking.CustomerTakenError
	switch {
	case errors.As(msg.err, &taken):
		s.adding = false
		if taken.What == booking.TakenPhone {
			s.query.Set(s.phone.String())
		} else {
			s.query.Set(s.email.String())
		}
		m.fail(msg.err) // stays on the status line while the search runs
		return m.findCustomersCmd()
	case msg.err != nil:
		m.fail(msg.err)
		return nil
	case msg.added != nil:
		m.pickCustomer(*msg.added)
		m.setInfo("Opened account " + strconv.FormatInt(msg.added.ID, 10) + " for " + booking.CleanLine(msg.added.Name, 40) + "; it is on " + s.onWhat() + ".")
		return nil
	}
	s.results = msg.found
	if len(s.results) == 0 {
		m.setInfo("No customer found: ctrl+a opens a new account.")
	}
	return m.customerCardsCmd()
}

// onWhat is what a customer picked is put on, as the clerk is told.
func (s *customerState) onWhat() string {
	if s.from == screenGiftCard {
		return "the gift card"
	}
	return "this sale"
}

// pickCustomer puts c on the sale and goes back to the checkout, the
// customer's name and phone filled in where nothing was typed; or, picked
// for a gift card, on the card.
func (m *Model) pickCustomer(c booking.Customer) {
	if m.customer.from == screenGiftCard {
		m.pickCardCustomer(c)
		return
	}
	co := &m.checkout
	co.customer = &c
	if co.name.Empty() {
		co.name.Set(c.Name)
	}
	if co.phone.Empty() && c.Phone != "" {
		co.phone.Set("+" + c.Phone)
	}
	m.screen = screenCheckout
	m.setInfo("Customer " + strconv.FormatInt(c.ID, 10) + " (" + booking.CleanLine(c.Name, 40) + ") is on this sale.")
}

// customerScreen is the customer search and new-account form.
type customerScreen struct{}

func (customerScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	s := &m.customer
	k := m.keys
	if s.busy {
		return nil
	}
	if s.adding {
		return m.customerFormKey(msg)
	}
	switch {
	case key.Matches(msg, k.Back):
		m.screen = s.from
		m.setInfo("")
	case key.Matches(msg, k.Account):
		s.adding, s.focus = true, custName
		s.prefill()
		m.setInfo("")
	case key.Matches(msg, k.Up):
		s.cursor = max(s.cursor-1, 0)
		return m.customerCardsCmd()
	case key.Matches(msg, k.Down):
		s.cursor = min(s.cursor+1, max(len(s.results)-1, 0))
		return m.customerCardsCmd()
	case key.Matches(msg, k.Open):
		if s.query.String() == s.searched && len(s.results) > 0 {
			m.pickCustomer(s.results[s.cursor])
			return nil
		}
		if s.query.Empty() {
			m.setError("Type an e-mail address, a phone number or a name.")
			return nil
		}
		return m.findCustomersCmd()
	default:
		s.query.key(msg, &m.keys)
	}
	return nil
}

// prefill starts the new-account form with what the search typed: an
// address, a phone or a name.
func (s *customerState) prefill() {
	q := s.query.String()
	switch {
	case q == "":
	case strings.Contains(q, "@"):
		s.email.Set(q)
	case booking.PhoneSearch(q) != "" && strings.Trim(q, "+0123456789 -()") == "":
		s.phone.Set(q)
	default:
		s.name.Set(q)
	}
}

// customerFormKey is a key on the new-account form: enter goes down it
// and opens the account on Open.
func (m *Model) customerFormKey(msg tea.KeyPressMsg) tea.Cmd {
	s := &m.customer
	k := m.keys
	switch {
	case key.Matches(msg, k.Back):
		s.adding = false
	case key.Matches(msg, k.Submit):
		if s.focus == custOpen {
			return m.addCustomerCmd()
		}
		s.focus++
	case key.Matches(msg, k.NextField):
		s.focus = (s.focus + 1) % custFields
	case key.Matches(msg, k.PrevField):
		s.focus = (s.focus + custFields - 1) % custFields
	default:
		if f := s.formField(); f != nil {
			f.key(msg, &m.keys)
		}
	}
	return nil
}

// formField is the new-account form's field with focus, nil on Open.
func (s *customerState) formField() *field {
	switch s.focus {
	case custName:
		return &s.name
	case custEmail:
		return &s.email
	case custPhone:
		return &s.phone
	}
	return nil
}

func (customerScreen) focus(m *Model) *field {
	s := &m.customer
	switch {
	case s.busy:
		return nil
	case s.adding:
		return s.formField()
	}
	return &s.query
}

// back brings find and the door, opened from here, back to the checkout
// while its seats are held.
func (customerScreen) back(m *Model) screen {
	if m.heldCount() > 0 {
		return screenCheckout
	}
	return screenShows
}
