package pg

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// The reports' reads (store.ReportReads) on PostgreSQL: each one
// statement (its own snapshot under READ COMMITTED) that finds its range
// through an index on time (payments_by_at, shows_by_start, the shifts'
// opened_at). What SQLite keeps as running figures (a show's sold count,
// a shift's money) is counted here from the claims and the payments. A
// window's Site keeps a report to one site: a payment or a show by its
// hall's site, a shift by the site it was opened at (0006_sites.sql).

const pqRefunds = `SELECT p.at, b.number, f.title, h.name, s.starts_at, coalesce(se.label, ''), p.amount, p.method, p.staff,
	CASE WHEN p.approved_by <> '' THEN p.approved_by WHEN p.ticket_id IS NULL THEN b.approved_by ELSE '' END,
	coalesce(p.reason, b.reason)
	FROM payments p JOIN bookings b ON b.id = p.booking_id JOIN shows s ON s.id = b.show_id
	JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id
	LEFT JOIN tickets t ON t.id = p.ticket_id LEFT JOIN seats se ON se.id = t.seat_id
	WHERE p.kind = 'refund' AND p.at >= $1 AND p.at < $2 AND ($3::bigint = 0 OR h.site_id = $3) ORDER BY p.at, p.id`

// RefundLines reads the refunds of a window.
func (d driver) RefundLines(ctx context.Context, w store.ReportWindow) ([]store.RefundLine, error) {
	return reportRows(d, ctx, "refunds report", pqRefunds, []any{w.From.UnixMilli(), w.To.UnixMilli(), w.Site}, func(rows pgx.Rows) (store.RefundLine, error) {
		var l store.RefundLine
		var at, starts int64
		err := rows.Scan(&at, &l.Booking, &l.Show, &l.Hall, &starts, &l.Seat, &l.Amount, &l.Method, &l.By, &l.ApprovedBy, &l.Reason)
		l.At, l.Starts = time.UnixMilli(at), time.Unix(starts, 0)
		return l, err
	})
}

// soldOf counts a show's sold seats from its claims.
const soldOf = `(SELECT count(*) FROM seat_claims c WHERE c.show_id = s.id AND c.status IN ('held', 'sold') AND c.status = 'sold')`

var (
	pqOccupancyShows = `SELECT s.id, f.title, h.name, s.starts_at, s.capacity, ` + soldOf + `
		FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id
		WHERE s.starts_at >= $1 AND s.starts_at < $2 AND ($3::bigint = 0 OR h.site_id = $3) ORDER BY s.starts_at, h.name`
	pqOccupancyHalls = `SELECT h.id, h.name, count(*), sum(s.capacity), sum(` + soldOf + `)
		FROM shows s JOIN halls h ON h.id = s.hall_id
		WHERE s.starts_at >= $1 AND s.starts_at < $2 AND ($3::bigint = 0 OR h.site_id = $3) GROUP BY h.id, h.name ORDER BY h.name`
)

// ShowSeats reads the shows of a window with their seats sold.
func (d driver) ShowSeats(ctx context.Context, w store.ReportWindow) ([]booking.OccupancyRow, error) {
	return reportRows(d, ctx, "occupancy report", pqOccupancyShows, []any{w.From.Unix(), w.To.Unix(), w.Site}, func(rows pgx.Rows) (booking.OccupancyRow, error) {
		var row booking.OccupancyRow
		var id, starts, sold int64
		err := rows.Scan(&id, &row.Label, &row.Hall, &starts, &row.Capacity, &sold)
		row.Key, row.Shows, row.Starts, row.Sold = strconv.FormatInt(id, 10), 1, time.Unix(starts, 0), int(sold)
		return row, err
	})
}

// HallSeats adds a window's shows up per hall.
func (d driver) HallSeats(ctx context.Context, w store.ReportWindow) ([]booking.OccupancyRow, error) {
	return reportRows(d, ctx, "occupancy report", pqOccupancyHalls, []any{w.From.Unix(), w.To.Unix(), w.Site}, func(rows pgx.Rows) (booking.OccupancyRow, error) {
		var row booking.OccupancyRow
		var id, shows, capacity, sold int64
		err := rows.Scan(&id, &row.Label, &shows, &capacity, &sold)
		row.Key, row.Hall, row.Shows, row.Capacity, row.Sold = strconv.FormatInt(id, 10), row.Label, int(shows), int(capacity), int(sold)
		return row, err
	})
}

