package db

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"boxoffice/booking"
)

// A shift is one person's drawer. Every cash payment names the open shift
// of whoever took it (migration 0014 refuses one that does not); a card
// payment names it when one is open. Expected cash is worked out from the
// payments, never kept as a running figure that could drift from them.

const (
	qOpenShiftOf = `SELECT id FROM shifts WHERE staff = ? AND status = 'open'`
	qShiftRow    = `SELECT id, staff, terminal, status, opened_at, float, closed_at, counted, expected, closed_by FROM shifts`
	qShiftByID   = qShiftRow + ` WHERE id = ?`
	qShiftOpenOf = qShiftRow + ` WHERE staff = ? AND status = 'open'`
	qShiftList   = qShiftRow + ` WHERE (?1 = '' OR staff = ?1) AND (?2 = 0 OR status = 'open') ORDER BY id DESC LIMIT ?3`
	qShiftMoney  = `SELECT kind, method, amount, n FROM shift_money WHERE shift_id = ?`
	qShiftCash   = `SELECT coalesce(sum(CASE kind WHEN 'sale' THEN amount ELSE -amount END), 0) FROM shift_money WHERE shift_id = ? AND method = 'cash'`
	qShiftEvents = `SELECT kind, at, by, counted, expected, breakdown, reason FROM shift_events WHERE shift_id = ? ORDER BY id`
)

// shiftFor returns the shift a payment of method by actor belongs to: the
// actor's open shift, or for cash with a float given one opened now, in
// this transaction. A card payment with no shift open belongs to none (0).
func shiftFor(w *wtx, actor booking.Actor, method booking.PayMethod, openFloat *booking.Money) (int64, error) {
	var id int64
	err := w.queryRow(qOpenShiftOf, actor.Name).Scan(&id)
	switch {
	case err == nil:
		return id, nil
	case !isNoRows(err):
		return 0, err
	case method != booking.Cash:
		return 0, nil
	case openFloat == nil:
		return 0, booking.ErrNoShift
	}
	sh, err := openShift(w, actor, *openFloat)
	if err != nil {
		return 0, err
	}
	return sh.ID, nil
}

// openShift opens actor's shift with float, with its event and audit row.
func openShift(w *wtx, actor booking.Actor, float booking.Money) (*booking.Shift, error) {
	sh := &booking.Shift{Staff: actor.Name, Terminal: actor.Terminal, Status: booking.ShiftOpen, OpenedAt: w.now, Float: float}
	err := w.queryRow(`INSERT INTO shifts (staff, staff_id, terminal, status, opened_at, float) VALUES (?, ?, ?, 'open', ?, ?) RETURNING id`,
		actor.Name, nullID(actor.StaffID), actor.Terminal, w.nowMS(), float).Scan(&sh.ID)
	if isConstraint(err) {
		return nil, booking.Errorf(booking.EConflict, "%s has a shift open already; close it first.", actor.Name)
	}
	if err != nil {
		return nil, err
	}
	if _, err := w.exec(`INSERT INTO shift_events (shift_id, kind, at, by, counted) VALUES (?, 'open', ?, ?, ?)`, sh.ID, w.nowMS(), actor.Name, float); err != nil {
		return nil, err
	}
	return sh, w.audit(actor, booking.AuditEntry{Action: booking.AuditShiftOpen, ShiftID: sh.ID, Amount: float, Detail: "float " + float.String()}, 0)
}

// OpenShift opens the actor's shift with the float counted into the drawer.
func (s *Store) OpenShift(ctx context.Context, actor booking.Actor, req booking.OpenShiftRequest) (*booking.Shift, error) {
	if err := booking.Authorize(actor, booking.ActionShift); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	return write(s, ctx, actor, "open shift", func(w *wtx) (*booking.Shift, error) {
		return openShift(w, actor, req.Float)
	})
}

// CurrentShift returns the actor's open shift.
func (s *Store) CurrentShift(ctx context.Context, actor booking.Actor) (*booking.Shift, error) {
	if err := booking.Authorize(actor, booking.ActionShift); err != nil {
		return nil, err
	}
	sh, err := scanShift(s.readRow(ctx, qShiftOpenOf, actor.Name))
	if isNoRows(err) {
		return nil, booking.Errorf(booking.ENotFound, "%s has no shift open.", actor.Name)
	}
	return sh, s.translate("current shift", err)
}

