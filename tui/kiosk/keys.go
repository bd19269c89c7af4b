package kiosk

import (
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The kiosk's keys past the first screen: the lists, the ticket count,
// moving the block on the map, and the forms.

// keyList moves through the films or a film's shows.
func (m *Model) keyList(s string) tea.Cmd {
	n := len(m.films)
	if m.screen == kShows {
		n = len(m.films[m.film].shows)
	}
	switch s {
	case "up":
		m.cursor = max(0, m.cursor-1)
	case "down":
		m.cursor = min(max(n-1, 0), m.cursor+1)
	case "left", "right":
		if m.screen != kFilms || (s == "left" && m.day == 0) {
			return nil
		}
		step := 1
		if s == "left" {
			step = -1
		}
		m.busy = true
		return m.showsCmd(m.day+step, step)
	case "esc":
		if m.screen == kShows {
			m.screen, m.cursor = kFilms, m.film
		} else {
			return m.reset("")
		}
	case "enter":
		if n == 0 {
			return nil
		}
		if m.screen == kFilms {
			m.film, m.screen, m.cursor = m.cursor, kShows, 0
			return nil
		}
		m.show, m.listKnown = m.films[m.film].shows[m.cursor], false
		m.screen, m.cursor, m.counts = kCount, 0, make([]int, len(m.types))
		return m.priceListCmd(m.show.ID)
	}
	return nil
}

// priceListCmd reads the price list a show sells at (the list of shows
// does not carry it), so the count's "from" is the show's own price.
func (m *Model) priceListCmd(showID int64) tea.Cmd {
	ctx, store, actor := m.ctx, m.opts.Store, m.actor
	return func() tea.Msg {
		sm, err := store.SeatMap(ctx, actor, showID, "")
		if err != nil {
			return kPriceListMsg{showID: showID, err: err}
		}
		return kPriceListMsg{showID: showID, list: sm.Show.PriceList, known: true}
	}
}

func (m *Model) total() int {
	n := 0
	for _, c := range m.counts {
		n += c
	}
	return n
}

// keyCount chooses how many tickets of which type.
func (m *Model) keyCount(s string) tea.Cmd {
	switch s {
	case "up":
		m.cursor = max(0, m.cursor-1)
	case "down":
		m.cursor = min(len(m.types)-1, m.cursor+1)
	case "right", "+", "=":
		if m.total() >= booking.MaxSeatsPerReservation {
			m.note = "At most 10 seats at a kiosk."
			return nil
		}
		m.counts[m.cursor]++
		m.note = ""
	case "left", "-":
		if m.counts[m.cursor] > 0 {
			m.counts[m.cursor]--
		}
	case "esc":
		m.screen, m.cursor = kShows, 0
	case "enter":
		if m.total() == 0 {
			m.note = "Choose how many tickets with ← and →."
			return nil
		}
		m.busy = true
		return m.holdCmd(booking.KioskHoldRequest{ShowID: m.show.ID, Owner: m.opts.Owner, N: m.total(), Addr: m.opts.Addr})
	}
	return nil
}

func (m *Model) holdCmd(req booking.KioskHoldRequest) tea.Cmd {
	ctx, store, actor := m.ctx, m.opts.Store, m.actor
	return func() tea.Msg {
		h, err := store.KioskHold(ctx, actor, req)
		if err != nil {
			return kHoldMsg{err: err}
		}
		sm, err := store.SeatMap(ctx, actor, req.ShowID, req.Owner)
		return kHoldMsg{hold: h, seat: sm, err: err}
	}
}

// keySeats moves the held block with the arrows, or goes on.
func (m *Model) keySeats(s string) tea.Cmd {
	dx, dy := 0, 0
	switch s {
	case "left":
		dx = -1
	case "right":
		dx = 1
	case "up":
		dy = -1
	case "down":
		dy = 1
	case "enter":
		m.screen, m.focus = kDetails, 0
		m.fields = detailsFields()
		return nil
	case "esc":
		m.screen, m.cursor = kCount, 0
		return m.releaseCmdIf()
	default:
		return nil
	}
	labels, ok := movedBlock(m.seats, m.hold.Seats, dx, dy)
	if !ok {
		m.note = "The seats cannot move that way."
		return nil
	}
	m.busy = true
	return m.holdCmd(booking.KioskHoldRequest{ShowID: m.show.ID, Owner: m.opts.Owner, Seats: labels, MoveFrom: m.hold.ID, Addr: m.opts.Addr})
}

// movedBlock is the held block moved one seat along its row (dx) or one
// row back or forward (dy, the same column), or false when a seat would
// leave the hall or land on one that is taken.
func movedBlock(sm *booking.SeatMap, held []booking.Seat, dx, dy int) ([]string, bool) {
	rows := map[int][]booking.Seat{}
	for _, s := range sm.Hall.Seats {
		rows[s.Row] = append(rows[s.Row], s)
	}
	var out []string
	for _, h := range held {
		row := rows[h.Row+dy]
		i := slices.IndexFunc(row, func(s booking.Seat) bool { return s.Col == h.Col })
		if dy == 0 {
			i = slices.IndexFunc(row, func(s booking.Seat) bool { return s.ID == h.ID })
			if i >= 0 {
				i += dx
			}
		}
		if i < 0 || i >= len(row) {
			return nil, false
		}
		t := row[i]
		if sm.Taken(t.ID) || t.Blocked {
			return nil, false
		}
		out = append(out, t.Label)
	}
	return out, true
}

// keyForm types into the screen's fields; enter on the last one sends.
func (m *Model) keyForm(k tea.KeyPressMsg) tea.Cmd {
	f := m.field()
	switch k.String() {
	case "tab", "down":
		m.focus = (m.focus + 1) % len(m.fields)
	case "shift+tab", "up":
		m.focus = (m.focus + len(m.fields) - 1) % len(m.fields)
	case "backspace":
		f.again = false
		if len(f.value) > 0 {
			f.value = f.value[:len(f.value)-1]
		}
	case "esc":
		if m.screen == kPay {
			m.screen, m.note = kReserved, "" // the reservation stands
			return nil
		}
		return m.reset("")
	case "enter":
		if !m.sends() {
			m.focus++
			return nil
		}
		m.busy = true
		return m.submitCmd()
	default:
		if t := k.Text; t != "" {
			f.insert(t)
		}
	}
	return nil
}

// submitCmd sends the form of the current screen.
func (m *Model) submitCmd() tea.Cmd {
	ctx, store, actor, addr := m.ctx, m.opts.Store, m.actor, m.opts.Addr
	a, b := m.fields[0].String(), ""
	if len(m.fields) > 1 {
		b = m.fields[1].String()
	}
	switch m.screen {
	case kCollect:
		return func() tea.Msg {
			c, err := store.Collect(ctx, actor, booking.CollectRequest{Number: a, Digits: b, Addr: addr})
			return kCollectMsg{c, err}
		}
	case kUnlock:
		unlock := m.opts.Unlock
		return func() tea.Msg { return kUnlockMsg{unlock(ctx, a, b)} }
	case kPay:
		return m.payCmd(a)
	}
	req := booking.ReserveRequest{HoldID: m.hold.ID, Owner: m.opts.Owner, Name: a, Phone: b, Addr: m.opts.Addr, Types: m.seatTypes(),
		Voucher: strings.TrimSpace(m.fields[2].String())}
	return func() tea.Msg {
		r, err := store.Reserve(ctx, actor, req)
		return kReservedMsg{r, err}
	}
}

// seatTypes gives the held seats, in order, the ticket types counted.
func (m *Model) seatTypes() map[string]string {
	out := map[string]string{}
	i := 0
	for t, n := range m.counts {
		for range n {
			if i < len(m.hold.Seats) {
				out[m.hold.Seats[i].Label] = m.types[t].Code
			}
			i++
		}
	}
	return out
}
