package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/booking"
)

// showsState is the list of one day's shows.
type showsState struct {
	day     time.Time // local midnight
	all     []booking.Show
	loaded  bool
	filter  []rune
	cursor  int   // index into visible()
	keepID  int64 // show to keep the cursor on across reloads
	seq     int
	applied int
	// openOn is the day whose list enter was pressed on before it
	// loaded (zero for none): the show under the cursor opens when it
	// does. On PostgreSQL the first list after signing in takes long
	// enough for a clerk's enter to beat it.
	openOn time.Time
}

type showsMsg struct {
	day   time.Time
	shows []booking.Show
	err   error
	seq   int
}

func (m *Model) loadShowsCmd() tea.Cmd {
	if m.clerk == nil {
		return nil
	}
	m.shows.seq++
	store, actor, day, seq := m.store, m.actor(), m.shows.day, m.shows.seq
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		shows, err := store.Shows(ctx, actor, day)
		return showsMsg{day: day, shows: shows, err: err, seq: seq}, err
	})
}

func (m *Model) onShows(msg showsMsg) tea.Cmd {
	s := &m.shows
	if msg.seq <= s.applied || !msg.day.Equal(s.day) {
		return nil
	}
	s.applied = msg.seq
	if msg.err != nil {
		s.openOn = time.Time{} // the clerk reads why, and opens by hand
		m.fail(msg.err)
		return nil
	}
	s.all = msg.shows
	s.loaded = true
	s.restoreCursor()
	if open := s.openOn; !open.IsZero() {
		s.openOn = time.Time{}
		if vis := s.visible(); open.Equal(s.day) && m.screen == screenShows && len(vis) > 0 {
			return m.openSeatMap(vis[s.cursor])
		}
	}
	return nil
}

// visible returns the shows that match the filter.
func (s *showsState) visible() []booking.Show {
	if len(s.filter) == 0 {
		return s.all
	}
	f := strings.ToLower(string(s.filter))
	var out []booking.Show
	for _, sh := range s.all {
		if strings.Contains(strings.ToLower(booking.Clean(sh.Film.Title)), f) {
			out = append(out, sh)
		}
	}
	return out
}

// restoreCursor keeps the highlighted show across reloads and filtering.
func (s *showsState) restoreCursor() {
	vis := s.visible()
	for i, sh := range vis {
		if sh.ID == s.keepID {
			s.cursor = i
			return
		}
	}
	s.cursor = min(max(s.cursor, 0), max(len(vis)-1, 0))
	if len(vis) > 0 {
		s.keepID = vis[s.cursor].ID
	}
}

// showsScreen is the list of one day's shows.
type showsScreen struct{}

func (showsScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	s := &m.shows
	k := m.keys
	vis := s.visible()
	switch {
	case key.Matches(msg, k.Up):
		if s.cursor > 0 {
			s.cursor--
		}
	case key.Matches(msg, k.Down):
		if s.cursor < len(vis)-1 {
			s.cursor++
		}
	case key.Matches(msg, k.PrevDay), key.Matches(msg, k.NextDay):
		d := 1
		if key.Matches(msg, k.PrevDay) {
			d = -1
		}
		s.day = dayOf(s.day.AddDate(0, 0, d).Add(2 * time.Hour)) // DST-safe
		s.all, s.loaded, s.cursor, s.keepID = nil, false, 0, 0
		return m.loadShowsCmd()
	case key.Matches(msg, k.Open):
		if !s.loaded {
			s.openOn = s.day // opened once the list is here
			return nil
		}
		if len(vis) == 0 {
			return nil
		}
		return m.openSeatMap(vis[s.cursor])
	case key.Matches(msg, k.Items):
		return m.openItems()
	case key.Matches(msg, k.GiftCards):
		return m.openGiftCards()
	case key.Matches(msg, k.Back):
		if len(s.filter) > 0 {
			s.filter = s.filter[:0]
		} else if !s.day.Equal(dayOf(m.now())) {
			s.day = dayOf(m.now())
			s.all, s.loaded, s.cursor, s.keepID = nil, false, 0, 0
			return m.loadShowsCmd()
		}
	case key.Matches(msg, k.DeleteChar):
		if len(s.filter) > 0 {
			s.filter = s.filter[:len(s.filter)-1]
		}
	case isText(msg):
		for _, r := range booking.Clean(msg.Text) {
			if len(s.filter) < 40 {
				s.filter = append(s.filter, r)
			}
		}
		s.cursor = 0
	default:
		return nil
	}
	if vis = s.visible(); len(vis) > 0 && s.cursor < len(vis) {
		s.keepID = vis[s.cursor].ID
	}
	s.restoreCursor()
	return nil
}

// focus is nil: the filter is no text field (nothing is pasted into
// it), and ? opens the keys even while it is typed.
func (showsScreen) focus(*Model) *field { return nil }

