package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"boxoffice/booking"
	"boxoffice/store"
)

// Shifts on PostgreSQL. A person's name compares without case
// (lower(staff), which shifts_one_open indexes); 0001's CHECK refuses a
// cash payment without a shift and 0003's trigger one whose shift is
// closed, locking the shift FOR SHARE, which the close's FOR UPDATE waits
// for.

const (
	qShiftRow    = `SELECT id, staff, terminal, status, opened_at, float, closed_at, counted, expected, closed_by FROM shifts`
	qShiftByID   = qShiftRow + ` WHERE id = $1`
	qShiftOpenOf = qShiftRow + ` WHERE lower(staff) = lower($1) AND status = 'open'`
	qShiftList   = qShiftRow + ` WHERE ($1 = '' OR lower(staff) = lower($1)) AND (NOT $2 OR status = 'open') ORDER BY id DESC LIMIT $3`
	qShiftMoney  = `SELECT kind, method, coalesce(sum(amount), 0), count(*) FROM ` + shiftPayments + ` sp WHERE shift_id = $1 GROUP BY kind, method`
	qShiftEvents = `SELECT kind, at, by, counted, expected, breakdown, reason FROM shift_events WHERE shift_id = $1 ORDER BY id`
)

// OpenShiftID reads the id of a person's open shift.
func (t *tx) OpenShiftID(staff string) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `SELECT coalesce((SELECT id FROM shifts WHERE lower(staff) = lower($1) AND status = 'open'), 0)`, staff).Scan(&id)
	return id, err
}

// InsertShift opens a shift at its site (the trigger shift_site prefers
// the registered terminal's, then the person's); shifts_one_open skips a
// second, ON CONFLICT DO NOTHING, so the transaction lives on.
func (t *tx) InsertShift(sh store.NewShift) (int64, bool, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO shifts (staff, staff_id, terminal, status, opened_at, float, site_id) VALUES ($1, $2, $3, 'open', $4, $5, $6)
		ON CONFLICT DO NOTHING RETURNING id`, sh.Staff, nullID(sh.StaffID), sh.Terminal, t.nowMS(), sh.Float, sh.Site).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// InsertShiftEvent appends one event to a shift's history.
func (t *tx) InsertShiftEvent(shiftID int64, e store.ShiftEventRow) error {
	_, err := t.Exec(t.ctx, `INSERT INTO shift_events (shift_id, kind, at, by, counted, expected, breakdown, reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		shiftID, e.Kind, e.At.UnixMilli(), e.By, e.Counted, e.Expected, e.Breakdown, e.Reason)
	return err
}

// OpenShiftForUpdate reads a person's open shift FOR UPDATE: the lock
// waits for every payment that locked it FOR SHARE (0003's
// payments_shift_open), so the cash summed by a later statement has them
// all, and every later payment finds the shift closed.
func (t *tx) OpenShiftForUpdate(staff string) (int64, booking.Money, bool, error) {
	var id int64
	var float booking.Money
	err := t.QueryRow(t.ctx, `SELECT id, float FROM shifts WHERE lower(staff) = lower($1) AND status = 'open' FOR UPDATE`, staff).Scan(&id, &float)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, false, nil
	}
	return id, float, err == nil, err
}

// ShiftCash sums the cash of a shift's payments, its items' too.
func (t *tx) ShiftCash(shiftID int64) (booking.Money, error) {
	var cash booking.Money
	err := t.QueryRow(t.ctx, `SELECT coalesce(sum(CASE kind WHEN 'refund' THEN -amount ELSE amount END), 0) FROM `+shiftPayments+` sp WHERE shift_id = $1 AND method = 'cash'`, shiftID).Scan(&cash)
	return cash, err
}

// CloseShiftRow closes an open shift.
func (t *tx) CloseShiftRow(shiftID int64, counted, expected booking.Money, by string) error {
	_, err := t.Exec(t.ctx, `UPDATE shifts SET status = 'closed', closed_at = $1, counted = $2, expected = $3, closed_by = $4 WHERE id = $5 AND status = 'open'`,
		t.nowMS(), counted, expected, by, shiftID)
	return err
}

