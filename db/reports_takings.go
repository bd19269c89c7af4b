package db

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strconv"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// The takings report. A year holds some 180 000 payments, and handing a
// row from SQLite to Go costs more than SQLite reading it: the payments
// are added up in SQL by key (by day, one aggregate a day, as a day where
// the clocks change is not 24 hours), and the bookings whose tickets
// count come back as one list a key, not a row a payment. Their tickets
// are counted from one sequential read of the tickets those bookings own,
// again as one list, instead of a seek a payment.

// takingsQuery adds up the payments of a range by key — their method, who
// took them, their booking's show, or nothing (one day) — into the money
// of sales and refunds, the refunds of one ticket, and the bookings of
// the sales and of the refunds of whole bookings (the form before refunds
// went ticket by ticket), each a list of ids.
func takingsQuery(by booking.TakingsBy) string {
	key, join, group := `''`, ``, ``
	switch by {
	case booking.ByMethod:
		key, group = `p.method`, ` GROUP BY p.method`
	case booking.ByClerk:
		key, group = `p.staff`, ` GROUP BY p.staff`
	case booking.ByFilm, booking.ByShow:
		key, join, group = `b.show_id`, ` JOIN bookings b ON b.id = p.booking_id`, ` GROUP BY b.show_id`
	}
	return `SELECT ` + key + `,
	coalesce(sum(CASE WHEN p.kind = 'sale' THEN p.amount END), 0),
	coalesce(sum(CASE WHEN p.kind = 'refund' THEN p.amount END), 0),
	count(DISTINCT CASE WHEN p.kind = 'refund' THEN p.ticket_id END),
	coalesce(group_concat(CASE WHEN p.kind = 'sale' AND p.part = 0 THEN p.booking_id END, ','), ''),
	coalesce(group_concat(CASE WHEN p.kind = 'refund' AND p.ticket_id IS NULL THEN p.booking_id END, ','), '')
	FROM payments p` + join + `
	WHERE p.at >= ? AND p.at < ?` + group
}

const (
	// qTicketSpan lists the tickets of a span of bookings — booking n owns
	// ids 32n..32n+31 (db/checkout.go ticketsPerBooking) — as one text of
	// booking numbers (from the span's first) a ticket: one row a year
	// instead of half a million, each of which would cost more to hand
	// over than to read.
	qTicketSpan = `SELECT coalesce(group_concat((id >> 5) - ?, ','), '') FROM tickets WHERE id BETWEEN ? AND ?`
	// qBookingTickets counts one booking's tickets.
	qBookingTickets = `SELECT count(*) FROM tickets WHERE id BETWEEN ? AND ?`
)

// qReportShows names the shows a takings report added up by show or film.
const qReportShows = `SELECT s.id, f.id, f.title, h.name, s.starts_at
	FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id WHERE s.id IN (SELECT value FROM json_each(?))`

// ReportTakings adds up the payments taken in the range by q.By.
func (s *Store) ReportTakings(ctx context.Context, actor booking.Actor, q booking.TakingsQuery) (*booking.TakingsReport, error) {
	q, err := store.CheckTakings(s.Store, ctx, actor, q)
	if err != nil {
		return nil, err
	}
	if err := oneSite(q.Site); err != nil {
		return nil, err
	}
	t := newTakings(q)
	err = s.inReport(ctx, []string{takingsQuery(q.By), qTicketSpan, qBookingTickets, qReportShows, qExchangeTargets}, func(tx *sql.Tx) error {
		if err := s.takingsPayments(ctx, tx, t); err != nil {
			return err
		}
		if err := s.takingsTickets(ctx, tx, t); err != nil {
			return err
		}
		return s.takingsLabels(ctx, tx, t)
	})
	if err != nil {
		return nil, s.translate("takings report", err)
	}
	return t.tally.Report(), nil
}

// takings adds payments up by one key as they stream past
// (booking.TakingsTally), and the tickets they are for.
type takings struct {
	q     booking.TakingsQuery
	tally *booking.TakingsTally
	// counts are the payments whose tickets are still to be counted: a
	// sale is for all its booking's tickets, a whole booking's refund
	// for the void ones.
	counts []ticketCount
}

type ticketCount struct {
	row     *booking.TakingsRow
	booking int64
	refund  bool
}

func newTakings(q booking.TakingsQuery) *takings {
	return &takings{q: q, tally: booking.NewTakingsTally(q)}
}

// takingsPayments adds the range's payments up: by day one query a
// local day, else one for the range.
func (s *Store) takingsPayments(ctx context.Context, tx *sql.Tx, t *takings) error {
	if t.q.By != booking.ByDay {
		return s.takingsBetween(ctx, tx, t, t.q.Start(), t.q.End(), "")
	}
	for _, d := range t.q.Days() {
		if err := s.takingsBetween(ctx, tx, t, d, d.AddDate(0, 0, 1), d.Format(time.DateOnly)); err != nil {
			return err
		}
	}
	return nil
}

