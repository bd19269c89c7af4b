package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

type findMode int

const (
	findSearch  findMode = iota // typing a query, results below
	findList                    // moving through the results
	findView                    // one booking
	findCancel                  // cancel/refund form
	findConfirm                 // the refund's explicit confirmation
	findPick                    // choosing the one ticket to refund (r)
)

// findState is finding a booking by number, phone or name, and cancelling
// it.
type findState struct {
	mode     findMode
	back     screen // where esc from the search goes
	query    field
	results  []booking.Booking
	resv     []booking.Reservation // after results in the list
	searched bool
	cursor   int
	booking  *booking.Booking

	// The cancel form: a reason, and a supervisor's name and PIN when the
	// clerk signed in is below supervisor.
	reason, supName, supPIN field
	cfocus                  int
	busy                    bool
	// yes is the confirmation's focused button: false (No, keep the
	// booking) until the clerk moves to Yes with an arrow or tab.
	yes bool
	// refundSeat is the one ticket being refunded (r), "" for a cancel of
	// the whole booking; openFloat the float typed when the refund met
	// ErrNoShift (see refund.go).
	refundSeat string
	openFloat  *booking.Money
	// typing is true while a booking a search opened is on screen under
	// the search field, which keeps the keys: letters typed there are a
	// new search, never the booking's commands (e exchange, c cancel…).
	// tab or ↓ moves into the booking; esc or ↑ from it back to the
	// field. A booking opened from the done screen or an exchange is
	// entered at once: the clerk asked for that one booking.
	typing bool
}

func newFindState() findState {
	f := findState{query: newField(40), reason: newField(80), supName: newField(40), supPIN: newField(32)}
	f.supPIN.mask = true
	return f
}

func (f *findState) focusedField() *field {
	if f.busy {
		return nil
	}
	switch f.mode {
	case findSearch:
		return &f.query
	case findView:
		if f.typing {
			return &f.query
		}
	case findCancel:
		switch f.cfocus {
		case 0:
			return &f.reason
		case 1:
			return &f.supName
		case 2:
			return &f.supPIN
		}
	}
	return nil
}

type (
	findMsg struct {
		query   string
		results []booking.Booking
		resv    []booking.Reservation // still to pay (find_resv.go)
		err     error
	}
	bookingMsg struct {
		booking *booking.Booking
		err     error
	}
	cancelMsg struct {
		booking *booking.Booking
		err     error
	}
)

// openFind starts a new search, from any screen: on the find screen
// itself it drops whatever booking or form was open.
func (m *Model) openFind() tea.Cmd {
	back := m.returnScreen()
	m.find = newFindState()
	m.find.back = back
	m.screen = screenFind
	m.exch, m.bview = nil, bookingViewState{} // a new search ends an exchange under way
	m.setInfo("")
	return nil
}

// needsApprover reports whether cancelling needs a supervisor's PIN typed
// at this counter.
func (m *Model) needsApprover() bool {
	return m.clerk != nil && m.clerk.role < m.approverRole()
}

// approverRole is the least role that may cancel or refund the booking on
// screen: a supervisor, or a manager once its show has started.
func (m *Model) approverRole() booking.Role {
	if b := m.find.booking; b != nil && !m.now().Before(b.Show.Starts) {
		return booking.MinRole(booking.ActionCancelStarted)
	}
	return booking.MinRole(booking.ActionCancel)
}

// findScreen is finding a booking by number, phone or name, and
// cancelling it.
type findScreen struct{}

