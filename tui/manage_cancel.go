package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// Cancelling a whole show from the week (key c, then a reason, then y).
// The store call, CancelShow(ctx, actor, showID, reason), is another
// branch's (a show's whole life); until it is merged the command says so
// and changes nothing. MERGE: in cancelShowCmd, call store.CancelShow and
// put what it returns (the customers to contact) in cancelShowMsg; the
// screen already reads the week again after it.

// cancelShowMsg is the answer to cancelling a show.
type cancelShowMsg struct {
	showID int64
	err    error
}

// cancelShowCmd cancels show showID for reason.
func (m *Model) cancelShowCmd(showID int64, reason string) tea.Cmd {
	_ = reason // MERGE: passed to store.CancelShow
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		// MERGE: err := store.CancelShow(ctx, actor, showID, reason)
		err := booking.Errorf(booking.EInvalid, "Cancelling a whole show is not in this build yet: cancel its bookings from find (ctrl+f).")
		return cancelShowMsg{showID: showID, err: err}, err
	})
}

func (m *Model) onCancelShow(msg cancelShowMsg) tea.Cmd {
	return m.onMgrDone(mgrDoneMsg{info: fmt.Sprintf("Cancelled show %d; every booking was refunded.", msg.showID), err: msg.err})
}
