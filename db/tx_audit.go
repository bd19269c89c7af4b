package db

import (
	"context"
	"strings"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// The audit trail read back (store.AuditReads).

// auditColumns are the audit trail's columns as ReadAudit reads them,
// with the booking number for the booking id.
const auditColumns = `SELECT a.id, a.at, a.actor, a.role, a.terminal, a.action, coalesce(a.show_id, 0),
	coalesce(b.number, ''), coalesce(a.shift_id, 0), coalesce(a.amount, 0), a.detail
	FROM audit a LEFT JOIN bookings b ON b.id = a.booking_id`

// ReadAudit lists the rows f matches, newest first: each filter is a
// range of audit_by_booking or audit_by_at.
func (d driver) ReadAudit(ctx context.Context, f store.AuditFilter) ([]booking.AuditEntry, error) {
	var where []string
	var args []any
	if f.BookingID != 0 {
		where, args = append(where, "a.booking_id = ?"), append(args, f.BookingID)
	}
	if f.Actor != "" {
		where, args = append(where, "a.actor = ? COLLATE NOCASE"), append(args, f.Actor)
	}
	if f.From != 0 {
		where, args = append(where, "a.at >= ?"), append(args, f.From)
	}
	if f.Until != 0 {
		where, args = append(where, "a.at < ?"), append(args, f.Until)
	}
	query := auditColumns
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	rows, err := d.s.readRows(ctx, query+" ORDER BY a.at DESC, a.id DESC LIMIT ?", append(args, f.Limit)...)
	if err != nil {
		return nil, d.s.translate("audit", err)
	}
	defer rows.Close()
	var out []booking.AuditEntry
	for rows.Next() {
		var e booking.AuditEntry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Actor, &e.Role, &e.Terminal, &e.Action, &e.ShowID, &e.Booking, &e.ShiftID, &e.Amount, &e.Detail); err != nil {
			return nil, d.s.translate("audit", err)
		}
		e.At = time.UnixMilli(at)
		out = append(out, e)
	}
	return out, d.s.translate("audit", rows.Err())
}
