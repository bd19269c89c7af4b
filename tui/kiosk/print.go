package kiosk

import (
	"context"

	tea "charm.land/bubbletea/v2"

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
	m.note = "Printing your tickets…"
	return func() tea.Msg {
		job, err := layout.TicketsJob(b)
		if err == nil {
			err = paper.Send(context.WithoutCancel(ctx), printer, job, 0)
		}
		return kPrintedMsg{err}
	}
}
