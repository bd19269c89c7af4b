package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// What is set on one show: its price list (l) and when its sales close
// (s), from the week on the show picked, or from the price table (l) on a
// show picked from the list of the coming week's shows: nobody types a
// show's number, which the counter never shows.

// pickDays is how many days, from today, the list of shows covers.
const pickDays = 7

// showPicker is the list of the coming shows a change is for.
type showPicker struct {
	title  string
	shows  []booking.Show
	cursor int
	// then opens the change for the show picked.
	then func(sh booking.Show)
}

// pickShowsMsg is the shows read for the list.
type pickShowsMsg struct {
	title string
	shows []booking.Show
	then  func(sh booking.Show)
	err   error
}

// pickShowCmd reads the shows of the coming days and opens the list;
// enter on one runs then for it.
func (m *Model) pickShowCmd(title string, then func(sh booking.Show)) tea.Cmd {
	store, actor, today := m.store, m.actor(), dayOf(m.now())
	m.manage.note, m.manage.err = "", ""
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		var all []booking.Show
		for d := range pickDays {
			day, err := store.Shows(ctx, actor, today.AddDate(0, 0, d))
			if err != nil {
				return pickShowsMsg{err: err}, err
			}
			for _, sh := range day {
				if !sh.Cancelled() {
					all = append(all, sh)
				}
			}
		}
		return pickShowsMsg{title: title, shows: all, then: then}, nil
	})
}

func (m *Model) onPickShows(msg pickShowsMsg) tea.Cmd {
	g := &m.manage
	if m.screen != screenManage {
		return nil
	}
	g.busy = false
	switch {
	case msg.err != nil:
		g.err = errorText(msg.err)
		m.logInternal("manage", msg.err)
	case len(msg.shows) == 0:
		g.err = "No show in the coming week to choose: add one under Shows first."
	default:
		g.pick = &showPicker{title: msg.title, shows: msg.shows, then: msg.then}
	}
	return nil
}

func (m *Model) showPickKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &m.manage
	p := g.pick
	k := &m.keys
	switch {
	case key.Matches(msg, k.Back):
		g.pick = nil
	case key.Matches(msg, k.Up):
		p.cursor = max(p.cursor-1, 0)
	case key.Matches(msg, k.Down):
		p.cursor = min(p.cursor+1, len(p.shows)-1)
	case key.Matches(msg, k.Open):
		g.pick = nil
		p.then(p.shows[p.cursor])
	}
	return nil
}

// pickView draws the list of shows, a row each: when, where, what and
// the list it sells at, as many as fit in height lines.
func (m *Model) pickView(height int) string {
	st := &m.styles
	p := m.manage.pick
	var b strings.Builder
	b.WriteString("  " + st.Bold.Render(p.title) + "\n")
	b.WriteString("  " + st.Subtle.Render(fmt.Sprintf("The shows of the next %d days: ↑ ↓ choose, enter picks.", pickDays)) + "\n\n")
	titleW := max(m.width-58, 12)
	row := func(when, hall, film, list, closes string) string {
		return fmt.Sprintf("  %-16s  %s  %s  %s  %s", when, fit(hall, 10), fit(film, titleW), fit(list, 10), closes)
	}
	b.WriteString(st.Label.Render(row("Starts", "Hall", "Film", "Price list", "Sales close")) + "\n")
	rows := max(height-5, 1)
	first := max(p.cursor-rows+1, 0)
	for i := first; i < len(p.shows) && i < first+rows; i++ {
		sh := p.shows[i]
		line := row(sh.Starts.Format("Mon 02 Jan 15:04"), sh.HallName, sh.Film.Title, listLabel(sh.PriceList), booking.FormatSalesClose(sh.SalesClose))
		if i == p.cursor {
			line = st.Selected.Render(line)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// showLine names a show for a form's title: "show 14, The Lighthouse
// Keeper, Fri 13 Mar 20:00".
func showLine(sh booking.Show) string {
	return fmt.Sprintf("show %d, %s, %s", sh.ID, cut(sh.Film.Title, 30), sh.Starts.Format("Mon 02 Jan 15:04"))
}

// showListForm puts show sh on a price list: the standing one or a list
// a price was set on (SetShowPriceList refuses any other).
func (m *Model) showListForm(sh booking.Show) {
	g := &m.manage
	lists := []string{"standing"}
	if g.prices != nil {
		for _, l := range g.prices.Lists {
			lists = append(lists, booking.CleanLine(l.Name, booking.MaxListName))
		}
	}
	m.openForm("Put "+showLine(sh)+" on a price list", "Its sales from now on are priced from the list; tickets sold keep their price. A new list is made by setting a price on it (s in Prices).",
		func(m *Model, v []string) (tea.Cmd, string, error) {
			list := v[0]
			if list == "standing" {
				list = ""
			}
			return m.mgrDo(fmt.Sprintf("Show %d sells at the %s list.", sh.ID, listLabel(list)), func(ctx context.Context, s Backend, a booking.Actor) error {
				return s.SetShowPriceList(ctx, a, sh.ID, list)
			}), "", nil
		}, choiceField("List", lists, listLabel(booking.CleanLine(sh.PriceList, booking.MaxListName))))
}

// salesCloseFor are the choices of what a sales close is set for.
const (
	closeThisShow = "this show"
	closeDefault  = "every show (the default)"
)

// salesCloseForm sets when show sh's sales close, or the cinema's default
// for every show without its own.
func (m *Model) salesCloseForm(sh booking.Show) {
	closes := textField("Close", 8, booking.FormatSalesClose(sh.SalesClose))
	m.openForm("When sales close: "+showLine(sh),
		fmt.Sprintf("A time from the start: 30m after it, 0m at it, -10m before it (from %s before to %s after). For this show, empty puts it back on the default.",
			booking.FormatSalesClose(-booking.MinSalesClose), booking.FormatSalesClose(booking.MaxSalesClose)),
		func(m *Model, v []string) (tea.Cmd, string, error) {
			forShow := v[0] == closeThisShow
			if forShow && v[1] == "" {
				return m.mgrDo(fmt.Sprintf("Show %d is back on the cinema's sales close.", sh.ID), func(ctx context.Context, s Backend, a booking.Actor) error {
					return s.SetSalesClose(ctx, a, sh.ID, nil)
				}), "", nil
			}
			d, err := booking.ParseSalesClose(v[1])
			if err != nil {
				return nil, "", err
			}
			if forShow {
				return m.mgrDo(fmt.Sprintf("Sales of show %d close %s.", sh.ID, booking.DescribeSalesClose(d)), func(ctx context.Context, s Backend, a booking.Actor) error {
					return s.SetSalesClose(ctx, a, sh.ID, &d)
				}), "", nil
			}
			return m.mgrDo(fmt.Sprintf("Sales close %s for every show without its own.", booking.DescribeSalesClose(d)), func(ctx context.Context, s Backend, a booking.Actor) error {
				return s.SetSalesClose(ctx, a, 0, &d)
			}), "", nil
		}, choiceField("For", []string{closeThisShow, closeDefault}, closeThisShow), closes)
}
