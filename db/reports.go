package db

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// The reports' reads (store.ReportReads) on the read pool: each one
// statement that finds its range through an index on time —
// payments_by_at (and payments_refunds_by_at for refunds), shows_by_start,
// shifts_by_opened — never by reading a table whole: the plan guard
// (plan_test.go) fails a report that scans one. SQLite is one site: a
// report of any other is refused (oneSite).

// qRefunds lists the refunds of a range.
const qRefunds = `SELECT p.at, b.number, f.title, h.name, s.starts_at, coalesce(se.label, ''), p.amount, p.method, p.staff,
	CASE WHEN p.approved_by <> '' THEN p.approved_by WHEN p.ticket_id IS NULL THEN b.approved_by ELSE '' END,
	coalesce(p.reason, b.reason)
	FROM payments p JOIN bookings b ON b.id = p.booking_id JOIN shows s ON s.id = b.show_id
	JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id
	LEFT JOIN tickets t ON t.id = p.ticket_id LEFT JOIN seats se ON se.id = t.seat_id
	WHERE p.kind = 'refund' AND p.at >= ? AND p.at < ? ORDER BY p.at, p.id`

// RefundLines reads the refunds of a window.
func (d driver) RefundLines(ctx context.Context, w store.ReportWindow) ([]store.RefundLine, error) {
	return reportRows(d, ctx, "refunds report", w, qRefunds, []any{w.From.UnixMilli(), w.To.UnixMilli()}, func(rows *sql.Rows) (store.RefundLine, error) {
		var l store.RefundLine
		var at, starts int64
		err := rows.Scan(&at, &l.Booking, &l.Show, &l.Hall, &starts, &l.Seat, &l.Amount, &l.Method, &l.By, &l.ApprovedBy, &l.Reason)
		l.At, l.Starts = time.UnixMilli(at), time.Unix(starts, 0)
		return l, err
	})
}

const (
	// qOccupancyShows is every show starting in a range with its seats
	// sold now (refunded and cancelled seats are free again).
	qOccupancyShows = `SELECT s.id, f.title, h.name, s.starts_at, s.capacity, s.sold
		FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id
		WHERE s.starts_at >= ? AND s.starts_at < ? ORDER BY s.starts_at, h.name`
	// qOccupancyHalls adds the shows of a range up per hall.
	qOccupancyHalls = `SELECT h.id, h.name, count(*), sum(s.capacity), sum(s.sold)
		FROM shows s JOIN halls h ON h.id = s.hall_id
		WHERE s.starts_at >= ? AND s.starts_at < ? GROUP BY h.id ORDER BY h.name`
)

// ShowSeats reads the shows of a window with their seats sold.
func (d driver) ShowSeats(ctx context.Context, w store.ReportWindow) ([]booking.OccupancyRow, error) {
	return reportRows(d, ctx, "occupancy report", w, qOccupancyShows, []any{w.From.Unix(), w.To.Unix()}, func(rows *sql.Rows) (booking.OccupancyRow, error) {
		var row booking.OccupancyRow
		var id, starts int64
		err := rows.Scan(&id, &row.Label, &row.Hall, &starts, &row.Capacity, &row.Sold)
		row.Key, row.Shows, row.Starts = strconv.FormatInt(id, 10), 1, time.Unix(starts, 0)
		return row, err
	})
}

// HallSeats adds a window's shows up per hall.
func (d driver) HallSeats(ctx context.Context, w store.ReportWindow) ([]booking.OccupancyRow, error) {
	return reportRows(d, ctx, "occupancy report", w, qOccupancyHalls, []any{w.From.Unix(), w.To.Unix()}, func(rows *sql.Rows) (booking.OccupancyRow, error) {
		var row booking.OccupancyRow
		var id int64
		err := rows.Scan(&id, &row.Label, &row.Shows, &row.Capacity, &row.Sold)
		row.Key, row.Hall = strconv.FormatInt(id, 10), row.Label
		return row, err
	})
}

