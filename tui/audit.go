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

// The audit trail, for managers: every change the box office made,
// newest first, filtered by person, booking and day. It only reads; the
// store refuses anyone below manager whatever the screen does.

// auditFields are the filters, in tab order.
const (
	auditPerson = iota
	auditBooking
	auditDay
	numAuditFields
)

// auditState is the audit screen: the filters, the rows they found and
// the row under the cursor.
type auditState struct {
	fields [numAuditFields]field
	focus  int
	rows   []booking.AuditEntry
	cursor int
	busy   bool
	loaded bool   // rows answer the filters as they were last sent
	err    string // why the last read failed
}

type auditMsg struct {
	rows []booking.AuditEntry
	err  error
}

func newAuditState() auditState {
	a := auditState{}
	a.fields[auditPerson] = newField(40)
	a.fields[auditBooking] = newField(16)
	a.fields[auditDay] = newField(10)
	a.fields[auditDay].accept = func(r rune) bool { return isDigit(r) || r == '-' }
	return a
}

// isManager reports whether the clerk signed in may read the trail.
func (m *Model) isManager() bool {
	return m.clerk != nil && booking.Authorize(m.actor(), booking.ActionViewAudit) == nil
}

// openAudit shows the trail, newest first, to a manager with no seats
// in hand: the screen has no countdown to keep.
func (m *Model) openAudit() tea.Cmd {
	switch {
	case !m.isManager():
		m.setError("The audit trail needs a manager.")
		return nil
	case m.heldCount() > 0:
		m.setError("Sell or release the held seats first.")
		return nil
	}
	m.audit = newAuditState()
	m.screen = screenAudit
	m.setInfo("")
	return m.loadAuditCmd()
}

// auditQuery is the filters as typed: EInvalid for a day that is no date.
func (a *auditState) query(loc *time.Location) (booking.AuditQuery, error) {
	q := booking.AuditQuery{Staff: a.fields[auditPerson].String(), Booking: a.fields[auditBooking].String()}
	if s := a.fields[auditDay].String(); s != "" {
		day, err := time.ParseInLocation("2006-01-02", s, loc)
		if err != nil {
			return q, booking.Errorf(booking.EInvalid, "A day is YYYY-MM-DD, like 2026-12-01.")
		}
		q.Day = day
	}
	return q, nil
}

func (m *Model) loadAuditCmd() tea.Cmd {
	a := &m.audit
	q, err := a.query(m.now().Location())
	if err != nil {
		a.err = booking.ErrorMessage(err)
		return nil
	}
	a.busy, a.err = true, ""
	store, actor := m.store, m.actor()
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		rows, err := store.Audit(ctx, actor, q)
		return auditMsg{rows: rows, err: err}, err
	})
}

func (m *Model) onAudit(msg auditMsg) tea.Cmd {
	a := &m.audit
	if m.screen != screenAudit {
		return nil // signed out or gone meanwhile
	}
	a.busy, a.loaded = false, true
	if msg.err != nil {
		a.rows, a.cursor, a.err = nil, 0, booking.ErrorMessage(msg.err)
		if booking.ErrorCode(msg.err) == booking.EInternal {
			m.log.Error("audit", "err", msg.err)
		}
		return nil
	}
	a.rows, a.cursor, a.err = msg.rows, 0, ""
	return nil
}

// auditScreen browses the trail (see auditState).
type auditScreen struct{}

func (auditScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	a := &m.audit
	k := &m.keys
	switch {
	case key.Matches(msg, k.Back):
		return m.goBack(screenShows)
	case key.Matches(msg, k.Submit):
		if a.busy {
			return nil
		}
		return m.loadAuditCmd()
	case key.Matches(msg, k.Up):
		a.cursor = max(a.cursor-1, 0)
		return nil
	case key.Matches(msg, k.Down):
		a.cursor = min(a.cursor+1, max(len(a.rows)-1, 0))
		return nil
	case msg.String() == "tab":
		a.focus = (a.focus + 1) % numAuditFields
		return nil
	case key.Matches(msg, k.PrevField):
		a.focus = (a.focus + numAuditFields - 1) % numAuditFields
		return nil
	}
	a.fields[a.focus].key(msg, k)
	return nil
}

func (auditScreen) focus(m *Model) *field {
	if m.audit.busy {
		return nil
	}
	return &m.audit.fields[m.audit.focus]
}

