package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The week: the programme of one hall, seven days across from a start
// day, each show as its start and a short title, a cancelled one marked ×
// and struck through. ← → pick the day, ↑ ↓ the show, tab the hall, [ ]
// the week; a adds a show on the day, m moves the one picked, c cancels
// it, l puts it on a price list, s sets when its sales close.

const weekDays = 7

// weekState is the week on show and the show picked.
type weekState struct {
	start time.Time // the first day
	hall  int       // index into manageState.halls
	day   int
	row   int
	shows [weekDays][]booking.Show // every hall's
}

// dayShows are the shows of the hall on show on day d.
func (w *weekState) dayShows(halls []booking.Hall, d int) []booking.Show {
	if w.hall >= len(halls) {
		return nil
	}
	var out []booking.Show
	for _, sh := range w.shows[d] {
		if sh.HallID == halls[w.hall].ID {
			out = append(out, sh)
		}
	}
	return out
}

// picked is the show under the cursor, if any.
func (w *weekState) picked(halls []booking.Hall) (booking.Show, bool) {
	day := w.dayShows(halls, w.day)
	if w.row < len(day) {
		return day[w.row], true
	}
	return booking.Show{}, false
}

// clamp keeps the cursor on the week after a read.
func (w *weekState) clamp(halls []booking.Hall) {
	w.hall = min(w.hall, max(len(halls)-1, 0))
	w.row = min(w.row, max(len(w.dayShows(halls, w.day))-1, 0))
}

// has reports whether show id is in the week read.
func (w *weekState) has(id int64) bool {
	for _, day := range w.shows {
		for _, sh := range day {
			if sh.ID == id {
				return true
			}
		}
	}
	return false
}

func (m *Model) weekKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &m.manage
	w := &g.week
	k := &m.keys
	switch {
	case key.Matches(msg, k.Up):
		w.row = max(w.row-1, 0)
	case key.Matches(msg, k.Down):
		w.row++
	case key.Matches(msg, k.PrevDay):
		w.day = max(w.day-1, 0)
	case key.Matches(msg, k.NextDay):
		w.day = min(w.day+1, weekDays-1)
	case key.Matches(msg, k.MgrHall) && len(g.halls) > 0:
		step := 1
		if msg.String() == "shift+tab" {
			step = len(g.halls) - 1
		}
		w.hall = (w.hall + step) % len(g.halls)
	case key.Matches(msg, k.MgrWeek):
		step := weekDays
		if msg.String() == "[" {
			step = -weekDays
		}
		w.start = w.start.AddDate(0, 0, step)
		return m.mgrLoadCmd()
	case key.Matches(msg, k.MgrAdd) && len(g.halls) > 0:
		m.addShowForm()
	case key.Matches(msg, k.MgrMove):
		if sh, ok := w.picked(g.halls); ok {
			m.moveShowForm(sh)
		}
	case key.Matches(msg, k.MgrCancelShow):
		if sh, ok := w.picked(g.halls); ok {
			m.cancelShowForm(sh)
		}
	case key.Matches(msg, k.MgrShowList):
		if sh, ok := w.picked(g.halls); ok {
			m.showListForm(sh)
		}
	case key.Matches(msg, k.MgrSalesClose):
		if sh, ok := w.picked(g.halls); ok {
			m.salesCloseForm(sh)
		}
	}
	w.clamp(g.halls)
	return nil
}

func (m *Model) weekView(h int) string {
	g := &m.manage
	w := &g.week
	st := &m.styles
	if len(g.halls) == 0 {
		return st.Subtle.Render("  No halls yet: add one under Halls first.")
	}
	var b strings.Builder
	end := w.start.AddDate(0, 0, weekDays-1)
	b.WriteString(fmt.Sprintf("  %s %s  %s\n\n", st.Bold.Render("Hall "+cut(g.halls[w.hall].Name, 20)),
		st.Subtle.Render(fmt.Sprintf("(%d of %d)", w.hall+1, len(g.halls))),
		st.Subtle.Render(w.start.Format("Mon 02 Jan")+" – "+end.Format("Mon 02 Jan 2006"))))
	colW := max((m.width-2)/weekDays, 10)
	head := "  "
	var days [weekDays][]booking.Show
	most := 0
	for d := range weekDays {
		head += fit(w.start.AddDate(0, 0, d).Format("Mon 02"), colW)
		days[d] = w.dayShows(g.halls, d)
		most = max(most, len(days[d]))
	}
	b.WriteString(st.Label.Render(head) + "\n")
	rows := max(min(most, h-8), 1)
	struck := st.Faint.Strikethrough(true)
	anyCancelled := false
	for r := range rows {
		line := "  "
		for d := range weekDays {
			cell := strings.Repeat(" ", colW)
			if r < len(days[d]) {
				sh := days[d][r]
				if sh.Cancelled() {
					// The × says it without colour or strikethrough.
					anyCancelled = true
					cell = fit("×"+sh.Starts.Format("15:04")+" "+shortTitle(sh.Film.Title), colW-1)
					if d == w.day && r == w.row {
						cell = st.Selected.Render(cell + " ")
					} else {
						cell = struck.Render(cell) + " "
					}
					line += cell
					continue
				}
				cell = fit(sh.Starts.Format("15:04")+" "+shortTitle(sh.Film.Title), colW-1) + " "
			}
			if d == w.day && r == w.row {
				cell = st.Selected.Render(cell)
			}
			line += cell
		}
		b.WriteString(line + "\n")
	}
	if anyCancelled {
		b.WriteString(st.Subtle.Render("  × cancelled") + "\n")
	}
	b.WriteString("\n" + m.pickedLine())
	return b.String()
}

