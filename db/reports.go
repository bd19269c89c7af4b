package db

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
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

// takingsQuery is every payment of a range, in the order taken, with the
// key it counts under (when it was taken, its method, who took it, or
// its booking's show) and the tickets it is for. One pass, added up in Go,
// serves each way of adding up: a GROUP BY would sort a year's payments
// in a temporary b-tree.
//
// A sale is for its booking's tickets. They are booking n's ids 32n,
// 32n+1, … with no gap (db/checkout.go ticketsPerBooking), and never
// deleted, so the last one's id says how many there are in one seek. A
// refund of one ticket (ticket_id set) is for one, and an older refund of
// a whole booking for the tickets it voided.
func takingsQuery(by booking.TakingsBy) string {
	key, join := `p.at`, ``
	switch by {
	case booking.ByMethod:
		key = `p.method`
	case booking.ByClerk:
		key = `p.staff`
	case booking.ByFilm, booking.ByShow:
		key, join = `b.show_id`, ` JOIN bookings b ON b.id = p.booking_id`
	}
	return `SELECT ` + key + `, p.kind = 'sale', p.amount,
	CASE WHEN p.kind = 'sale' THEN (SELECT max(t.id) FROM tickets t WHERE t.id BETWEEN p.booking_id * 32 AND p.booking_id * 32 + 31) - p.booking_id * 32 + 1
		WHEN p.ticket_id IS NULL THEN (SELECT count(*) FROM tickets t WHERE t.id BETWEEN p.booking_id * 32 AND p.booking_id * 32 + 31 AND t.status = 'void')
		ELSE 1 END
	FROM payments p` + join + `
	WHERE p.at >= ? AND p.at < ? ORDER BY p.at`
}

// qReportShows names the shows a takings report added up by show or film.
const qReportShows = `SELECT s.id, f.id, f.title, h.name, s.starts_at
	FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id WHERE s.id IN (SELECT value FROM json_each(?))`

// ReportTakings adds up the payments taken in the range by q.By.
func (s *Store) ReportTakings(ctx context.Context, actor booking.Actor, q booking.TakingsQuery) (*booking.TakingsReport, error) {
	if err := reportAllowed(actor, q.ReportRange); err != nil {
		return nil, err
	}
	if _, err := booking.ParseTakingsBy(string(q.By)); err != nil || q.By == "" {
		return nil, booking.Errorf(booking.EInvalid, "Takings add up by day, film, show, method or clerk, not %q.", booking.CleanLine(string(q.By), 20))
	}
	t := newTakings(q)
	err := s.inReport(ctx, []string{takingsQuery(q.By), qReportShows}, func(tx *sql.Tx) error {
		if err := s.takingsPayments(ctx, tx, t); err != nil {
			return err
		}
		return s.takingsLabels(ctx, tx, t)
	})
	if err != nil {
		return nil, s.translate("takings report", err)
	}
	return t.report(), nil
}

// takings adds payments up by one key as they stream past.
type takings struct {
	q     booking.TakingsQuery
	days  []time.Time // with --by day: each day's start, and the end
	day   int         // the day the last payment fell on
	rows  map[string]*booking.TakingsRow
	order []string // keys in the order first seen
	shows map[int64][]string
}

func newTakings(q booking.TakingsQuery) *takings {
	t := &takings{q: q, rows: map[string]*booking.TakingsRow{}, shows: map[int64][]string{}}
	if q.By == booking.ByDay {
		t.days = append(q.Days(), q.End())
		for _, d := range t.days[:len(t.days)-1] {
			t.row(d.Format(time.DateOnly)).Label = d.Format("Mon 2 Jan 2006")
		}
	}
	return t
}

func (t *takings) row(key string) *booking.TakingsRow {
	r, ok := t.rows[key]
	if !ok {
		r = &booking.TakingsRow{Key: key}
		t.rows[key] = r
		t.order = append(t.order, key)
	}
	return r
}

// key is the row a payment counts in: id is when it was taken (by day)
// or its show (by show or film), text its method or who took it.
// Payments come in the order taken, so the day only moves forward.
func (t *takings) key(id int64, text []byte) string {
	switch t.q.By {
	case booking.ByDay:
		for t.day < len(t.days)-2 && id >= t.days[t.day+1].UnixMilli() {
			t.day++
		}
		return t.days[t.day].Format(time.DateOnly)
	case booking.ByMethod, booking.ByClerk:
		return string(text)
	}
	t.shows[id] = nil // named by takingsLabels
	return strconv.FormatInt(id, 10)
}

