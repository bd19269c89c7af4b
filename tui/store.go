package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// This file is how the model reaches the store: every call is a command
// made by call or, for a sale or a refund, money. Both see each call's
// error, so what any store error means for the whole session — access
// withdrawn — is decided here once, whatever screen made the call.

// callTimeout bounds one call to the store from a command; moneyTimeout
// bounds a sale or a refund, which runs on when the session ends.
const (
	callTimeout  = 15 * time.Second
	moneyTimeout = 15 * time.Second
)

// withdrawnGrace is how long "Your access was withdrawn." shows before
// the session ends.
const withdrawnGrace = time.Second

// storeFunc is one store call made by a command: the message for the
// screen that asked, and the call's error (nil when it succeeded) for the
// session.
type storeFunc func(ctx context.Context) (tea.Msg, error)

// call makes a store call a command bounded by the session's context.
func (m *Model) call(fn storeFunc) tea.Cmd {
	ctx := m.ctx
	return func() tea.Msg {
		c, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		return answer(fn(c))
	}
}

// money makes a sale or a refund a command that runs to its end even when
// the session's context ends meanwhile: money changed hands at the counter,
// so what the clerk confirmed is not abandoned because the connection
// dropped (the idempotency key makes a retry land on it). Settle waits for
// the ones under way; once it was called none starts.
func (m *Model) money(fn storeFunc) tea.Cmd {
	ctx, settling := context.WithoutCancel(m.ctx), &m.settling
	return func() tea.Msg {
		if !settling.Enter() {
			return nil // the session is over: nobody is there to answer
		}
		defer settling.Leave()
		c, cancel := context.WithTimeout(ctx, moneyTimeout)
		defer cancel()
		return answer(fn(c))
	}
}

// answer is what a store call tells the program: its own message, or,
// when the store refused because the actor's access was withdrawn, that.
func answer(msg tea.Msg, err error) tea.Msg {
	if booking.IsWithdrawn(err) {
		return withdrawnMsg{}
	}
	return msg
}

type (
	// withdrawnMsg says the store refused a call because this session's
	// clerk or terminal may no longer act.
	withdrawnMsg struct{}
	// withdrawnEndMsg ends a withdrawn session once its message was seen.
	withdrawnEndMsg struct{}
)

// onWithdrawn says so, stops taking keys (but ctrl+c) and ends the session
// after withdrawnGrace, releasing what it held. The host reads Withdrawn
// then: a server closes the session without keeping it for a reconnect.
func (m *Model) onWithdrawn() tea.Cmd {
	if m.withdrawn.Swap(true) {
		return nil
	}
	m.leaving = nil
	m.help.ShowAll = false
	m.setError(booking.ErrorMessage(booking.ErrWithdrawn))
	return m.park(parkWithdrawn, m.tick(withdrawnGrace, func(time.Time) tea.Msg { return withdrawnEndMsg{} }))
}

// Withdrawn reports whether the store refused this session because its
// clerk or terminal may no longer act; the session then ends by itself. It
// is safe to call from any goroutine.
func (m *Model) Withdrawn() bool { return m.withdrawn.Load() }

// Settle stops this session starting sales and refunds and returns a
// channel closed once those under way have answered: a server waits on it
// before another session takes over the holds, so a resumed checkout finds
// the booking a dropped one made. Call it once the program has stopped.
func (m *Model) Settle() <-chan struct{} { return m.settling.Shut() }
