package tui

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// Cancelling a whole show from the week (key c, then a reason, then y):
// the store cancels it and refunds every booking, each once, and the
// screen lists the customers to call, by name — booking, name, phone,
// what went back and how — until esc goes back to the week. When a booking was paid
// in cash and the manager has no shift open, the store refuses before
// anything is written (ErrNoShift); the form comes back with the reason
// still typed and a float to count into the drawer, as a cash sale asks
// for one, and enter opens the shift and cancels. c on a show cancelled
// already lists its customers again.

// cancelShowMsg is the answer to cancelling a show.
type cancelShowMsg struct {
	show   booking.Show
	reason string
	done   *booking.ShowCancellation
	err    error
}

// cancelledView is the customers of a cancelled show, on screen.
type cancelledView struct {
	c      *booking.ShowCancellation
	offset int // the first customer shown
}

// cancelShowCmd cancels show sh for reason, opening the manager's shift
// with float first when one is given. It runs to its end like a refund,
// as it is one for every booking of the show. A shift someone opened
// meanwhile (EConflict) is as good as the one asked for.
func (m *Model) cancelShowCmd(sh booking.Show, reason string, float *booking.Money) tea.Cmd {
	store, actor := m.store, m.actor()
	return m.money(func(ctx context.Context) (tea.Msg, error) {
		if float != nil {
			_, err := store.OpenShift(ctx, actor, booking.OpenShiftRequest{Float: *float})
			if err != nil && booking.ErrorCode(err) != booking.EConflict {
				return cancelShowMsg{show: sh, reason: reason, err: err}, err
			}
		}
		done, err := store.CancelShow(ctx, actor, sh.ID, reason)
		return cancelShowMsg{show: sh, reason: reason, done: done, err: err}, err
	})
}

func (m *Model) onCancelShow(msg cancelShowMsg) tea.Cmd {
	g := &m.manage
	if m.screen != screenManage {
		return nil
	}
	switch {
	case booking.IsNoShift(msg.err):
		g.busy = false
		m.cancelFloatForm(msg.show, msg.reason)
		return nil
	case msg.err != nil:
		return m.onMgrDone(mgrDoneMsg{err: msg.err})
	}
	g.busy = false
	g.form, g.err, g.note = nil, "", ""
	// The calls go down the list by name, as a person reads one.
	c := *msg.done
	c.Contacts = slices.Clone(c.Contacts)
	slices.SortStableFunc(c.Contacts, func(a, b booking.CancelContact) int {
		return cmp.Or(strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)), strings.Compare(a.Booking, b.Booking))
	})
	g.cancelled = &cancelledView{c: &c}
	m.setInfo("")
	return m.mgrLoadCmd()
}

// cancelShowForm asks why, then whether, and cancels the show picked; on
// a show cancelled already it asks whether to list its customers again.
func (m *Model) cancelShowForm(sh booking.Show) {
	if sh.Cancelled() {
		m.ask(fmt.Sprintf("Show %d was cancelled. List its customers again? A booking not refunded yet is refunded now.", sh.ID),
			m.cancelShowCmd(sh, sh.CancelReason, nil))
		return
	}
	m.openForm(fmt.Sprintf("Cancel show %d: %s", sh.ID, cut(sh.Film.Title, 40)),
		fmt.Sprintf("Every booking (%s sold) is cancelled and refunded; then the screen lists the customers to call.", plural(sh.Sold, "seat", "seats")),
		m.cancelSubmit(sh, false), textField("Reason", 120, ""))
	m.manage.form.verb = "go on"
}

// cancelFloatForm is the cancel form again after ErrNoShift: the reason
// as typed, and the float that opens the manager's shift.
func (m *Model) cancelFloatForm(sh booking.Show, reason string) {
	float := textField("Float", 10, "")
	float.f.accept = isAmountRune
	m.openForm(fmt.Sprintf("Cancel show %d: %s", sh.ID, cut(sh.Film.Title, 40)),
		"A booking was paid in cash: its refund comes out of your drawer.",
		m.cancelSubmit(sh, true), textField("Reason", 120, reason), float)
	f := m.manage.form
	f.focus, f.verb = 1, "open the shift and cancel"
	f.err = booking.ErrNoShift.Message + " Type the float; enter opens your shift and cancels the show."
}

