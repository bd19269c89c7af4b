package pg

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// Reading bookings for store's Booking, BookingByKey, FindBookings and
// every write's answer. Each search is one statement under READ COMMITTED
// (its own snapshot); whole bookings are read in one REPEATABLE READ
// read-only transaction.

// BookingIDByNumber finds a booking by its number.
func (d driver) BookingIDByNumber(ctx context.Context, number string) (int64, bool, error) {
	return d.oneID(ctx, "booking", `SELECT id FROM bookings WHERE number = $1`, number)
}

// BookingIDByKey finds the booking an idempotency key made.
func (d driver) BookingIDByKey(ctx context.Context, key string) (int64, bool, error) {
	return d.oneID(ctx, "booking by key", `SELECT id FROM bookings WHERE idem_key = $1`, strings.TrimSpace(key))
}

func (d driver) oneID(ctx context.Context, op, query string, args ...any) (int64, bool, error) {
	var id int64
	err := d.s.pool.QueryRow(ctx, query, args...).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, d.s.translate(op, err)
	}
	return id, true, nil
}

// phoneRev is the expression of the index bookings_by_phone_rev
// (migration 0010): the phone's digits, last first, so "ends with" is a
// range of the index.
const phoneRev = `reverse(regexp_replace(phone, '[^0-9]', '', 'g')) COLLATE "C"`

// BookingIDsByPhone reads the newest bookings whose phone ends with
// digits, through bookings_by_phone_rev: every match first (a few dozen
// for four digits on a year), then the newest of them. Asked for the
// newest at once, PostgreSQL walked every booking back from the newest,
// filtering, in the hope of meeting limit matches soon: on a year, four
// digits that matched ten bookings read all 186 000 (1.5 s).
func (d driver) BookingIDsByPhone(ctx context.Context, digits string, limit int) ([]int64, error) {
	rev := booking.ReverseDigits(digits)
	return d.ids(ctx, `WITH m AS MATERIALIZED (SELECT id FROM bookings WHERE phone <> '' AND `+phoneRev+` >= $1 AND `+phoneRev+` < $2)
		SELECT id FROM m ORDER BY id DESC LIMIT $3`, rev, booking.PrefixEnd(rev), limit)
}

