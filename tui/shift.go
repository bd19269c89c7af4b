package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The clerk's own shift (ctrl+t): open it with a float, close it with a
// blind count. The count is typed, and confirmed on a question whose
// default is No, before the screen shows any expected figure; the Z
// report that answers the close shows expected, counted and the variance.
// The X report (what the drawer should hold now) is for a supervisor or
// a manager: shown to a clerk before their count it would make the count
// not blind.

type shiftMode int

const (
	shiftLoading shiftMode = iota
	shiftNone              // no shift open: a float field opens one
	shiftOpen              // the shift, without figures; x shows the X report
	shiftX                 // the X report: what the drawer should hold now
	shiftCount             // the blind count: counted and a breakdown
	shiftConfirm           // the count's confirmation, No chosen
	shiftZ                 // the Z report of the close
	shiftNoSale            // a "no sale": the reason, then the drawer opens (drawer.go)
)

// shiftState is the shift screen.
type shiftState struct {
	mode      shiftMode
	back      screen
	busy      bool
	shift     *booking.Shift
	report    *booking.ShiftReport
	float     field
	counted   field
	breakdown field
	cfocus    int // 0 counted, 1 breakdown
	forWhat   floatFor
	// closing is the count being confirmed; yes the confirmation's
	// focused button, false (No) until an arrow or tab moves it.
	closing booking.CloseShiftRequest
	yes     bool
	// reason is a "no sale"'s reason (drawer.go).
	reason field
}

type (
	currentShiftMsg struct {
		shift *booking.Shift
		err   error
	}
	shiftReportMsg struct {
		report *booking.ShiftReport
		closed bool
		err    error
	}
	openedShiftMsg struct {
		shift *booking.Shift
		err   error
	}
)

func newShiftState(back screen) shiftState {
	s := shiftState{back: back, float: newField(10), counted: newField(10), breakdown: newField(60), reason: newField(booking.MaxDrawerReason)}
	s.float.accept, s.counted.accept = isAmountRune, isAmountRune
	return s
}

// openShiftScreen shows the clerk's shift; away from the seats only.
func (m *Model) openShiftScreen() tea.Cmd {
	if m.screen.spec().held != heldAway {
		m.setError("Finish the sale or let the seats go before the shift.")
		return nil
	}
	m.shift = newShiftState(m.returnScreen())
	m.screen = screenShift
	m.setInfo("")
	return m.loadShiftCmd()
}

func (m *Model) loadShiftCmd() tea.Cmd {
	m.shift.busy = true
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		sh, err := store.CurrentShift(ctx, actor)
		if booking.ErrorCode(err) == booking.ENotFound {
			return currentShiftMsg{}, nil
		}
		return currentShiftMsg{shift: sh, err: err}, err
	})
}

func (m *Model) onCurrentShift(msg currentShiftMsg) tea.Cmd {
	s := &m.shift
	s.busy = false
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	s.shift = msg.shift
	s.mode = shiftOpen
	if msg.shift == nil {
		s.mode = shiftNone
	}
	return nil
}

// shiftScreen is the clerk's shift (see shiftState).
type shiftScreen struct{}

func (shiftScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	s := &m.shift
	k := m.keys
	if s.busy {
		return nil
	}
	if key.Matches(msg, k.Back) {
		if s.forWhat != floatShift {
			m.screen = s.back
			m.setInfo("No shift opened: nothing was sold or refunded.")
			return nil
		}
		switch s.mode {
		case shiftX, shiftCount:
			s.mode = shiftOpen
			m.setInfo("")
			return nil
		case shiftConfirm:
			s.mode = shiftCount
			m.setInfo("Not closed: the count is still open to change.")
			return nil
		case shiftNoSale:
			s.mode = shiftOpen
			m.setInfo("The drawer stays shut.")
			return nil
		}
		return m.goBack(s.back)
	}
	switch s.mode {
	case shiftNone:
		if key.Matches(msg, k.Submit) {
			return m.submitFloat()
		}
		s.float.key(msg, &m.keys)
	case shiftOpen:
		switch {
		case key.Matches(msg, k.XReport) && !m.seesExpected():
			m.setError("The X report is for a supervisor: count the drawer first (c); the Z report then shows what was expected.")
		case key.Matches(msg, k.XReport):
			return m.shiftReportCmd(s.shift.ID)
		case key.Matches(msg, k.CloseShift):
			s.mode, s.cfocus = shiftCount, 0
			s.counted.Reset()
			s.breakdown.Reset()
		case key.Matches(msg, k.NoSale):
			m.startNoSale()
		}
	case shiftNoSale:
		return m.noSaleKey(msg)
	case shiftCount:
		return m.countKey(msg)
	case shiftConfirm:
		return m.closeConfirmKey(msg)
	}
	return nil
}

