package kiosk

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
	"boxoffice/paper"
)

// printCollected prints the tickets of a collected, paid booking on the
// kiosk's printer, off the UI goroutine and within paper's timeout; an
// unpaid reservation has no tickets yet, and a kiosk without a printer
// only shows them.
func (m *Model) printCollected() tea.Cmd {
	c := m.collection
	if m.opts.Printer.None() || c == nil || c.Booking == nil || len(paper.Printable(c.Booking)) == 0 {
		return nil
	}
	b, printer, layout, ctx := c.Booking, m.opts.Printer, m.opts.Layout, m.opts.Context
	store, actor := m.opts.Store, m.actor
	m.note = "Printing your tickets…"
	return func() tea.Msg {
		// The cinema's settings, read for this job: its name, money and
		// dates on the tickets; the defaults when the read fails.
		if cin, err := store.Cinema(ctx, actor, booking.AllSites); err == nil {
			layout.Settings = cin
		}
		job, err := layout.TicketsJob(b)
		if err == nil {
			err = paper.Send(context.WithoutCancel(ctx), printer, job, 0)
		}
		return kPrintedMsg{err}
	}
}
