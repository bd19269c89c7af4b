package db

import (
	"database/sql"

	"boxoffice/booking"
)

// audit appends one row to the audit trail inside the write's own
// transaction, so a change and its record commit or roll back together.
// The table refuses UPDATE and DELETE (migration 0011); e.Booking is not
// read here: pass the booking's id, which the row keeps.
func (w *wtx) audit(actor booking.Actor, e booking.AuditEntry, bookingID int64) error {
	role := ""
	if actor.Name != "" {
		role = actor.Role.String()
	}
	_, err := w.exec(`INSERT INTO audit (at, actor, role, terminal, action, show_id, booking_id, shift_id, amount, detail)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		w.nowMS(), actor.Name, role, actor.Terminal, string(e.Action),
		nullID(e.ShowID), nullID(bookingID), nullID(e.ShiftID), e.Amount, booking.CleanLine(e.Detail, 200))
	return err
}

// nullID stores a zero id as NULL: the audit row is about no such thing.
func nullID(id int64) sql.NullInt64 { return sql.NullInt64{Int64: id, Valid: id != 0} }
