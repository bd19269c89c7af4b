package tui

import (
	"context"
	"errors"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// A session's life: signing in and out, quitting, and what the clerk is
// told when something fails.

// heldCount is how many seats this session holds, as far as it knows.
func (m *Model) heldCount() int {
	if m.seats.sm == nil {
		return 0
	}
	return len(m.seats.mine())
}

// quitCmd releases this session's holds and then quits.
func (m *Model) quitCmd() tea.Cmd {
	m.setInfo("Releasing held seats…")
	return m.endCmd()
}

// endCmd ends the session, the status line as it is meanwhile: it
// releases the holds, then quits.
func (m *Model) endCmd() tea.Cmd {
	m.leaving = nil
	m.closing = true
	store, owner, log := m.store, m.opts.Owner, m.log
	ctx := context.WithoutCancel(m.ctx)
	cancel := m.cancel
	return func() tea.Msg {
		c, done := context.WithTimeout(ctx, 5*time.Second)
		defer done()
		if _, err := store.ReleaseOwner(c, owner); err != nil {
			log.Error("release holds on quit", "owner", owner, "err", err)
		}
		cancel()
		return tea.QuitMsg{}
	}
}

// signOut forgets the clerk and releases their holds, keeping the program.
func (m *Model) signOut(why string) tea.Cmd {
	store, owner := m.store, m.opts.Owner
	ctx := m.ctx
	m.setClerk(nil)
	m.screen = screenSignIn
	m.signin = newSignInState()
	m.shows = showsState{day: dayOf(m.now())}
	m.seats = seatMapState{}
	m.checkout = checkoutState{}
	m.done = doneState{}
	m.find = newFindState()
	m.waitlist = waitlistState{}
	m.bview, m.exch = bookingViewState{}, nil
	m.leaving = nil
	m.help.ShowAll = false
	m.msgs = messageLog{} // the next clerk's log starts empty
	m.setInfo(why)
	return func() tea.Msg {
		c, done := context.WithTimeout(ctx, callTimeout)
		defer done()
		_, err := store.ReleaseOwner(c, owner)
		return signedOutMsg{err: err}
	}
}

// afterSignIn loads what every signed-in screen needs, and reopens where a
// dropped session of this clerk left off.
func (m *Model) afterSignIn() []tea.Cmd {
	m.lastInput = m.now()
	m.callsGen++
	m.calls = nil
	return []tea.Cmd{m.loadShowsCmd(), m.loadTypesCmd(), m.armIdle(), m.resumeCmd(), m.loadCallsCmd(), m.callsTick()}
}

func (m *Model) loadTypesCmd() tea.Cmd {
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		types, err := store.TicketTypes(ctx)
		if err != nil {
			return typesMsg{err: err}, err
		}
		prices, err := store.Prices(ctx, actor)
		return typesMsg{types: types, prices: prices, err: err}, err
	})
}

// fail shows an error to the clerk; internal details go to the log only.
func (m *Model) fail(err error) {
	m.setError(errorText(err))
	if booking.ErrorCode(err) == booking.EInternal {
		m.log.Error("counter", "screen", m.screen.String(), "err", err)
	}
}

func (m *Model) setError(s string) { m.status, m.statusErr = s, true; m.logStatus(s, true) }
func (m *Model) setInfo(s string)  { m.status, m.statusErr = s, false; m.logStatus(s, false) }

// errorHints is the one table of how an error code reads at the counter:
// text added after the core's own message.
var errorHints = map[string]string{
	booking.EInternal: "Try again; if it keeps happening, tell the manager.",
}

// errorText is the line a clerk reads for err.
func errorText(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "The box office is busy — try again."
	}
	msg := booking.ErrorMessage(err)
	if hint := errorHints[booking.ErrorCode(err)]; hint != "" && !strings.Contains(msg, hint) {
		msg = strings.TrimSuffix(msg, ".") + ". " + hint
	}
	return msg
}
