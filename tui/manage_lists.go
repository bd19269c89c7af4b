package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/assets"
	"boxoffice/booking"
)

// The manager's lists: films, halls, staff and terminals, each with its
// changes.

// Films.

func (m *Model) filmsView(h int) string {
	g := &m.manage
	if len(g.films) == 0 {
		return m.styles.Subtle.Render("  No films yet: a adds one.")
	}
	rows := make([]string, len(g.films))
	for i, f := range g.films {
		state := ""
		if f.Retired {
			state = "retired"
		}
		rows[i] = fmt.Sprintf("%4d  %s %4d  %-6s  %s", f.ID, fit(f.Title, max(m.width-36, 20)), f.Minutes, cut(f.Rating, 6), state)
	}
	return m.listLines(fmt.Sprintf("%4s  %s %4s  %-6s  %s", "ID", fit("Title", max(m.width-36, 20)), "Min", "Rating", ""), rows, h)
}

func (m *Model) filmsKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &m.manage
	k := &m.keys
	switch {
	case key.Matches(msg, k.MgrAdd):
		m.filmForm("Add a film", booking.Film{})
	case len(g.films) == 0:
	case key.Matches(msg, k.MgrEdit):
		m.filmForm("Edit the film", g.films[g.cursor])
	case key.Matches(msg, k.MgrRetire):
		f := g.films[g.cursor]
		if f.Retired {
			g.err = fmt.Sprintf("%s is retired already.", cut(f.Title, 60))
			return nil
		}
		m.ask(fmt.Sprintf("Retire %s? Its shows stay; it gets no new ones.", cut(f.Title, 40)),
			m.mgrDo("Retired "+cut(f.Title, 60)+".", func(ctx context.Context, s Backend, a booking.Actor) error {
				return s.RetireFilm(ctx, a, f.ID)
			}))
	}
	return nil
}

// filmForm adds f (ID 0) or edits it.
func (m *Model) filmForm(title string, f booking.Film) {
	minutes := ""
	if f.Minutes > 0 {
		minutes = strconv.Itoa(f.Minutes)
	}
	mins := textField("Running time", 3, minutes)
	mins.f.accept = isDigit
	m.openForm(title, "Minutes include trailers; a hall needs 15 minutes of cleaning after a show.", func(m *Model, v []string) (tea.Cmd, string, error) {
		n, _ := strconv.Atoi(v[1])
		film := booking.Film{ID: f.ID, Title: v[0], Minutes: n, Rating: v[2]}
		switch {
		case film.Title == "":
			return nil, "", booking.Errorf(booking.EInvalid, "A film needs a title.")
		case n < 1:
			return nil, "", booking.Errorf(booking.EInvalid, "Type the running time in minutes.")
		}
		if f.ID == 0 {
			return m.mgrDo("Added "+cut(film.Title, 60)+".", func(ctx context.Context, s Backend, a booking.Actor) error {
				_, err := s.AddFilm(ctx, a, film)
				return err
			}), "", nil
		}
		return m.mgrDo("Saved "+cut(film.Title, 60)+".", func(ctx context.Context, s Backend, a booking.Actor) error {
			return s.EditFilm(ctx, a, film)
		}), "", nil
	}, textField("Title", 120, f.Title), mins, textField("Rating", 8, f.Rating))
}

// Halls.

func (m *Model) hallsView(h int) string {
	g := &m.manage
	if len(g.halls) == 0 {
		return m.styles.Subtle.Render("  No halls yet: a adds one from a layout file.")
	}
	rows := make([]string, len(g.halls))
	for i, hl := range g.halls {
		kinds := map[booking.SeatKind]int{}
		for _, s := range hl.Seats {
			kinds[s.Kind]++
		}
		rows[i] = fmt.Sprintf("%4d  %s %4d %5d %8d %11d %10d", hl.ID, fit(hl.Name, 16), len(hl.Rows), len(hl.Seats),
			kinds[booking.Premium], kinds[booking.Wheelchair], kinds[booking.Companion]) + g.siteColumn(hl.Site)
	}
	head := fmt.Sprintf("%4s  %s %4s %5s %8s %11s %10s", "ID", fit("Hall", 16), "Rows", "Seats", "Premium", "Wheelchair", "Companion")
	if g.sites != nil {
		head += "  Site"
	}
	out := m.listLines(head, rows, h-2)
	return out + "\n" + m.styles.Subtle.Render("  A hall does not change once it has shows: add a new one for a new layout.")
}

func (m *Model) hallsKey(msg tea.KeyPressMsg) tea.Cmd {
	if !key.Matches(msg, m.keys.MgrAdd) {
		return nil
	}
	dir := m.opts.LayoutsDir
	if dir == "" {
		m.manage.err = "Halls are added from a layouts folder, and this counter has none: it was started without one."
		return nil
	}
	m.openForm("Add a hall from a layout file", "The name of a layout file in "+booking.CleanLine(dir, 200)+" (see the README for the layout).",
		func(m *Model, v []string) (tea.Cmd, string, error) {
			name := strings.TrimSpace(v[0])
			if name == "" {
				return nil, "", booking.Errorf(booking.EInvalid, "Type the name of a layout file in %s.", booking.CleanLine(dir, 200))
			}
			return m.mgrDo("Added the hall from "+cut(booking.CleanLine(name, 80), 40)+".", func(ctx context.Context, s Backend, a booking.Actor) error {
				return addHallFile(ctx, s, a, dir, name)
			}), "", nil
		}, textField("Layout file", 200, ""))
	return nil
}

// addHallFile reads and parses the layout file name in the folder dir
// (assets.ReadLayoutIn: that folder only, bounded) and adds its hall; it
// runs in a command, never in Update.
func addHallFile(ctx context.Context, s Backend, a booking.Actor, dir, name string) error {
	h, err := assets.ReadLayoutIn(dir, name)
	if err != nil {
		return err
	}
	_, err = s.AddHall(ctx, a, *h)
	return err
}
