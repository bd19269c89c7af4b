package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// ctrl+f finds reservations still to pay as well as bookings: a kiosk
// customer at the counter gives their number, phone or its last digits,
// and the clerk sees the reservation, reserved until its cut-off and not
// paid, and goes on with enter to take its payment (reservations.go).

// found counts the results of a search: bookings, then reservations.
func (f *findState) found() int { return len(f.results) + len(f.resv) }

// unpaidOnly keeps of the reservations a search found those still to
// pay (a paid one is a booking, found as one); a text that is no
// reservation's number nor phone finds none.
func unpaidOnly(all []booking.Reservation, err error) ([]booking.Reservation, error) {
	if booking.ErrorCode(err) == booking.EInvalid {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []booking.Reservation
	for _, r := range all {
		if r.Status == booking.ReservationReserved {
			out = append(out, r)
		}
	}
	return out, nil
}

// foundSay is the status line of a search that found reservations.
func foundSay(msg findMsg) string {
	if len(msg.resv) == 1 && len(msg.results) == 0 {
		r := msg.resv[0]
		return fmt.Sprintf("Reservation %s: reserved until %s, not paid. enter takes payment.", booking.Clean(r.Number), r.CutOff.Format("15:04"))
	}
	return fmt.Sprintf("%d bookings and %d reservations not paid match.", len(msg.results), len(msg.resv))
}

// openFoundReservation opens the reservations screen on r, ready for
// its payment; esc comes back to the search.
func (m *Model) openFoundReservation(r booking.Reservation) tea.Cmd {
	m.resv = newResvState(screenFind)
	m.resv.results = []booking.Reservation{r}
	m.screen = screenReservations
	m.setInfo(fmt.Sprintf("%s is reserved until %s, not paid: tab cash/card, ctrl+p takes payment.", booking.Clean(r.Number), r.CutOff.Format("15:04")))
	return m.resvQuoteCmd()
}

// viewFoundReservations draws the reservations of the results, rows from
// to to of the whole list, after the bookings.
func (m *Model) viewFoundReservations(b *strings.Builder, from, to int) {
	st := &m.styles
	f := &m.find
	loc := m.now().Location()
	for i := max(from, len(f.results)); i < f.found() && i < to; i++ {
		r := f.resv[i-len(f.results)]
		say := fmt.Sprintf("reserved till %s, unpaid", r.CutOff.In(loc).Format("15:04"))
		row := func(say string) string {
			return fmt.Sprintf("  %-12s %s %s  %s %s", cut(r.Number, 12), r.Show.Starts.In(loc).Format("02 Jan 15:04"),
				fit(r.Show.Film.Title, min(max(m.width-72, 6), 30)), fit(r.Name, 12), say)
		}
		line := row(st.Warn.Render(say))
		if f.mode == findList && i == f.cursor {
			line = st.Selected.Render(row(say))
		}
		b.WriteString(line + "\n")
	}
}