// seesExpected reports whether the one signed in may see what their
// drawer should hold before counting it: a supervisor or a manager, who
// may see anyone's shift. A clerk sees it in the Z report, once their
// count is in.
func (m *Model) seesExpected() bool {
	return m.clerk != nil && m.clerk.role >= booking.MinRole(booking.ActionReopenShift)
}

// closeConfirmKey is the count's confirmation: No is focused and enter on
// it goes back to the count. Only an arrow (or tab) moves to Yes.
func (m *Model) closeConfirmKey(msg tea.KeyPressMsg) tea.Cmd {
	s := &m.shift
	k := m.keys
	switch {
	case key.Matches(msg, k.Choose):
		s.yes = !s.yes
	case key.Matches(msg, k.Submit) && s.yes:
		return m.closeShiftCmd()
	case key.Matches(msg, k.Submit):
		s.mode = shiftCount
		m.setInfo("Not closed: the count is still open to change.")
	}
	return nil
}

// countKey edits the blind count; enter on the breakdown closes the shift.
func (m *Model) countKey(msg tea.KeyPressMsg) tea.Cmd {
	s := &m.shift
	k := m.keys
	switch {
	case key.Matches(msg, k.Submit) && s.cfocus == 0:
		s.cfocus = 1
	case key.Matches(msg, k.Submit):
		req, err := s.closeRequest()
		if err != nil {
			m.fail(err)
			return nil
		}
		s.closing, s.mode, s.yes = req, shiftConfirm, false
		m.setInfo("")
	case key.Matches(msg, k.NextField), key.Matches(msg, k.PrevField):
		s.cfocus = 1 - s.cfocus
	default:
		if f := m.shift.focusedField(); f != nil {
			f.key(msg, &m.keys)
		}
	}
	return nil
}

func (s *shiftState) focusedField() *field {
	if s.busy {
		return nil
	}
	switch {
	case s.mode == shiftNone:
		return &s.float
	case s.mode == shiftCount && s.cfocus == 0:
		return &s.counted
	case s.mode == shiftCount:
		return &s.breakdown
	}
	return nil
}

func (shiftScreen) focus(m *Model) *field { return m.shift.focusedField() }

func (shiftScreen) back(m *Model) screen { return m.shift.back }

// parseAmount reads a float or a count typed at the counter.
func parseAmount(f *field, what string) (booking.Money, error) {
	if f.Empty() {
		return 0, booking.Errorf(booking.EInvalid, "Type the %s, like 100 or 100.00.", what)
	}
	a, err := booking.ParseMoney(f.String())
	if err != nil {
		return 0, booking.Errorf(booking.EInvalid, "Type the %s, like 100 or 100.00.", what)
	}
	return a, nil
}

// floatFor is what a float typed on the shift screen is for: opening the
// shift, or the sale or refund that met ErrNoShift, which then goes again
// carrying the float so the shift opens in its own transaction.
type floatFor int

const (
	floatShift floatFor = iota
	floatSale
	floatRefund
	floatExchange    // an exchange's difference in cash (issue 11)
	floatReservation // a reservation paid in cash at the counter
)

// askFloat opens the shift screen on its float field for the sale or
// refund that was refused for want of a shift.
func (m *Model) askFloat(why floatFor, back screen) {
	m.shift = newShiftState(back)
	m.shift.mode, m.shift.forWhat = shiftNone, why
	m.screen = screenShift
	m.setError(booking.ErrNoShift.Message + " Type the float; enter goes on.")
}

