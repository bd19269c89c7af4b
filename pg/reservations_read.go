package pg

import (
	"context"
	"crypto/subtle"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// The reads of reservations and the kiosk's collection, as db's
// reservations_read.go: each one statement (its own snapshot).

// loadReservation reads a reservation with its show and seats. One whose
// cut-off passed reads as lapsed even before the sweeper marks it.
func (s *Store) loadReservation(ctx context.Context, id int64) (*booking.Reservation, error) {
	var r booking.Reservation
	var showID, created, cutoff int64
	var types string
	err := s.pool.QueryRow(ctx, `SELECT id, number, show_id, name, phone, hold_id, types, source, status, created_by, created_at, cutoff_at, coalesce(booking_id, 0)
		FROM reservations WHERE id = $1`, id).Scan(&r.ID, &r.Number, &showID, &r.Name, &r.Phone, &r.HoldID, &types, &r.Source, &r.Status,
		&r.CreatedBy, &created, &cutoff, &r.BookingID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, booking.Errorf(booking.ENotFound, "No such reservation.")
	}
	if err != nil {
		return nil, s.translate("reservation", err)
	}
	r.CreatedAt, r.CutOff, r.Types = time.UnixMilli(created), time.UnixMilli(cutoff), parseTypes(types)
	if r.Status == booking.ReservationReserved && !s.opts.Clock().Before(r.CutOff) {
		r.Status = booking.ReservationLapsed
	}
	if r.Show, err = s.showInfo(ctx, showID); err != nil {
		return nil, err
	}
	hall, err := s.hall(ctx, r.Show.HallID)
	if err != nil {
		return nil, err
	}
	err = eachRow(ctx, s.pool, `SELECT c.seat_id FROM seat_claims c JOIN seats x ON x.id = c.seat_id WHERE c.hold_id = $1 AND c.status <> 'released' ORDER BY x.row_idx, x.col`,
		[]any{r.HoldID}, func(rows pgx.Rows) error {
			var seatID int64
			if err := rows.Scan(&seatID); err != nil {
				return err
			}
			if seat, ok := s.seatByID(hall.ID, seatID); ok {
				r.Seats = append(r.Seats, seat)
			}
			return nil
		})
	return &r, s.translate("reservation", err)
}

// Reservation looks a reservation up by its number (its QR is the number).
func (s *Store) Reservation(ctx context.Context, actor booking.Actor, number string) (*booking.Reservation, error) {
	if err := booking.Authorize(actor, booking.ActionFindBooking); err != nil {
		return nil, err
	}
	number = normalizeNumber(booking.CleanLine(number, 16))
	var id int64
	if err := s.pool.QueryRow(ctx, `SELECT id FROM reservations WHERE number = $1`, number).Scan(&id); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, booking.Errorf(booking.ENotFound, "No reservation %s.", number)
		}
		return nil, s.translate("reservation", err)
	}
	return s.loadReservation(ctx, id)
}

