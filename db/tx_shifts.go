package db

import (
	"context"
	"database/sql"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// Shifts on SQLite. The staff column compares without case (NOCASE), and
// migration 0014 refuses a cash payment without an open shift; the
// shift_money table (0026) keeps each shift's sums by kind and method as
// payments are written, so a report reads a few rows, not every payment.

const (
	qShiftRow    = `SELECT id, staff, terminal, status, opened_at, float, closed_at, counted, expected, closed_by FROM shifts`
	qShiftByID   = qShiftRow + ` WHERE id = ?`
	qShiftOpenOf = qShiftRow + ` WHERE staff = ? AND status = 'open'`
	qShiftList   = qShiftRow + ` WHERE (?1 = '' OR staff = ?1) AND (?2 = 0 OR status = 'open') ORDER BY id DESC LIMIT ?3`
	qShiftMoney  = `SELECT kind, method, amount, n FROM shift_money WHERE shift_id = ?`
	qShiftEvents = `SELECT kind, at, by, counted, expected, breakdown, reason FROM shift_events WHERE shift_id = ? ORDER BY id`
)

// OpenShiftID reads the id of a person's open shift.
func (w *wtx) OpenShiftID(staff string) (int64, error) {
	var id int64
	err := w.queryRow(`SELECT id FROM shifts WHERE staff = ? AND status = 'open'`, staff).Scan(&id)
	if isNoRows(err) {
		return 0, nil
	}
	return id, err
}

// InsertShift opens a shift; the partial unique index on open shifts
// refuses a second. SQLite keeps one site, so sh.Site is not stored.
func (w *wtx) InsertShift(sh store.NewShift) (int64, bool, error) {
	var id int64
	err := w.queryRow(`INSERT INTO shifts (staff, staff_id, terminal, status, opened_at, float) VALUES (?, ?, ?, 'open', ?, ?) RETURNING id`,
		sh.Staff, nullID(sh.StaffID), sh.Terminal, w.nowMS(), sh.Float).Scan(&id)
	if isConstraint(err) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// InsertShiftEvent appends one event to a shift's history.
func (w *wtx) InsertShiftEvent(shiftID int64, e store.ShiftEventRow) error {
	_, err := w.exec(`INSERT INTO shift_events (shift_id, kind, at, by, counted, expected, breakdown, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		shiftID, e.Kind, e.At.UnixMilli(), e.By, e.Counted, e.Expected, e.Breakdown, e.Reason)
	return err
}

// OpenShiftForUpdate reads a person's open shift; the writer runs one
// write at a time, so no payment joins it meanwhile.
func (w *wtx) OpenShiftForUpdate(staff string) (int64, booking.Money, bool, error) {
	var id int64
	var float booking.Money
	err := w.queryRow(`SELECT id, float FROM shifts WHERE staff = ? AND status = 'open'`, staff).Scan(&id, &float)
	if isNoRows(err) {
		return 0, 0, false, nil
	}
	return id, float, err == nil, err
}

// ShiftCash sums the cash of a shift's payments from its sums.
func (w *wtx) ShiftCash(shiftID int64) (booking.Money, error) {
	var cash booking.Money
	err := w.queryRow(`SELECT coalesce(sum(CASE kind WHEN 'refund' THEN -amount ELSE amount END), 0) FROM shift_money WHERE shift_id = ? AND method = 'cash'`, shiftID).Scan(&cash)
	return cash, err
}

// CloseShiftRow closes an open shift.
func (w *wtx) CloseShiftRow(shiftID int64, counted, expected booking.Money, by string) error {
	_, err := w.exec(`UPDATE shifts SET status = 'closed', closed_at = ?, counted = ?, expected = ?, closed_by = ? WHERE id = ? AND status = 'open'`,
		w.nowMS(), counted, expected, by, shiftID)
	return err
}

// ShiftForUpdate reads a shift's status and person (one writer: nothing
// to lock).
func (w *wtx) ShiftForUpdate(shiftID int64) (booking.ShiftStatus, string, bool, error) {
	var status booking.ShiftStatus
	var staff string
	err := w.queryRow(`SELECT status, staff FROM shifts WHERE id = ?`, shiftID).Scan(&status, &staff)
	if isNoRows(err) {
		return "", "", false, nil
	}
	return status, staff, err == nil, err
}

// ReopenShiftRow reopens a closed shift; the partial unique index on open
// shifts refuses it when its person has another open.
func (w *wtx) ReopenShiftRow(shiftID int64) (bool, error) {
	_, err := w.exec(`UPDATE shifts SET status = 'open', closed_at = NULL, counted = NULL, expected = NULL, closed_by = '' WHERE id = ? AND status = 'closed'`, shiftID)
	if isConstraint(err) {
		return false, nil
	}
	return err == nil, err
}

// ReadOpenShift reads a person's open shift on the read pool.
func (d driver) ReadOpenShift(ctx context.Context, staff string) (booking.Shift, bool, error) {
	sh, err := scanShift(d.s.readRow(ctx, qShiftOpenOf, staff))
	if isNoRows(err) {
		return booking.Shift{}, false, nil
	}
	if err != nil {
		return booking.Shift{}, false, d.s.translate("current shift", err)
	}
	return *sh, true, nil
}

// ReadShifts lists shifts newest first.
func (d driver) ReadShifts(ctx context.Context, staff string, open bool, limit int) ([]booking.Shift, error) {
	rows, err := d.s.readRows(ctx, qShiftList, staff, open, limit)
	if err != nil {
		return nil, d.s.translate("list shifts", err)
	}
	defer rows.Close()
	var out []booking.Shift
	for rows.Next() {
		sh, err := scanShift(rows)
		if err != nil {
			return nil, d.s.translate("list shifts", err)
		}
		out = append(out, *sh)
	}
	return out, d.s.translate("list shifts", rows.Err())
}

// ReadShiftRecord reads a shift, its sums and its events in one read
// transaction.
func (d driver) ReadShiftRecord(ctx context.Context, id int64) (store.ShiftRecord, bool, error) {
	rec, found, err := d.s.readShiftRecord(ctx, id)
	return rec, found, d.s.translate("shift report", err)
}

func (s *Store) readShiftRecord(ctx context.Context, id int64) (store.ShiftRecord, bool, error) {
	var rec store.ShiftRecord
	for _, q := range []string{qShiftByID, qShiftMoney, qShiftEvents} {
		if _, err := s.readStmt(ctx, q); err != nil {
			return rec, false, err
		}
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return rec, false, err
	}
	defer tx.Rollback()
	rows, err := s.txRows(ctx, tx, qShiftByID, id)
	if err != nil {
		return rec, false, err
	}
	var sh *booking.Shift
	if rows.Next() {
		sh, err = scanShift(rows)
	}
	rows.Close()
	if err != nil || sh == nil {
		return rec, false, err
	}
	rec.Shift = *sh
	if rows, err = s.txRows(ctx, tx, qShiftMoney, id); err != nil {
		return rec, false, err
	}
	for rows.Next() {
		var m store.ShiftMoney
		if err := rows.Scan(&m.Kind, &m.Method, &m.Sum, &m.N); err != nil {
			rows.Close()
			return rec, false, err
		}
		rec.Money = append(rec.Money, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return rec, false, err
	}
	if rows, err = s.txRows(ctx, tx, qShiftEvents, id); err != nil {
		return rec, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var e booking.ShiftEvent
		var at int64
		var counted, expected sql.NullInt64
		if err := rows.Scan(&e.Kind, &at, &e.By, &counted, &expected, &e.Breakdown, &e.Reason); err != nil {
			return rec, false, err
		}
		e.At, e.Counted, e.Expected = time.UnixMilli(at), booking.Money(counted.Int64), booking.Money(expected.Int64)
		rec.Events = append(rec.Events, e)
	}
	return rec, true, rows.Err()
}

// scanner is a *sql.Row, a row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanShift(r scanner) (*booking.Shift, error) {
	var sh booking.Shift
	var opened int64
	var closed, counted, expected sql.NullInt64
	if err := r.Scan(&sh.ID, &sh.Staff, &sh.Terminal, &sh.Status, &opened, &sh.Float, &closed, &counted, &expected, &sh.ClosedBy); err != nil {
		return nil, err
	}
	sh.OpenedAt = time.UnixMilli(opened)
	if closed.Valid {
		sh.ClosedAt = time.UnixMilli(closed.Int64)
	}
	sh.Counted, sh.Expected = booking.Money(counted.Int64), booking.Money(expected.Int64)
	return &sh, nil
}
