package db

import (
	"boxoffice/booking"
	"boxoffice/store"
)

// Collect's queries (store.CollectTx): the guess counters are
// collect_guesses (migration 0029). The writer runs one write at a time,
// so reading the counters needs no lock.

// ForgetGuesses deletes the counters whose time is up.
func (w *wtx) ForgetGuesses() error {
	_, err := w.exec(`DELETE FROM collect_guesses WHERE keep_until < ?`, w.nowMS())
	return err
}

// GuessesForUpdate reads both counters in one statement.
func (w *wtx) GuessesForUpdate(numberKey, addrKey string) (number, addr booking.Guesses, err error) {
	rows, err := w.query(`SELECT key, tries, pauses, paused_until, last_at FROM collect_guesses WHERE key IN (?1, ?2)`, numberKey, addrKey)
	if err != nil {
		return number, addr, err
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var tries, pauses int
		var until, last int64
		if err := rows.Scan(&key, &tries, &pauses, &until, &last); err != nil {
			return number, addr, err
		}
		g := booking.GuessesMS(tries, pauses, until, last)
		if key == numberKey {
			number = g
		} else {
			addr = g
		}
	}
	return number, addr, rows.Err()
}

// PutGuesses writes both counters in one statement.
func (w *wtx) PutGuesses(number, addr store.GuessRow) error {
	args := make([]any, 0, 12)
	for _, g := range []store.GuessRow{number, addr} {
		until, last := g.Guesses.MS()
		args = append(args, g.Key, g.Guesses.Tries, g.Guesses.Pauses, until, last, g.KeepUntil.UnixMilli())
	}
	_, err := w.exec(`INSERT INTO collect_guesses (key, tries, pauses, paused_until, last_at, keep_until) VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)
	ON CONFLICT (key) DO UPDATE SET tries = excluded.tries, pauses = excluded.pauses, paused_until = excluded.paused_until,
		last_at = excluded.last_at, keep_until = excluded.keep_until`, args...)
	return err
}

// CollectLookup finds a number among bookings and reservations in one
// statement that always returns one row and does the same work found or
// not: per table one seek of the number's index that always yields one
// id (the row's, or the UNION's 0, which costs about what reading a found
// row does), then one seek of a row by id — the number's row or, when
// not found, the row with id 1, whose phone is never compared. So a
// made-up number costs what someone else's does (TestStore_CollectTimes).
func (w *wtx) CollectLookup(number string) (store.CollectFound, error) {
	var f store.CollectFound
	err := w.queryRow(`WITH b(id) AS (SELECT id FROM bookings WHERE number = ?1 UNION ALL SELECT 0 LIMIT 1),
	r(id) AS (SELECT id FROM reservations WHERE number = ?1 UNION ALL SELECT 0 LIMIT 1)
	SELECT b.id, coalesce((SELECT phone FROM bookings WHERE id = max(b.id, 1)), ''),
	r.id, coalesce((SELECT phone_digits FROM reservations WHERE id = max(r.id, 1)), '') FROM b, r`, number).Scan(
		&f.BookingID, &f.BookingPhone, &f.ReservationID, &f.ReservationDigits)
	return f, err
}
