package db

import (
	"database/sql"
	"fmt"

	"boxoffice/booking"
	"boxoffice/store"
)

// audit appends one row to the audit trail inside the write's own
// transaction, so a change and its record commit or roll back together.
// The table refuses UPDATE and DELETE (migration 0011); e.Booking is not
// read here: pass the booking's id, which the row keeps. Someone below
// door (nobody signed in, a name typed at a sign-in) has no role to
// record.
//
// The row waits in w until the job's savepoint is released; the writer
// then inserts the rows of every job of the batch that succeeded with
// flushAudit, before the COMMIT that makes them and their changes
// durable together. A job that fails, or rolls back to its savepoint,
// drops its row with the rest of its work.
func (w *wtx) audit(actor booking.Actor, e booking.AuditEntry, bookingID int64) error {
	return store.Audit(w, actor, e, bookingID)
}

// auditRow is one audit row's column values, in auditInserts' order.
type auditRow [10]any

// auditChunk is the most rows one INSERT writes; auditInserts holds the
// statement for each power of two up to it, so a batch of any size is a
// few statements, each prepared once on the writer's connection.
const auditChunk = 64

var auditInserts = func() map[int]string {
	out := map[int]string{}
	for n := 1; n <= auditChunk; n *= 2 {
		out[n] = `INSERT INTO audit (at, actor, role, terminal, action, show_id, booking_id, shift_id, amount, detail) VALUES ` +
			placeholders("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", n)
	}
	return out
}()

// flushAudit inserts rows, in the order their jobs ran: one statement per
// power-of-two chunk instead of one per job, which spares the writer a
// statement and the savepoint's page copies for every write.
func flushAudit(w *wtx, rows []auditRow) error {
	for len(rows) > 0 {
		n := auditChunk
		for n > len(rows) {
			n /= 2
		}
		args := make([]any, 0, n*len(rows[0]))
		for _, r := range rows[:n] {
			args = append(args, r[:]...)
		}
		if _, err := w.exec(auditInserts[n], args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// nullID stores a zero id as NULL: the audit row is about no such thing.
func nullID(id int64) sql.NullInt64 { return sql.NullInt64{Int64: id, Valid: id != 0} }

// auditCount is the one audit row of a sweep or a release by owner that
// changed n things; a sweep that found nothing changed nothing and writes
// no row.
func auditCount(w *wtx, actor booking.Actor, a booking.AuditAction, n int, err error, format string, args ...any) error {
	if err != nil || n == 0 {
		return err
	}
	return w.audit(actor, booking.AuditEntry{Action: a, Detail: fmt.Sprintf(format, args...)}, 0)
}
