package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// Cancelling a whole show from the week (key c, then a reason, then y):
// the store cancels it and refunds every booking, each once; the screen
// reads the week again after it.

// cancelShowMsg is the answer to cancelling a show.
type cancelShowMsg struct {
	showID int64
	done   *booking.ShowCancellation
	err    error
}

// cancelShowCmd cancels show showID for reason. It runs to its end like
// a refund, as it is one for every booking of the show.
func (m *Model) cancelShowCmd(showID int64, reason string) tea.Cmd {
	store, actor := m.store, m.actor()
	return m.money(func(ctx context.Context) (tea.Msg, error) {
		done, err := store.CancelShow(ctx, actor, showID, reason)
		return cancelShowMsg{showID: showID, done: done, err: err}, err
	})
}

func (m *Model) onCancelShow(msg cancelShowMsg) tea.Cmd {
	info := ""
	if c := msg.done; c != nil {
		info = fmt.Sprintf("Cancelled show %d: %d bookings refunded, %s in all. The customers to call: boxoffice show cancel %d --reason … (it lists them again).",
			msg.showID, len(c.Contacts), c.Total().String(), msg.showID)
	}
	return m.onMgrDone(mgrDoneMsg{info: info, err: msg.err})
}
