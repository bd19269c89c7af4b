package pg

import (
	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// Collect's queries (store.CollectTx): the guess counters are
// collect_guesses (0012). A collect holds both its counters' rows, on
// whichever server, from before the count until after the compare.

// ForgetGuesses deletes up to a hundred counters whose time is up,
// skipping rows another try holds.
func (t *tx) ForgetGuesses() error {
	_, err := t.Exec(t.ctx, `DELETE FROM collect_guesses WHERE key IN
	(SELECT key FROM collect_guesses WHERE keep_until < $1 ORDER BY keep_until LIMIT 100 FOR UPDATE SKIP LOCKED)`, t.nowMS())
	return err
}

// GuessesForUpdate makes sure both keys have a row and locks them, the
// number's first, in one statement (a no-op update of each), returning
// where they stand: a try waits there for the one before it on either
// key to commit.
func (t *tx) GuessesForUpdate(numberKey, addrKey string) (number, addr booking.Guesses, err error) {
	err = eachRow(t.ctx, t, `INSERT INTO collect_guesses AS g (key) VALUES ($1), ($2)
	ON CONFLICT (key) DO UPDATE SET key = g.key RETURNING key, tries, pauses, paused_until, last_at`, []any{numberKey, addrKey}, func(rows pgx.Rows) error {
		var key string
		var tries, pauses int
		var until, last int64
		if err := rows.Scan(&key, &tries, &pauses, &until, &last); err != nil {
			return err
		}
		g := booking.GuessesMS(tries, pauses, until, last)
		if key == numberKey {
			number = g
		} else {
			addr = g
		}
		return nil
	})
	return number, addr, err
}

// PutGuesses writes both counters in one statement.
func (t *tx) PutGuesses(number, addr store.GuessRow) error {
	args := make([]any, 0, 12)
	for _, g := range []store.GuessRow{number, addr} {
		until, last := g.Guesses.MS()
		args = append(args, g.Key, g.Guesses.Tries, g.Guesses.Pauses, until, last, g.KeepUntil.UnixMilli())
	}
	_, err := t.Exec(t.ctx, `UPDATE collect_guesses AS g SET tries = v.tries, pauses = v.pauses, paused_until = v.until, last_at = v.last, keep_until = v.keep
	FROM (VALUES ($1::text, $2::integer, $3::integer, $4::bigint, $5::bigint, $6::bigint), ($7, $8, $9, $10, $11, $12))
		AS v(key, tries, pauses, until, last, keep) WHERE g.key = v.key`, args...)
	return err
}

// CollectLookup finds a number among bookings and reservations in one
// statement that always returns one row and does the same work found or
// not: per table one probe of the number's index that always yields one
// id (the row's, or the UNION's 0), then one probe of a row by id — the
// number's row or, when not found, the row with id 1, whose phone is
// never compared.
func (t *tx) CollectLookup(number string) (store.CollectFound, error) {
	var f store.CollectFound
	err := t.QueryRow(t.ctx, `WITH b(id) AS (SELECT id FROM bookings WHERE number = $1 UNION ALL SELECT 0 LIMIT 1),
	r(id) AS (SELECT id FROM reservations WHERE number = $1 UNION ALL SELECT 0 LIMIT 1)
	SELECT b.id, coalesce((SELECT phone FROM bookings WHERE id = greatest(b.id, 1)), ''),
	r.id, coalesce((SELECT phone_digits FROM reservations WHERE id = greatest(r.id, 1)), '') FROM b, r`, number).Scan(
		&f.BookingID, &f.BookingPhone, &f.ReservationID, &f.ReservationDigits)
	return f, err
}
