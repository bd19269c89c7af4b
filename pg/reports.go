package pg

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// The reports on PostgreSQL (booking.Reports), as SQLite's (db/reports.go):
// each in one read-only REPEATABLE READ transaction, so its rows and
// totals are one moment's; every range found through an index on time
// (payments_by_at, shows_by_start, and the shifts' opened_at). What
// SQLite keeps as running figures (a show's sold count, a shift's
// money) is counted here from the claims and the payments. A range's Site
// keeps a report to one site: a payment or a show by its hall's site, a
// shift by the site it was opened at (0006_sites.sql).

const pqRefunds = `SELECT p.at, b.number, f.title, h.name, s.starts_at, coalesce(se.label, ''), p.amount, p.method, p.staff,
	CASE WHEN p.approved_by <> '' THEN p.approved_by WHEN p.ticket_id IS NULL THEN b.approved_by ELSE '' END, b.reason
	FROM payments p JOIN bookings b ON b.id = p.booking_id JOIN shows s ON s.id = b.show_id
	JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id
	LEFT JOIN tickets t ON t.id = p.ticket_id LEFT JOIN seats se ON se.id = t.seat_id
	WHERE p.kind = 'refund' AND p.at >= $1 AND p.at < $2 AND ($3::bigint = 0 OR h.site_id = $3) ORDER BY p.at, p.id`

// ReportRefunds lists the refunds paid out in the range.
func (s *Store) ReportRefunds(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.RefundsReport, error) {
	if err := reportAllowed(actor, r); err != nil {
		return nil, err
	}
	rep := &booking.RefundsReport{From: r.Start(), To: booking.DayStart(r.To.In(r.From.Location())), Rows: []booking.RefundRow{}}
	loc := r.From.Location()
	err := s.inReport(ctx, func(tx pgx.Tx) error {
		return eachRow(ctx, tx, pqRefunds, []any{r.Start().UnixMilli(), r.End().UnixMilli(), r.Site}, func(rows pgx.Rows) error {
			var row booking.RefundRow
			var at, starts, amount int64
			var hall, method string
			if err := rows.Scan(&at, &row.Booking, &row.Show, &hall, &starts, &row.Seat, &amount, &method, &row.By, &row.ApprovedBy, &row.Reason); err != nil {
				return err
			}
			row.Amount, row.Method = booking.Money(amount), booking.PayMethod(method)
			row.At, row.Starts = time.UnixMilli(at).In(loc), time.Unix(starts, 0).In(loc)
			row.Show += " · " + hall
			rep.Rows = append(rep.Rows, row)
			return nil
		})
	})
	if err != nil {
		return nil, s.translate("refunds report", err)
	}
	rep.Totals()
	return rep, nil
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
	query := pqOccupancyShows
	if by == booking.PerHall {
		query = pqOccupancyHalls
	}
	err = s.inReport(ctx, func(tx pgx.Tx) error {
		return eachRow(ctx, tx, query, []any{q.Start().Unix(), q.End().Unix(), q.Site}, func(rows pgx.Rows) error {
			var row booking.OccupancyRow
			var id int64
			var capacity, sold int64
			if by == booking.PerHall {
				var shows int64
				err := rows.Scan(&id, &row.Label, &shows, &capacity, &sold)
				row.Key, row.Hall, row.Shows = strconv.FormatInt(id, 10), row.Label, int(shows)
				row.Capacity, row.Sold = int(capacity), int(sold)
				rep.Rows = append(rep.Rows, row)
				return err
			}
			var starts int64
			var capacity32 int
			err := rows.Scan(&id, &row.Label, &row.Hall, &starts, &capacity32, &sold)
			row.Key, row.Shows, row.Starts = strconv.FormatInt(id, 10), 1, time.Unix(starts, 0).In(q.From.Location())
			row.Capacity, row.Sold = capacity32, int(sold)
			rep.Rows = append(rep.Rows, row)
			return err
		})
	})
	if err != nil {
		return nil, s.translate("occupancy report", err)
	}
	rep.Totals()
	return rep, nil
}

