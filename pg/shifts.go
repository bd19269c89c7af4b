package pg

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"boxoffice/booking"
)

// A shift is one person's drawer (db/shifts.go). Every cash payment names
// the open shift of whoever took it (0001's CHECK refuses one that does
// not, 0003's trigger one whose shift is closed); a card payment names it
// when one is open. Expected cash is summed from the payments, never kept
// as a running figure that could drift from them. Shifts follow the
// person, whose name compares without case as on SQLite.

// Store keeps booking.Shifts whole on PostgreSQL.
var _ booking.Shifts = (*Store)(nil)

const (
	qShiftRow    = `SELECT id, staff, terminal, status, opened_at, float, closed_at, counted, expected, closed_by FROM shifts`
	qShiftByID   = qShiftRow + ` WHERE id = $1`
	qShiftOpenOf = qShiftRow + ` WHERE lower(staff) = lower($1) AND status = 'open'`
	qShiftList   = qShiftRow + ` WHERE ($1 = '' OR lower(staff) = lower($1)) AND (NOT $2 OR status = 'open') ORDER BY id DESC LIMIT $3`
	qShiftMoney  = `SELECT kind, method, coalesce(sum(amount), 0), count(*) FROM payments WHERE shift_id = $1 GROUP BY kind, method`
	qShiftCash   = `SELECT coalesce(sum(CASE kind WHEN 'sale' THEN amount ELSE -amount END), 0) FROM payments WHERE shift_id = $1 AND method = 'cash'`
	qShiftEvents = `SELECT kind, at, by, counted, expected, breakdown, reason FROM shift_events WHERE shift_id = $1 ORDER BY id`
)

// shiftFor returns the shift a payment of method by actor belongs to: the
// actor's open shift, or for cash with a float given one opened now, in
// t. A card payment with no shift open belongs to none (0).
func shiftFor(t *tx, actor booking.Actor, method booking.PayMethod, openFloat *booking.Money) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `SELECT id FROM shifts WHERE lower(staff) = lower($1) AND status = 'open'`, actor.Name).Scan(&id)
	switch {
	case err == nil:
		return id, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return 0, err
	case method != booking.Cash:
		return 0, nil
	case openFloat == nil:
		return 0, booking.ErrNoShift
	}
	return openShift(t, actor, *openFloat)
}

// CurrentShift returns the actor's open shift.
func (s *Store) CurrentShift(ctx context.Context, actor booking.Actor) (*booking.Shift, error) {
	if err := booking.Authorize(actor, booking.ActionShift); err != nil {
		return nil, err
	}
	sh, err := scanShift(s.pool.QueryRow(ctx, qShiftOpenOf, actor.Name))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, booking.Errorf(booking.ENotFound, "%s has no shift open.", actor.Name)
	}
	return sh, s.translate("current shift", err)
}

// CloseShift closes the actor's open shift with the blind count and
// returns the Z report. READ COMMITTED: the shift's row is locked FOR
// UPDATE first, then its cash is summed by a statement that starts after
// the lock was granted, so every payment that locked the shift FOR SHARE
// before (0003's payments_shift_open) has committed and is in the sum,
// and every later one finds the shift closed.
func (s *Store) CloseShift(ctx context.Context, actor booking.Actor, req booking.CloseShiftRequest) (*booking.ShiftReport, error) {
	if err := booking.Authorize(actor, booking.ActionShift); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	breakdown := booking.CleanLine(req.Breakdown, 200)
	id, err := inTx(s, ctx, "close shift", txMode{iso: pgx.ReadCommitted}, func(t *tx) (int64, error) {
		if err := checkActor(t, actor); err != nil {
			return 0, err
		}
		var id int64
		var float booking.Money
		err := t.QueryRow(t.ctx, `SELECT id, float FROM shifts WHERE lower(staff) = lower($1) AND status = 'open' FOR UPDATE`, actor.Name).Scan(&id, &float)
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, booking.Errorf(booking.ENotFound, "%s has no shift open.", actor.Name)
		}
		if err != nil {
			return 0, err
		}
		var cash booking.Money
		if err := t.QueryRow(t.ctx, qShiftCash, id).Scan(&cash); err != nil {
			return 0, err
		}
		expected := float + cash
		if _, err := t.Exec(t.ctx, `UPDATE shifts SET status = 'closed', closed_at = $1, counted = $2, expected = $3, closed_by = $4 WHERE id = $5 AND status = 'open'`,
			t.nowMS(), req.Counted, expected, actor.Name, id); err != nil {
			return 0, err
		}
		if _, err := t.Exec(t.ctx, `INSERT INTO shift_events (shift_id, kind, at, by, counted, expected, breakdown) VALUES ($1, 'close', $2, $3, $4, $5, $6)`,
			id, t.nowMS(), actor.Name, req.Counted, expected, breakdown); err != nil {
			return 0, err
		}
		detail := "counted " + req.Counted.String() + ", expected " + expected.String()
		return id, audit(t, actor, booking.AuditEntry{Action: booking.AuditShiftClose, ShiftID: id, Amount: req.Counted, Detail: detail}, 0)
	})
	if err != nil {
		return nil, err
	}
	return s.shiftReport(ctx, id)
}