// shortTitle drops a leading article, so a narrow cell shows the word
// that tells films apart.
func shortTitle(title string) string {
	for _, a := range []string{"The ", "A ", "An "} {
		if rest, ok := strings.CutPrefix(title, a); ok && rest != "" {
			return rest
		}
	}
	return title
}

// pickedLine says all about the show picked: the cells cut it short.
func (m *Model) pickedLine() string {
	g := &m.manage
	st := &m.styles
	sh, ok := g.week.picked(g.halls)
	if !ok {
		return st.Subtle.Render("  No show on " + g.week.start.AddDate(0, 0, g.week.day).Format("Mon 02 Jan") + " here: a adds one.")
	}
	ends := sh.Starts.Add(time.Duration(sh.Film.Minutes) * time.Minute)
	line := fmt.Sprintf("Show %d · %s · %s–%s · ", sh.ID, booking.CleanLine(sh.Film.Title, 40), sh.Starts.Format("Mon 15:04"), ends.Format("15:04"))
	if sh.Cancelled() {
		line += "× cancelled: " + booking.CleanLine(sh.CancelReason, 60) + " (c lists its customers)"
		return st.Bold.Render(indent(wrapText(line, m.width-4, 2), 2))
	}
	line += fmt.Sprintf("%d/%d sold, %d held · %s list · sales close %s", sh.Sold, sh.Capacity, sh.Held,
		listLabel(sh.PriceList), booking.DescribeSalesClose(sh.SalesClose))
	return indent(wrapText(line, m.width-4, 2), 2)
}

// hallNames are the halls' names, for a choice.
func (g *manageState) hallNames() []string {
	out := make([]string, len(g.halls))
	for i, h := range g.halls {
		out[i] = booking.CleanLine(h.Name, 30)
	}
	return out
}

// hallByName is the id of the hall of that name in the list.
func (g *manageState) hallByName(name string) int64 {
	for _, h := range g.halls {
		if booking.CleanLine(h.Name, 30) == name {
			return h.ID
		}
	}
	return 0
}

// parseStart reads a day and a time typed in a form, in loc.
func parseStart(day, at string, loc *time.Location) (time.Time, error) {
	t, err := time.ParseInLocation("2006-01-02 15:04", day+" "+at, loc)
	if err != nil {
		return t, booking.Errorf(booking.EInvalid, "A start is a day like 2026-12-05 and a time like 20:00.")
	}
	return t, nil
}

// addShowForm adds a show of a film still on the programme, in the hall
// and on the day on show.
func (m *Model) addShowForm() {
	g := &m.manage
	var titles []string
	var ids []int64
	for _, f := range g.films {
		if !f.Retired {
			titles = append(titles, fmt.Sprintf("%s (%d min)", booking.CleanLine(f.Title, 40), f.Minutes))
			ids = append(ids, f.ID)
		}
	}
	if len(ids) == 0 {
		g.err = "No film to show: add one under Films first."
		return
	}
	day := g.week.start.AddDate(0, 0, g.week.day).Format("2006-01-02")
	loc := m.now().Location()
	m.openForm("Add a show", "The hall must be free for the film and 15 minutes of cleaning after.", func(m *Model, v []string) (tea.Cmd, string, error) {
		starts, err := parseStart(v[1], v[2], loc)
		if err != nil {
			return nil, "", err
		}
		if !starts.After(m.now()) {
			return nil, "", booking.Errorf(booking.EInvalid, "A show cannot start in the past.")
		}
		film, hall := ids[m.manage.form.fields[0].pick], m.manage.hallByName(v[3])
		return m.mgrDo("Added the show at "+starts.Format("Mon 02 Jan 15:04")+".", func(ctx context.Context, s Backend, a booking.Actor) error {
			_, err := s.AddShow(ctx, a, film, hall, starts)
			return err
		}), "", nil
	}, choiceField("Film", titles, ""), textField("Day", 10, day), textField("Time", 5, ""),
		choiceField("Hall", g.hallNames(), booking.CleanLine(g.halls[g.week.hall].Name, 30)))
}

// moveShowForm moves the show picked; with seats sold or held it asks
// first, and says its bookings keep their seats.
func (m *Model) moveShowForm(sh booking.Show) {
	g := &m.manage
	loc := m.now().Location()
	note := "Nobody has booked it yet."
	if sh.Sold+sh.Held > 0 {
		note = fmt.Sprintf("%d sold, %d held: the bookings keep their seats; it can change time, not hall.", sh.Sold, sh.Held)
	}
	m.openForm(fmt.Sprintf("Move show %d: %s", sh.ID, cut(sh.Film.Title, 40)), note, func(m *Model, v []string) (tea.Cmd, string, error) {
		starts, err := parseStart(v[0], v[1], loc)
		if err != nil {
			return nil, "", err
		}
		if !starts.After(m.now()) {
			return nil, "", booking.Errorf(booking.EInvalid, "A show cannot start in the past.")
		}
		hall := m.manage.hallByName(v[2])
		cmd := m.mgrDo("Moved show "+fmt.Sprint(sh.ID)+" to "+starts.Format("Mon 02 Jan 15:04")+".", func(ctx context.Context, s Backend, a booking.Actor) error {
			return s.MoveShow(ctx, a, sh.ID, starts, hall)
		})
		if sh.Sold+sh.Held == 0 {
			return cmd, "", nil
		}
		return cmd, fmt.Sprintf("Move show %d with %s sold to %s? Its bookings keep their seats; tell the customers.", sh.ID, plural(sh.Sold, "seat", "seats"), starts.Format("Mon 02 Jan 15:04")), nil
	}, textField("Day", 10, sh.Starts.In(loc).Format("2006-01-02")), textField("Time", 5, sh.Starts.In(loc).Format("15:04")),
		choiceField("Hall", g.hallNames(), booking.CleanLine(sh.HallName, 30)))
}