// submitFloat is enter on the float: open the shift, or hand the float to
// the sale or refund waiting for it.
func (m *Model) submitFloat() tea.Cmd {
	s := &m.shift
	float, err := parseAmount(&s.float, "float counted into the drawer")
	if err != nil {
		m.fail(err)
		return nil
	}
	switch s.forWhat {
	case floatSale:
		m.screen, m.checkout.openFloat = screenCheckout, &float
		return m.confirmSale()
	case floatRefund:
		m.screen, m.find.openFloat = screenFind, &float
		return m.cancelCmd()
	case floatExchange:
		return m.exchangeWithFloat(float)
	case floatReservation:
		return m.payWithFloat(float)
	}
	s.busy = true
	m.setInfo("Opening the shift…")
	store, actor := m.store, m.actor()
	return m.money(func(ctx context.Context) (tea.Msg, error) {
		sh, err := store.OpenShift(ctx, actor, booking.OpenShiftRequest{Float: float})
		return openedShiftMsg{shift: sh, err: err}, err
	})
}

func (m *Model) onOpenedShift(msg openedShiftMsg) tea.Cmd {
	s := &m.shift
	s.busy = false
	if msg.err != nil {
		m.fail(msg.err)
		return nil
	}
	s.shift, s.mode = msg.shift, shiftOpen
	s.float.Reset()
	m.setInfo(fmt.Sprintf("Shift %d open with a float of %s.", msg.shift.ID, msg.shift.Float.String()))
	return m.openDrawer("Float counted in: " + msg.shift.Float.String())
}

func (m *Model) shiftReportCmd(id int64) tea.Cmd {
	m.shift.busy = true
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		r, err := store.ShiftReport(ctx, actor, id)
		return shiftReportMsg{report: r, err: err}, err
	})
}

// closeShiftCmd sends the blind count the clerk confirmed. Nothing on
// screen said what was expected: the answer is the first figure the
// clerk sees.
func (m *Model) closeShiftCmd() tea.Cmd {
	s := &m.shift
	req := s.closing
	s.busy = true
	m.setInfo("Closing the shift…")
	store, actor := m.store, m.actor()
	return m.money(func(ctx context.Context) (tea.Msg, error) {
		r, err := store.CloseShift(ctx, actor, req)
		return shiftReportMsg{report: r, closed: true, err: err}, err
	})
}

// closeRequest is the count typed: the total, or with the total empty the
// count by denomination added up; both must agree when both are typed.
func (s *shiftState) closeRequest() (booking.CloseShiftRequest, error) {
	req := booking.CloseShiftRequest{Breakdown: booking.CleanLine(s.breakdown.String(), 60)}
	var err error
	if s.counted.Empty() && req.Breakdown != "" {
		req.Counted, err = booking.ParseBreakdown(req.Breakdown)
		s.cfocus = 1
	} else {
		req.Counted, err = parseAmount(&s.counted, "cash counted in the drawer")
		s.cfocus = 0
	}
	if err == nil {
		err = req.Validate()
	}
	return req, err
}

func (m *Model) onShiftReport(msg shiftReportMsg) tea.Cmd {
	s := &m.shift
	s.busy = false
	if msg.err != nil {
		m.fail(msg.err)
		if s.mode == shiftConfirm {
			s.mode = shiftCount
		}
		return nil
	}
	s.report = msg.report
	s.mode = shiftX
	if msg.closed {
		s.mode, s.shift = shiftZ, nil
		m.setInfo("Shift closed.")
		return m.printZReport(msg.report) // printing, issue 12
	}
	return nil
}

func (shiftScreen) help(m *Model) helpKeys {
	k := m.keys
	var short []key.Binding
	switch m.shift.mode {
	case shiftNone:
		short = []key.Binding{says(k.Submit, "open the shift")}
	case shiftOpen:
		short = []key.Binding{k.CloseShift, k.NoSale}
		if m.seesExpected() {
			short = []key.Binding{k.XReport, k.CloseShift, k.NoSale}
		}
	case shiftNoSale:
		short = []key.Binding{says(k.Submit, "open the drawer")}
	case shiftCount:
		short = []key.Binding{says(k.Submit, "next field, then confirm"), k.NextField}
	case shiftConfirm:
		short = []key.Binding{k.Choose, says(k.Submit, "press the button"), says(k.Back, "back to the count"), k.Help}
		return helpKeys{short: short, full: [][]key.Binding{short, {k.Find, k.SignOut, k.Quit}}}
	}
	short = append(short, k.Back, k.Help)
	return helpKeys{short: short, full: [][]key.Binding{short, {k.Find, k.SignOut, k.Quit}}}
}