// pqShifts lists the shifts opened in a range with their cash, summed from
// their payments and their items' (SQLite reads its running shift_money).
const pqShifts = `SELECT sh.id, sh.staff, sh.terminal, sh.status, sh.opened_at, sh.closed_at, sh.float, sh.counted, sh.expected,
	(SELECT coalesce(sum(amount), 0) FROM ` + shiftPayments + ` sp WHERE shift_id = sh.id AND kind <> 'refund' AND method = 'cash'),
	(SELECT coalesce(sum(amount), 0) FROM ` + shiftPayments + ` sp WHERE shift_id = sh.id AND kind = 'refund' AND method = 'cash'),
	(SELECT coalesce(sum(CASE kind WHEN 'refund' THEN -amount ELSE amount END), 0) FROM ` + shiftPayments + ` sp WHERE shift_id = sh.id AND method = 'card')
	FROM shifts sh WHERE sh.opened_at >= $1 AND sh.opened_at < $2 AND ($3::bigint = 0 OR sh.site_id = $3) ORDER BY sh.opened_at, sh.id`

// ShiftLines reads the shifts of a window with their money.
func (d driver) ShiftLines(ctx context.Context, w store.ReportWindow) ([]store.ShiftLine, error) {
	return reportRows(d, ctx, "shifts report", pqShifts, []any{w.From.UnixMilli(), w.To.UnixMilli(), w.Site}, func(rows pgx.Rows) (store.ShiftLine, error) {
		var l store.ShiftLine
		var opened int64
		var closed, counted, expected *int64
		err := rows.Scan(&l.ID, &l.Staff, &l.Terminal, &l.Status, &opened, &closed, &l.Float, &counted, &expected, &l.CashSales, &l.CashRefunds, &l.Card)
		l.OpenedAt = time.UnixMilli(opened)
		if closed != nil {
			at := time.UnixMilli(*closed)
			l.ClosedAt = &at
		}
		if counted != nil && expected != nil {
			c, e := booking.Money(*counted), booking.Money(*expected)
			l.Counted, l.Recorded = &c, &e
		}
		return l, err
	})
}

const pqNoShows = `SELECT b.number, f.title, h.name, s.starts_at, b.customer, b.total,
	(SELECT count(*) FROM tickets t WHERE t.id BETWEEN b.id * 32 AND b.id * 32 + 31)
	FROM shows s JOIN bookings b ON b.show_id = s.id AND b.status = 'no_show'
	JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id
	WHERE s.starts_at >= $1 AND s.starts_at < $2 AND ($3::bigint = 0 OR h.site_id = $3) ORDER BY s.starts_at, h.name, b.id`

// NoShowLines reads the no-shows of a window's shows.
func (d driver) NoShowLines(ctx context.Context, w store.ReportWindow) ([]booking.NoShowRow, error) {
	return reportRows(d, ctx, "no-shows report", pqNoShows, []any{w.From.Unix(), w.To.Unix(), w.Site}, func(rows pgx.Rows) (booking.NoShowRow, error) {
		var row booking.NoShowRow
		var starts, tickets int64
		err := rows.Scan(&row.Booking, &row.Show, &row.Hall, &starts, &row.Customer, &row.Total, &tickets)
		row.Starts, row.Tickets = time.Unix(starts, 0), int(tickets)
		return row, err
	})
}

// reportRows runs one report query and scans its rows.
func reportRows[T any](d driver, ctx context.Context, op, query string, args []any, scan func(pgx.Rows) (T, error)) ([]T, error) {
	var out []T
	err := eachRow(ctx, d.s.pool, query, args, func(rows pgx.Rows) error {
		v, err := scan(rows)
		out = append(out, v)
		return err
	})
	return out, d.s.translate(op, err)
}

// inReport runs fn in one read-only REPEATABLE READ transaction: one
// snapshot for a report's rows and its totals.
func (s *Store) inReport(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	return fn(tx)
}