// ShiftForUpdate reads a shift's status and person FOR UPDATE.
func (t *tx) ShiftForUpdate(shiftID int64) (booking.ShiftStatus, string, bool, error) {
	var status booking.ShiftStatus
	var staff string
	err := t.QueryRow(t.ctx, `SELECT status, staff FROM shifts WHERE id = $1 FOR UPDATE`, shiftID).Scan(&status, &staff)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", false, nil
	}
	return status, staff, err == nil, err
}

// ReopenShiftRow reopens a closed shift; shifts_one_open refuses it when
// its person has another open.
func (t *tx) ReopenShiftRow(shiftID int64) (bool, error) {
	_, err := t.Exec(t.ctx, `UPDATE shifts SET status = 'open', closed_at = NULL, counted = NULL, expected = NULL, closed_by = '' WHERE id = $1 AND status = 'closed'`, shiftID)
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "23505" {
		return false, nil
	}
	return err == nil, err
}

// ReadOpenShift reads a person's open shift.
func (d driver) ReadOpenShift(ctx context.Context, staff string) (booking.Shift, bool, error) {
	sh, err := scanShift(d.s.pool.QueryRow(ctx, qShiftOpenOf, staff))
	if errors.Is(err, pgx.ErrNoRows) {
		return booking.Shift{}, false, nil
	}
	if err != nil {
		return booking.Shift{}, false, d.s.translate("current shift", err)
	}
	return *sh, true, nil
}

// ReadShifts lists shifts newest first.
func (d driver) ReadShifts(ctx context.Context, staff string, open bool, limit int) ([]booking.Shift, error) {
	rows, err := d.s.pool.Query(ctx, qShiftList, staff, open, limit)
	if err != nil {
		return nil, d.s.translate("list shifts", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Shift, error) {
		sh, err := scanShift(r)
		if err != nil {
			return booking.Shift{}, err
		}
		return *sh, nil
	})
	return out, d.s.translate("list shifts", err)
}

// ReadShiftRecord reads a shift, its sums and its events in one read-only
// REPEATABLE READ transaction, so the three agree.
func (d driver) ReadShiftRecord(ctx context.Context, id int64) (store.ShiftRecord, bool, error) {
	var rec store.ShiftRecord
	err := pgx.BeginTxFunc(ctx, d.s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		sh, err := scanShift(tx.QueryRow(ctx, qShiftByID, id))
		if err != nil {
			return err
		}
		rec.Shift = *sh
		rows, err := tx.Query(ctx, qShiftMoney, id)
		if err != nil {
			return err
		}
		if rec.Money, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.ShiftMoney, error) {
			var m store.ShiftMoney
			return m, r.Scan(&m.Kind, &m.Method, &m.Sum, &m.N)
		}); err != nil {
			return err
		}
		if rows, err = tx.Query(ctx, qShiftEvents, id); err != nil {
			return err
		}
		rec.Events, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.ShiftEvent, error) {
			var e booking.ShiftEvent
			var at int64
			var counted, expected *int64
			err := r.Scan(&e.Kind, &at, &e.By, &counted, &expected, &e.Breakdown, &e.Reason)
			e.At, e.Counted, e.Expected = time.UnixMilli(at), booking.Money(deref(counted)), booking.Money(deref(expected))
			return e, err
		})
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return rec, false, nil
	}
	return rec, err == nil, d.s.translate("shift report", err)
}

func scanShift(r pgx.Row) (*booking.Shift, error) {
	var sh booking.Shift
	var opened int64
	var closed, counted, expected *int64
	if err := r.Scan(&sh.ID, &sh.Staff, &sh.Terminal, &sh.Status, &opened, &sh.Float, &closed, &counted, &expected, &sh.ClosedBy); err != nil {
		return nil, err
	}
	sh.OpenedAt = time.UnixMilli(opened)
	if closed != nil {
		sh.ClosedAt = time.UnixMilli(*closed)
	}
	sh.Counted, sh.Expected = booking.Money(deref(counted)), booking.Money(deref(expected))
	return &sh, nil
}

// deref is a nullable column's value, 0 for NULL.
func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
