package db

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"strings"
	"time"

	"boxoffice/booking"
)

// qReservation reads one reservation's row by id.
const qReservation = `SELECT id, number, show_id, name, phone, hold_id, types, source, status, created_by, created_at, cutoff_at, coalesce(booking_id, 0)
	FROM reservations WHERE id = ?`

// loadReservation reads a reservation with its show and seats. One whose
// cut-off passed reads as lapsed even before the sweeper marks it.
func (s *Store) loadReservation(ctx context.Context, id int64) (*booking.Reservation, error) {
	var r booking.Reservation
	var showID, created, cutoff int64
	var types string
	err := s.readRow(ctx, qReservation, id).Scan(&r.ID, &r.Number, &showID, &r.Name, &r.Phone, &r.HoldID, &types, &r.Source, &r.Status,
		&r.CreatedBy, &created, &cutoff, &r.BookingID)
	if err == sql.ErrNoRows {
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
	rows, err := s.readRows(ctx, `SELECT seat_id FROM seat_claims WHERE hold_id = ? AND status <> 'released'`, r.HoldID)
	if err != nil {
		return nil, s.translate("reservation", err)
	}
	defer rows.Close()
	for rows.Next() {
		var seatID int64
		if err := rows.Scan(&seatID); err != nil {
			return nil, s.translate("reservation", err)
		}
		if seat, ok := s.seatByID(hall.ID, seatID); ok {
			r.Seats = append(r.Seats, seat)
		}
	}
	return &r, s.translate("reservation", rows.Err())
}

// Reservation looks a reservation up by its number (its QR is the number).
func (s *Store) Reservation(ctx context.Context, actor booking.Actor, number string) (*booking.Reservation, error) {
	if err := booking.Authorize(actor, booking.ActionFindBooking); err != nil {
		return nil, err
	}
	number = normalizeNumber(booking.CleanLine(number, 16))
	var id int64
	if err := s.readRow(ctx, `SELECT id FROM reservations WHERE number = ?`, number).Scan(&id); err != nil {
		if err == sql.ErrNoRows {
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
	if number := normalizeNumber(text); booking.IsBookingNumber(number) {
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
	rows, err := s.readRows(ctx, `SELECT id FROM reservations WHERE phone_digits IN (?, ?) ORDER BY created_at DESC LIMIT 20`, normal, digits)
	if err != nil {
		return nil, s.translate("find reservations", err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, s.translate("find reservations", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
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

// qCollect finds a number among bookings and reservations in one
// statement that always returns one row and does the same work found or
// not: per table one seek of the number's index that always yields one
// id (the row's, or the UNION's 0, which costs about what reading a found
// row does), then one seek of a row by id — the number's row or, when
// not found, the row with id 1, whose phone is never compared. So a
// made-up number costs what someone else's does (TestStore_CollectTimes).
const qCollect = `WITH b(id) AS (SELECT id FROM bookings WHERE number = ?1 UNION ALL SELECT 0 LIMIT 1),
	r(id) AS (SELECT id FROM reservations WHERE number = ?1 UNION ALL SELECT 0 LIMIT 1)
	SELECT b.id, coalesce((SELECT phone FROM bookings WHERE id = max(b.id, 1)), ''),
	r.id, coalesce((SELECT phone_digits FROM reservations WHERE id = max(r.id, 1)), '') FROM b, r`

// Statements of collect's guess counters (collect_guesses, 0029): the
// standings of a number's key and an address's, and writing both back.
const (
	qGuesses    = `SELECT key, tries, pauses, paused_until, last_at FROM collect_guesses WHERE key IN (?1, ?2)`
	qPutGuesses = `INSERT INTO collect_guesses (key, tries, pauses, paused_until, last_at, keep_until) VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)
	ON CONFLICT (key) DO UPDATE SET tries = excluded.tries, pauses = excluded.pauses, paused_until = excluded.paused_until,
		last_at = excluded.last_at, keep_until = excluded.keep_until`
	qForgetGuesses = `DELETE FROM collect_guesses WHERE keep_until < ?`
)

// collected is what collect's transaction found: the booking or
// reservation whose digits were right, or neither, or the try refused
// unseen (count.Wait).
type collected struct {
	count                    booking.CollectCount
	bookingID, reservationID int64
}

// Collect shows a customer their own booking or reservation. Each try is
// counted on its number's and its address's guess counters (booking's
// CollectTry) in one write transaction, which compares the digits only
// after the count is written, so tries at once are counted one after the
// other and at most the allowance is ever compared before a pause. The
// comparison is four bytes, not a PIN's hash, so unlike sign-in it runs
// inside that transaction, and a right answer takes its try back exactly.
// A wrong pair, another customer's booking and a made-up number take the
// same path (the counts, the one read of qCollect, a constant-time
// compare of four digits, the audit row) and read ErrNoBookingFound; only
// a match reads more.
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
	got, err := write(s, ctx, actor, "collect", func(w *wtx) (collected, error) {
		return collectIn(w, actor, number, digits, addr)
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
		b, err := s.loadBooking(ctx, got.bookingID)
		if err != nil {
			return nil, err
		}
		s.signCodes(b)
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
func collectIn(w *wtx, actor booking.Actor, number, digits, addr string) (collected, error) {
	numberKey, addrKey := booking.CollectKeys(number, addr)
	// Counters whose time is up go first: a key among them reads as new.
	if _, err := w.exec(qForgetGuesses, w.nowMS()); err != nil {
		return collected{}, err
	}
	before := map[string]booking.Guesses{}
	rows, err := w.query(qGuesses, numberKey, addrKey)
	if err != nil {
		return collected{}, err
	}
	for rows.Next() {
		var key string
		var tries, pauses int
		var until, last int64
		if err := rows.Scan(&key, &tries, &pauses, &until, &last); err != nil {
			rows.Close()
			return collected{}, err
		}
		before[key] = booking.GuessesMS(tries, pauses, until, last)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return collected{}, err
	}
	got := collected{count: booking.CollectTry(before[numberKey], before[addrKey], w.now)}
	if err := putGuesses(w, numberKey, got.count.Number, addrKey, got.count.Addr); err != nil {
		return collected{}, err
	}
	if got.count.Wait > 0 {
		return got, w.audit(actor, got.count.Failed(number, addr), 0)
	}
	var bookingPhone, reservationDigits string
	var bookingID, reservationID int64
	if err := w.queryRow(qCollect, number).Scan(&bookingID, &bookingPhone, &reservationID, &reservationDigits); err != nil {
		return collected{}, err
	}
	want, found := lastFour(reservationDigits), reservationID != 0
	if bookingID != 0 {
		want, found = lastFour(bookingPhone), true
	}
	same := subtle.ConstantTimeCompare([]byte(want), []byte(digits))
	if same != 1 || !found {
		return got, w.audit(actor, got.count.Failed(number, addr), 0)
	}
	n, a := booking.CollectRight(before[addrKey])
	got.bookingID, got.reservationID = bookingID, reservationID
	if bookingID != 0 {
		got.reservationID = 0
	}
	return got, putGuesses(w, numberKey, n, addrKey, a)
}

// putGuesses writes both standings back.
func putGuesses(w *wtx, numberKey string, number booking.Guesses, addrKey string, addr booking.Guesses) error {
	args := make([]any, 0, 12)
	for _, g := range []struct {
		key string
		g   booking.Guesses
		l   booking.GuessLimit
	}{{numberKey, number, booking.CollectByNumber}, {addrKey, addr, booking.CollectByAddr}} {
		until, last := g.g.MS()
		args = append(args, g.key, g.g.Tries, g.g.Pauses, until, last, g.l.Keep(g.g).UnixMilli())
	}
	_, err := w.exec(qPutGuesses, args...)
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
	rows, err := s.readRows(ctx, `SELECT source, status, cutoff_at <= ?, count(*) FROM reservations WHERE created_at >= ? AND created_at < ? GROUP BY 1, 2, 3`,
		s.opts.Clock().UnixMilli(), r.Start().UnixMilli(), r.End().UnixMilli())
	if err != nil {
		return nil, s.translate("report reservations", err)
	}
	defer rows.Close()
	out := &booking.ReservationsReport{Range: r, Total: booking.ReservationsRow{Source: "total"},
		Rows: []booking.ReservationsRow{{Source: booking.SourceKiosk}, {Source: booking.SourceCounter}}}
	for rows.Next() {
		var source, status string
		var gone bool
		var n int
		if err := rows.Scan(&source, &status, &gone, &n); err != nil {
			return nil, s.translate("report reservations", err)
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
	}
	return out, s.translate("report reservations", rows.Err())
}
