package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// leaveAction is a way out of the seats held: off the map, out of the
// session, or over to another screen.
type leaveAction int

const (
	leaveShows   leaveAction = iota // esc on the map: back to the shows
	leaveClear                      // x: let every held seat go
	leaveSignOut                    // ctrl+o
	leaveQuit                       // ctrl+c
	leaveFind                       // ctrl+f
	leaveDoor                       // ctrl+d
	leaveReports                    // ctrl+r
)

// canKeep reports whether the clerk may go on with the seats still held:
// find and door show the countdown and esc comes back to them.
func (a leaveAction) canKeep() bool { return a == leaveFind || a == leaveDoor || a == leaveReports }

// where is what the action does, for the question.
func (a leaveAction) where() string {
	switch a {
	case leaveShows:
		return "go back to the shows"
	case leaveSignOut:
		return "sign out"
	case leaveQuit:
		return "quit"
	case leaveFind:
		return "find a booking"
	case leaveDoor:
		return "open the door"
	case leaveReports:
		return "open the reports"
	}
	return ""
}

// leaveState is the question on the way out while seats are held.
type leaveState struct {
	action leaveAction
	seats  int
}

// leave is the one rule for every way out while seats are held: ask, and
// unless the clerk says y, keep them. n (or enter, or esc) stays where the
// clerk is; for find and door, k goes there with the seats still held and
// the countdown on screen. Without seats held it just goes.
func (m *Model) leave(a leaveAction) tea.Cmd {
	held := m.heldCount()
	inHand := m.screen.spec().held != heldAway
	if held > 0 && (inHand || a == leaveSignOut || a == leaveQuit || a == leaveClear) {
		m.leaving = &leaveState{action: a, seats: held}
		return nil
	}
	return m.doLeave(a, false)
}

func (m *Model) leaveKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	a := m.leaving.action
	switch {
	case key.Matches(msg, k.Yes), a == leaveQuit && key.Matches(msg, k.Quit):
		m.leaving = nil
		return m.doLeave(a, true)
	case key.Matches(msg, k.Keep) && a.canKeep():
		m.leaving = nil
		return m.doLeave(a, false)
	case key.Matches(msg, k.No):
		m.leaving = nil
		if n := len(m.seats.mine()); n > 0 {
			m.setInfo(fmt.Sprintf("Still holding %d: %s.", n, joinLabels(m.seats.mine())))
		}
	}
	return nil
}

// doLeave carries out a, letting the seats go first when release says so.
// Signing out and quitting always let them go.
func (m *Model) doLeave(a leaveAction, release bool) tea.Cmd {
	var rel tea.Cmd
	if release && a != leaveQuit && a != leaveSignOut {
		if mine := m.seats.mine(); len(mine) > 0 {
			rel = m.release(mine)
		}
	}
	switch a {
	case leaveShows:
		m.screen = screenShows
		return tea.Batch(rel, m.loadShowsCmd())
	case leaveClear:
		return rel
	case leaveSignOut:
		return m.signOut("Signed out.")
	case leaveQuit:
		return m.quitCmd()
	case leaveFind:
		return tea.Batch(rel, m.openFind())
	case leaveDoor:
		return tea.Batch(rel, m.openDoor())
	case leaveReports:
		return tea.Batch(rel, m.openReports())
	}
	return rel
}

// leaveHelp is the question's keys.
func (m *Model) leaveHelp() helpKeys {
	k := m.keys
	if m.leaving.action.canKeep() {
		return helpKeys{short: []key.Binding{k.Keep, k.Yes, relabel(k.No, "n", "stay")}}
	}
	return helpKeys{short: []key.Binding{k.Yes, k.No}}
}

// leavePrompt is the question's banner text.
func (m *Model) leavePrompt() string {
	l := m.leaving
	held := plural(l.seats, "seat", "seats")
	switch {
	case l.action == leaveClear:
		return fmt.Sprintf(" Release all %s held? y/n (n keeps them)", held)
	case l.action.canKeep():
		return fmt.Sprintf(" Holding %s. k keep them and %s · y release them first · n stay", held, l.action.where())
	}
	return fmt.Sprintf(" Holding %s. Release them and %s? y/n (n keeps them)", held, l.action.where())
}

// goBack opens the screen find or the door came from.
func (m *Model) goBack(to screen) tea.Cmd {
	switch {
	case to == screenCheckout && (m.checkout.lapsed || m.heldCount() == 0):
		return m.backToSeats()
	case to == screenCheckout, to == screenSeatMap:
		if m.seats.show.ID != 0 {
			m.screen = to
			return m.loadSeatMapCmd()
		}
	}
	m.screen = screenShows
	return m.loadShowsCmd()
}

// keptLine is the title bar's reminder, away from the map, of the seats
// still held and their countdown.
func (m *Model) keptLine() string {
	if m.screen.spec().held == heldOnMap || m.heldCount() == 0 {
		return ""
	}
	return m.styles.Bold.Render(fmt.Sprintf("holding %d", m.heldCount())) + m.styles.Subtle.Render(" · ") + m.countdown()
}