// pqShifts lists the shifts opened in a range with their cash, summed from
// their payments (SQLite reads its running shift_money).
const pqShifts = `SELECT sh.id, sh.staff, sh.terminal, sh.status, sh.opened_at, sh.closed_at, sh.float, sh.counted, sh.expected,
	(SELECT coalesce(sum(amount), 0) FROM payments WHERE shift_id = sh.id AND kind = 'sale' AND method = 'cash'),
	(SELECT coalesce(sum(amount), 0) FROM payments WHERE shift_id = sh.id AND kind = 'refund' AND method = 'cash'),
	(SELECT coalesce(sum(CASE kind WHEN 'sale' THEN amount ELSE -amount END), 0) FROM payments WHERE shift_id = sh.id AND method = 'card')
	FROM shifts sh WHERE sh.opened_at >= $1 AND sh.opened_at < $2 AND ($3::bigint = 0 OR sh.site_id = $3) ORDER BY sh.opened_at, sh.id`

// ReportShifts lists the shifts opened in the range with their variance.
func (s *Store) ReportShifts(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.ShiftsReport, error) {
	if err := reportAllowed(actor, r); err != nil {
		return nil, err
	}
	rep := &booking.ShiftsReport{From: r.Start(), To: booking.DayStart(r.To.In(r.From.Location())), Rows: []booking.ShiftRow{}}
	loc := r.From.Location()
	err := s.inReport(ctx, func(tx pgx.Tx) error {
		return eachRow(ctx, tx, pqShifts, []any{r.Start().UnixMilli(), r.End().UnixMilli(), r.Site}, func(rows pgx.Rows) error {
			var row booking.ShiftRow
			var status string
			var opened, float, cashSales, cashRefunds, card int64
			var closed, counted, expected *int64
			if err := rows.Scan(&row.ID, &row.Staff, &row.Terminal, &status, &opened, &closed, &float, &counted, &expected,
				&cashSales, &cashRefunds, &card); err != nil {
				return err
			}
			row.Status = status
			row.Float, row.CashSales, row.CashRefunds, row.Card = booking.Money(float), booking.Money(cashSales), booking.Money(cashRefunds), booking.Money(card)
			row.OpenedAt = time.UnixMilli(opened).In(loc)
			row.Expected = row.Float + row.CashSales - row.CashRefunds
			if closed != nil {
				at := time.UnixMilli(*closed).In(loc)
				row.ClosedAt = &at
			}
			if counted != nil && expected != nil {
				c, e := booking.Money(*counted), booking.Money(*expected)
				v := c - e
				row.Counted, row.Expected, row.Variance = &c, e, &v
			}
			rep.Rows = append(rep.Rows, row)
			return nil
		})
	})
	if err != nil {
		return nil, s.translate("shifts report", err)
	}
	rep.Totals()
	return rep, nil
}

const pqNoShows = `SELECT b.number, f.title, h.name, s.starts_at, b.customer, b.total,
	(SELECT count(*) FROM tickets t WHERE t.id BETWEEN b.id * 32 AND b.id * 32 + 31)
	FROM shows s JOIN bookings b ON b.show_id = s.id AND b.status = 'no_show'
	JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id
	WHERE s.starts_at >= $1 AND s.starts_at < $2 AND ($3::bigint = 0 OR h.site_id = $3) ORDER BY s.starts_at, h.name, b.id`

// ReportNoShows lists the no-shows of the shows starting in the range.
func (s *Store) ReportNoShows(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.NoShowsReport, error) {
	if err := reportAllowed(actor, r); err != nil {
		return nil, err
	}
	rep := &booking.NoShowsReport{From: r.Start(), To: booking.DayStart(r.To.In(r.From.Location())), Rows: []booking.NoShowRow{}}
	err := s.inReport(ctx, func(tx pgx.Tx) error {
		return eachRow(ctx, tx, pqNoShows, []any{r.Start().Unix(), r.End().Unix(), r.Site}, func(rows pgx.Rows) error {
			var row booking.NoShowRow
			var starts, total, tickets int64
			if err := rows.Scan(&row.Booking, &row.Show, &row.Hall, &starts, &row.Customer, &total, &tickets); err != nil {
				return err
			}
			row.Total, row.Tickets = booking.Money(total), int(tickets)
			row.Starts = time.Unix(starts, 0).In(r.From.Location())
			rep.Rows = append(rep.Rows, row)
			return nil
		})
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
	return r.Validate()
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
