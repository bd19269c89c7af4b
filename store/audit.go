package store

import (
	"time"

	"boxoffice/booking"
)

// AuditRow is one row of the audit trail as a driver stores it. The table
// refuses UPDATE and DELETE in both engines.
type AuditRow struct {
	At                         int64 // unix milliseconds, the transaction's time
	Actor, Role, Terminal      string
	Action                     booking.AuditAction
	ShowID, BookingID, ShiftID int64 // 0: the row is about no such thing
	Amount                     booking.Money
	Detail                     string
}

// Audit appends the row of e, made by actor, to the trail inside tx, so a
// change and its record commit or roll back together; bookingID is the
// booking it is about (0: none). Someone below door (nobody signed in, a
// name typed at a sign-in) has no role to record.
func Audit(tx Tx, actor booking.Actor, e booking.AuditEntry, bookingID int64) error {
	return tx.InsertAudit(auditRow(tx.Now(), actor, e, bookingID))
}

// auditRow is the row Audit writes at now, for a one-step write that
// writes it in its own statement.
func auditRow(now time.Time, actor booking.Actor, e booking.AuditEntry, bookingID int64) AuditRow {
	role := ""
	if actor.Role > booking.RoleKiosk {
		role = actor.Role.String()
	}
	return AuditRow{
		At: now.UnixMilli(), Actor: booking.CleanLine(actor.Name, 40), Role: role,
		Terminal: booking.CleanLine(actor.Terminal, 60), Action: e.Action,
		ShowID: e.ShowID, BookingID: bookingID, ShiftID: e.ShiftID, Amount: e.Amount,
		Detail: booking.CleanLine(e.Detail, 200),
	}
}