// CloseShift closes the actor's open shift with the blind count and
// returns the Z report. The expected figure is worked out inside the
// transaction, so a sale committed just before is in it and one just after
// is refused for want of a shift.
func (s *Store) CloseShift(ctx context.Context, actor booking.Actor, req booking.CloseShiftRequest) (*booking.ShiftReport, error) {
	if err := booking.Authorize(actor, booking.ActionShift); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	breakdown := booking.CleanLine(req.Breakdown, 200)
	id, err := write(s, ctx, actor, "close shift", func(w *wtx) (int64, error) {
		var id int64
		var float booking.Money
		err := w.queryRow(`SELECT id, float FROM shifts WHERE staff = ? AND status = 'open'`, actor.Name).Scan(&id, &float)
		if isNoRows(err) {
			return 0, booking.Errorf(booking.ENotFound, "%s has no shift open.", actor.Name)
		}
		if err != nil {
			return 0, err
		}
		var cash booking.Money
		if err := w.queryRow(qShiftCash, id).Scan(&cash); err != nil {
			return 0, err
		}
		expected := float + cash
		if _, err := w.exec(`UPDATE shifts SET status = 'closed', closed_at = ?, counted = ?, expected = ?, closed_by = ? WHERE id = ? AND status = 'open'`,
			w.nowMS(), req.Counted, expected, actor.Name, id); err != nil {
			return 0, err
		}
		if _, err := w.exec(`INSERT INTO shift_events (shift_id, kind, at, by, counted, expected, breakdown) VALUES (?, 'close', ?, ?, ?, ?, ?)`,
			id, w.nowMS(), actor.Name, req.Counted, expected, breakdown); err != nil {
			return 0, err
		}
		detail := "counted " + req.Counted.String() + ", expected " + expected.String()
		return id, w.audit(actor, booking.AuditEntry{Action: booking.AuditShiftClose, ShiftID: id, Amount: req.Counted, Detail: detail}, 0)
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
	if !sameStaff(r.Shift.Staff, actor.Name) {
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
	open := 0
	if q.Open {
		open = 1
	}
	rows, err := s.readRows(ctx, qShiftList, staff, open, limit)
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
// closed with stays in its close event.
func (s *Store) ReopenShift(ctx context.Context, actor booking.Actor, req booking.ReopenShiftRequest) (*booking.Shift, error) {
	if err := booking.Authorize(actor, booking.ActionReopenShift); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	reason := booking.CleanLine(req.Reason, 200)
	_, err := write(s, ctx, actor, "reopen shift", func(w *wtx) (struct{}, error) {
		var status booking.ShiftStatus
		var staff string
		err := w.queryRow(`SELECT status, staff FROM shifts WHERE id = ?`, req.ID).Scan(&status, &staff)
		if isNoRows(err) {
			return struct{}{}, booking.Errorf(booking.ENotFound, "No shift %d.", req.ID)
		}
		if err != nil {
			return struct{}{}, err
		}
		if status != booking.ShiftClosed {
			return struct{}{}, booking.Errorf(booking.EConflict, "Shift %d is open already.", req.ID)
		}
		_, err = w.exec(`UPDATE shifts SET status = 'open', closed_at = NULL, counted = NULL, expected = NULL, closed_by = '' WHERE id = ? AND status = 'closed'`, req.ID)
		if isConstraint(err) {
			return struct{}{}, booking.Errorf(booking.EConflict, "%s has another shift open; close it before reopening shift %d.", booking.CleanLine(staff, 40), req.ID)
		}
		if err != nil {
			return struct{}{}, err
		}
		if _, err := w.exec(`INSERT INTO shift_events (shift_id, kind, at, by, reason) VALUES (?, 'reopen', ?, ?, ?)`, req.ID, w.nowMS(), actor.Name, reason); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, w.audit(actor, booking.AuditEntry{Action: booking.AuditShiftReopen, ShiftID: req.ID, Detail: reason}, 0)
	})
	if err != nil {
		return nil, err
	}
	sh, err := scanShift(s.readRow(ctx, qShiftByID, req.ID))
	return sh, s.translate("reopen shift", err)
}

// shiftReport reads a shift, its money and its events in one read
// transaction.
func (s *Store) shiftReport(ctx context.Context, id int64) (*booking.ShiftReport, error) {
	for _, q := range []string{qShiftByID, qShiftMoney, qShiftEvents} {
		if _, err := s.readStmt(ctx, q); err != nil {
			return nil, s.translate("shift report", err)
		}
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, s.translate("shift report", err)
	}
	defer tx.Rollback()
	rows, err := s.txRows(ctx, tx, qShiftByID, id)
	if err != nil {
		return nil, s.translate("shift report", err)
	}
	var sh *booking.Shift
	if rows.Next() {
		sh, err = scanShift(rows)
	}
	rows.Close()
	if err != nil {
		return nil, s.translate("shift report", err)
	}
	if sh == nil {
		return nil, booking.Errorf(booking.ENotFound, "No shift %d.", id)
	}
	r := &booking.ShiftReport{Shift: *sh, Final: sh.Status == booking.ShiftClosed}
	if err := s.readShiftMoney(ctx, tx, r); err != nil {
		return nil, s.translate("shift report", err)
	}
	if err := s.readShiftEvents(ctx, tx, r); err != nil {
		return nil, s.translate("shift report", err)
	}
	r.Expected = sh.Float + r.CashSales - r.CashRefunds
	if r.Final {
		// The figure the close recorded, which is what the clerk was shown.
		r.Expected, r.Counted, r.Variance = sh.Expected, sh.Counted, sh.Variance()
	}
	return r, nil
}

func (s *Store) readShiftMoney(ctx context.Context, tx *sql.Tx, r *booking.ShiftReport) error {
	rows, err := s.txRows(ctx, tx, qShiftMoney, r.Shift.ID)
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

func (s *Store) readShiftEvents(ctx context.Context, tx *sql.Tx, r *booking.ShiftReport) error {
	rows, err := s.txRows(ctx, tx, qShiftEvents, r.Shift.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e booking.ShiftEvent
		var at int64
		var counted, expected sql.NullInt64
		if err := rows.Scan(&e.Kind, &at, &e.By, &counted, &expected, &e.Breakdown, &e.Reason); err != nil {
			return err
		}
		e.At, e.Counted, e.Expected = time.UnixMilli(at), booking.Money(counted.Int64), booking.Money(expected.Int64)
		if e.Kind == "close" {
			r.Breakdown = e.Breakdown
		}
		r.Events = append(r.Events, e)
	}
	return rows.Err()
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

// sameStaff compares staff names as the shifts table does (NOCASE).
func sameStaff(a, b string) bool { return strings.EqualFold(a, b) }
