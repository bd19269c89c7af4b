package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The gift cards of the customer highlighted on the customer screen
// (docs/customers.md): read when the highlight moves, and drawn under
// the list, each by the last four digits of its number and its balance,
// so the clerk can tell a customer what their cards hold.

// customerCardsMsg answers the read of customer id's cards.
type customerCardsMsg struct {
	id    int64
	cards []booking.GiftCardSummary
}

// customerCardsCmd reads the highlighted customer's cards, unless they
// are the ones on show.
func (m *Model) customerCardsCmd() tea.Cmd {
	s := &m.customer
	if s.cursor >= len(s.results) {
		s.cards, s.cardsOf = nil, 0
		return nil
	}
	id := s.results[s.cursor].ID
	if id == s.cardsOf {
		return nil
	}
	s.cards, s.cardsOf = nil, id
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		d, err := store.Customer(ctx, actor, id)
		if err != nil {
			return customerCardsMsg{id: id}, err
		}
		return customerCardsMsg{id: id, cards: d.GiftCards}, nil
	})
}

func (m *Model) onCustomerCards(msg customerCardsMsg) tea.Cmd {
	if s := &m.customer; msg.id == s.cardsOf {
		s.cards = msg.cards
	}
	return nil
}

// customerCardsLine is the highlighted customer's cards, "" for none.
func (m *Model) customerCardsLine() string {
	s := &m.customer
	if len(s.cards) == 0 {
		return ""
	}
	parts := make([]string, len(s.cards))
	for i, c := range s.cards {
		parts[i] = "…" + c.Tail + " " + c.Balance.String()
	}
	line := fmt.Sprintf("Gift cards of %d: %s", s.cardsOf, strings.Join(parts, " · "))
	return "\n" + m.styles.Subtle.Render("  "+cut(line, max(m.width-4, 10))) + "\n"
}
