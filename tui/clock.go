package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// The title bar's clock (titleBar) shows the minute. A screen is drawn
// again only when a message arrives, so a counter nobody touches would
// keep showing the minute of its last key: clockCmd wakes the session
// once a minute, on the minute, to draw it again.

// clockMsg is the clock reaching a new minute.
type clockMsg struct{}

// clockCmd waits for the next minute by the session's clock, at least a
// second and at most a minute away (a clock that jumps is read again at
// the next tick).
func (m *Model) clockCmd() tea.Cmd {
	now := m.now()
	wait := now.Truncate(time.Minute).Add(time.Minute).Sub(now)
	wait = min(max(wait, time.Second), time.Minute)
	return m.park(parkClock, tea.Tick(wait, func(time.Time) tea.Msg { return clockMsg{} }))
}

// onClock draws the screen again (every message but the quiet ones
// does) and waits for the next minute.
func (m *Model) onClock() tea.Cmd { return m.clockCmd() }
