package pg

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// Looking a booking up: by its number, or by what a clerk types to find
// one (db/find.go): the number, the phone's last digits, or the start of
// the customer's names. Each is one statement, under READ COMMITTED (its
// own snapshot), then the bookings are read whole (loadBooking).

// Bounds on a search, as db's: how many stored words one typed word may
// stand for, how many bookings per word a search of several words reads
// before it filters by the others, and how many trailing digits of a
// typed phone number are matched.
const (
	maxPrefixWords   = 32
	multiWordPerWord = 100
	phoneDigits      = 9
)

// Booking looks a booking up by number, in any case, the prefix optional.
func (s *Store) Booking(ctx context.Context, actor booking.Actor, number string) (*booking.Booking, error) {
	if err := booking.Authorize(actor, booking.ActionViewBooking); err != nil {
		return nil, err
	}
	number = normalizeNumber(number)
	id, err := s.bookingID(ctx, number)
	if err != nil {
		return nil, err
	}
	return s.wholeBooking(ctx, id)
}

// wholeBooking reads a booking (loadBooking) with what exchanges say of
// it: the booking its tickets came from, and for each ticket an exchange
// voided, the booking that replaced it.
func (s *Store) wholeBooking(ctx context.Context, id int64) (*booking.Booking, error) {
	b, err := s.loadBooking(ctx, id)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT 0, fb.number FROM exchanges e JOIN bookings fb ON fb.id = e.from_booking WHERE e.to_booking = $1
		UNION ALL
		SELECT t.id, tb.number FROM tickets t JOIN exchanges e ON e.id = t.exchange_id JOIN bookings tb ON tb.id = e.to_booking
		WHERE t.id BETWEEN $1 * 32 AND $1 * 32 + 31`, id)
	if err != nil {
		return nil, s.translate("booking", err)
	}
	defer rows.Close()
	for rows.Next() {
		var ticket int64
		var number string
		if err := rows.Scan(&ticket, &number); err != nil {
			return nil, s.translate("booking", err)
		}
		if ticket == 0 {
			b.ExchangedFrom = number
		}
		for i := range b.Tickets {
			if b.Tickets[i].ID == ticket {
				b.Tickets[i].ExchangedTo = number
			}
		}
	}
	return b, s.translate("booking", rows.Err())
}

// bookingID finds the id of the booking with number (normalized).
func (s *Store) bookingID(ctx context.Context, number string) (int64, error) {
	var id int64
	err := s.pool.QueryRow(ctx, `SELECT id FROM bookings WHERE number = $1`, number).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, notFoundBooking(number)
	}
	return id, s.translate("booking", err)
}

// notFoundBooking is the answer for a number that names no booking
// (store.NoBooking).
func notFoundBooking(number string) error { return store.NoBooking(number) }

// normalizeNumber accepts a booking number as typed (store.BookingNumber).
func normalizeNumber(n string) string { return store.BookingNumber(n) }

// answerTimeout bounds the read that answers a write already committed.
const answerTimeout = 5 * time.Second

// committedBooking reads a booking a write just committed, even when the
// caller's context ended meanwhile: the change is made, and the answer
// says so.
func (s *Store) committedBooking(ctx context.Context, id int64) (*booking.Booking, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), answerTimeout)
	defer cancel()
	return s.wholeBooking(ctx, id)
}

// isBookingNumber reports whether n (normalized) has the shape of a
// booking number: BO- and eight characters of booking.NumberAlphabet.
func isBookingNumber(n string) bool {
	rest, ok := strings.CutPrefix(n, "BO-")
	if !ok || len(rest) != 8 {
		return false
	}
	for _, r := range rest {
		if !strings.ContainsRune(booking.NumberAlphabet, r) {
			return false
		}
	}
	return true
}

// FindBookings searches by booking number, phone or customer name, newest
// first. An exact booking number is the only result: a number must never
// bring up someone else's booking whose phone holds the same digits.
func (s *Store) FindBookings(ctx context.Context, actor booking.Actor, q booking.BookingQuery) ([]booking.Booking, error) {
	if err := booking.Authorize(actor, booking.ActionFindBooking); err != nil {
		return nil, err
	}
	text := booking.CleanLine(q.Text, 64)
	if text == "" {
		return nil, booking.Errorf(booking.EInvalid, "Type a booking number, phone or name.")
	}
	limit := q.Limit
	if limit <= 0 || limit > 50 {
		limit = 20
	}
	var ids []int64
	var err error
	if number := normalizeNumber(text); isBookingNumber(number) {
		ids, err = s.ids(ctx, `SELECT id FROM bookings WHERE number = $1`, number)
	}
	if err == nil && len(ids) == 0 {
		// Not a booking: eight letters and digits may still be a phone
		// number or a name.
		if digits := phoneSearchDigits(text); digits != "" {
			rev := reverse(digits)
			ids, err = s.ids(ctx, `SELECT id FROM bookings WHERE phone <> ''
				AND reverse(regexp_replace(phone, '[^0-9]', '', 'g')) COLLATE "C" >= $1
				AND reverse(regexp_replace(phone, '[^0-9]', '', 'g')) COLLATE "C" < $2
				ORDER BY id DESC LIMIT $3`, rev, prefixEnd(rev), limit)
		} else {
			ids, err = s.findByName(ctx, text, limit)
		}
	}
	if err != nil {
		return nil, s.translate("find bookings", err)
	}
	out := []booking.Booking{}
	for _, id := range ids {
		b, err := s.wholeBooking(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, *b)
	}
	return out, nil
}

// qFindByName finds the newest bookings whose customer has, for every
// word of $1 (folded by name_words, as the stored names were), a word
// starting with it. The longest typed word drives: the stored words it
// is a prefix of are found by hopping through booking_words' primary key
// (at most maxPrefixWords, $4), each gives its newest bookings (the
// limit $3, or $2 when several words were typed), and those are filtered
// by the other typed words.
const qFindByName = `WITH RECURSIVE typed AS (SELECT name_words($1) AS ws),
	driver AS (SELECT w FROM typed, unnest(typed.ws) AS w ORDER BY length(w) DESC, w LIMIT 1),
	stored(word, n) AS (
		SELECT (SELECT word FROM booking_words WHERE word >= (SELECT w FROM driver) ORDER BY word LIMIT 1), 1
		UNION ALL
		SELECT (SELECT word FROM booking_words WHERE word > stored.word ORDER BY word LIMIT 1), n + 1
		FROM stored WHERE starts_with(stored.word, (SELECT w FROM driver)) AND n < $4),
	found AS (SELECT DISTINCT x.booking_id FROM stored, LATERAL (
		SELECT booking_id FROM booking_words bw WHERE bw.word = stored.word ORDER BY booking_id DESC
		LIMIT CASE WHEN cardinality((SELECT ws FROM typed)) > 1 THEN $2::bigint ELSE $3::bigint END) AS x
		WHERE starts_with(stored.word, (SELECT w FROM driver)))
	SELECT b.id FROM found JOIN bookings b ON b.id = found.booking_id, typed
	WHERE NOT EXISTS (SELECT 1 FROM unnest(typed.ws) AS t WHERE NOT EXISTS (
		SELECT 1 FROM unnest(name_words(b.customer)) AS have WHERE starts_with(have, t)))
	ORDER BY b.id DESC LIMIT $3`

// findByName runs qFindByName for text.
func (s *Store) findByName(ctx context.Context, text string, limit int) ([]int64, error) {
	return s.ids(ctx, qFindByName, text, multiWordPerWord, limit, maxPrefixWords)
}

// ids runs a query of booking ids.
func (s *Store) ids(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// phoneSearchDigits returns the digits to search for when text reads as a
// phone number (digits and the usual separators, at least three digits),
// else "" (db's, repeated).
func phoneSearchDigits(text string) string {
	var digits []byte
	for _, r := range text {
		switch {
		case r >= '0' && r <= '9':
			digits = append(digits, byte(r))
		case strings.ContainsRune(" +-()./", r):
		default:
			return ""
		}
	}
	if len(digits) < 3 {
		return ""
	}
	if len(digits) > phoneDigits {
		digits = digits[len(digits)-phoneDigits:]
	}
	return string(digits)
}

// reverse is digits, last first: "ends with" becomes a prefix.
func reverse(digits string) string {
	out := []byte(digits)
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

// prefixEnd is the smallest string greater than every string starting
// with p, byte by byte (the "C" collation); p is ASCII digits here.
func prefixEnd(p string) string {
	return p[:len(p)-1] + string([]byte{p[len(p)-1] + 1})
}
