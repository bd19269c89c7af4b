package pg

import (
	"context"
	"fmt"
	"strings"
	"time"

	"boxoffice/booking"
)

// Store reads the audit trail as booking.Audit asks.
var _ booking.Audit = (*Store)(nil)

// auditColumns are the audit trail's columns as Audit reads them, with
// the booking number for the booking id.
const auditColumns = `SELECT a.id, a.at, a.actor, a.role, a.terminal, a.action, coalesce(a.show_id, 0),
	coalesce(b.number, ''), coalesce(a.shift_id, 0), coalesce(a.amount, 0), a.detail
	FROM audit a LEFT JOIN bookings b ON b.id = a.booking_id`

// Audit lists the audit rows matching q, newest first, at most
// q.AuditLimit(). Each filter is a range of an index (audit_by_booking,
// audit_by_at; a person is searched within a day or the last
// booking.AuditStaffWindow), so a page costs the same on a year of rows
// as on a day. One statement: its own snapshot under READ COMMITTED.
func (s *Store) Audit(ctx context.Context, actor booking.Actor, q booking.AuditQuery) ([]booking.AuditEntry, error) {
	if err := booking.Authorize(actor, booking.ActionViewAudit); err != nil {
		return nil, err
	}
	var where []string
	var args []any
	arg := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if strings.TrimSpace(q.Booking) != "" {
		id, err := s.bookingID(ctx, normalizeNumber(q.Booking))
		if err != nil {
			return nil, err
		}
		arg("a.booking_id = $%d", id)
	}
	name := booking.CleanLine(q.Staff, 40)
	if name != "" {
		arg("lower(a.actor) = lower($%d)", name)
	}
	switch {
	case !q.Day.IsZero():
		y, m, d := q.Day.Date()
		day := time.Date(y, m, d, 0, 0, 0, 0, q.Day.Location())
		arg("a.at >= $%d", day.UnixMilli())
		arg("a.at < $%d", day.AddDate(0, 0, 1).UnixMilli())
	case name != "":
		arg("a.at >= $%d", s.opts.Clock().Add(-booking.AuditStaffWindow).UnixMilli())
	}
	query := auditColumns
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, q.AuditLimit())
	rows, err := s.pool.Query(ctx, query+fmt.Sprintf(" ORDER BY a.at DESC, a.id DESC LIMIT $%d", len(args)), args...)
	if err != nil {
		return nil, s.translate("audit", err)
	}
	defer rows.Close()
	loc := time.Local
	if !q.Day.IsZero() {
		loc = q.Day.Location()
	}
	var out []booking.AuditEntry
	for rows.Next() {
		var e booking.AuditEntry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Role, &e.Terminal, &e.Action, &e.ShowID, &e.Booking, &e.ShiftID, &e.Amount, &e.Detail); err != nil {
			return nil, s.translate("audit", err)
		}
		e.At = time.UnixMilli(at).In(loc)
		out = append(out, e)
	}
	return out, s.translate("audit", rows.Err())
}
