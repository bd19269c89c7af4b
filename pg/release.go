package pg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// Letting holds go (store.SaleTx, store.SaleReads): each move is a
// compare-and-set on a status still 'held', so a checkout that confirmed
// a hold first keeps it.

var (
	_ booking.Sales   = (*Store)(nil)
	_ booking.Changes = (*Store)(nil)
)

// ReleaseHold lets go of seats of a hold (releaseHold).
func (t *tx) ReleaseHold(holdID, showID int64, seatIDs []int64) (int, error) {
	n, err := releaseHold(t, holdID, showID, seatIDs)
	return int(n), err
}

// releaseHold releases the given seats of a hold (all when none), and the
// hold itself once no seat is left, and says how many claims and holds it
// moved.
func releaseHold(t *tx, holdID, showID int64, seatIDs []int64) (int64, error) {
	var moved int64
	if len(seatIDs) > 0 {
		tag, err := t.Exec(t.ctx, `UPDATE seat_claims SET status = 'released' WHERE hold_id = $1 AND seat_id = ANY($2) AND status = 'held'`, holdID, seatIDs)
		if err != nil {
			return 0, err
		}
		moved = tag.RowsAffected()
		var left int
		if err := t.QueryRow(t.ctx, `SELECT count(*) FROM seat_claims WHERE hold_id = $1 AND status = 'held'`, holdID).Scan(&left); err != nil {
			return 0, err
		}
		if left > 0 {
			t.touch(showID)
			return moved, nil
		}
	}
	tag, err := t.Exec(t.ctx, `UPDATE seat_claims SET status = 'released' WHERE hold_id = $1 AND status = 'held'`, holdID)
	if err != nil {
		return 0, err
	}
	moved += tag.RowsAffected()
	tag, err = t.Exec(t.ctx, `UPDATE holds SET status = 'released' WHERE id = $1 AND status = 'held'`, holdID)
	if err != nil {
		return 0, err
	}
	if moved+tag.RowsAffected() > 0 {
		t.touch(showID)
	}
	return moved + tag.RowsAffected(), nil
}

// GiveBackHolds releases the matching held holds by compare-and-set and
// then their claims.
func (t *tx) GiveBackHolds(owner string, prefix bool) (int, []int64, error) {
	match := `owner = $1`
	if prefix {
		match = `starts_with(owner, $1)`
	}
	rows, err := t.Query(t.ctx, `UPDATE holds SET status = 'released' WHERE status = 'held' AND `+match+` RETURNING id, show_id`, owner)
	if err != nil {
		return 0, nil, err
	}
	var ids, shows []int64
	for rows.Next() {
		var id, show int64
		if err := rows.Scan(&id, &show); err != nil {
			rows.Close()
			return 0, nil, err
		}
		ids, shows = append(ids, id), append(shows, show)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return 0, nil, err
	}
	_, err = t.Exec(t.ctx, `UPDATE seat_claims SET status = 'released' WHERE hold_id = ANY($1) AND status = 'held'`, ids)
	return len(ids), shows, err
}

// LapsedHoldShows lists the shows with a lapsed hold still held.
func (t *tx) LapsedHoldShows() ([]int64, error) {
	rows, err := t.Query(t.ctx, `SELECT DISTINCT show_id FROM holds WHERE status = 'held' AND NOT `+liveHold("holds", "$1"), t.nowMS())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// ReadLapsedHolds reports whether any held hold has lapsed.
func (d driver) ReadLapsedHolds(ctx context.Context, now time.Time) (bool, error) {
	var any bool
	err := d.s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM holds WHERE status = 'held' AND NOT `+liveHold("holds", "$1")+`)`, now.UnixMilli()).Scan(&any)
	return any, d.s.translate("expire holds", err)
}

// ReadHeldHolds lists the held holds of owners starting with prefix, with
// their held seats.
func (d driver) ReadHeldHolds(ctx context.Context, prefix string) ([]store.HeldHold, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT h.id, h.show_id, h.owner, h.created_at, h.expires_at,
		coalesce(array_agg(c.seat_id ORDER BY c.seat_id) FILTER (WHERE c.seat_id IS NOT NULL), '{}')
		FROM holds h LEFT JOIN seat_claims c ON c.hold_id = h.id AND c.status = 'held'
		WHERE h.status = 'held' AND starts_with(h.owner, $1)
		GROUP BY h.id ORDER BY h.id`, prefix)
	if err != nil {
		return nil, d.s.translate("live holds", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.HeldHold, error) {
		var h store.HeldHold
		return h, r.Scan(&h.ID, &h.ShowID, &h.Owner, &h.Created, &h.Expires, &h.SeatIDs)
	})
	return out, d.s.translate("live holds", err)
}
