package tui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// This file is what reaches a session besides the clerk's keys and the
// store's answers: committed changes from the broker, the server's
// notices, the idle sign-out timer, and park, which lets tests hold back
// the commands that wait. The hold countdown is in hold.go, the poll for
// waiting-list calls in calls.go.

// ServerNoticeMsg is sent into a running program from outside (the SSH
// server) to show a banner, such as "Server restarting — finish this sale".
// An empty Text removes the banner.
type ServerNoticeMsg struct{ Text string }

// onLive handles a message from outside the clerk's keys; ok is false
// for any other message.
func (m *Model) onLive(msg tea.Msg) (cmd tea.Cmd, ok bool) {
	switch msg := msg.(type) {
	case ServerNoticeMsg:
		m.notice = booking.CleanLine(msg.Text, 200)
		return nil, true
	case PrinterMsg:
		m.opts.Printer, m.opts.PDFDir = msg.Printer, msg.PDFDir
		if msg.Printer.None() {
			m.setInfo("This counter has no printer now: tickets are saved as PDF files.")
		} else {
			m.setInfo("This counter prints on " + msg.Printer.String() + " now.")
		}
		return nil, true
	case subscribedMsg:
		m.live = msg.ch
		return m.waitChangeCmd(), true
	case changeMsg:
		return tea.Batch(m.onChange(booking.ShowChanged(msg)), m.waitChangeCmd()), true
	case callsTickMsg:
		return m.onCallsTick(msg), true
	case tickMsg:
		m.ticking = false
		return m.onTick(), true
	case idleMsg:
		m.idleArmed = false
		return m.onIdle(), true
	case clockMsg:
		return m.onClock(), true
	}
	return nil, false
}

// quiet reports whether msg leaves the frame drawn last as it is: these
// only start a reload (or redraw when it brought something new).
func quiet(msg tea.Msg) bool {
	switch msg.(type) {
	case changeMsg, subscribedMsg, callsTickMsg, callsMsg:
		return true
	}
	return false
}

// parkKind names what a parked command waits for, so a test can run the
// one it means (the next change, not a ten-second timer).
type parkKind int

const (
	parkChange    parkKind = iota // the next committed change
	parkTick                      // the hold countdown
	parkIdle                      // the idle sign-out timer
	parkCalls                     // the next look for waiting-list calls
	parkWithdrawn                 // the end of a withdrawn session
	parkPrint                     // a print job (issue 12), which may wait on a printer
	parkRetry                     // a sale sent again after the database server was away
	parkClock                     // the title bar's clock, once a minute (clock.go)
)

// parkedCmd is a command kept aside by park.
type parkedCmd struct {
	kind parkKind
	cmd  tea.Cmd
}

// park returns cmd, or in tests keeps it aside (see parkBlocking).
func (m *Model) park(kind parkKind, cmd tea.Cmd) tea.Cmd {
	if m.parkBlocking {
		m.parked = append(m.parked, parkedCmd{kind: kind, cmd: cmd})
		return nil
	}
	return cmd
}
func (m *Model) subscribeCmd() tea.Cmd {
	broker, ctx := m.store.Changes(), m.ctx
	if broker == nil {
		return nil
	}
	return func() tea.Msg { return subscribedMsg{ch: broker.Subscribe(ctx)} }
}

// waitChangeCmd waits for the next committed change. Changes that queued up
// meanwhile are merged into one: the reload reads the database anyway.
func (m *Model) waitChangeCmd() tea.Cmd {
	ch := m.live
	if ch == nil {
		return nil
	}
	return m.park(parkChange, func() tea.Msg {
		c, ok := <-ch
		if !ok {
			return nil
		}
		for {
			select {
			case more, ok := <-ch:
				if !ok {
					return changeMsg(c)
				}
				if more.ShowID != c.ShowID {
					c.ShowID = 0
				}
			default:
				return changeMsg(c)
			}
		}
	})
}

// onChange repaints whatever shows the changed show. The seats held are
// kept up to date on every screen (find and door show their countdown);
// "anything changed" (show 0) is also how a price change arrives, so the
// prices are read again. A screen that shows more reloads it too.
func (m *Model) onChange(c booking.ShowChanged) tea.Cmd {
	if m.clerk == nil {
		return nil
	}
	var cmds []tea.Cmd
	if c.ShowID == 0 {
		cmds = append(cmds, m.loadTypesCmd(), m.requote())
	}
	mapShown := m.screen.spec().held == heldOnMap || m.heldCount() > 0
	if mapShown && (c.ShowID == 0 || c.ShowID == m.seats.show.ID) {
		cmds = append(cmds, m.loadSeatMapCmd())
	}
	if r, ok := m.active().(reloader); ok {
		cmds = append(cmds, r.changed(m, c))
	}
	return tea.Batch(cmds...)
}

// armIdle starts the idle sign-out timer if it is wanted and not running.
func (m *Model) armIdle() tea.Cmd {
	return m.armIdleAfter(m.opts.IdleSignOut)
}

func (m *Model) armIdleAfter(d time.Duration) tea.Cmd {
	if m.opts.IdleSignOut <= 0 || m.idleArmed || m.clerk == nil {
		return nil
	}
	m.idleArmed = true
	return m.park(parkIdle, m.tick(d, func(time.Time) tea.Msg { return idleMsg{} }))
}

// onIdle signs the clerk out when no key came for IdleSignOut, else waits
// for the rest of it. One timer runs at a time, however fast the typing.
func (m *Model) onIdle() tea.Cmd {
	if m.clerk == nil || m.opts.IdleSignOut <= 0 {
		return nil
	}
	left := m.lastInput.Add(m.opts.IdleSignOut).Sub(m.now())
	if left > 0 {
		return m.armIdleAfter(left)
	}
	return m.signOut(fmt.Sprintf("Signed out after %s without a key press.", m.opts.IdleSignOut))
}
