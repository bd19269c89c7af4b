package pg

import (
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// Blocked and house seats' queries (store.BlocksTx). The layout's blocked
// seats are seats.blocked here; the store reads them from the hall.

// LockSeatClaims takes blockLockSQL: it waits for every transaction
// writing holds or claims and holds off new ones until this one ends.
func (t *tx) LockSeatClaims() error {
	_, err := t.Exec(t.ctx, blockLockSQL)
	return err
}

// SeatBlocksOf reads the seats' blocks: the show's own and the hall's
// hall-wide ones.
func (t *tx) SeatBlocksOf(showID, hallID int64, seatIDs []int64) ([]store.BlockRow, error) {
	var out []store.BlockRow
	err := eachRow(t.ctx, t, `SELECT seat_id, kind, blocked_by, false FROM seat_blocks WHERE show_id = $1 AND seat_id = ANY($2)
		UNION ALL SELECT seat_id, kind, blocked_by, true FROM seat_blocks WHERE show_id IS NULL AND hall_id = $3 AND seat_id = ANY($2)`,
		[]any{showID, seatIDs, hallID}, func(r pgx.Rows) error {
			var b store.BlockRow
			var kind string
			if err := r.Scan(&b.SeatID, &kind, &b.By, &b.HallWide); err != nil {
				return err
			}
			b.Kind = booking.BlockKind(kind)
			out = append(out, b)
			return nil
		})
	return out, err
}

// LiveClaimsOf reads the seats' held or sold claims, by seat.
func (t *tx) LiveClaimsOf(showID int64, seatIDs []int64) (map[int64]store.LiveClaim, error) {
	out := map[int64]store.LiveClaim{}
	err := eachRow(t.ctx, t, `SELECT c.seat_id, c.status = 'sold', h.owner, c.hold_id FROM seat_claims c JOIN holds h ON h.id = c.hold_id
		WHERE c.show_id = $1 AND c.status IN ('held', 'sold') AND c.seat_id = ANY($2)`, []any{showID, seatIDs}, func(r pgx.Rows) error {
		var seat int64
		var c store.LiveClaim
		if err := r.Scan(&seat, &c.Sold, &c.Owner, &c.HoldID); err != nil {
			return err
		}
		out[seat] = c
		return nil
	})
	return out, err
}

// ReleaseHeldSeats releases seats of a hold (releaseHold).
func (t *tx) ReleaseHeldSeats(holdID, showID int64, seatIDs []int64) error {
	_, err := releaseHold(t, holdID, showID, seatIDs)
	return err
}

// ExpireStaleHolds expires the show's lapsed holds (expireStale).
func (t *tx) ExpireStaleHolds(showID int64) (int, error) { return expireStale(t, showID) }

// FirstClaimInHall reads the earliest show to come's live claim of any
// of the seats.
func (t *tx) FirstClaimInHall(hallID int64, seatIDs []int64, after time.Time) (store.HallClaim, bool, error) {
	var c store.HallClaim
	var starts int64
	now := after.UnixMilli()
	err := t.QueryRow(t.ctx, `SELECT s.starts_at, c.seat_id, c.status = 'sold' FROM shows s
		JOIN seat_claims c ON c.show_id = s.id JOIN holds h ON h.id = c.hold_id
		WHERE s.hall_id = $1 AND s.starts_at > $2 AND c.status IN ('held', 'sold')
		AND (c.status = 'sold' OR `+liveHold("h", "$3")+`)
		AND c.seat_id = ANY($4) ORDER BY s.starts_at LIMIT 1`, hallID, after.Unix(), now, seatIDs).Scan(&starts, &c.SeatID, &c.Sold)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	c.Starts = time.Unix(starts, 0)
	return c, err == nil, err
}

// InsertBlocks writes blocks in one statement.
func (t *tx) InsertBlocks(b store.NewBlocks) error {
	var showID *int64
	if b.ShowID != 0 {
		showID = &b.ShowID
	}
	_, err := t.Exec(t.ctx, `INSERT INTO seat_blocks (show_id, hall_id, seat_id, kind, reason, blocked_by, at)
		SELECT $1, $2, x, $4, $5, $6, $7 FROM unnest($3::bigint[]) AS x`,
		showID, b.HallID, b.Seats, string(b.Kind), b.Reason, b.By, b.At.UnixMilli())
	return err
}

// DeleteBlocks lifts a show's own blocks of seats, or the hall's
// hall-wide ones.
func (t *tx) DeleteBlocks(showID, hallID int64, seatIDs []int64, hallWide bool) error {
	query, key := `DELETE FROM seat_blocks WHERE show_id = $1 AND seat_id = ANY($2)`, showID
	if hallWide {
		query, key = `DELETE FROM seat_blocks WHERE show_id IS NULL AND hall_id = $1 AND seat_id = ANY($2)`, hallID
	}
	_, err := t.Exec(t.ctx, query, key, seatIDs)
	return err
}
