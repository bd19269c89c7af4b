package db

import (
	"context"
	"database/sql"

	"boxoffice/booking"
)

// Searching for a booking (store.FindBookings) reads three indexes, so a
// search costs the same on the first day and after a year of sales (see
// migrations/0003_scale.sql): bookings by number, phone_rev (the phone's
// digits reversed: "ends with" is a prefix) and booking_words (each
// booking's folded name words, booking.NameWords).
//
// modernc's SQLite has FTS5 (trigram too), and it was tried for names: a
// prefix query there merges the document lists of every matching term,
// so its cost grows with the bookings that match ("ann*" took 0.5 ms on
// 179 000 names), and each commit writes an index segment (a one-row
// transaction took three times as long as without it). The word table
// reads each matching word's bookings through its primary key instead.

// BookingIDByNumber finds a booking by its number.
func (d driver) BookingIDByNumber(ctx context.Context, number string) (int64, bool, error) {
	return d.oneID(ctx, "booking", `SELECT id FROM bookings WHERE number = ?`, number)
}

// BookingIDByKey finds the booking an idempotency key made.
func (d driver) BookingIDByKey(ctx context.Context, key string) (int64, bool, error) {
	return d.oneID(ctx, "booking by key", `SELECT id FROM bookings WHERE idem_key = ?`, key)
}

// oneID reads one id, found false when no row matches.
func (d driver) oneID(ctx context.Context, op, query string, args ...any) (int64, bool, error) {
	var id int64
	err := d.s.readRow(ctx, query, args...).Scan(&id)
	if isNoRows(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, d.s.translate(op, err)
	}
	return id, true, nil
}

// BookingIDsByPhone reads the newest bookings whose phone ends with
// digits, through phone_rev.
func (d driver) BookingIDsByPhone(ctx context.Context, digits string, limit int) ([]int64, error) {
	rev := booking.ReverseDigits(digits)
	ids, err := d.s.readIDs(ctx, `SELECT id FROM bookings WHERE phone_rev >= ? AND phone_rev < ? AND phone_rev <> ''
		ORDER BY id DESC LIMIT ?`, rev, booking.PrefixEnd(rev), limit)
	return ids, d.s.translate("find bookings", err)
}

// NameWordsWithPrefix hops from one stored word to the next through the
// primary key.
func (d driver) NameWordsWithPrefix(ctx context.Context, p string, max int) ([]string, error) {
	rows, err := d.s.readRows(ctx, `WITH RECURSIVE w(word) AS (
			SELECT (SELECT min(word) FROM booking_words WHERE word >= ?1 AND word < ?2)
			UNION ALL
			SELECT (SELECT min(word) FROM booking_words WHERE word > w.word AND word < ?2) FROM w WHERE w.word IS NOT NULL
			LIMIT ?3)
		SELECT word FROM w WHERE word IS NOT NULL`, p, booking.PrefixEnd(p), max)
	if err != nil {
		return nil, d.s.translate("find bookings", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var w string
		if err := rows.Scan(&w); err != nil {
			return nil, d.s.translate("find bookings", err)
		}
		out = append(out, w)
	}
	return out, d.s.translate("find bookings", rows.Err())
}

// NameWordBookings counts index entries only, up to upTo.
func (d driver) NameWordBookings(ctx context.Context, words []string, upTo int) (int, error) {
	var n int
	err := d.s.readRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM booking_words WHERE word IN (SELECT value FROM json_each(?)) LIMIT ?)`,
		jsonStrings(words), upTo).Scan(&n)
	return n, d.s.translate("find bookings", err)
}

// BookingIDsWithNameWords reads the bookings of the words in anyOf and
// checks each other list by primary-key lookups (word, booking_id).
func (d driver) BookingIDsWithNameWords(ctx context.Context, anyOf []string, also [][]string, limit int) ([]int64, error) {
	query := `SELECT DISTINCT a.booking_id FROM booking_words a WHERE a.word IN (SELECT value FROM json_each(?))`
	args := []any{jsonStrings(anyOf)}
	for _, words := range also {
		query += ` AND EXISTS (SELECT 1 FROM booking_words b WHERE b.word IN (SELECT value FROM json_each(?)) AND b.booking_id = a.booking_id)`
		args = append(args, jsonStrings(words))
	}
	ids, err := d.s.readIDs(ctx, query+` ORDER BY a.booking_id DESC LIMIT ?`, append(args, limit)...)
	return ids, d.s.translate("find bookings", err)
}

// indexCustomer records a new booking's name words for the name search.
func indexCustomer(w *wtx, bookingID int64, customer string) error {
	words := booking.NameWords(customer)
	if len(words) == 0 {
		return nil
	}
	args := make([]any, 0, 2*len(words))
	for _, word := range words {
		args = append(args, word, bookingID)
	}
	_, err := w.exec(`INSERT INTO booking_words (word, booking_id) VALUES `+placeholders("(?, ?)", len(words)), args...)
	return err
}

// backfillSearch fills phone_rev and booking_words for the bookings and
// waiting-list entries made before migration 3.
func backfillSearch(ctx context.Context, tx *sql.Tx) error {
	type row struct {
		id              int64
		customer, phone string
	}
	read := func(query string) ([]row, error) {
		rows, err := tx.QueryContext(ctx, query)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.customer, &r.phone); err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, rows.Err()
	}
	bookings, err := read(`SELECT id, customer, phone FROM bookings`)
	if err != nil {
		return err
	}
	for _, b := range bookings {
		if rev := booking.ReverseDigits(b.phone); rev != "" {
			if _, err := tx.ExecContext(ctx, `UPDATE bookings SET phone_rev = ? WHERE id = ?`, rev, b.id); err != nil {
				return err
			}
		}
		for _, word := range booking.NameWords(b.customer) {
			if _, err := tx.ExecContext(ctx, `INSERT INTO booking_words (word, booking_id) VALUES (?, ?)`, word, b.id); err != nil {
				return err
			}
		}
	}
	entries, err := read(`SELECT id, name, phone FROM waitlist`)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if _, err := tx.ExecContext(ctx, `UPDATE waitlist SET phone_rev = ? WHERE id = ?`, booking.ReverseDigits(e.phone), e.id); err != nil {
			return err
		}
	}
	return nil
}