// cancelSubmit checks the cancel form. The first time it asks before
// anything is refunded; with a float, the manager has said yes already.
func (m *Model) cancelSubmit(sh booking.Show, withFloat bool) mgrSubmit {
	return func(m *Model, v []string) (tea.Cmd, string, error) {
		reason, err := booking.CheckCancelReason(v[0])
		if err != nil {
			return nil, "", booking.Errorf(booking.EInvalid, "Say why the show is cancelled: the customers will be told.")
		}
		if !withFloat {
			return m.cancelShowCmd(sh, reason, nil), fmt.Sprintf("Cancel show %d at %s and refund every booking?", sh.ID, sh.Starts.Format("Mon 02 Jan 15:04")), nil
		}
		f := newField(10)
		f.Set(v[1])
		float, err := parseAmount(&f, "float counted into the drawer")
		if err != nil {
			return nil, "", err
		}
		return m.cancelShowCmd(sh, reason, &float), "", nil
	}
}

func (m *Model) cancelledKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &m.manage
	v := g.cancelled
	k := &m.keys
	switch {
	case key.Matches(msg, k.Back):
		g.cancelled = nil
	case key.Matches(msg, k.Up):
		v.offset = max(v.offset-1, 0)
	case key.Matches(msg, k.Down):
		v.offset = min(v.offset+1, max(len(v.c.Contacts)-1, 0))
	}
	return nil
}

// cancelledView draws the show cancelled, why, what went back, and the
// customers to call, as many as fit in height lines, ↑ ↓ scrolling.
func (m *Model) cancelledView(height int) string {
	st := &m.styles
	v := m.manage.cancelled
	c := v.c
	sh := c.Show
	var b strings.Builder
	head := fmt.Sprintf("Show %d cancelled: %s · %s · %s", sh.ID, booking.CleanLine(sh.Film.Title, 60), sh.Starts.Format("Mon 02 Jan 15:04"), booking.CleanLine(sh.HallName, 30))
	lines := []string{st.Bold.Render(indent(wrapText(head, m.width-4, 2), 2)),
		indent(wrapText("Why: "+booking.CleanLine(c.Reason, 120), m.width-4, 2), 2)}
	money := fmt.Sprintf("%s refunded, %s in all.", plural(len(c.Contacts), "booking", "bookings"), c.Total().String())
	if len(c.Contacts) == 0 {
		money = "Nobody had booked it: nobody to call."
	} else {
		money += " Call each customer:"
	}
	lines = append(lines, st.Info.Render(indent(wrapText(money, m.width-4, 2), 2)), "")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	used := strings.Count(b.String(), "\n")
	if len(c.Contacts) == 0 {
		return b.String()
	}
	// Booking, name, phone, seats, refund and method: the name takes
	// what the others leave.
	nameW := min(max(m.width-59, 12), 40)
	row := func(num, name, phone, seats, amount, method string) string {
		return fmt.Sprintf("  %-11s  %s  %s  %5s  %9s  %-4s", num, fit(name, nameW), fit(phone, 16), seats, amount, method)
	}
	b.WriteString(st.Label.Render(row("Booking", "Customer", "Phone", "Seats", "Refund", "Paid")) + "\n")
	rows := max(height-used-3, 1)
	first := min(v.offset, max(len(c.Contacts)-rows, 0))
	v.offset = first
	for i := first; i < len(c.Contacts) && i < first+rows; i++ {
		k := c.Contacts[i]
		name, phone := booking.CleanLine(k.Name, 60), booking.CleanLine(k.Phone, 30)
		if name == "" {
			name = "(no name)"
		}
		if phone == "" {
			phone = "no phone"
		}
		b.WriteString(row(cut(k.Booking, 11), name, phone, fmt.Sprint(k.Tickets), k.Refunded.String(), string(k.Method)) + "\n")
	}
	if n := len(c.Contacts); n > rows {
		b.WriteString("\n" + st.Subtle.Render(fmt.Sprintf("  customers %d–%d of %d · ↑↓ scroll", first+1, min(first+rows, n), n)))
	}
	return b.String()
}