// NameWordsWithPrefix hops from one stored word to the next through the
// primary key of booking_words.
func (d driver) NameWordsWithPrefix(ctx context.Context, p string, max int) ([]string, error) {
	rows, err := d.s.pool.Query(ctx, `WITH RECURSIVE w(word, n) AS (
			SELECT (SELECT word FROM booking_words WHERE word >= $1 AND word < $2 ORDER BY word LIMIT 1), 1
			UNION ALL
			SELECT (SELECT word FROM booking_words WHERE word > w.word AND word < $2 ORDER BY word LIMIT 1), n + 1
			FROM w WHERE w.word IS NOT NULL AND n < $3)
		SELECT word FROM w WHERE word IS NOT NULL`, p, booking.PrefixEnd(p), max)
	if err != nil {
		return nil, d.s.translate("find bookings", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, d.s.translate("find bookings", err)
}

// NameWordBookings counts index entries only, up to upTo.
func (d driver) NameWordBookings(ctx context.Context, words []string, upTo int) (int, error) {
	var n int
	err := d.s.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM booking_words WHERE word = ANY($1::text[]) LIMIT $2) x`, words, upTo).Scan(&n)
	return n, d.s.translate("find bookings", err)
}

// BookingIDsWithNameWords reads the bookings of the words in anyOf and
// checks each other list by primary-key lookups (word, booking_id).
func (d driver) BookingIDsWithNameWords(ctx context.Context, anyOf []string, also [][]string, limit int) ([]int64, error) {
	query := `SELECT DISTINCT a.booking_id FROM booking_words a WHERE a.word = ANY($1::text[])`
	args := []any{anyOf}
	for _, words := range also {
		args = append(args, words)
		query += ` AND EXISTS (SELECT 1 FROM booking_words b WHERE b.word = ANY($` + strconv.Itoa(len(args)) + `::text[]) AND b.booking_id = a.booking_id)`
	}
	args = append(args, limit)
	return d.ids(ctx, query+` ORDER BY a.booking_id DESC LIMIT $`+strconv.Itoa(len(args)), args...)
}

// ids runs a query of booking ids.
func (d driver) ids(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := d.s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, d.s.translate("find bookings", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return out, d.s.translate("find bookings", err)
}

// The reads of ReadBookings. A booking's tickets are a range of ticket
// ids (ticketsPerBooking), read through the primary key, booking by
// booking: the LIMIT keeps each range a lookup of its own. Joined to the
// list of bookings at once, the planner, which cannot size a range of
// computed ends, guessed a ninth of all tickets per booking and for ten
// bookings walked every ticket of the history instead (0.5 s on a year).
const (
	qBookingRows = `SELECT b.id, b.number, b.show_id, b.status, b.customer, b.phone, b.total, b.sold_by, b.terminal, b.created_at,
		b.cancelled_by, b.approved_by, b.reason,
		coalesce((SELECT f.number FROM exchanges e JOIN bookings f ON f.id = e.from_booking WHERE e.to_booking = b.id), '')
		FROM bookings b WHERE b.id = ANY($1::bigint[])`
	qTickets = `SELECT t.id, t.booking_id, t.seat_id, t.type_code, t.price, t.price_source, t.status, coalesce(t.admitted_at, 0), t.admitted_by,
		coalesce((SELECT n.number FROM exchanges e JOIN bookings n ON n.id = e.to_booking WHERE e.id = t.exchange_id), '')
		FROM unnest($1::bigint[]) AS b(id) CROSS JOIN LATERAL (SELECT * FROM tickets r
			WHERE r.id BETWEEN b.id * $2::bigint AND b.id * $2::bigint + $2::bigint - 1 ORDER BY r.id LIMIT $2::bigint) t
		ORDER BY t.id`
	qPayments = `SELECT booking_id, id, kind, method, amount, tendered, change_due, at, staff, terminal, coalesce(shift_id, 0), coalesce(ticket_id, 0), approved_by, coalesce(reason, '')
		FROM payments WHERE booking_id = ANY($1::bigint[]) ORDER BY id`
)

// ReadBookings reads the rows of whole bookings in one REPEATABLE READ
// read-only transaction: a booking cancelled meanwhile is never seen half
// cancelled.
func (d driver) ReadBookings(ctx context.Context, ids []int64) (store.BookingRows, error) {
	s := d.s
	out := store.BookingRows{Shows: map[int64]booking.Show{}}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(t pgx.Tx) error {
		var showIDs []int64
		rows, err := t.Query(ctx, qBookingRows, ids)
		if err != nil {
			return err
		}
		for rows.Next() {
			var b booking.Booking
			var created int64
			if err := rows.Scan(&b.ID, &b.Number, &b.Show.ID, &b.Status, &b.Customer, &b.Phone, &b.Total, &b.SoldBy, &b.Terminal, &created,
				&b.CancelledBy, &b.ApprovedBy, &b.Reason, &b.ExchangedFrom); err != nil {
				return err
			}
			b.CreatedAt = time.UnixMilli(created)
			out.Bookings = append(out.Bookings, b)
			showIDs = append(showIDs, b.Show.ID)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = t.Query(ctx, `SELECT `+showColumns+showFrom+`WHERE s.id = ANY($2::bigint[])`, s.now().UnixMilli(), showIDs)
		if err != nil {
			return err
		}
		for rows.Next() {
			sh, err := store.ScanShow(rows)
			if err != nil {
				return err
			}
			out.Shows[sh.ID] = sh
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = t.Query(ctx, qTickets, ids, ticketsPerBooking)
		if err != nil {
			return err
		}
		for rows.Next() {
			var tk store.BookingTicket
			var admitted int64
			if err := rows.Scan(&tk.ID, &tk.BookingID, &tk.Seat.ID, &tk.Type, &tk.Price, &tk.PriceSource, &tk.Status, &admitted, &tk.AdmittedBy, &tk.ExchangedTo); err != nil {
				return err
			}
			if admitted != 0 {
				at := time.UnixMilli(admitted)
				tk.AdmittedAt = &at
			}
			out.Tickets = append(out.Tickets, tk)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = t.Query(ctx, qPayments, ids)
		if err != nil {
			return err
		}
		for rows.Next() {
			var p store.BookingPayment
			var at int64
			if err := rows.Scan(&p.BookingID, &p.ID, &p.Kind, &p.Method, &p.Amount, &p.Tendered, &p.Change, &at, &p.Staff, &p.Terminal, &p.ShiftID, &p.TicketID, &p.ApprovedBy, &p.Reason); err != nil {
				return err
			}
			p.At = time.UnixMilli(at)
			out.Payments = append(out.Payments, p)
		}
		return rows.Err()
	})
	return out, s.translate("booking", err)
}

// indexNames records a new booking's name words (booking.NameWords) for
// the name search.
func indexNames(t *tx, bookingID int64, customer string) error {
	words := booking.NameWords(customer)
	if len(words) == 0 {
		return nil
	}
	_, err := t.Exec(t.ctx, `INSERT INTO booking_words (word, booking_id) SELECT w, $2 FROM unnest($1::text[]) AS w`, words, bookingID)
	return err
}

// reindexChunk is how many bookings reindexNames reads at a time.
const reindexChunk = 5000

// reindexNames writes every booking's name words anew, in one
// transaction, when migration 0011 asked for it (and never again): the
// words of bookings made before the rule moved to Go.
func reindexNames(ctx context.Context, conn *pgx.Conn) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM meta WHERE key = 'name_words'`)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		for after := int64(0); ; {
			rows, err := tx.Query(ctx, `SELECT id, customer FROM bookings WHERE id > $1 AND customer <> '' ORDER BY id LIMIT $2`, after, reindexChunk)
			if err != nil {
				return err
			}
			var ids []int64
			var words []string
			var id int64
			var customer string
			_, err = pgx.ForEachRow(rows, []any{&id, &customer}, func() error {
				for _, w := range booking.NameWords(customer) {
					ids, words = append(ids, id), append(words, w)
				}
				after = id
				return nil
			})
			if err != nil {
				return err
			}
			if len(ids) > 0 {
				if _, err := tx.Exec(ctx, `INSERT INTO booking_words (word, booking_id) SELECT * FROM unnest($1::text[], $2::bigint[])`, words, ids); err != nil {
					return err
				}
			}
			if rows.CommandTag().RowsAffected() < reindexChunk {
				return nil
			}
		}
	})
}