func (findScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	f := &m.find
	k := m.keys
	if f.busy {
		return nil
	}
	switch f.mode {
	case findSearch, findList:
		switch {
		case key.Matches(msg, k.Back):
			if f.mode == findList {
				f.mode = findSearch
				return nil
			}
			return m.goBack(f.back)
		case key.Matches(msg, k.Down):
			if f.found() > 0 {
				if f.mode == findList && f.cursor < f.found()-1 {
					f.cursor++
				}
				f.mode = findList
			}
			return nil
		case key.Matches(msg, k.Up):
			if f.cursor > 0 {
				f.cursor--
			} else {
				f.mode = findSearch
			}
			return nil
		case key.Matches(msg, k.Open):
			if f.mode == findList && f.cursor >= len(f.results) && f.cursor < f.found() {
				return m.openFoundReservation(f.resv[f.cursor-len(f.results)])
			}
			if f.mode == findList && len(f.results) > 0 {
				return m.viewBookingCmd(f.results[f.cursor].Number)
			}
			return m.searchCmd()
		}
		if f.mode == findSearch {
			f.query.key(msg, &m.keys)
		}
	case findView:
		if f.typing {
			return m.searchOverKey(msg)
		}
		return m.findViewKey(msg)
	case findPick:
		return m.pickKey(msg)
	case findCancel:
		return m.cancelFormKey(msg)
	case findConfirm:
		return m.confirmKey(msg)
	}
	return nil
}

// searchCmd searches for what the search field holds.
func (m *Model) searchCmd() tea.Cmd {
	f := &m.find
	q := f.query.String()
	if q == "" {
		m.setError("Type a booking number, a phone number or a name.")
		return nil
	}
	f.busy = true
	m.setInfo("Searching…")
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		res, err := store.FindBookings(ctx, actor, booking.BookingQuery{Text: q, Limit: 50})
		if err != nil {
			return findMsg{query: q, err: err}, err
		}
		resv, err := unpaidOnly(store.FindReservations(ctx, actor, q))
		return findMsg{query: q, results: res, resv: resv, err: err}, err
	})
}

// searchOverKey answers the keys of a booking a search opened while the
// search field has them (see findState.typing): tab or ↓ moves into the
// booking, enter searches again, esc goes back to the results, anything
// else is typed into the search.
func (m *Model) searchOverKey(msg tea.KeyPressMsg) tea.Cmd {
	f := &m.find
	k := m.keys
	switch {
	case key.Matches(msg, k.IntoBooking):
		f.typing = false
		m.setInfo("")
	case key.Matches(msg, k.Back):
		m.leaveBooking()
	case key.Matches(msg, k.Open):
		return m.searchCmd()
	default:
		f.query.key(msg, &m.keys)
	}
	return nil
}

// leaveBooking goes from the booking on screen back to the results, or to
// the search when there were none to choose from.
func (m *Model) leaveBooking() {
	f := &m.find
	f.mode, f.typing = findList, false
	if len(f.results) < 2 {
		f.mode = findSearch
	}
}

// findViewKey answers the keys of one booking on screen: the booking
// view's actions (booking_view.go); esc, or ↑ for a booking a search
// opened, back to the search field.
func (m *Model) findViewKey(msg tea.KeyPressMsg) tea.Cmd {
	f := &m.find
	if !m.bview.codes && !m.bview.picking {
		switch {
		case f.searched && key.Matches(msg, m.keys.OutOfBooking):
			f.typing = true
			return nil
		case key.Matches(msg, m.keys.Back):
			m.leaveBooking()
			return nil
		}
	}
	return m.bookingActionKey(msg)
}

// cancelFormKey edits the cancel form. enter moves to the next field, and
// from the last to the confirmation; it never cancels by itself.
func (m *Model) cancelFormKey(msg tea.KeyPressMsg) tea.Cmd {
	f := &m.find
	k := m.keys
	last := 0
	if m.needsApprover() {
		last = 2
	}
	switch {
	case key.Matches(msg, k.Back):
		f.mode = findView
		m.setInfo("Not cancelled.")
	case key.Matches(msg, k.Submit):
		if f.cfocus < last {
			f.cfocus++
			return nil
		}
		if m.needsApprover() && (f.supName.String() == "" || f.supPIN.Empty()) {
			m.setError("A " + m.approverRole().String() + " types their name and PIN to approve.")
			f.cfocus = 1
			return nil
		}
		f.mode, f.yes = findConfirm, false
		m.setInfo("")
	case key.Matches(msg, k.NextField):
		f.cfocus = min(f.cfocus+1, last)
	case key.Matches(msg, k.PrevField):
		f.cfocus = max(f.cfocus-1, 0)
	default:
		if fl := f.focusedField(); fl != nil {
			fl.key(msg, &m.keys)
		}
	}
	return nil
}

