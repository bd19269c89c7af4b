package db

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strconv"
	"time"

	"boxoffice/booking"
)

// The takings report. A year holds some 180 000 payments: one pass over
// payments_by_at in the order taken, added up in Go, serves every way of
// adding up (a GROUP BY would sort them in a temporary b-tree), and the
// tickets each one is for are counted in one sequential read of the
// tickets their bookings own instead of a seek a payment.

// takingsQuery is every payment of a range, in the order taken, with the
// key it counts under — when it was taken, its method, who took it, or
// its booking's show — its booking, and whether it is a refund of a
// whole booking (the form before refunds went ticket by ticket).
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
	return `SELECT ` + key + `, p.kind = 'sale', p.amount, p.booking_id, p.ticket_id IS NULL
	FROM payments p` + join + `
	WHERE p.at >= ? AND p.at < ? ORDER BY p.at`
}

const (
	// qTicketSpan reads the tickets of a span of bookings: booking n owns
	// ids 32n..32n+31 (db/checkout.go ticketsPerBooking).
	qTicketSpan = `SELECT id, status = 'void' FROM tickets WHERE id BETWEEN ? AND ?`
	// qBookingTickets counts one booking's tickets and its void ones.
	qBookingTickets = `SELECT count(*), coalesce(sum(status = 'void'), 0) FROM tickets WHERE id BETWEEN ? AND ?`
)

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
	err := s.inReport(ctx, []string{takingsQuery(q.By), qTicketSpan, qBookingTickets, qReportShows}, func(tx *sql.Tx) error {
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
	var id, bookingID int64
	var text sql.RawBytes
	var key any = &id
	if t.q.By == booking.ByMethod || t.q.By == booking.ByClerk {
		key = &text
	}
	var amount booking.Money
	var sale, whole bool
	for rows.Next() {
		if err := rows.Scan(key, &sale, &amount, &bookingID, &whole); err != nil {
			return err
		}
		r := t.row(t.key(id, text))
		switch {
		case sale:
			r.Sales += amount
			t.counts = append(t.counts, ticketCount{r, bookingID, false})
		case whole:
			r.Refunds += amount
			t.counts = append(t.counts, ticketCount{r, bookingID, true})
		default:
			r.Refunds += amount
			r.Refunded++ // a refund of one ticket
		}
	}
	return rows.Err()
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
	if hi-lo > int64(4*len(t.counts))+ticketSpanSlack {
		return s.takingsTicketsEach(ctx, tx, t)
	}
	all := make([]uint8, hi-lo+1)
	void := make([]uint8, hi-lo+1)
	rows, err := s.txRows(ctx, tx, qTicketSpan, lo*ticketsPerBooking, hi*ticketsPerBooking+ticketsPerBooking-1)
	if err != nil {
		return err
	}
	defer rows.Close()
	var id int64
	var isVoid bool
	for rows.Next() {
		if err := rows.Scan(&id, &isVoid); err != nil {
			return err
		}
		b := id/ticketsPerBooking - lo
		all[b]++
		if isVoid {
			void[b]++
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range t.counts {
		if c.refund {
			c.row.Refunded += int(void[c.booking-lo])
		} else {
			c.row.Tickets += int(all[c.booking-lo])
		}
	}
	return nil
}

// ticketSpanSlack is how many bookings more than four a payment the read
// of a span may cover before the bookings are counted one by one.
var ticketSpanSlack int64 = 64

// takingsTicketsEach counts each booking's tickets with a seek of its own.
func (s *Store) takingsTicketsEach(ctx context.Context, tx *sql.Tx, t *takings) error {
	st, err := s.readStmt(ctx, qBookingTickets)
	if err != nil {
		return err
	}
	st = tx.StmtContext(ctx, st)
	for _, c := range t.counts {
		var all, void int
		if err := st.QueryRowContext(ctx, c.booking*ticketsPerBooking, c.booking*ticketsPerBooking+ticketsPerBooking-1).Scan(&all, &void); err != nil {
			return err
		}
		if c.refund {
			c.row.Refunded += void
		} else {
			c.row.Tickets += all
		}
	}
	return nil
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
