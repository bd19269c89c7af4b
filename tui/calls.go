package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// callsEvery is how often a counter looks for waiting-list customers to
// call. The list lives in the database, so a missed look loses nothing.
const callsEvery = 10 * time.Second

type (
	callsMsg struct {
		calls []booking.WaitlistEntry
		err   error
	}
	callsTickMsg struct{ gen int }
	calledMsg    struct{ err error }
)

// loadCallsCmd reads the customers to call; clerks and up see them.
func (m *Model) loadCallsCmd() tea.Cmd {
	if m.clerk == nil || m.clerk.role < booking.MinRole(booking.ActionWaitlist) {
		return nil
	}
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		calls, err := store.WaitlistCalls(ctx, actor)
		return callsMsg{calls: calls, err: err}, err
	})
}

// callsTick schedules the next look. Each sign-in starts a new generation
// so an old timer does not keep a second loop going.
func (m *Model) callsTick() tea.Cmd {
	gen := m.callsGen
	return m.park(parkCalls, m.tick(callsEvery, func(time.Time) tea.Msg { return callsTickMsg{gen: gen} }))
}

func (m *Model) onCallsTick(msg callsTickMsg) tea.Cmd {
	if msg.gen != m.callsGen || m.clerk == nil {
		return nil
	}
	return tea.Batch(m.loadCallsCmd(), m.callsTick())
}

func (m *Model) onCalls(msg callsMsg) tea.Cmd {
	if msg.err != nil {
		m.log.Warn("waitlist calls", "err", msg.err)
		return nil
	}
	if !sameCalls(m.calls, msg.calls) {
		m.calls = msg.calls
		m.drawn = false
	}
	return nil
}

func sameCalls(a, b []booking.WaitlistEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID {
			return false
		}
	}
	return true
}

// markCalledCmd records that this clerk called the first customer shown.
func (m *Model) markCalledCmd() tea.Cmd {
	if len(m.calls) == 0 || m.clerk == nil {
		return nil
	}
	store, actor, id := m.store, m.actor(), m.calls[0].ID
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		err := store.MarkCalled(ctx, actor, id)
		return calledMsg{err: err}, err
	})
}

func (m *Model) onCalled(msg calledMsg) tea.Cmd {
	if msg.err != nil {
		m.fail(msg.err) // "Ann is already called by sue", most likely
	} else if len(m.calls) > 0 {
		m.setInfo("Marked " + booking.Clean(m.calls[0].Name) + " as called.")
	}
	return m.loadCallsCmd()
}

// callsText is the banner over the status line while someone is to be
// called: the oldest first, with how many more wait.
func (m *Model) callsText() string {
	if len(m.calls) == 0 || m.clerk == nil {
		return ""
	}
	c := m.calls[0]
	line := fmt.Sprintf(" ☎ Call %s %s: %d seats free for %s %s", booking.Clean(c.Name), booking.Clean(c.Phone), c.Seats,
		booking.Clean(c.Show.Film.Title), c.Show.Starts.In(m.now().Location()).Format("Mon 15:04"))
	if more := len(m.calls) - 1; more > 0 {
		line += fmt.Sprintf(" (+%d more)", more)
	}
	return line + together(" · ctrl+k called") // the hint moves to the next line whole
}

type waitlistedMsg struct {
	entry *booking.WaitlistEntry
	err   error
}

// addWaitlist puts the customer typed at the waiting-list prompt ("Ann
// Lee, 0123 456, 2") on the open show's list. The party size defaults to
// the number typed before b, else 2.
func (m *Model) addWaitlist(text string) tea.Cmd {
	parts := strings.Split(text, ",")
	if len(parts) < 2 || len(parts) > 3 {
		m.setError("Type the name, the phone number and the party size, with commas: Ann Lee, 0123 456, 2")
		return nil
	}
	seats := m.seats.party.size()
	if seats == 0 {
		seats = 2
	}
	if len(parts) == 3 {
		n, err := strconv.Atoi(strings.TrimSpace(parts[2]))
		if err != nil || n < 1 {
			m.setError("The party size is a number, like 2.")
			return nil
		}
		seats = n
	}
	name, phone := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
	store, actor, showID := m.store, m.actor(), m.seats.show.ID
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		e, err := store.AddWaitlist(ctx, actor, showID, name, phone, seats)
		return waitlistedMsg{entry: e, err: err}, err
	})
}

func (m *Model) onWaitlisted(msg waitlistedMsg) tea.Cmd {
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	e := msg.entry
	m.setInfo(fmt.Sprintf("%s waits for %d seats; every counter shows when to call.", booking.Clean(e.Name), e.Seats))
	return nil
}
