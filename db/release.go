package db

import (
	"context"
	"time"

	"boxoffice/store"
)

// Letting holds go (store.SaleTx, store.SaleReads): each move is a
// compare-and-set on a status still 'held'.

// ReleaseHold lets go of seats of a hold (releaseHold).
func (w *wtx) ReleaseHold(holdID, showID int64, seatIDs []int64) (int, error) {
	n, err := releaseHold(w, holdID, showID, seatIDs)
	return int(n), err
}

// releaseHold releases the given seats of a hold (all when none), and the
// hold once none is left, and says how many claims and holds it moved: 0
// for a hold that had ended.
func releaseHold(w *wtx, holdID, showID int64, seatIDs []int64) (int64, error) {
	var moved int64
	if len(seatIDs) > 0 {
		for _, id := range seatIDs {
			res, err := w.exec(`UPDATE seat_claims SET status = 'released' WHERE hold_id = ? AND seat_id = ? AND status = 'held'`, holdID, id)
			if err != nil {
				return 0, err
			}
			n, _ := res.RowsAffected()
			moved += n
		}
		var left int
		if err := w.queryRow(`SELECT count(*) FROM seat_claims WHERE hold_id = ? AND status = 'held'`, holdID).Scan(&left); err != nil {
			return 0, err
		}
		if left > 0 {
			w.touch(showID)
			return moved, nil
		}
	}
	for _, q := range []string{`UPDATE seat_claims SET status = 'released' WHERE hold_id = ? AND status = 'held'`,
		`UPDATE holds SET status = 'released' WHERE id = ? AND status = 'held'`} {
		res, err := w.exec(q, holdID)
		if err != nil {
			return 0, err
		}
		n, _ := res.RowsAffected()
		moved += n
	}
	w.touch(showID)
	return moved, nil
}

// GiveBackHolds releases an owner's held holds, or those of every owner
// starting with a prefix, and their claims.
func (w *wtx) GiveBackHolds(owner string, prefix bool) (int, []int64, error) {
	match := `owner = ?1`
	if prefix {
		match = `substr(owner, 1, length(?1)) = ?1`
	}
	shows, err := queryList[int64](w, `SELECT DISTINCT show_id FROM holds WHERE status = 'held' AND `+match, owner)
	if err != nil || len(shows) == 0 {
		return 0, nil, err
	}
	if _, err := w.exec(`UPDATE seat_claims SET status = 'released' WHERE status = 'held' AND hold_id IN
		(SELECT id FROM holds WHERE status = 'held' AND `+match+`)`, owner); err != nil {
		return 0, nil, err
	}
	res, err := w.exec(`UPDATE holds SET status = 'released' WHERE status = 'held' AND `+match, owner)
	if err != nil {
		return 0, nil, err
	}
	n, err := res.RowsAffected()
	return int(n), shows, err
}

// LapsedHoldShows lists the shows with a lapsed hold still held: those
// whose expiry passed and those made later than the clock says, each one
// probe of a partial index of live holds.
func (w *wtx) LapsedHoldShows() ([]int64, error) {
	return queryList[int64](w, `SELECT show_id FROM holds WHERE `+qExpiredBy+` UNION SELECT show_id FROM holds WHERE `+qMadeAhead, w.nowMS(), w.nowMS())
}

// ReadLapsedHolds reports whether any held hold has lapsed, on the read
// pool: the sweep writes only when one has.
func (d driver) ReadLapsedHolds(ctx context.Context, now time.Time) (bool, error) {
	var any bool
	ms := now.UnixMilli()
	err := d.s.readRow(ctx, `SELECT EXISTS (SELECT 1 FROM holds WHERE `+qExpiredBy+`) OR EXISTS (SELECT 1 FROM holds WHERE `+qMadeAhead+`)`, ms, ms).Scan(&any)
	return any, d.s.translate("expire holds", err)
}

// ReadHeldHolds lists the held holds of owners starting with prefix, with
// their held seats, on the read pool. The named index and the CROSS JOIN
// keep holds outside and read through the live holds only (a bounded
// index), not every hold or claim ever made.
func (d driver) ReadHeldHolds(ctx context.Context, prefix string) ([]store.HeldHold, error) {
	rows, err := d.s.readRows(ctx, `SELECT h.id, h.show_id, h.owner, h.created_at, h.expires_at, c.seat_id
		FROM holds h INDEXED BY holds_live_by_show CROSS JOIN seat_claims c ON c.hold_id = h.id AND c.status = 'held'
		WHERE h.status = 'held' AND substr(h.owner, 1, ?) = ?
		ORDER BY h.id, c.seat_id`, len(prefix), prefix)
	if err != nil {
		return nil, d.s.translate("live holds", err)
	}
	defer rows.Close()
	var out []store.HeldHold
	for rows.Next() {
		var h store.HeldHold
		var seat int64
		if err := rows.Scan(&h.ID, &h.ShowID, &h.Owner, &h.Created, &h.Expires, &seat); err != nil {
			return nil, d.s.translate("live holds", err)
		}
		if n := len(out); n == 0 || out[n-1].ID != h.ID {
			out = append(out, h)
		}
		out[len(out)-1].SeatIDs = append(out[len(out)-1].SeatIDs, seat)
	}
	return out, d.s.translate("live holds", rows.Err())
}
