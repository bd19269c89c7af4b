package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// waitlistState is the waiting list of the show whose map is open: who
// waits, who is to be called, who was, and removing someone.
type waitlistState struct {
	show    booking.Show
	entries []booking.WaitlistEntry
	loaded  bool
	cursor  int
	// confirm is the entry about to be removed, asking y/n first.
	confirm *booking.WaitlistEntry
	busy    bool
	seq     int
}

type (
	waitlistMsg struct {
		showID  int64
		entries []booking.WaitlistEntry
		err     error
		seq     int
	}
	removedMsg struct {
		entry booking.WaitlistEntry
		err   error
	}
)

// openWaitlist shows the open show's waiting list; esc goes back to its
// map, whose seats stay held.
func (m *Model) openWaitlist() tea.Cmd {
	m.waitlist = waitlistState{show: m.seats.show, seq: m.waitlist.seq}
	m.screen = screenWaitlist
	m.setInfo("")
	return m.loadWaitlistCmd()
}

func (m *Model) loadWaitlistCmd() tea.Cmd {
	if m.clerk == nil || m.waitlist.show.ID == 0 {
		return nil
	}
	m.waitlist.seq++
	store, actor, showID, seq := m.store, m.actor(), m.waitlist.show.ID, m.waitlist.seq
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		entries, err := store.Waitlist(ctx, actor, showID)
		return waitlistMsg{showID: showID, entries: entries, err: err, seq: seq}, err
	})
}

func (m *Model) onWaitlist(msg waitlistMsg) tea.Cmd {
	w := &m.waitlist
	if msg.showID != w.show.ID || msg.seq != w.seq {
		return nil // an older answer, or another show's
	}
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	w.entries, w.loaded = msg.entries, true
	w.cursor = min(w.cursor, max(len(w.entries)-1, 0))
	return nil
}

// waitlistScreen is the waiting list of the show whose map is open.
type waitlistScreen struct{}

func (waitlistScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	w := &m.waitlist
	k := m.keys
	if w.busy {
		return nil
	}
	if w.confirm != nil {
		switch {
		case key.Matches(msg, k.Yes):
			return m.removeEntryCmd(*w.confirm)
		case key.Matches(msg, k.No):
			w.confirm = nil
			m.setInfo("Kept on the list.")
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Back):
		m.screen = screenSeatMap
		return m.loadSeatMapCmd()
	case key.Matches(msg, k.Up):
		w.cursor = max(w.cursor-1, 0)
	case key.Matches(msg, k.Down):
		w.cursor = min(w.cursor+1, max(len(w.entries)-1, 0))
	case key.Matches(msg, k.RemoveEntry):
		if len(w.entries) == 0 {
			return nil
		}
		e := w.entries[w.cursor]
		w.confirm = &e
	}
	return nil
}

func (m *Model) removeEntryCmd(e booking.WaitlistEntry) tea.Cmd {
	m.waitlist.busy = true
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		err := store.RemoveWaitlist(ctx, actor, e.ID)
		return removedMsg{entry: e, err: err}, err
	})
}

func (m *Model) onRemoved(msg removedMsg) tea.Cmd {
	w := &m.waitlist
	w.busy, w.confirm = false, nil
	if msg.err != nil {
		m.fail(msg.err)
	} else {
		m.setInfo("Removed " + booking.Clean(msg.entry.Name) + " from the waiting list.")
	}
	return tea.Batch(m.loadWaitlistCmd(), m.loadCallsCmd())
}

// entryStatus says where an entry stands: waiting, to be called, called.
func (m *Model) entryStatus(e booking.WaitlistEntry) string {
	st := &m.styles
	switch {
	case e.CalledAt != nil:
		return st.Subtle.Render("called by " + cut(e.CalledBy, 12) + " " + e.CalledAt.In(m.now().Location()).Format("15:04"))
	case e.NotifiedAt != nil:
		return st.Warn.Render("☎ call now")
	}
	return "waiting"
}

func (waitlistScreen) view(m *Model, height int) string {
	st := &m.styles
	w := &m.waitlist
	var b strings.Builder
	sh := w.show
	b.WriteString(st.Title.Render("Waiting list · "+cut(sh.Film.Title, m.width-45)) +
		st.Subtle.Render(" · "+cut(sh.HallName, 12)+" · "+sh.Starts.In(m.now().Location()).Format("Mon 2 Jan 15:04")))
	b.WriteString("\n\n")
	switch {
	case !w.loaded:
		b.WriteString(st.Subtle.Render("  Loading…"))
		return b.String()
	case len(w.entries) == 0:
		b.WriteString(st.Subtle.Render("  Nobody is waiting for this show. On the seat map, w adds a customer."))
		return b.String()
	}
	nameW := max(m.width-52, 12)
	b.WriteString(st.Subtle.Render(fmt.Sprintf("  %-3s %s %-16s %5s  %s", "#", fit("Name", nameW), "Phone", "Seats", "Status")))
	b.WriteString("\n")
	rows := max(height-5, 1)
	first := 0
	if w.cursor >= rows {
		first = w.cursor - rows + 1
	}
	for i := first; i < len(w.entries) && i < first+rows; i++ {
		e := w.entries[i]
		line := fmt.Sprintf("  %-3d %s %s %5d  ", i+1, fit(e.Name, nameW), fit(e.Phone, 16), e.Seats)
		if i == w.cursor {
			b.WriteString(st.Selected.Render(line) + m.entryStatus(e))
		} else {
			b.WriteString(line + m.entryStatus(e))
		}
		b.WriteString("\n")
	}
	if w.confirm != nil {
		b.WriteString("\n" + st.Banner.Render(padRight(fmt.Sprintf(" Remove %s (%s) from the waiting list? y remove · n keep",
			cut(w.confirm.Name, 30), cut(w.confirm.Phone, 20)), m.width)))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (waitlistScreen) focus(*Model) *field { return nil }

// back brings find and the door opened from the waiting list back to the
// map its seats are held on.
func (waitlistScreen) back(*Model) screen { return screenSeatMap }

// changed reads the list again when its show changed.
func (waitlistScreen) changed(m *Model, c booking.ShowChanged) tea.Cmd {
	if c.ShowID == 0 || c.ShowID == m.waitlist.show.ID {
		return m.loadWaitlistCmd()
	}
	return nil
}

func (waitlistScreen) help(m *Model) helpKeys {
	k := m.keys
	if m.waitlist.confirm != nil {
		return helpKeys{short: []key.Binding{says(k.Yes, "remove"), relabel(k.No, "n", "keep")}}
	}
	return helpKeys{
		short: []key.Binding{k.Up, k.Down, k.RemoveEntry, says(k.Back, "back to the map"), k.Help},
		full:  [][]key.Binding{{k.Up, k.Down, k.RemoveEntry, k.Back}, {k.Find, k.Door, k.Called, k.SignOut, k.Quit}},
	}
}
