package pg

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// The audit trail read back (store.AuditReads).

var _ booking.Audit = (*Store)(nil)

// auditColumns are the audit trail's columns as ReadAudit reads them,
// with the booking number for the booking id.
const auditColumns = `SELECT a.id, a.at, a.actor, a.role, a.terminal, a.action, coalesce(a.show_id, 0),
	coalesce(b.number, ''), coalesce(a.shift_id, 0), coalesce(a.amount, 0), a.detail
	FROM audit a LEFT JOIN bookings b ON b.id = a.booking_id`

// ReadAudit lists the rows f matches, newest first: each filter is a
// range of audit_by_booking or audit_by_at. One statement: its own
// snapshot under READ COMMITTED.
func (d driver) ReadAudit(ctx context.Context, f store.AuditFilter) ([]booking.AuditEntry, error) {
	var where []string
	var args []any
	arg := func(cond string, v any) {
		args = append(args, v)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if f.BookingID != 0 {
		arg("a.booking_id = $%d", f.BookingID)
	}
	if f.Actor != "" {
		arg("lower(a.actor) = lower($%d)", f.Actor)
	}
	if f.From != 0 {
		arg("a.at >= $%d", f.From)
	}
	if f.Until != 0 {
		arg("a.at < $%d", f.Until)
	}
	query := auditColumns
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, f.Limit)
	rows, err := d.s.pool.Query(ctx, query+fmt.Sprintf(" ORDER BY a.at DESC, a.id DESC LIMIT $%d", len(args)), args...)
	if err != nil {
		return nil, d.s.translate("audit", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.AuditEntry, error) {
		var e booking.AuditEntry
		var at int64
		err := r.Scan(&e.ID, &at, &e.Actor, &e.Role, &e.Terminal, &e.Action, &e.ShowID, &e.Booking, &e.ShiftID, &e.Amount, &e.Detail)
		e.At = time.UnixMilli(at)
		return e, err
	})
	return out, d.s.translate("audit", err)
}