// confirmKey is the refund's confirmation: No is focused and enter on it
// keeps the booking. Only an arrow (or tab) moves to Yes, so no typing —
// letters, digits and enter, however many — can ever refund.
func (m *Model) confirmKey(msg tea.KeyPressMsg) tea.Cmd {
	f := &m.find
	k := m.keys
	switch {
	case key.Matches(msg, k.Back):
		f.mode = findCancel
	case key.Matches(msg, k.Choose):
		f.yes = !f.yes
	case key.Matches(msg, k.Submit) && f.yes:
		return m.cancelCmd()
	case key.Matches(msg, k.Submit):
		f.mode = findView
		m.setInfo("Not cancelled: the booking stands.")
	}
	return nil
}

// refundLine says what the refund pays back and how: "25.00 cash".
func refundLine(b *booking.Booking) string {
	method := "the way it was paid"
	if p, ok := b.PaidBy(); ok {
		method = string(p)
	}
	return b.Total.String() + " " + method
}

func (m *Model) viewBookingCmd(number string) tea.Cmd {
	m.find.busy = true
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		b, err := store.Booking(ctx, actor, number)
		return bookingMsg{booking: b, err: err}, err
	})
}

func (m *Model) cancelCmd() tea.Cmd {
	f := &m.find
	var approver *booking.Credentials
	if m.needsApprover() {
		approver = &booking.Credentials{Name: f.supName.String(), PIN: string(f.supPIN.value)}
	}
	if f.refundSeat != "" {
		return m.refundCmd(approver)
	}
	req := m.cancelRequest(f.booking.Number, booking.CleanLine(f.reason.String(), 80), approver)
	req.OpenFloat = f.openFloat
	f.busy = true
	m.setInfo("Cancelling…")
	store, actor := m.store, m.actor()
	return m.money(func(ctx context.Context) (tea.Msg, error) {
		b, err := store.Cancel(ctx, actor, req)
		return cancelMsg{booking: b, err: err}, err
	})
}

func (m *Model) onFind(msg findMsg) tea.Cmd {
	f := &m.find
	f.busy = false
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	f.results, f.resv, f.searched, f.cursor = msg.results, msg.resv, true, 0
	if len(msg.resv) > 0 {
		f.mode, f.typing = findList, false
		m.setInfo(foundSay(msg))
		return nil
	}
	switch len(msg.results) {
	case 0:
		f.mode, f.typing = findSearch, false
		m.setInfo("No booking matches.")
	case 1:
		return m.viewBookingCmd(msg.results[0].Number)
	default:
		f.mode, f.typing = findList, false
		m.setInfo(fmt.Sprintf("%d bookings match.", len(msg.results)))
	}
	return nil
}

func (m *Model) onBooking(msg bookingMsg) tea.Cmd {
	f := &m.find
	f.busy = false
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	f.booking = msg.booking
	f.mode = findView
	// A search opened it: the search field keeps the keys, emptied for
	// the next search, until the clerk moves into the booking.
	f.typing = true
	f.query.Reset()
	m.bview = bookingViewState{}
	m.setInfo("")
	return nil
}