func (showsScreen) help(m *Model) helpKeys {
	k := m.keys
	return helpKeys{
		short: []key.Binding{k.Open, k.PrevDay, k.NextDay, k.Filter, k.Find, k.Help},
		full:  m.forManagers([][]key.Binding{{k.Up, k.Down, k.Open}, {k.PrevDay, k.NextDay, k.Filter, k.Items, k.GiftCards}, k.global()}),
	}
}

// changed reads the day again when one of its shows changed.
func (showsScreen) changed(m *Model, c booking.ShowChanged) tea.Cmd {
	for _, s := range m.shows.all {
		if c.ShowID == 0 || s.ID == c.ShowID {
			return m.loadShowsCmd()
		}
	}
	return nil
}

func (showsScreen) view(m *Model, height int) string {
	st := &m.styles
	s := &m.shows
	var b strings.Builder
	day := s.day.Format("Monday 2 January 2006")
	switch dayOf(m.now()).Sub(s.day).Hours() {
	case 0:
		day = "Today, " + day
	case -24:
		day = "Tomorrow, " + day
	case 24:
		day = "Yesterday, " + day
	}
	b.WriteString(spread(st.Title.Render("‹ "+day+" ›"), filterLabel(st, s.filter), m.width))
	b.WriteString("\n\n")

	titleW := m.width - 46
	header := fmt.Sprintf("  %-5s  %s  %-10s  %9s  %s", "Start", fit("Film", titleW), "Hall", "Free", "Sold")
	b.WriteString(st.Subtle.Render(header))
	b.WriteString("\n")

	vis := s.visible()
	rows := height - 4
	if !s.loaded {
		b.WriteString(st.Subtle.Render("  Loading…"))
		return b.String()
	}
	if len(vis) == 0 {
		if len(s.filter) > 0 {
			b.WriteString(st.Subtle.Render("  No film matches \"" + booking.Clean(string(s.filter)) + "\"."))
		} else {
			b.WriteString(st.Subtle.Render("  No shows on this day."))
		}
		return b.String()
	}
	first := 0
	if s.cursor >= rows {
		first = s.cursor - rows + 1
	}
	now := m.now()
	for i := first; i < len(vis) && i < first+rows; i++ {
		sh := vis[i]
		start := sh.Starts.In(now.Location()).Format("15:04")
		free := fmt.Sprintf("%4d/%-4d", sh.Free(), sh.Capacity)
		line := fmt.Sprintf("  %-5s  %s  %s  %s  ", start, fit(sh.Film.Title, titleW), fit(sh.HallName, 10), free)
		if sh.Cancelled() {
			line := fmt.Sprintf("  %-5s  %s  %s  ", start, fit(sh.Film.Title, titleW), fit(sh.HallName, 10))
			b.WriteString(cancelledRow(st, line, sh, i == s.cursor, m.width))
			b.WriteString("\n")
			continue
		}
		if i == s.cursor {
			b.WriteString(st.Selected.Render(line) + fillBar(st, sh, 10))
		} else if sh.Starts.Before(now) {
			b.WriteString(st.Faint.Render(line) + fillBar(st, sh, 10))
		} else {
			b.WriteString(line + fillBar(st, sh, 10))
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func filterLabel(st *Styles, f []rune) string {
	if len(f) == 0 {
		return st.Subtle.Render("type to filter")
	}
	return st.Label.Render("filter: ") + st.InputOn.Render(booking.Clean(string(f))+"_")
}

// fillBar draws how full a show is: sold and held seats as full cells, of
// the seats it can sell. Blocked and house seats are no sale: they fill
// no cell, and a show whose every other seat is sold shows full.
func fillBar(st *Styles, sh booking.Show, width int) string {
	full := 0
	if sellable := sh.Capacity - sh.Blocked; sellable > 0 {
		full = ((sh.Sold+sh.Held)*width + sellable - 1) / sellable
	}
	full = min(max(full, 0), width)
	return st.BarFull.Render(strings.Repeat("█", full)) + st.BarEmpty.Render(strings.Repeat("░", width-full))
}

// cancelledLine is what a cancelled show says in place of its seats:
// "Cancelled — projector broken".
func cancelledLine(sh booking.Show) string {
	return "Cancelled — " + booking.CleanLine(sh.CancelReason, 120)
}

// cancelledRow is a cancelled show's line of the list: its start, film and
// hall, then why it was cancelled where the free seats would be.
func cancelledRow(st *Styles, line string, sh booking.Show, selected bool, width int) string {
	why := cut(cancelledLine(sh), max(width-ansi.StringWidth(line), 12))
	if selected {
		return st.Selected.Render(line) + st.Error.Render(why)
	}
	return st.Faint.Render(line) + st.Error.Render(why)
}