// takingsBetween adds up the payments of [from, to) into t's rows, under
// day when it is set.
func (s *Store) takingsBetween(ctx context.Context, tx *sql.Tx, t *takings, from, to time.Time, day string) error {
	rows, err := s.txRows(ctx, tx, takingsQuery(t.q.By), from.UnixMilli(), to.UnixMilli())
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var key any
		var sales, refunds booking.Money
		var oneTicket int
		var sold, whole []byte
		if err := rows.Scan(&key, &sales, &refunds, &oneTicket, &sold, &whole); err != nil {
			return err
		}
		k := day
		switch v := key.(type) {
		case int64:
			k = strconv.FormatInt(v, 10) // named by takingsLabels
		case string:
			k = cmp.Or(day, v)
		case []byte:
			k = cmp.Or(day, string(v))
		}
		r := t.tally.Row(k)
		r.Sales += sales
		r.Refunds += refunds
		r.Refunded += oneTicket
		t.counts = appendCounts(t.counts, r, sold, false)
		t.counts = appendCounts(t.counts, r, whole, true)
	}
	return rows.Err()
}

// appendCounts adds a ticketCount for each booking id of list ("12,13").
func appendCounts(out []ticketCount, r *booking.TakingsRow, list []byte, refund bool) []ticketCount {
	var id int64
	for i, c := range list {
		if c != ',' {
			id = id*10 + int64(c-'0')
		}
		if c == ',' || i == len(list)-1 {
			out = append(out, ticketCount{r, id, refund})
			id = 0
		}
	}
	return out
}

// takingsTickets counts the tickets of the payments that need them. The
// bookings a range's sales made have ids close together, so their
// tickets are one range of the primary key, read in order; when they are
// spread wider than that is worth (a refund of a booking sold long ago),
// each booking is counted on its own.
func (s *Store) takingsTickets(ctx context.Context, tx *sql.Tx, t *takings) error {
	if len(t.counts) == 0 {
		return nil
	}
	lo, hi := t.counts[0].booking, t.counts[0].booking
	for _, c := range t.counts {
		lo, hi = min(lo, c.booking), max(hi, c.booking)
	}
	if err := s.dropExchangeCounts(ctx, tx, t, lo, hi); err != nil {
		return err
	}
	if len(t.counts) == 0 {
		return nil
	}
	if hi-lo > int64(4*len(t.counts))+ticketSpanSlack {
		return s.takingsTicketsEach(ctx, tx, t)
	}
	st, err := s.readStmt(ctx, qTicketSpan)
	if err != nil {
		return err
	}
	var list []byte
	if err := tx.StmtContext(ctx, st).QueryRowContext(ctx, lo, lo*ticketsPerBooking, hi*ticketsPerBooking+ticketsPerBooking-1).Scan(&list); err != nil {
		return err
	}
	all := make([]uint8, hi-lo+1)
	n := 0
	for _, c := range list {
		if c == ',' {
			all[n]++
			n = 0
			continue
		}
		n = n*10 + int(c-'0')
	}
	if len(list) > 0 {
		all[n]++
	}
	for _, c := range t.counts {
		if c.refund {
			// A whole booking was refunded only before refunds went
			// ticket by ticket, when a cancel voided every ticket and
			// one admitted stopped it: it paid back all of them.
			c.row.Refunded += int(all[c.booking-lo])
		} else {
			c.row.Tickets += int(all[c.booking-lo])
		}
	}
	return nil
}

// qExchangeTargets lists the bookings an exchange made, in a span of ids.
const qExchangeTargets = `SELECT to_booking FROM exchanges WHERE to_booking BETWEEN ? AND ?`

// dropExchangeCounts leaves out of the ticket counts the bookings an
// exchange made: their tickets were counted with the sale of the booking
// they came from, and the difference paid or paid back on them is money,
// not tickets sold or a whole booking refunded.
func (s *Store) dropExchangeCounts(ctx context.Context, tx *sql.Tx, t *takings, lo, hi int64) error {
	rows, err := s.txRows(ctx, tx, qExchangeTargets, lo, hi)
	if err != nil {
		return err
	}
	made := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		made[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(made) == 0 {
		return err
	}
	t.counts = slices.DeleteFunc(t.counts, func(c ticketCount) bool { return made[c.booking] })
	return nil
}

// ticketSpanSlack is how many bookings more than four a payment the read
// of a span may cover before the bookings are counted one by one.
var ticketSpanSlack int64 = 64

// takingsTicketsEach counts each booking's tickets with a seek of its
// own.
func (s *Store) takingsTicketsEach(ctx context.Context, tx *sql.Tx, t *takings) error {
	st, err := s.readStmt(ctx, qBookingTickets)
	if err != nil {
		return err
	}
	st = tx.StmtContext(ctx, st)
	for _, c := range t.counts {
		var all int
		if err := st.QueryRowContext(ctx, c.booking*ticketsPerBooking, c.booking*ticketsPerBooking+ticketsPerBooking-1).Scan(&all); err != nil {
			return err
		}
		if c.refund { // all of them: see takingsTickets
			c.row.Refunded += all
		} else {
			c.row.Tickets += all
		}
	}
	return nil
}

// takingsLabels names the shows (and their films) of a report by show or
// film: the tally labels them and folds them into their films.
func (s *Store) takingsLabels(ctx context.Context, tx *sql.Tx, t *takings) error {
	ids := t.tally.ShowIDs()
	if len(ids) == 0 {
		return nil
	}
	rows, err := s.txRows(ctx, tx, qReportShows, idList(ids))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var show, film, starts int64
		var title, hall string
		if err := rows.Scan(&show, &film, &title, &hall, &starts); err != nil {
			return err
		}
		t.tally.NameShow(show, film, title, hall, starts)
	}
	return rows.Err()
}