func (m *Model) onCancel(msg cancelMsg) tea.Cmd {
	f := &m.find
	f.busy = false
	if booking.IsNoShift(msg.err) {
		// Keep the approval typed: the refund goes again with the float.
		m.askFloat(floatRefund, screenFind)
		return nil
	}
	f.supPIN.Reset()
	f.openFloat = nil
	if msg.err != nil {
		m.fail(msg.err)
		f.mode = findView
		if booking.ErrorCode(msg.err) == booking.EForbidden && m.needsApprover() {
			// A wrong approval: back to the form, on the PIN.
			f.mode, f.cfocus = findCancel, 2
		}
		return nil
	}
	f.booking = msg.booking
	f.mode = findView
	var refund booking.Money
	for _, p := range msg.booking.Payments {
		if p.Kind == booking.PaymentRefund {
			refund += p.Amount
		}
	}
	m.setInfo(fmt.Sprintf("Cancelled %s; refund %s.", booking.Clean(msg.booking.Number), refund.String()))
	if f.refundSeat != "" {
		m.setInfo(fmt.Sprintf("Refunded %s of %s; refund %s.", f.refundSeat, booking.Clean(msg.booking.Number), refundedNow(msg.booking, f.refundSeat).String()))
		f.refundSeat = ""
	}
	for i := range f.results {
		if f.results[i].Number == msg.booking.Number {
			f.results[i] = *msg.booking
		}
	}
	return m.printRefund(msg.booking) // printing, issue 12
}

func (findScreen) help(m *Model) helpKeys {
	k := m.keys
	switch m.find.mode {
	case findView:
		back := says(k.Back, "back to the search")
		if len(m.find.results) > 1 {
			back = says(k.Back, "back to the results")
		}
		if m.find.typing {
			return helpKeys{
				short: []key.Binding{k.IntoBooking, says(k.Open, "search again"), back, k.Help},
				full:  [][]key.Binding{{k.IntoBooking, says(k.Open, "search again"), back}, {k.Find, k.Door, k.SignOut, k.Quit}},
			}
		}
		h := m.bookingViewHelp()
		if m.find.searched && !m.bview.codes && !m.bview.picking && len(h.full) > 0 {
			// The bar has no room for it: the line under the title says it.
			h.full[0] = append(h.full[0], k.OutOfBooking)
		}
		return h
	case findPick:
		return helpKeys{short: []key.Binding{relabel(k.SeatLeft, "← →", "choose"), says(k.Submit, "go on"), k.Back}}
	case findCancel:
		return helpKeys{short: []key.Binding{says(k.Submit, "next field, then confirm"), k.NextField, k.Back, k.Find}}
	case findConfirm:
		return helpKeys{short: []key.Binding{k.Choose, says(k.Submit, "press the button"), says(k.Back, "back to the form"), k.Find}}
	}
	return helpKeys{
		short: []key.Binding{says(k.Open, "search/open"), k.Down, k.Back, k.Find, k.Help},
		full:  [][]key.Binding{{k.Up, k.Down}, {k.Back, k.Find, k.Door, k.SignOut, k.Quit}},
	}
}

func (findScreen) focus(m *Model) *field { return m.find.focusedField() }

// back keeps the screen find was first opened from: a new search from
// find itself still returns there.
func (findScreen) back(m *Model) screen { return m.find.back }