// qShifts lists the shifts opened in a range with their cash, read from
// shift_money (migration 0026). opened_at and closed_at are unix
// milliseconds, like payments.at.
const qShifts = `SELECT sh.id, sh.staff, sh.terminal, sh.status, sh.opened_at, sh.closed_at, sh.float, sh.counted, sh.expected,
	(SELECT coalesce(sum(amount), 0) FROM shift_money WHERE shift_id = sh.id AND kind <> 'refund' AND method = 'cash'),
	(SELECT coalesce(sum(amount), 0) FROM shift_money WHERE shift_id = sh.id AND kind = 'refund' AND method = 'cash'),
	(SELECT coalesce(sum(CASE kind WHEN 'refund' THEN -amount ELSE amount END), 0) FROM shift_money WHERE shift_id = sh.id AND method = 'card')
	FROM shifts sh WHERE sh.opened_at >= ? AND sh.opened_at < ? ORDER BY sh.opened_at, sh.id`

// ShiftLines reads the shifts of a window with their money.
func (d driver) ShiftLines(ctx context.Context, w store.ReportWindow) ([]store.ShiftLine, error) {
	return reportRows(d, ctx, "shifts report", w, qShifts, []any{w.From.UnixMilli(), w.To.UnixMilli()}, func(rows *sql.Rows) (store.ShiftLine, error) {
		var l store.ShiftLine
		var opened int64
		var closed, counted, expected sql.NullInt64
		err := rows.Scan(&l.ID, &l.Staff, &l.Terminal, &l.Status, &opened, &closed, &l.Float, &counted, &expected, &l.CashSales, &l.CashRefunds, &l.Card)
		l.OpenedAt = time.UnixMilli(opened)
		if closed.Valid {
			at := time.UnixMilli(closed.Int64)
			l.ClosedAt = &at
		}
		if counted.Valid && expected.Valid {
			c, e := booking.Money(counted.Int64), booking.Money(expected.Int64)
			l.Counted, l.Recorded = &c, &e
		}
		return l, err
	})
}

// qNoShows lists the bookings marked no_show of the shows starting in a
// range, through bookings_no_show.
const qNoShows = `SELECT b.number, f.title, h.name, s.starts_at, b.customer, b.total,
	(SELECT count(*) FROM tickets t WHERE t.id BETWEEN b.id * 32 AND b.id * 32 + 31)
	FROM shows s JOIN bookings b ON b.show_id = s.id AND b.status = 'no_show'
	JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id
	WHERE s.starts_at >= ? AND s.starts_at < ? ORDER BY s.starts_at, h.name, b.id`

// NoShowLines reads the no-shows of a window's shows.
func (d driver) NoShowLines(ctx context.Context, w store.ReportWindow) ([]booking.NoShowRow, error) {
	return reportRows(d, ctx, "no-shows report", w, qNoShows, []any{w.From.Unix(), w.To.Unix()}, func(rows *sql.Rows) (booking.NoShowRow, error) {
		var row booking.NoShowRow
		var starts int64
		err := rows.Scan(&row.Booking, &row.Show, &row.Hall, &starts, &row.Customer, &row.Total, &row.Tickets)
		row.Starts = time.Unix(starts, 0)
		return row, err
	})
}

// reportRows runs one report query on the read pool and scans its rows.
func reportRows[T any](d driver, ctx context.Context, op string, w store.ReportWindow, query string, args []any, scan func(*sql.Rows) (T, error)) ([]T, error) {
	if err := oneSite(w.Site); err != nil {
		return nil, err
	}
	rows, err := d.s.readRows(ctx, query, args...)
	if err != nil {
		return nil, d.s.translate(op, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, d.s.translate(op, err)
		}
		out = append(out, v)
	}
	return out, d.s.translate(op, rows.Err())
}

// inReport runs fn in one read transaction on the read pool, with queries
// prepared first: preparing on the pool while every connection sits in
// such a transaction would wait for ever (see ReadBookings).
func (s *Store) inReport(ctx context.Context, queries []string, fn func(tx *sql.Tx) error) error {
	for _, q := range queries {
		if _, err := s.readStmt(ctx, q); err != nil {
			return fmt.Errorf("prepare report: %w", err)
		}
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}