func (s *Store) takingsPayments(ctx context.Context, tx *sql.Tx, t *takings) error {
	rows, err := s.txRows(ctx, tx, takingsQuery(t.q.By), t.q.Start().UnixMilli(), t.q.End().UnixMilli())
	if err != nil {
		return err
	}
	defer rows.Close()
	var id int64
	var text sql.RawBytes
	var key any = &id
	if t.q.By == booking.ByMethod || t.q.By == booking.ByClerk {
		key = &text
	}
	var amount booking.Money
	var sale bool
	var tickets int
	for rows.Next() {
		if err := rows.Scan(key, &sale, &amount, &tickets); err != nil {
			return err
		}
		r := t.row(t.key(id, text))
		if sale {
			r.Sales += amount
			r.Tickets += tickets
		} else {
			r.Refunds += amount
			r.Refunded += tickets
		}
	}
	return rows.Err()
}

// takingsLabels names the shows (and their films) of a report by show or
// film, and folds the shows into their films for one by film.
func (s *Store) takingsLabels(ctx context.Context, tx *sql.Tx, t *takings) error {
	if len(t.shows) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(t.shows))
	for id := range t.shows {
		ids = append(ids, id)
	}
	rows, err := s.txRows(ctx, tx, qReportShows, idList(ids))
	if err != nil {
		return err
	}
	defer rows.Close()
	loc := t.q.From.Location()
	byFilm := map[string]*booking.TakingsRow{}
	var films []string
	for rows.Next() {
		var show, film, starts int64
		var title, hall string
		if err := rows.Scan(&show, &film, &title, &hall, &starts); err != nil {
			return err
		}
		r := t.rows[strconv.FormatInt(show, 10)]
		r.Label = title + " · " + hall + " · " + time.Unix(starts, 0).In(loc).Format("Mon 2 Jan 15:04")
		t.shows[show] = []string{time.Unix(starts, 0).UTC().Format(time.RFC3339), title}
		if t.q.By != booking.ByFilm {
			continue
		}
		key := strconv.FormatInt(film, 10)
		f, ok := byFilm[key]
		if !ok {
			f = &booking.TakingsRow{Key: key, Label: title}
			byFilm[key] = f
			films = append(films, key)
		}
		f.Add(*r)
	}
	if t.q.By == booking.ByFilm {
		t.rows, t.order = byFilm, films
	}
	return rows.Err()
}

// report is the rows in order — days by date, films by title, shows by
// start, methods and clerks by name — with their net and the total.
func (t *takings) report() *booking.TakingsReport {
	q := t.q
	rep := &booking.TakingsReport{From: q.Start(), To: booking.DayStart(q.To.In(q.From.Location())), By: q.By, Rows: []booking.TakingsRow{}}
	for _, k := range t.order {
		r := *t.rows[k]
		r.Net = r.Sales - r.Refunds
		if r.Label == "" {
			r.Label = r.Key // a method or a clerk names itself
		}
		rep.Rows = append(rep.Rows, r)
	}
	switch q.By {
	case booking.ByFilm:
		slices.SortFunc(rep.Rows, func(a, b booking.TakingsRow) int { return cmp.Or(cmp.Compare(a.Label, b.Label), cmpKeys(a.Key, b.Key)) })
	case booking.ByShow:
		slices.SortFunc(rep.Rows, func(a, b booking.TakingsRow) int {
			return cmp.Or(cmp.Compare(t.showStart(a.Key), t.showStart(b.Key)), cmp.Compare(a.Label, b.Label), cmpKeys(a.Key, b.Key))
		})
	case booking.ByMethod, booking.ByClerk:
		slices.SortFunc(rep.Rows, func(a, b booking.TakingsRow) int { return cmp.Compare(a.Key, b.Key) })
	}
	rep.Totals()
	return rep
}

func (t *takings) showStart(key string) string {
	id, _ := strconv.ParseInt(key, 10, 64)
	if v := t.shows[id]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// cmpKeys orders numeric keys as numbers.
func cmpKeys(a, b string) int {
	x, _ := strconv.ParseInt(a, 10, 64)
	y, _ := strconv.ParseInt(b, 10, 64)
	return cmp.Compare(x, y)
}

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

// qShifts lists the shifts opened in a range with their cash, read
// through payments_by_shift. opened_at and closed_at are unix
// milliseconds, like payments.at.
const qShifts = `SELECT sh.id, sh.staff, sh.terminal, sh.status, sh.opened_at, sh.closed_at, sh.float, sh.counted, sh.expected,
	(SELECT coalesce(sum(amount), 0) FROM payments WHERE shift_id = sh.id AND kind = 'sale' AND method = 'cash'),
	(SELECT coalesce(sum(amount), 0) FROM payments WHERE shift_id = sh.id AND kind = 'refund' AND method = 'cash'),
	(SELECT coalesce(sum(CASE kind WHEN 'sale' THEN amount ELSE -amount END), 0) FROM payments WHERE shift_id = sh.id AND method = 'card')
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
			row, err := scanShift(rows, r.From.Location())
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

// scanShift reads one shift. A closed shift's expected figure is the one
// recorded at its close; an open one's is worked out as it stands.
func scanShift(rows *sql.Rows, loc *time.Location) (booking.ShiftRow, error) {
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