func (findScreen) view(m *Model, height int) string {
	st := &m.styles
	f := &m.find
	var b strings.Builder
	if f.mode == findView || f.mode == findCancel || f.mode == findConfirm || f.mode == findPick {
		// The booking's own title: the screen is one booking now, not
		// the search, whatever opened it.
		title := st.Title.Render("Booking " + cut(f.booking.Number, 20))
		if f.searched {
			title += st.Subtle.Render(" · found by a search")
		}
		b.WriteString(title + "\n\n")
		used := 2
		if f.mode == findView && f.searched && !m.bview.codes { // the codes need every line
			hint := "tab: work on this booking"
			if !f.typing {
				hint = "↑ or esc: search again"
			}
			b.WriteString(st.Label.Render("  Search ") + f.query.view(st, f.typing && !f.busy, 40) + "  " + st.Subtle.Render(hint) + "\n\n")
			used += 2
		}
		b.WriteString(m.viewBooking(height - used))
		return b.String()
	}
	b.WriteString(st.Title.Render("Find a booking") + st.Subtle.Render(" · by number, phone or name"))
	b.WriteString("\n\n")
	b.WriteString(st.Label.Render("  Search ") + f.query.view(st, f.mode == findSearch && !f.busy, 40))
	b.WriteString("\n\n")
	rows := height - 5
	first := 0
	if f.cursor >= rows {
		first = f.cursor - rows + 1
	}
	for i := first; i < len(f.results) && i < first+rows; i++ {
		r := f.results[i]
		// The film takes what the other columns leave of the width.
		line := fmt.Sprintf("  %-12s %s %s  %-16s %-10s %9s", cut(r.Number, 12),
			r.Show.Starts.In(m.now().Location()).Format("02 Jan 15:04"), fit(r.Show.Film.Title, min(max(m.width-67, 8), 30)),
			fit(r.Customer, 16), fit(string(r.Status), 10), r.Total.String())
		if f.mode == findList && i == f.cursor {
			b.WriteString(st.Selected.Render(line))
		} else {
			b.WriteString(line)
		}
		b.WriteString("\n")
	}
	m.viewFoundReservations(&b, first, first+rows)
	if f.searched && f.found() == 0 {
		b.WriteString(st.Subtle.Render("  No booking matches."))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// viewBooking shows one booking and, when cancelling, the form.
func (m *Model) viewBooking(height int) string {
	f := &m.find
	var b strings.Builder
	m.writeBookingDetails(&b, height)
	switch f.mode {
	case findPick:
		m.viewPick(&b)
	case findCancel:
		m.viewCancelForm(&b)
	case findConfirm:
		m.viewConfirm(&b)
	default:
		return strings.TrimSuffix(b.String(), "\n")
	}
	return b.String()
}

// viewCancelForm is the reason and, for a clerk, the supervisor's approval.
func (m *Model) viewCancelForm(b *strings.Builder) {
	st := &m.styles
	f := &m.find
	w := m.refundWhat()
	b.WriteString("\n")
	b.WriteString(st.Warn.Render("  "+w.form) + "\n")
	on := func(i int) bool { return !f.busy && f.cfocus == i }
	b.WriteString("  " + st.Label.Render("Reason     ") + f.reason.view(st, on(0), 40) + st.Subtle.Render("  optional") + "\n")
	if m.needsApprover() {
		b.WriteString(st.Subtle.Render("  A "+m.approverRole().String()+" approves: their name and PIN.") + "\n")
		b.WriteString("  " + st.Label.Render("Supervisor ") + f.supName.view(st, on(1), 30) + "\n")
		b.WriteString("  " + st.Label.Render("PIN        ") + f.supPIN.view(st, on(2), 30) + "\n")
	}
	b.WriteString(st.Subtle.Render("  enter next field, then a confirmation · esc keeps the booking"))
}

// viewConfirm is the last step before a refund: the amount and the method,
// and two buttons with No chosen.
func (m *Model) viewConfirm(b *strings.Builder) {
	st := &m.styles
	f := &m.find
	w := m.refundWhat()
	b.WriteString("\n")
	b.WriteString(st.Warn.Render("  "+w.question) + "\n\n")
	no, yes := "[ No, keep the booking ]", "[ Yes, "+w.yes+" ]"
	if f.busy {
		b.WriteString(st.Subtle.Render("  Cancelling…"))
		return
	}
	if f.yes {
		b.WriteString("  " + st.Label.Render(no) + "  " + st.Selected.Render(yes) + "\n")
	} else {
		b.WriteString("  " + st.Selected.Render(no) + "  " + st.Label.Render(yes) + "\n")
	}
	b.WriteString(st.Subtle.Render("  ← → choose · enter presses the chosen button · esc back to the form"))
}

func statusWord(st *Styles, s booking.BookingStatus) string {
	switch s {
	case booking.BookingCancelled:
		return st.Warn.Render("cancelled")
	case booking.BookingConfirmed:
		return st.Info.Render("confirmed")
	}
	return st.Subtle.Render(booking.Clean(string(s)))
}
