package pg

import (
	"context"
	"fmt"
	"time"

	"boxoffice/booking"
)

// settleBatch is how many shows one settling transaction takes, as SQLite's.
const settleBatch = 32

// SettleShows settles the confirmed bookings of the shows that ended
// booking.SettleGrace ago, a batch of shows per transaction: each show is
// claimed by compare-and-set on settled_at, so servers sweeping at the
// same moment settle each show once between them, and each confirmed
// booking becomes completed (a ticket was admitted) or no_show. It reads
// first and takes no write transaction when nothing is due.
func (s *Store) SettleShows(ctx context.Context) (int, error) {
	total := 0
	for {
		due, err := s.showsToSettle(ctx)
		if err != nil || len(due) == 0 {
			return total, err
		}
		// READ COMMITTED: the claim on settled_at and the moves are
		// compare-and-set, re-checked by PostgreSQL on the newest rows.
		n, err := inTx(s, ctx, "settle shows", txMode{}, func(t *tx) (int, error) {
			n, err := settle(t, due)
			if err != nil || n == 0 {
				return n, err
			}
			return n, audit(t, booking.System, booking.AuditEntry{Action: booking.AuditSettle, Detail: fmt.Sprintf("settled %d bookings of %d shows", n, len(due))}, 0)
		})
		total += n
		if err != nil || len(due) < settleBatch {
			return total, err
		}
	}
}

// showsToSettle reads which started shows ended SettleGrace ago and were
// never settled, at most settleBatch of them.
func (s *Store) showsToSettle(ctx context.Context) ([]int64, error) {
	now := s.opts.Clock()
	rows, err := s.pool.Query(ctx, `SELECT s.id, s.starts_at, f.minutes FROM shows s JOIN films f ON f.id = s.film_id
		WHERE s.settled_at IS NULL AND s.starts_at <= $1 ORDER BY s.starts_at LIMIT 256`, now.Unix())
	if err != nil {
		return nil, s.translate("settle shows", err)
	}
	defer rows.Close()
	var due []int64
	for rows.Next() {
		var id, starts int64
		var minutes int
		if err := rows.Scan(&id, &starts, &minutes); err != nil {
			return nil, s.translate("settle shows", err)
		}
		sh := booking.Show{Starts: time.Unix(starts, 0), Film: booking.Film{Minutes: minutes}}
		if !now.Before(sh.Ends().Add(booking.SettleGrace)) && len(due) < settleBatch {
			due = append(due, id)
		}
	}
	return due, s.translate("settle shows", rows.Err())
}

func settle(t *tx, due []int64) (int, error) {
	n := 0
	for _, id := range due {
		tag, err := t.Exec(t.ctx, `UPDATE shows SET settled_at = $1 WHERE id = $2 AND settled_at IS NULL`, t.nowMS(), id)
		if err != nil {
			return 0, err
		}
		if tag.RowsAffected() != 1 {
			continue // another server settled it
		}
		for _, q := range []string{
			`UPDATE bookings SET status = 'completed' WHERE show_id = $1 AND status = 'confirmed' AND EXISTS
				(SELECT 1 FROM tickets t WHERE t.id BETWEEN bookings.id * 32 AND bookings.id * 32 + 31 AND t.status = 'admitted')`,
			`UPDATE bookings SET status = 'no_show' WHERE show_id = $1 AND status = 'confirmed'`,
		} {
			tag, err := t.Exec(t.ctx, q, id)
			if err != nil {
				return 0, err
			}
			n += int(tag.RowsAffected())
		}
		t.touch(id)
	}
	return n, nil
}
