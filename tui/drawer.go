package tui

import (
	"context"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
	"boxoffice/paper"
)

// The cash drawer at the counter (docs/books.md). A cash sale's or
// refund's print opens it (paper.Layout.Drawer); counting the float in
// opens it too; and a "no sale" (n on the shift screen) opens it with a
// reason, written to the audit trail first.

// noSaleMsg answers the record of a "no sale".
type noSaleMsg struct {
	reason string
	err    error
}

// openDrawer prints the drawer's slip, which opens it, on the counter's
// printer; nothing on a counter without one.
func (m *Model) openDrawer(why string) tea.Cmd {
	if m.opts.Printer.None() {
		return nil
	}
	name, now := m.actor().Name, m.now()
	return m.printAlone("drawer slip", func(l paper.Layout) []byte { return l.DrawerJob(why, name, now) })
}

// startNoSale asks for the reason of a "no sale".
func (m *Model) startNoSale() {
	s := &m.shift
	s.mode = shiftNoSale
	s.reason.Reset()
	m.setInfo("Why open the drawer without a sale? enter opens it (written to the audit trail).")
}

// noSaleKey is the reason's field: enter records it and opens the
// drawer.
func (m *Model) noSaleKey(msg tea.KeyPressMsg) tea.Cmd {
	s := &m.shift
	if !key.Matches(msg, m.keys.Submit) {
		s.reason.key(msg, &m.keys)
		return nil
	}
	why, err := booking.DrawerReason(s.reason.String())
	if err != nil {
		m.fail(err)
		return nil
	}
	s.busy = true
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		err := store.OpenDrawer(ctx, actor, why)
		return noSaleMsg{reason: why, err: err}, err
	})
}

func (m *Model) onNoSale(msg noSaleMsg) tea.Cmd {
	s := &m.shift
	s.busy = false
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	s.mode = shiftOpen
	m.setInfo("No sale recorded: " + msg.reason + ".")
	return m.openDrawer("No sale: " + msg.reason)
}
