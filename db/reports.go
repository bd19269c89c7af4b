package db

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"boxoffice/booking"
)

// The reports (booking.Reports): read-only queries on the read pool, each
// report in one read transaction so its rows and totals are one moment's.
// Every range is found through an index on time — payments_by_at (and
// payments_refunds_by_at for refunds), shows_by_start, shifts_by_opened —
// never by reading a table whole: the plan guard (plan_test.go) fails a
// report that scans one.

// qRefunds lists the refunds of a range. A refund of one ticket names its
// approver itself; a whole booking's older refund was approved, if at all,
// on the booking.
const qRefunds = `SELECT p.at, b.number, f.title, h.name, s.starts_at, coalesce(se.label, ''), p.amount, p.method, p.staff,
	CASE WHEN p.approved_by <> '' THEN p.approved_by WHEN p.ticket_id IS NULL THEN b.approved_by ELSE '' END, b.reason
	FROM payments p JOIN bookings b ON b.id = p.booking_id JOIN shows s ON s.id = b.show_id
	JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id
	LEFT JOIN tickets t ON t.id = p.ticket_id LEFT JOIN seats se ON se.id = t.seat_id
	WHERE p.kind = 'refund' AND p.at >= ? AND p.at < ? ORDER BY p.at, p.id`

// ReportRefunds lists the refunds paid out in the range.
func (s *Store) ReportRefunds(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.RefundsReport, error) {
	if err := reportAllowed(actor, r); err != nil {
		return nil, err
	}
	rep := &booking.RefundsReport{From: r.Start(), To: booking.DayStart(r.To.In(r.From.Location())), Rows: []booking.RefundRow{}}
	loc := r.From.Location()
	err := s.inReport(ctx, []string{qRefunds}, func(tx *sql.Tx) error {
		rows, err := s.txRows(ctx, tx, qRefunds, r.Start().UnixMilli(), r.End().UnixMilli())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var row booking.RefundRow
			var at, starts int64
			var hall string
			if err := rows.Scan(&at, &row.Booking, &row.Show, &hall, &starts, &row.Seat, &row.Amount, &row.Method,
				&row.By, &row.ApprovedBy, &row.Reason); err != nil {
				return err
			}
			row.At, row.Starts = time.UnixMilli(at).In(loc), time.Unix(starts, 0).In(loc)
			row.Show += " · " + hall
			rep.Rows = append(rep.Rows, row)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.translate("refunds report", err)
	}
	rep.Totals()
	return rep, nil
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

// ReportOccupancy is how full the shows starting in the range are.
func (s *Store) ReportOccupancy(ctx context.Context, actor booking.Actor, q booking.OccupancyQuery) (*booking.OccupancyReport, error) {
	if err := reportAllowed(actor, q.ReportRange); err != nil {
		return nil, err
	}
	by, err := booking.ParseOccupancyBy(string(q.By))
	if err != nil {
		return nil, err
	}
	rep := &booking.OccupancyReport{From: q.Start(), To: booking.DayStart(q.To.In(q.From.Location())), By: by, Rows: []booking.OccupancyRow{}}
	query := qOccupancyShows
	if by == booking.PerHall {
		query = qOccupancyHalls
	}
	err = s.inReport(ctx, []string{query}, func(tx *sql.Tx) error {
		rows, err := s.txRows(ctx, tx, query, q.Start().Unix(), q.End().Unix())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			row, err := scanOccupancy(rows, by, q.From.Location())
			if err != nil {
				return err
			}
			rep.Rows = append(rep.Rows, row)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.translate("occupancy report", err)
	}
	rep.Totals()
	return rep, nil
}

func scanOccupancy(rows *sql.Rows, by booking.OccupancyBy, loc *time.Location) (booking.OccupancyRow, error) {
	var row booking.OccupancyRow
	var id int64
	if by == booking.PerHall {
		err := rows.Scan(&id, &row.Label, &row.Shows, &row.Capacity, &row.Sold)
		row.Key, row.Hall = strconv.FormatInt(id, 10), row.Label
		return row, err
	}
	var starts int64
	err := rows.Scan(&id, &row.Label, &row.Hall, &starts, &row.Capacity, &row.Sold)
	row.Key, row.Shows, row.Starts = strconv.FormatInt(id, 10), 1, time.Unix(starts, 0).In(loc)
	return row, err
}

// qShifts lists the shifts opened in a range with their cash, read from
// shift_money (migration 0026). opened_at and closed_at are unix
// milliseconds, like payments.at.
const qShifts = `SELECT sh.id, sh.staff, sh.terminal, sh.status, sh.opened_at, sh.closed_at, sh.float, sh.counted, sh.expected,
	(SELECT coalesce(sum(amount), 0) FROM shift_money WHERE shift_id = sh.id AND kind = 'sale' AND method = 'cash'),
	(SELECT coalesce(sum(amount), 0) FROM shift_money WHERE shift_id = sh.id AND kind = 'refund' AND method = 'cash'),
	(SELECT coalesce(sum(CASE kind WHEN 'sale' THEN amount ELSE -amount END), 0) FROM shift_money WHERE shift_id = sh.id AND method = 'card')
	FROM shifts sh WHERE sh.opened_at >= ? AND sh.opened_at < ? ORDER BY sh.opened_at, sh.id`

// ReportShifts lists the shifts opened in the range with their variance.
func (s *Store) ReportShifts(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.ShiftsReport, error) {
	if err := reportAllowed(actor, r); err != nil {
		return nil, err
	}
	rep := &booking.ShiftsReport{From: r.Start(), To: booking.DayStart(r.To.In(r.From.Location())), Rows: []booking.ShiftRow{}}
	err := s.inReport(ctx, []string{qShifts}, func(tx *sql.Tx) error {
		rows, err := s.txRows(ctx, tx, qShifts, r.Start().UnixMilli(), r.End().UnixMilli())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			row, err := scanShiftRow(rows, r.From.Location())
			if err != nil {
				return err
			}
			rep.Rows = append(rep.Rows, row)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.translate("shifts report", err)
	}
	rep.Totals()
	return rep, nil
}

// scanShiftRow reads one shift. A closed shift's expected figure is the one
// recorded at its close; an open one's is worked out as it stands.
func scanShiftRow(rows *sql.Rows, loc *time.Location) (booking.ShiftRow, error) {
	var row booking.ShiftRow
	var opened int64
	var closed, counted, expected sql.NullInt64
	if err := rows.Scan(&row.ID, &row.Staff, &row.Terminal, &row.Status, &opened, &closed, &row.Float, &counted, &expected,
		&row.CashSales, &row.CashRefunds, &row.Card); err != nil {
		return row, err
	}
	row.OpenedAt = time.UnixMilli(opened).In(loc)
	row.Expected = row.Float + row.CashSales - row.CashRefunds
	if closed.Valid {
		at := time.UnixMilli(closed.Int64).In(loc)
		row.ClosedAt = &at
	}
	if counted.Valid && expected.Valid {
		c, e := booking.Money(counted.Int64), booking.Money(expected.Int64)
		v := c - e
		row.Counted, row.Expected, row.Variance = &c, e, &v
	}
	return row, nil
}

// qNoShows lists the bookings marked no_show of the shows starting in a
// range, through bookings_no_show.
const qNoShows = `SELECT b.number, f.title, h.name, s.starts_at, b.customer, b.total,
	(SELECT count(*) FROM tickets t WHERE t.id BETWEEN b.id * 32 AND b.id * 32 + 31)
	FROM shows s JOIN bookings b ON b.show_id = s.id AND b.status = 'no_show'
	JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id
	WHERE s.starts_at >= ? AND s.starts_at < ? ORDER BY s.starts_at, h.name, b.id`

// ReportNoShows lists the no-shows of the shows starting in the range.
func (s *Store) ReportNoShows(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.NoShowsReport, error) {
	if err := reportAllowed(actor, r); err != nil {
		return nil, err
	}
	rep := &booking.NoShowsReport{From: r.Start(), To: booking.DayStart(r.To.In(r.From.Location())), Rows: []booking.NoShowRow{}}
	err := s.inReport(ctx, []string{qNoShows}, func(tx *sql.Tx) error {
		rows, err := s.txRows(ctx, tx, qNoShows, r.Start().Unix(), r.End().Unix())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var row booking.NoShowRow
			var starts int64
			if err := rows.Scan(&row.Booking, &row.Show, &row.Hall, &starts, &row.Customer, &row.Total, &row.Tickets); err != nil {
				return err
			}
			row.Starts = time.Unix(starts, 0).In(r.From.Location())
			rep.Rows = append(rep.Rows, row)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, s.translate("no-shows report", err)
	}
	rep.Totals()
	return rep, nil
}

// reportAllowed authorizes a report and validates its range.
func reportAllowed(actor booking.Actor, r booking.ReportRange) error {
	if err := booking.Authorize(actor, booking.ActionViewReports); err != nil {
		return err
	}
	if err := oneSite(r.Site); err != nil {
		return err
	}
	return r.Validate()
}

// inReport runs fn in one read transaction on the read pool, with queries
// prepared first: preparing on the pool while every connection sits in
// such a transaction would wait for ever (see loadBookings).
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