func (shiftScreen) view(m *Model, height int) string {
	st := &m.styles
	s := &m.shift
	var b strings.Builder
	b.WriteString(st.Title.Render("My shift") + st.Subtle.Render(" · "+cut(m.actor().Name, 30)) + "\n\n")
	row := func(label, value string) {
		b.WriteString("  " + st.Label.Render(fmt.Sprintf("%-14s", label)) + value + "\n")
	}
	switch s.mode {
	case shiftLoading:
		b.WriteString(st.Subtle.Render("  Loading…"))
	case shiftNone:
		b.WriteString("  No shift open. Count the float into the drawer.\n\n")
		row("Float", s.float.view(st, !s.busy, 12))
	case shiftOpen, shiftCount, shiftConfirm, shiftNoSale:
		sh := s.shift
		row("Shift", fmt.Sprintf("%d · opened %s", sh.ID, sh.OpenedAt.In(m.now().Location()).Format("Mon 2 Jan 15:04")))
		row("Float", st.Money.Render(sh.Float.String()))
		if s.mode == shiftCount {
			b.WriteString("\n  Count the drawer: the total, and by denomination if you like.\n\n")
			row("Counted", s.counted.view(st, !s.busy && s.cfocus == 0, 12))
			row("Breakdown", s.breakdown.view(st, !s.busy && s.cfocus == 1, 30)+st.Subtle.Render("  optional, e.g. 50x2 20x10"))
		}
		if s.mode == shiftConfirm {
			m.viewCloseConfirm(&b)
		}
		if s.mode == shiftNoSale {
			b.WriteString("\n  No sale: why open the drawer?\n\n")
			row("Reason", s.reason.view(st, !s.busy, 40))
		}
	case shiftX, shiftZ:
		m.viewShiftReport(&b, row)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// viewCloseConfirm asks whether to close the shift with the count typed.
func (m *Model) viewCloseConfirm(b *strings.Builder) {
	st := &m.styles
	s := &m.shift
	b.WriteString("\n  Counted      " + st.Money.Render(s.closing.Counted.String()))
	if s.closing.Breakdown != "" {
		b.WriteString(st.Subtle.Render("  (" + cut(s.closing.Breakdown, 40) + ")"))
	}
	b.WriteString("\n\n" + st.Warn.Render(fmt.Sprintf("  Close shift %d with %s counted? Once closed, only a supervisor can reopen it.", s.shift.ID, s.closing.Counted.String())) + "\n\n")
	if s.busy {
		b.WriteString(st.Subtle.Render("  Closing…"))
		return
	}
	no, yes := "[ No, count again ]", "[ Yes, close the shift ]"
	if s.yes {
		b.WriteString("  " + st.Label.Render(no) + "  " + st.Selected.Render(yes) + "\n")
	} else {
		b.WriteString("  " + st.Selected.Render(no) + "  " + st.Label.Render(yes) + "\n")
	}
	b.WriteString(st.Subtle.Render("  ← → choose · enter presses the chosen button · esc back to the count"))
}

// viewShiftReport is an X or a Z report.
func (m *Model) viewShiftReport(b *strings.Builder, row func(label, value string)) {
	st := &m.styles
	r := m.shift.report
	title := "X report (nothing closed)"
	if r.Final {
		title = "Z report (shift closed)"
	}
	b.WriteString("  " + st.Bold.Render(title) + st.Subtle.Render(fmt.Sprintf(" · shift %d", r.Shift.ID)) + "\n\n")
	row("Float", r.Shift.Float.String())
	row("Cash sales", r.CashSales.String()+"  ("+plural(r.CashSaleCount, "sale", "sales")+")")
	row("Cash refunds", r.CashRefunds.String()+"  ("+plural(r.CashRefundCount, "refund", "refunds")+")")
	row("Card", fmt.Sprintf("%s sales (%d), %s refunds (%d)", r.CardSales.String(), r.CardSaleCount, r.CardRefunds.String(), r.CardRefundCount))
	row("Expected", st.Money.Render(r.Expected.String()))
	if r.Final {
		row("Counted", st.Money.Render(r.Counted.String()))
		v := r.Variance.String()
		switch {
		case r.Variance < 0:
			v = st.Warn.Render(v + " short")
		case r.Variance > 0:
			v = st.Warn.Render("+" + v + " over")
		}
		row("Variance", v)
	}
	itemReportRows(r, row) // concessions (items_view.go)
}