// ShiftReport reports on one shift: X while open, Z once closed.
func (s *Store) ShiftReport(ctx context.Context, actor booking.Actor, id int64) (*booking.ShiftReport, error) {
	if err := booking.Authorize(actor, booking.ActionShift); err != nil {
		return nil, err
	}
	r, err := s.shiftReport(ctx, id)
	if err != nil {
		return nil, err
	}
	if !strings.EqualFold(r.Shift.Staff, actor.Name) {
		if err := booking.Authorize(actor, booking.ActionReopenShift); err != nil {
			return nil, booking.Errorf(booking.EForbidden, "Shift %d is %s's; a supervisor may see it.", id, booking.CleanLine(r.Shift.Staff, 40))
		}
	}
	return r, nil
}

// ListShifts lists shifts newest first: the actor's own, or anyone's for
// a supervisor.
func (s *Store) ListShifts(ctx context.Context, actor booking.Actor, q booking.ShiftQuery) ([]booking.Shift, error) {
	if err := booking.Authorize(actor, booking.ActionShift); err != nil {
		return nil, err
	}
	staff := booking.CleanLine(q.Staff, 40)
	if booking.Authorize(actor, booking.ActionReopenShift) != nil {
		staff = actor.Name
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	rows, err := s.pool.Query(ctx, qShiftList, staff, q.Open, limit)
	if err != nil {
		return nil, s.translate("list shifts", err)
	}
	defer rows.Close()
	var out []booking.Shift
	for rows.Next() {
		sh, err := scanShift(rows)
		if err != nil {
			return nil, s.translate("list shifts", err)
		}
		out = append(out, *sh)
	}
	return out, s.translate("list shifts", rows.Err())
}

// ReopenShift reopens a closed shift with a reason; the count it was
// closed with stays in its close event. READ COMMITTED: the move
// closed -> open is a compare-and-set, and shifts_one_open refuses it
// when the person has another shift open.
func (s *Store) ReopenShift(ctx context.Context, actor booking.Actor, req booking.ReopenShiftRequest) (*booking.Shift, error) {
	if err := booking.Authorize(actor, booking.ActionReopenShift); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	reason := booking.CleanLine(req.Reason, 200)
	_, err := inTx(s, ctx, "reopen shift", txMode{iso: pgx.ReadCommitted}, func(t *tx) (struct{}, error) {
		return struct{}{}, reopenShift(t, actor, req.ID, reason)
	})
	if err != nil {
		return nil, err
	}
	sh, err := scanShift(s.pool.QueryRow(ctx, qShiftByID, req.ID))
	return sh, s.translate("reopen shift", err)
}

// reopenShift is ReopenShift's transaction.
func reopenShift(t *tx, actor booking.Actor, id int64, reason string) error {
	if err := checkActor(t, actor); err != nil {
		return err
	}
	var status booking.ShiftStatus
	var staff string
	err := t.QueryRow(t.ctx, `SELECT status, staff FROM shifts WHERE id = $1 FOR UPDATE`, id).Scan(&status, &staff)
	if errors.Is(err, pgx.ErrNoRows) {
		return booking.Errorf(booking.ENotFound, "No shift %d.", id)
	}
	if err != nil {
		return err
	}
	if status != booking.ShiftClosed {
		return booking.Errorf(booking.EConflict, "Shift %d is open already.", id)
	}
	_, err = t.Exec(t.ctx, `UPDATE shifts SET status = 'open', closed_at = NULL, counted = NULL, expected = NULL, closed_by = '' WHERE id = $1 AND status = 'closed'`, id)
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "23505" {
		return booking.Errorf(booking.EConflict, "%s has another shift open; close it before reopening shift %d.", booking.CleanLine(staff, 40), id)
	}
	if err != nil {
		return err
	}
	if _, err := t.Exec(t.ctx, `INSERT INTO shift_events (shift_id, kind, at, by, reason) VALUES ($1, 'reopen', $2, $3, $4)`, id, t.nowMS(), actor.Name, reason); err != nil {
		return err
	}
	return audit(t, actor, booking.AuditEntry{Action: booking.AuditShiftReopen, ShiftID: id, Detail: reason}, 0)
}

// shiftReport reads a shift, its money and its events in one read-only
// REPEATABLE READ transaction, so the three agree.
func (s *Store) shiftReport(ctx context.Context, id int64) (*booking.ShiftReport, error) {
	var r *booking.ShiftReport
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		sh, err := scanShift(tx.QueryRow(ctx, qShiftByID, id))
		if err != nil {
			return err
		}
		r = &booking.ShiftReport{Shift: *sh, Final: sh.Status == booking.ShiftClosed}
		if err := readShiftMoney(ctx, tx, r); err != nil {
			return err
		}
		return readShiftEvents(ctx, tx, r)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, booking.Errorf(booking.ENotFound, "No shift %d.", id)
	}
	if err != nil {
		return nil, s.translate("shift report", err)
	}
	r.Expected = r.Shift.Float + r.CashSales - r.CashRefunds
	if r.Final {
		// The figure the close recorded, which is what the clerk was shown.
		r.Expected, r.Counted, r.Variance = r.Shift.Expected, r.Shift.Counted, r.Shift.Variance()
	}
	return r, nil
}

