package tui

import (
	"context"
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The manager's shifts: everyone's, newest first, with what each drawer
// should have held and what was counted. o reopens a closed one — a count
// made too early, a drawer closed by mistake — with a reason, which the
// shift's events and the audit trail keep beside its first count.

// mgrShiftsShown is how many shifts the list reads: a few weeks of a
// busy box office.
const mgrShiftsShown = 200

func (m *Model) shiftsView(h int) string {
	g := &m.manage
	if len(g.shifts) == 0 {
		return m.styles.Subtle.Render("  No shift was ever opened.")
	}
	staffW := max(m.width-66, 10)
	row := func(id, staff, opened, status, expected, counted, variance string) string {
		return fmt.Sprintf("%5s  %s  %-12s  %-6s  %9s  %9s  %9s", id, fit(staff, staffW), opened, status, expected, counted, variance)
	}
	rows := make([]string, len(g.shifts))
	for i, s := range g.shifts {
		expected, counted, variance := "", "", ""
		if s.Status == booking.ShiftClosed {
			expected, counted, variance = s.Expected.String(), s.Counted.String(), s.Variance().String()
		}
		rows[i] = row(fmt.Sprint(s.ID), s.Staff, s.OpenedAt.Format("02 Jan 15:04"), string(s.Status), expected, counted, variance)
	}
	return m.listLines(row("Shift", "Staff", "Opened", "Status", "Expected", "Counted", "Variance"), rows, h)
}

func (m *Model) shiftsKey(msg tea.KeyPressMsg) tea.Cmd {
	g := &m.manage
	if !key.Matches(msg, m.keys.MgrReopen) || len(g.shifts) == 0 {
		return nil
	}
	s := g.shifts[g.cursor]
	who := booking.CleanLine(s.Staff, 40)
	if s.Status != booking.ShiftClosed {
		g.err = fmt.Sprintf("Shift %d of %s is open: only a closed shift is reopened.", s.ID, who)
		return nil
	}
	m.openForm(fmt.Sprintf("Reopen shift %d of %s", s.ID, who),
		fmt.Sprintf("Counted %s against %s expected. The first count stays on record; they count again when they close it.", s.Counted.String(), s.Expected.String()),
		func(m *Model, v []string) (tea.Cmd, string, error) {
			req := booking.ReopenShiftRequest{ID: s.ID, Reason: v[0]}
			if err := req.Validate(); err != nil {
				return nil, "", err
			}
			return m.mgrDo(fmt.Sprintf("Reopened shift %d of %s.", s.ID, who), func(ctx context.Context, b Backend, a booking.Actor) error {
				_, err := b.ReopenShift(ctx, a, req)
				return err
			}), fmt.Sprintf("Reopen shift %d of %s?", s.ID, who), nil
		}, textField("Reason", 200, ""))
	return nil
}
