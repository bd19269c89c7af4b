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

// auditChunk is the most rows one INSERT writes; auditInserts holds the
// statement for each power of two up to it, so a batch of any size is a
// few statements, each prepared once on the writer's connection.
const auditChunk = 64

// auditColumnCount is how many values one row of auditInserts takes.
const auditColumnCount = 12

var auditInserts = func() map[int]string {
	out := map[int]string{}
	for n := 1; n <= auditChunk; n *= 2 {
		out[n] = `INSERT INTO audit (id, at, actor, role, terminal, action, show_id, booking_id, shift_id, amount, detail, hash) VALUES ` +
			placeholders("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", n)
	}
	return out
}()

// flushAudit inserts rows, in the order their jobs ran: one statement per
// power-of-two chunk instead of one per job, which spares the writer a
// statement and the savepoint's page copies for every write. Each row is
// chained to the one before (store.ChainHash): the writer holds the
// file's only write lock, so the last row it reads is the last row there
// is, and the ids it gives are the ones SQLite would.
func flushAudit(w *wtx, rows []store.AuditRow) error {
	if len(rows) == 0 {
		return nil
	}
	head, err := auditHead(w)
	if err != nil {
		return err
	}
	for len(rows) > 0 {
		n := auditChunk
		for n > len(rows) {
			n /= 2
		}
		args := make([]any, 0, n*auditColumnCount)
		for _, r := range rows[:n] {
			id := head.ID + 1
			head = store.ChainHead{ID: id, Hash: store.ChainHash(head.Hash, id, r)}
			args = append(args, id, r.At, r.Actor, r.Role, r.Terminal, string(r.Action),
				nullID(r.ShowID), nullID(r.BookingID), nullID(r.ShiftID), int64(r.Amount), r.Detail, head.Hash)
		}
		if _, err := w.exec(auditInserts[n], args...); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// auditHead is the trail's last row, chained first with the rows before
// it when it carries no hash (rows from before the chain).
func auditHead(w *wtx) (store.ChainHead, error) {
	var head store.ChainHead
	err := w.queryRow(`SELECT id, hash FROM audit WHERE id = (SELECT max(id) FROM audit)`).Scan(&head.ID, &head.Hash)
	switch {
	case isNoRows(err):
		return store.ChainHead{}, nil
	case err != nil || head.Hash != nil:
		return head, err
	}
	return store.SealAudit(w, head.ID) // the one writer: every row there is committed
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
