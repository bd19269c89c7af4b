package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The checkout's prices come from the store's quote: each seat priced by
// its kind and the show's price list, with where the price came from. The
// quote carries the price table it was made from, so a change of ticket
// type is re-priced here at once (booking.QuoteSeats, the store's own
// rule); a price change anywhere (ShowChanged{0}) asks for a new quote.
// Until the first quote of a checkout arrives its figures come from the
// price table loaded with the ticket types and the seat map's price list,
// so a clerk who types ahead never meets a checkout without a total.
// The checkout prices again in its transaction and refuses a total that
// is not the one on screen.

// quoteMsg answers quoteCmd.
type quoteMsg struct {
	key   string // the checkout it belongs to
	quote *booking.Quote
	err   error
}

// quoteCmd asks the store what the checkout's seats cost now.
func (m *Model) quoteCmd() tea.Cmd {
	c := &m.checkout
	if len(c.seats) == 0 {
		return nil
	}
	req := booking.QuoteRequest{ShowID: m.seats.show.ID, Types: map[string]string{}}
	for _, s := range c.seats {
		req.SeatIDs = append(req.SeatIDs, s.ID)
		req.Types[s.Label] = c.types[s.Label]
	}
	store, actor, key := m.store, m.actor(), c.key
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		q, err := store.Quote(ctx, actor, req)
		return quoteMsg{key: key, quote: q, err: err}, err
	})
}

// onQuote takes a fresh quote. A checkout on screen shows the new total at
// once, and says so when it changed.
func (m *Model) onQuote(msg quoteMsg) tea.Cmd {
	c := &m.checkout
	if msg.key != c.key {
		return nil
	}
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	before, had := m.total()
	c.quote = msg.quote
	after, ok := m.total()
	if m.screen == screenCheckout && had && ok && before != after {
		m.setError((&booking.PriceChangedError{Expected: before, Total: after}).Message())
	}
	return nil
}

// lines prices the checkout's seats at the types chosen from the last
// quote; ok is false before the first quote arrives or for a type the
// quote's table does not have.
func (m *Model) lines() ([]booking.QuoteLine, booking.Money, bool) {
	c := &m.checkout
	if c.quote == nil || c.quote.Table == nil {
		return nil, 0, false
	}
	q, err := booking.QuoteSeats(c.quote.Table, c.quote.List, c.seats, c.types)
	if err != nil {
		return nil, 0, false
	}
	return q.Lines, q.Total, true
}

// total is the price of the tickets chosen, at the prices last quoted.
func (m *Model) total() (booking.Money, bool) {
	_, total, ok := m.lines()
	return total, ok
}

// requote asks for a new quote when a checkout is open: prices may have
// changed.
func (m *Model) requote() tea.Cmd {
	if len(m.checkout.seats) == 0 || (m.screen != screenCheckout && m.heldCount() == 0) {
		return nil
	}
	return m.quoteCmd()
}