func readShiftMoney(ctx context.Context, tx pgx.Tx, r *booking.ShiftReport) error {
	rows, err := tx.Query(ctx, qShiftMoney, r.Shift.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var kind booking.PaymentKind
		var method booking.PayMethod
		var sum booking.Money
		var n int
		if err := rows.Scan(&kind, &method, &sum, &n); err != nil {
			return err
		}
		switch {
		case kind == booking.PaymentSale && method == booking.Cash:
			r.CashSales, r.Sales = r.CashSales+sum, r.Sales+n
		case kind == booking.PaymentSale:
			r.CardSales, r.Sales = r.CardSales+sum, r.Sales+n
		case method == booking.Cash:
			r.CashRefunds, r.Refunds = r.CashRefunds+sum, r.Refunds+n
		default:
			r.CardRefunds, r.Refunds = r.CardRefunds+sum, r.Refunds+n
		}
	}
	return rows.Err()
}

func readShiftEvents(ctx context.Context, tx pgx.Tx, r *booking.ShiftReport) error {
	rows, err := tx.Query(ctx, qShiftEvents, r.Shift.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e booking.ShiftEvent
		var at int64
		var counted, expected *int64
		if err := rows.Scan(&e.Kind, &at, &e.By, &counted, &expected, &e.Breakdown, &e.Reason); err != nil {
			return err
		}
		e.At, e.Counted, e.Expected = time.UnixMilli(at), booking.Money(deref(counted)), booking.Money(deref(expected))
		if e.Kind == "close" {
			r.Breakdown = e.Breakdown
		}
		r.Events = append(r.Events, e)
	}
	return rows.Err()
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