// FindReservations finds reservations by number, or by the whole phone
// number (its digits), newest first.
func (s *Store) FindReservations(ctx context.Context, actor booking.Actor, text string) ([]booking.Reservation, error) {
	if err := booking.Authorize(actor, booking.ActionFindBooking); err != nil {
		return nil, err
	}
	text = booking.CleanLine(text, 64)
	if text == "" {
		return nil, booking.Errorf(booking.EInvalid, "Type a reservation number or phone number.")
	}
	if number := normalizeNumber(text); isBookingNumber(number) {
		r, err := s.Reservation(ctx, actor, number)
		if err == nil {
			return []booking.Reservation{*r}, nil
		}
		if booking.ErrorCode(err) != booking.ENotFound {
			return nil, err
		}
	}
	digits, err := booking.PhoneDigits(text)
	if err != nil {
		return nil, nil // neither a reservation's number nor a phone number
	}
	// The phone's one form, and its digits as typed, which is how
	// reservations made before the form was kept are stored.
	normal, err := booking.NormalPhone(text, s.opts.PhoneCountry)
	if err != nil {
		normal = digits
	}
	rows, err := s.pool.Query(ctx, `SELECT id FROM reservations WHERE phone_digits IN ($1, $2) ORDER BY created_at DESC, id DESC LIMIT 20`, normal, digits)
	if err != nil {
		return nil, s.translate("find reservations", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, s.translate("find reservations", err)
	}
	out := make([]booking.Reservation, 0, len(ids))
	for _, id := range ids {
		r, err := s.loadReservation(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, *r)
	}
	return out, nil
}

// pqCollect finds a number among bookings and reservations in one
// statement that always returns one row and does the same work found or
// not, as db's qCollect: per table one probe of the number's index that
// always yields one id (the row's, or the UNION's 0), then one probe of a
// row by id — the number's row or, when not found, the row with id 1,
// whose phone is never compared. So a made-up number costs what someone
// else's does.
const pqCollect = `WITH b(id) AS (SELECT id FROM bookings WHERE number = $1 UNION ALL SELECT 0 LIMIT 1),
	r(id) AS (SELECT id FROM reservations WHERE number = $1 UNION ALL SELECT 0 LIMIT 1)
	SELECT b.id, coalesce((SELECT phone FROM bookings WHERE id = greatest(b.id, 1)), ''),
	r.id, coalesce((SELECT phone_digits FROM reservations WHERE id = greatest(r.id, 1)), '') FROM b, r`

// Statements of collect's guess counters (collect_guesses, 0012). qLockGuesses
// makes sure both keys have a row and locks them, the number's first, in
// one statement (a no-op update of each), returning where they stand: a
// try waits there for the one before it on either key to commit. Every
// collect locks its number before its address, so two never wait on each
// other in a cycle. qForgetGuesses skips rows another try holds.
const (
	qLockGuesses = `INSERT INTO collect_guesses AS g (key) VALUES ($1), ($2)
	ON CONFLICT (key) DO UPDATE SET key = g.key RETURNING key, tries, pauses, paused_until, last_at`
	qPutGuesses = `UPDATE collect_guesses AS g SET tries = v.tries, pauses = v.pauses, paused_until = v.until, last_at = v.last, keep_until = v.keep
	FROM (VALUES ($1::text, $2::integer, $3::integer, $4::bigint, $5::bigint, $6::bigint), ($7, $8, $9, $10, $11, $12))
		AS v(key, tries, pauses, until, last, keep) WHERE g.key = v.key`
	qForgetGuesses = `DELETE FROM collect_guesses WHERE key IN
	(SELECT key FROM collect_guesses WHERE keep_until < $1 ORDER BY keep_until LIMIT 100 FOR UPDATE SKIP LOCKED)`
)

// collected is what collect's transaction found: the booking or
// reservation whose digits were right, or neither, or the try refused
// unseen (count.Wait).
type collected struct {
	count                    booking.CollectCount
	bookingID, reservationID int64
}

// Collect shows a customer their own booking or reservation, as db's
// Collect: each try counted on its number's and its address's guess
// counters (booking's CollectTry) in one READ COMMITTED transaction that
// holds both counters' rows, on whichever server, from before the count
// until after the compare; a wrong pair, another customer's booking and a
// made-up number take the same path (the counts, the one read of
// pqCollect, a constant-time compare of four digits, the audit row) and
// read ErrNoBookingFound; only a match reads more.
func (s *Store) Collect(ctx context.Context, actor booking.Actor, req booking.CollectRequest) (*booking.Collection, error) {
	if err := booking.Authorize(actor, booking.ActionCollect); err != nil {
		return nil, err
	}
	digits := strings.TrimSpace(req.Digits)
	if len(digits) != 4 || strings.ContainsFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) {
		return nil, booking.Errorf(booking.EInvalid, "Type the last four digits of your phone number.")
	}
	number := normalizeNumber(booking.CleanLine(req.Number, 16))
	addr := booking.KioskAddr(req.Addr, "")
	got, err := inTx(s, ctx, "collect", txMode{iso: pgx.ReadCommitted}, func(t *tx) (collected, error) {
		if err := checkActor(t, actor); err != nil {
			return collected{}, err
		}
		return collectIn(t, actor, number, digits, addr)
	})
	if err != nil {
		return nil, err
	}
	if got.bookingID == 0 && got.reservationID == 0 {
		reason := "wrong digits"
		if got.count.Wait > 0 {
			reason = "paused"
		}
		s.log.Warn("collect failed", "number", number, "addr", addr, "terminal", booking.CleanLine(actor.Terminal, 60), "reason", reason,
			"number_tries", got.count.Number.Tries, "addr_tries", got.count.Addr.Tries, "wait", got.count.Wait)
		if err := got.count.Refused(); err != nil {
			return nil, err
		}
		return nil, booking.ErrNoBookingFound
	}
	if got.bookingID != 0 {
		b, err := s.wholeBooking(ctx, got.bookingID)
		if err != nil {
			return nil, err
		}
		return &booking.Collection{Booking: b}, nil
	}
	r, err := s.loadReservation(ctx, got.reservationID)
	if err != nil {
		return nil, err
	}
	return &booking.Collection{Reservation: r}, nil
}

