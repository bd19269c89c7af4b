package pg

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
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
	coalesce(sum(x.tickets) FILTER (WHERE p.kind = 'sale' AND p.part = 0 AND NOT x.exchanged), 0),
	count(DISTINCT p.ticket_id) FILTER (WHERE p.kind = 'refund')
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
	q, err := store.CheckTakings(s.Store, ctx, actor, q)
	if err != nil {
		return nil, err
	}
	t := booking.NewTakingsTally(q)
	days := q.Days()
	bounds := make([]int64, 0, len(days)+1)
	for _, d := range days {
		bounds = append(bounds, d.UnixMilli())
	}
	bounds = append(bounds, q.End().UnixMilli())
	err = s.inReport(ctx, func(tx pgx.Tx) error {
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
			r := t.Row(key)
			r.Sales, r.Refunds = booking.Money(sales), booking.Money(refunds)
			r.Tickets, r.Refunded = int(tickets), int(refunded)
			return nil
		})
		if err != nil || (q.By != booking.ByShow && q.By != booking.ByFilm) {
			return err
		}
		return nameShows(ctx, tx, t)
	})
	if err != nil {
		return nil, s.translate("takings report", err)
	}
	return t.Report(), nil
}

// takingsSQL is q's statement and its arguments.
func takingsSQL(q booking.TakingsQuery, bounds []int64) (string, []any) {
	args := []any{q.Start().UnixMilli(), q.End().UnixMilli(), q.Site}
	if q.By == booking.ByDay {
		args = append(args, bounds)
	}
	return fmt.Sprintf(pqTakings, takingsKey[q.By]), args
}

// nameShows names the shows of a report by show or film, and folds them
// into their films (booking.TakingsTally.NameShow).
func nameShows(ctx context.Context, tx pgx.Tx, t *booking.TakingsTally) error {
	return eachRow(ctx, tx, pqTakingsShows, []any{t.ShowIDs()}, func(rows pgx.Rows) error {
		var show, film, starts int64
		var title, hall string
		if err := rows.Scan(&show, &film, &title, &hall, &starts); err != nil {
			return err
		}
		t.NameShow(show, film, title, hall, starts)
		return nil
	})
}
