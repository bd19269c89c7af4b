package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The ID check of a sale (docs/books.md): a film rated above the
// cinema's rating.id_above asks the clerk, once per sale, whether they
// checked the customer's ID — one key, y; any other key is No and sells
// nothing. A yes is written to the audit trail (booking.Books.ConfirmID)
// before the sale goes.

// idState is the check of the checkout under way.
type idState struct {
	asking  bool  // the question is on the status line, waiting for its key
	checked bool  // the clerk said yes and the store recorded it
	above   int   // the cinema's rating.id_above, once read
	read    bool  // above was read (until then, booking.DefaultIDAbove)
	hold    int64 // the hold (the sale) the answer is for
}

// cinemaMsg brings the cinema's settings for the ID check.
type cinemaMsg struct {
	c   *booking.Cinema
	err error
}

// idCheckedMsg answers the record of an ID check.
type idCheckedMsg struct {
	key string
	err error
}

// cinemaCmd reads the settings the ID check needs.
func (m *Model) cinemaCmd() tea.Cmd {
	store, actor, site := m.store, m.actor(), m.opts.Site
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		c, err := store.Cinema(ctx, actor, site) // the counter's site (AllSites: the cinema's)
		return cinemaMsg{c: c, err: err}, err
	})
}

func (m *Model) onCinema(msg cinemaMsg) tea.Cmd {
	if msg.err == nil && msg.c != nil {
		m.id.above, m.id.read = msg.c.IDAbove, true
	}
	return nil
}

// askID puts the question when the checkout's film needs an ID check not
// yet made for this sale; false when the sale may go.
func (m *Model) askID() bool {
	sh := m.seats.show
	if m.id.hold != m.checkout.hold {
		m.id = idState{above: m.id.above, read: m.id.read, hold: m.checkout.hold}
	}
	above := booking.DefaultIDAbove
	if m.id.read {
		above = m.id.above
	}
	if m.id.checked || !booking.NeedsID(sh.Film.Rating, above) {
		return false
	}
	m.id.asking = true
	m.setInfo(fmt.Sprintf("%s is rated %s: did you check the customer's ID? y yes · any other key no",
		booking.CleanLine(sh.Film.Title, 40), booking.CleanLine(sh.Film.Rating, 8)))
	return true
}

// idKey takes the answer to the question; false when none was asked.
func (m *Model) idKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if !m.id.asking {
		return nil, false
	}
	m.id.asking = false
	if msg.String() != "y" {
		m.setError(booking.ErrorMessage(booking.ErrIDNotChecked(m.seats.show.Film)) + " Not sold.")
		return nil, true
	}
	c := &m.checkout
	c.busy = true
	store, actor, show, key := m.store, m.actor(), m.seats.show.ID, c.key
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		err := store.ConfirmID(ctx, actor, show)
		return idCheckedMsg{key: key, err: err}, err
	}), true
}

// onIDChecked sells once the check is recorded.
func (m *Model) onIDChecked(msg idCheckedMsg) tea.Cmd {
	c := &m.checkout
	if m.screen != screenCheckout || msg.key != c.key {
		return nil
	}
	c.busy = false
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	m.id.checked = true
	return m.confirmSale()
}