// collectIn is Collect's transaction: count, then (unless paused)
// compare, then the audit row of a failure or the count of a success put
// right.
func collectIn(t *tx, actor booking.Actor, number, digits, addr string) (collected, error) {
	numberKey, addrKey := booking.CollectKeys(number, addr)
	// Counters whose time is up go first (the two locked below are
	// made afresh when they were among them).
	if _, err := t.Exec(t.ctx, qForgetGuesses, t.nowMS()); err != nil {
		return collected{}, err
	}
	before := map[string]booking.Guesses{}
	err := eachRow(t.ctx, t, qLockGuesses, []any{numberKey, addrKey}, func(rows pgx.Rows) error {
		var key string
		var tries, pauses int
		var until, last int64
		if err := rows.Scan(&key, &tries, &pauses, &until, &last); err != nil {
			return err
		}
		before[key] = booking.GuessesMS(tries, pauses, until, last)
		return nil
	})
	if err != nil {
		return collected{}, err
	}
	got := collected{count: booking.CollectTry(before[numberKey], before[addrKey], t.now)}
	if err := putGuesses(t, numberKey, got.count.Number, addrKey, got.count.Addr); err != nil {
		return collected{}, err
	}
	if got.count.Wait > 0 {
		return got, audit(t, actor, got.count.Failed(number, addr), 0)
	}
	var bookingPhone, reservationDigits string
	var bookingID, reservationID int64
	if err := t.QueryRow(t.ctx, pqCollect, number).Scan(&bookingID, &bookingPhone, &reservationID, &reservationDigits); err != nil {
		return collected{}, err
	}
	want, found := lastFour(reservationDigits), reservationID != 0
	if bookingID != 0 {
		want, found = lastFour(bookingPhone), true
	}
	same := subtle.ConstantTimeCompare([]byte(want), []byte(digits))
	if same != 1 || !found {
		return got, audit(t, actor, got.count.Failed(number, addr), 0)
	}
	n, a := booking.CollectRight(before[addrKey])
	got.bookingID, got.reservationID = bookingID, reservationID
	if bookingID != 0 {
		got.reservationID = 0
	}
	return got, putGuesses(t, numberKey, n, addrKey, a)
}

// putGuesses writes both standings back.
func putGuesses(t *tx, numberKey string, number booking.Guesses, addrKey string, addr booking.Guesses) error {
	args := make([]any, 0, 12)
	for _, g := range []struct {
		key string
		g   booking.Guesses
		l   booking.GuessLimit
	}{{numberKey, number, booking.CollectByNumber}, {addrKey, addr, booking.CollectByAddr}} {
		until, last := g.g.MS()
		args = append(args, g.key, g.g.Tries, g.g.Pauses, until, last, g.l.Keep(g.g).UnixMilli())
	}
	_, err := t.Exec(t.ctx, qPutGuesses, args...)
	return err
}

// lastFour is the last four digits of a phone number, or four characters
// no typed digits can equal when it has fewer: always four bytes, so the
// compare costs the same.
func lastFour(phone string) string {
	var d [4]byte
	n := 0
	for i := len(phone) - 1; i >= 0 && n < 4; i-- {
		if c := phone[i]; c >= '0' && c <= '9' {
			n++
			d[4-n] = c
		}
	}
	if n < 4 {
		return "----"
	}
	return string(d[:])
}

// ReportReservations counts the reservations made in the range by how
// they stand: one whose cut-off passed unpaid counts as lapsed.
func (s *Store) ReportReservations(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.ReservationsReport, error) {
	if err := booking.Authorize(actor, booking.ActionViewReports); err != nil {
		return nil, err
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	out := &booking.ReservationsReport{Range: r, Total: booking.ReservationsRow{Source: "total"},
		Rows: []booking.ReservationsRow{{Source: booking.SourceKiosk}, {Source: booking.SourceCounter}}}
	err := eachRow(ctx, s.pool, `SELECT source, status, cutoff_at <= $1, count(*) FROM reservations WHERE created_at >= $2 AND created_at < $3 GROUP BY 1, 2, 3`,
		[]any{s.opts.Clock().UnixMilli(), r.Start().UnixMilli(), r.End().UnixMilli()}, func(rows pgx.Rows) error {
			var source, status string
			var gone bool
			var n int
			if err := rows.Scan(&source, &status, &gone, &n); err != nil {
				return err
			}
			st := booking.ReservationStatus(status)
			if st == booking.ReservationReserved && gone {
				st = booking.ReservationLapsed
			}
			row := &out.Rows[1]
			if source == string(booking.SourceKiosk) {
				row = &out.Rows[0]
			}
			row.Add(st, n)
			out.Total.Add(st, n)
			return nil
		})
	return out, s.translate("report reservations", err)
}
