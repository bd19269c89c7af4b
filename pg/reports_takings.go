package pg

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// The takings report on PostgreSQL, as SQLite's (db/reports_takings.go):
// the same rows, keys, labels, order and totals. PostgreSQL adds the
// payments up by key in one statement over payments_by_at: a day is the
// bucket of the range's local midnights (width_bucket), so a day where the
// clocks change is still the day it is, and each payment's tickets are
// counted through the primary key of tickets (booking n owns ids
// 32n..32n+31), leaving out the bookings an exchange made, whose tickets
// counted with the booking they came from.

// pqTakings adds up the payments of [$1, $2) (unix ms) of site $3 (0:
// every site) by the key %s: sales, refunds, the tickets the sales sold,
// and the tickets the refunds paid back (one for a refund of a ticket,
// every ticket of the booking for a refund of a whole booking, the form
// before refunds went ticket by ticket). $4 is the day bounds when the
// key is the day.
const pqTakings = `SELECT %s,
	coalesce(sum(p.amount) FILTER (WHERE p.kind = 'sale'), 0),
	coalesce(sum(p.amount) FILTER (WHERE p.kind = 'refund'), 0),
	coalesce(sum(x.tickets) FILTER (WHERE p.kind = 'sale' AND NOT x.exchanged), 0),
	count(*) FILTER (WHERE p.kind = 'refund' AND p.ticket_id IS NOT NULL)
		+ coalesce(sum(x.tickets) FILTER (WHERE p.kind = 'refund' AND p.ticket_id IS NULL AND NOT x.exchanged), 0)
	FROM payments p JOIN bookings b ON b.id = p.booking_id JOIN shows s ON s.id = b.show_id JOIN halls h ON h.id = s.hall_id
	CROSS JOIN LATERAL (SELECT
		(SELECT count(*) FROM tickets t WHERE t.id BETWEEN p.booking_id * 32 AND p.booking_id * 32 + 31) AS tickets,
		EXISTS (SELECT 1 FROM exchanges e WHERE e.to_booking = p.booking_id) AS exchanged) x
	WHERE p.at >= $1 AND p.at < $2 AND ($3::bigint = 0 OR h.site_id = $3)
	GROUP BY 1`

// takingsKey is the key of each way to add up, as text.
var takingsKey = map[booking.TakingsBy]string{
	booking.ByDay:    `width_bucket(p.at, $4::bigint[])::text`,
	booking.ByMethod: `p.method`,
	booking.ByClerk:  `p.staff`,
	booking.ByShow:   `b.show_id::text`,
	booking.ByFilm:   `b.show_id::text`,
}

// pqTakingsShows names the shows of a report by show or film.
const pqTakingsShows = `SELECT s.id, f.id, f.title, h.name, s.starts_at
	FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id WHERE s.id = ANY($1::bigint[])`

// ReportTakings adds up the payments taken in the range by q.By, in one
// read-only REPEATABLE READ transaction (inReport).
func (s *Store) ReportTakings(ctx context.Context, actor booking.Actor, q booking.TakingsQuery) (*booking.TakingsReport, error) {
	if err := reportAllowed(actor, q.ReportRange); err != nil {
		return nil, err
	}
	if _, err := booking.ParseTakingsBy(string(q.By)); err != nil || q.By == "" {
		return nil, booking.Errorf(booking.EInvalid, "Takings add up by day, film, show, method or clerk, not %q.", booking.CleanLine(string(q.By), 20))
	}
	t := &pgTakings{q: q, rows: map[string]*booking.TakingsRow{}, starts: map[string]int64{}}
	days := q.Days()
	bounds := make([]int64, 0, len(days)+1)
	for _, d := range days {
		bounds = append(bounds, d.UnixMilli())
	}
	bounds = append(bounds, q.End().UnixMilli())
	if q.By == booking.ByDay {
		for _, d := range days {
			t.row(d.Format(time.DateOnly)).Label = d.Format("Mon 2 Jan 2006")
		}
	}
	err := s.inReport(ctx, func(tx pgx.Tx) error {
		query, args := takingsSQL(q, bounds)
		err := eachRow(ctx, tx, query, args, func(rows pgx.Rows) error {
			var key string
			var sales, refunds, tickets, refunded int64
			if err := rows.Scan(&key, &sales, &refunds, &tickets, &refunded); err != nil {
				return err
			}
			if q.By == booking.ByDay {
				n, _ := strconv.Atoi(key)
				key = days[n-1].Format(time.DateOnly)
			}
			r := t.row(key)
			r.Sales, r.Refunds = booking.Money(sales), booking.Money(refunds)
			r.Tickets, r.Refunded = int(tickets), int(refunded)
			return nil
		})
		if err != nil || (q.By != booking.ByShow && q.By != booking.ByFilm) {
			return err
		}
		return t.labels(ctx, tx)
	})
	if err != nil {
		return nil, s.translate("takings report", err)
	}
	return t.report(), nil
}