func (auditScreen) help(m *Model) helpKeys {
	k := m.keys
	filter := says(k.Submit, "filter")
	next := relabel(k.NextField, "tab", "next filter")
	prev := relabel(k.PrevField, "shift+tab", "previous filter")
	return helpKeys{
		short: []key.Binding{filter, next, k.Up, k.Down, k.Back, k.Help},
		full:  [][]key.Binding{{filter, next, prev}, {k.Up, k.Down}, k.global()},
	}
}

// auditCols is how the trail's table is laid out at a width: the wide
// form adds the role and terminal and the seconds.
type auditCols struct {
	wide   bool
	detail int
}

func auditLayout(width int) auditCols {
	if width >= 110 {
		return auditCols{wide: true, detail: max(width-91, 10)}
	}
	return auditCols{detail: max(width-65, 10)}
}

func (c auditCols) header() string {
	if c.wide {
		return fmt.Sprintf("%-15s %-10s %-10s %-10s %-16s %-11s %9s  %s", "When", "Who", "Role", "Terminal", "Action", "Booking", "Amount", "Detail")
	}
	return fmt.Sprintf("%-12s %-10s %-16s %-11s %8s  %s", "When", "Who", "Action", "Booking", "Amount", "Detail")
}

func (c auditCols) row(e booking.AuditEntry, loc *time.Location) string {
	amount := ""
	if e.Amount != 0 {
		amount = e.Amount.String()
	}
	at := e.At.In(loc)
	if c.wide {
		return fmt.Sprintf("%s %s %s %s %s %s %9s  %s", at.Format("02 Jan 15:04:05"), fit(e.Actor, 10), fit(e.Role, 10), fit(e.Terminal, 10),
			fit(string(e.Action), 16), fit(e.Booking, 11), amount, cut(e.Detail, c.detail))
	}
	return fmt.Sprintf("%s %s %s %s %8s  %s", at.Format("02 Jan 15:04"), fit(e.Actor, 10), fit(string(e.Action), 16), fit(e.Booking, 11),
		amount, cut(e.Detail, c.detail))
}

func (auditScreen) view(m *Model, height int) string {
	st := &m.styles
	a := &m.audit
	var b strings.Builder
	b.WriteString(st.Title.Render("Audit trail") + st.Subtle.Render(" · every change, newest first · nothing can edit it") + "\n\n")
	labels := [numAuditFields]string{"Person ", "  Booking ", "  Day "}
	widths := [numAuditFields]int{12, 12, 10}
	b.WriteString(" ")
	for i := range a.fields {
		b.WriteString(st.Label.Render(labels[i]) + a.fields[i].view(st, i == a.focus && !a.busy, widths[i]))
	}
	b.WriteString("\n\n")
	switch {
	case a.err != "":
		b.WriteString(st.Error.Render(indent(wrapText(a.err, m.width-4, 3), 2)))
		return b.String()
	case a.busy && !a.loaded:
		b.WriteString(st.Subtle.Render("  Reading the trail…"))
		return b.String()
	case len(a.rows) == 0:
		b.WriteString(st.Subtle.Render("  No change matches."))
		return b.String()
	}
	// The row under the cursor, whole: wrapped under the table, which
	// gives up the lines it takes.
	loc := m.now().Location()
	summary := wrapText(auditSummary(a.rows[a.cursor], loc), m.width-4, 3)
	cols := auditLayout(m.width)
	b.WriteString(st.Label.Render("  "+cols.header()) + "\n")
	rows := max(height-6-strings.Count(summary, "\n")-1, 1)
	first := max(a.cursor-rows+1, 0)
	for i := first; i < len(a.rows) && i < first+rows; i++ {
		line := "  " + cols.row(a.rows[i], loc)
		if i == a.cursor {
			line = st.Selected.Render(line)
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\n" + st.Subtle.Render(indent(summary, 2)))
	return b.String()
}

// auditSummary is the whole of the row under the cursor, which the
// table cuts short: where, when to the second, the show and shift.
func auditSummary(e booking.AuditEntry, loc *time.Location) string {
	parts := []string{e.At.In(loc).Format("Mon 02 Jan 15:04:05"), cut(e.Actor, 40)}
	if e.Role != "" {
		parts = append(parts, e.Role)
	}
	if e.Terminal != "" {
		parts = append(parts, "at "+cut(e.Terminal, 30))
	}
	if e.ShowID != 0 {
		parts = append(parts, fmt.Sprintf("show %d", e.ShowID))
	}
	if e.ShiftID != 0 {
		parts = append(parts, fmt.Sprintf("shift %d", e.ShiftID))
	}
	return strings.Join(parts, " · ") + ": " + cut(e.Detail, 200)
}
