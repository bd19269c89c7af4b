package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// doorState is the door: a scanner (or a person) types a ticket code and
// enter, and the screen says at once whether to let the holder in.
type doorState struct {
	back     screen
	code     field
	busy     bool
	admitted *booking.Admission // the last scan let someone in
	refused  string             // or why it did not
	count    int                // admitted at this door this session
}

type admitMsg struct {
	res *booking.Admission
	err error
}

func newDoorState(back screen) doorState {
	return doorState{back: back, code: newField(64)}
}

// openDoor shows the door screen. Door staff land here on sign-in.
func (m *Model) openDoor() tea.Cmd {
	back := m.returnScreen()
	count := m.door.count
	m.door = newDoorState(back)
	m.door.count = count
	m.screen = screenDoor
	m.setInfo("")
	return nil
}

// doorScreen admits tickets (see doorState).
type doorScreen struct{}

func (doorScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	d := &m.door
	switch {
	case key.Matches(msg, m.keys.Back):
		if m.clerk != nil && m.clerk.role == booking.RoleDoor {
			d.code.Reset() // the door is home for door staff
			return nil
		}
		return m.goBack(d.back)
	case key.Matches(msg, m.keys.Submit):
		code := strings.ToUpper(strings.Join(strings.Fields(d.code.String()), ""))
		if code == "" || d.busy {
			return nil
		}
		d.busy = true
		store, actor := m.store, m.actor()
		return m.call(func(ctx context.Context) (tea.Msg, error) {
			res, err := store.Admit(ctx, actor, code)
			return admitMsg{res: res, err: err}, err
		})
	}
	d.code.key(msg, &m.keys)
	return nil
}

func (doorScreen) focus(m *Model) *field {
	if m.door.busy {
		return nil
	}
	return &m.door.code
}

// back keeps the screen the door was first opened from.
func (doorScreen) back(m *Model) screen { return m.door.back }

func (m *Model) onAdmit(msg admitMsg) tea.Cmd {
	d := &m.door
	d.busy = false
	d.code.Reset() // ready for the next scan
	if msg.err != nil {
		d.admitted, d.refused = nil, booking.ErrorMessage(msg.err)
		if booking.ErrorCode(msg.err) == booking.EInternal {
			m.log.Error("admit", "err", msg.err)
		}
		return nil
	}
	d.admitted, d.refused = msg.res, ""
	d.count += max(len(msg.res.Tickets), 1)
	return nil
}

func (doorScreen) view(m *Model, height int) string {
	st := &m.styles
	d := &m.door
	var b strings.Builder
	b.WriteString(st.Title.Render("Door") + st.Subtle.Render(fmt.Sprintf(" · scan a ticket · %d admitted here", d.count)) + "\n\n")
	b.WriteString("  " + st.Label.Render("Code ") + d.code.view(st, !d.busy, 40) + "\n\n")
	switch {
	case d.busy:
		b.WriteString(st.Subtle.Render("  Checking…"))
	case d.admitted != nil:
		b.WriteString(m.admittedView(d.admitted))
	case d.refused != "":
		b.WriteString(st.Error.Render("  ✘ DO NOT ADMIT") + "\n\n")
		b.WriteString("  " + booking.Clean(d.refused) + "\n")
	default:
		b.WriteString(st.Subtle.Render("  Scan the ticket's QR code, or type its code or the booking number, and enter."))
	}
	return b.String()
}

// admittedView says whom to let in: one ticket's seat and type, or each
// of a booking's tickets let in by its number and why any others stayed
// out.
func (m *Model) admittedView(a *booking.Admission) string {
	st := &m.styles
	var b strings.Builder
	tickets := a.Tickets
	if len(tickets) == 0 {
		tickets = []booking.Ticket{a.Ticket}
	}
	head := "  ✔ ADMIT"
	if len(tickets) > 1 {
		head = fmt.Sprintf("  ✔ ADMIT %d", len(tickets))
	}
	b.WriteString(st.Info.Bold(true).Render(head) + "\n\n")
	for _, t := range tickets {
		b.WriteString(fmt.Sprintf("  Seat %s · %s\n", st.Bold.Render(booking.Clean(t.Seat.Label)), booking.Clean(t.Type)))
	}
	b.WriteString(fmt.Sprintf("  %s · %s · %s\n", booking.Clean(a.Show.Film.Title), booking.Clean(a.Show.HallName),
		a.Show.Starts.In(m.now().Location()).Format("15:04")))
	b.WriteString(st.Subtle.Render("  Booking "+booking.Clean(a.Booking)) + "\n")
	for _, k := range a.Kept {
		b.WriteString(st.Error.Render("  ✘ "+booking.Clean(k)) + "\n")
	}
	return b.String()
}

// mayFind reports whether the clerk signed in may look bookings up
// (ctrl+f): door staff may not, so neither the hint bar nor the ? keys
// offer it to them (helpFor) and the key does nothing.
func (m *Model) mayFind() bool {
	return m.clerk != nil && m.clerk.role >= booking.MinRole(booking.ActionFindBooking)
}

// without is h with no binding that offers drop's keys, in the hint bar
// or the ? keys.
func (h helpKeys) without(drop key.Binding) helpKeys {
	keep := func(bs []key.Binding) []key.Binding {
		out := make([]key.Binding, 0, len(bs))
		for _, b := range bs {
			if b.Help().Key != drop.Help().Key {
				out = append(out, b)
			}
		}
		return out
	}
	out := helpKeys{short: keep(h.short), full: make([][]key.Binding, len(h.full))}
	for i, col := range h.full {
		out.full[i] = keep(col)
	}
	return out
}

func (doorScreen) help(m *Model) helpKeys {
	k := m.keys
	submit, back := says(k.Submit, "admit"), k.Back
	if m.clerk != nil && m.clerk.role == booking.RoleDoor {
		back = says(k.Back, "clear") // the door is home for door staff
	}
	return helpKeys{
		short: []key.Binding{submit, back, k.Find, k.SignOut, k.Help},
		full:  [][]key.Binding{{submit, back}, {k.Find, k.SignOut, k.Help, k.Quit}},
	}
}