// takingsSQL is q's statement and its arguments.
func takingsSQL(q booking.TakingsQuery, bounds []int64) (string, []any) {
	args := []any{q.Start().UnixMilli(), q.End().UnixMilli(), q.Site}
	if q.By == booking.ByDay {
		args = append(args, bounds)
	}
	return fmt.Sprintf(pqTakings, takingsKey[q.By]), args
}

// pgTakings is a takings report being added up.
type pgTakings struct {
	q      booking.TakingsQuery
	rows   map[string]*booking.TakingsRow
	order  []string
	starts map[string]int64 // a show's key -> its start, for the order by show
}

func (t *pgTakings) row(key string) *booking.TakingsRow {
	r, ok := t.rows[key]
	if !ok {
		r = &booking.TakingsRow{Key: key}
		t.rows[key] = r
		t.order = append(t.order, key)
	}
	return r
}

// labels names the shows (title · hall · start) and, for a report by
// film, folds them into their films, as db's takingsLabels.
func (t *pgTakings) labels(ctx context.Context, tx pgx.Tx) error {
	ids := make([]int64, 0, len(t.rows))
	for k := range t.rows {
		id, _ := strconv.ParseInt(k, 10, 64)
		ids = append(ids, id)
	}
	loc := t.q.From.Location()
	byFilm := map[string]*booking.TakingsRow{}
	var films []string
	err := eachRow(ctx, tx, pqTakingsShows, []any{ids}, func(rows pgx.Rows) error {
		var show, film, starts int64
		var title, hall string
		if err := rows.Scan(&show, &film, &title, &hall, &starts); err != nil {
			return err
		}
		key := strconv.FormatInt(show, 10)
		r := t.rows[key]
		r.Label = title + " · " + hall + " · " + time.Unix(starts, 0).In(loc).Format("Mon 2 Jan 15:04")
		t.starts[key] = starts
		if t.q.By != booking.ByFilm {
			return nil
		}
		fk := strconv.FormatInt(film, 10)
		f, ok := byFilm[fk]
		if !ok {
			f = &booking.TakingsRow{Key: fk, Label: title}
			byFilm[fk] = f
			films = append(films, fk)
		}
		f.Add(*r)
		return nil
	})
	if err == nil && t.q.By == booking.ByFilm {
		t.rows, t.order = byFilm, films
	}
	return err
}

// report is the rows in db's order — days by date, films by title, shows
// by start, methods and clerks by name — with their net and the total.
func (t *pgTakings) report() *booking.TakingsReport {
	q := t.q
	rep := &booking.TakingsReport{From: q.Start(), To: booking.DayStart(q.To.In(q.From.Location())), By: q.By, Rows: []booking.TakingsRow{}}
	for _, k := range t.order {
		r := *t.rows[k]
		r.Net = r.Sales - r.Refunds
		if r.Label == "" {
			r.Label = r.Key
		}
		rep.Rows = append(rep.Rows, r)
	}
	keyNum := func(k string) int64 { n, _ := strconv.ParseInt(k, 10, 64); return n }
	switch q.By {
	case booking.ByFilm:
		slices.SortFunc(rep.Rows, func(a, b booking.TakingsRow) int {
			return cmp.Or(cmp.Compare(a.Label, b.Label), cmp.Compare(keyNum(a.Key), keyNum(b.Key)))
		})
	case booking.ByShow:
		slices.SortFunc(rep.Rows, func(a, b booking.TakingsRow) int {
			return cmp.Or(cmp.Compare(t.starts[a.Key], t.starts[b.Key]), cmp.Compare(a.Label, b.Label), cmp.Compare(keyNum(a.Key), keyNum(b.Key)))
		})
	case booking.ByMethod, booking.ByClerk:
		slices.SortFunc(rep.Rows, func(a, b booking.TakingsRow) int { return cmp.Compare(a.Key, b.Key) })
	}
	rep.Totals()
	return rep
}
