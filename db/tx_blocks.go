package db

import (
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// Blocked and house seats' queries (store.BlocksTx). The layout's blocked
// seats are mirrored into seat_blocks as hall-wide blocks by "layout"
// (migration 21).

// LockSeatClaims does nothing: the one writer runs one write at a time,
// so nothing claims a seat while a block decides.
func (w *wtx) LockSeatClaims() error { return nil }

// SeatBlocksOf reads the seats' blocks: the show's own and the hall's
// hall-wide ones.
func (w *wtx) SeatBlocksOf(showID, hallID int64, seatIDs []int64) ([]store.BlockRow, error) {
	args := make([]any, 0, 2*len(seatIDs)+2)
	args = append(args, showID)
	for _, id := range seatIDs {
		args = append(args, id)
	}
	args = append(args, hallID)
	for _, id := range seatIDs {
		args = append(args, id)
	}
	in := placeholders("?", len(seatIDs))
	rows, err := w.query(`SELECT seat_id, kind, blocked_by, 0 FROM seat_blocks WHERE show_id = ? AND seat_id IN (`+in+`)
		UNION ALL SELECT seat_id, kind, blocked_by, 1 FROM seat_blocks WHERE show_id IS NULL AND hall_id = ? AND seat_id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.BlockRow
	for rows.Next() {
		var r store.BlockRow
		var kind string
		if err := rows.Scan(&r.SeatID, &kind, &r.By, &r.HallWide); err != nil {
			return nil, err
		}
		r.Kind = booking.BlockKind(kind)
		out = append(out, r)
	}
	return out, rows.Err()
}

// LiveClaimsOf reads the seats' held or sold claims, in one query.
func (w *wtx) LiveClaimsOf(showID int64, seatIDs []int64) (map[int64]store.LiveClaim, error) {
	args := make([]any, 0, len(seatIDs)+1)
	args = append(args, showID)
	for _, id := range seatIDs {
		args = append(args, id)
	}
	rows, err := w.query(`SELECT c.seat_id, c.status = 'sold', h.owner, c.hold_id FROM seat_claims c JOIN holds h ON h.id = c.hold_id
		WHERE c.show_id = ? AND c.status IN ('held', 'sold') AND c.seat_id IN (`+placeholders("?", len(seatIDs))+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[int64]store.LiveClaim, len(seatIDs))
	for rows.Next() {
		var seat int64
		var c store.LiveClaim
		if err := rows.Scan(&seat, &c.Sold, &c.Owner, &c.HoldID); err != nil {
			return nil, err
		}
		out[seat] = c
	}
	return out, rows.Err()
}

// ReleaseHeldSeats releases seats of a hold (releaseHold).
func (w *wtx) ReleaseHeldSeats(holdID, showID int64, seatIDs []int64) error {
	_, err := releaseHold(w, holdID, showID, seatIDs)
	return err
}

// ExpireStaleHolds expires the show's lapsed holds (expireStale).
func (w *wtx) ExpireStaleHolds(showID int64) (int, error) { return expireStale(w, showID) }

// FirstClaimInHall reads the earliest show to come's live claim of any
// of the seats.
func (w *wtx) FirstClaimInHall(hallID int64, seatIDs []int64, after time.Time) (store.HallClaim, bool, error) {
	now := after.UnixMilli()
	args := make([]any, 0, len(seatIDs)+4)
	args = append(args, hallID, after.Unix(), now, now)
	for _, id := range seatIDs {
		args = append(args, id)
	}
	var c store.HallClaim
	var starts int64
	var status string
	err := w.queryRow(`SELECT s.starts_at, c.seat_id, c.status FROM shows s
		JOIN seat_claims c ON c.show_id = s.id JOIN holds h ON h.id = c.hold_id
		WHERE s.hall_id = ? AND s.starts_at > ? AND c.status IN ('held', 'sold') AND (c.status = 'sold' OR `+liveHoldSQL("h")+`)
		AND c.seat_id IN (`+placeholders("?", len(seatIDs))+`) ORDER BY s.starts_at LIMIT 1`, args...).Scan(&starts, &c.SeatID, &status)
	if isNoRows(err) {
		return c, false, nil
	}
	c.Sold, c.Starts = status == "sold", time.Unix(starts, 0)
	return c, err == nil, err
}

// InsertBlocks writes blocks in one statement.
func (w *wtx) InsertBlocks(b store.NewBlocks) error {
	var showID any = b.ShowID
	if b.ShowID == 0 {
		showID = nil
	}
	args := make([]any, 0, 7*len(b.Seats))
	for _, id := range b.Seats {
		args = append(args, showID, b.HallID, id, string(b.Kind), b.Reason, b.By, b.At.UnixMilli())
	}
	_, err := w.exec(`INSERT INTO seat_blocks (show_id, hall_id, seat_id, kind, reason, blocked_by, at) VALUES `+placeholders("(?, ?, ?, ?, ?, ?, ?)", len(b.Seats)), args...)
	return err
}

// DeleteBlocks lifts a show's own blocks of seats, or the hall's
// hall-wide ones.
func (w *wtx) DeleteBlocks(showID, hallID int64, seatIDs []int64, hallWide bool) error {
	query, key := `DELETE FROM seat_blocks WHERE show_id = ? AND seat_id IN (`, showID
	if hallWide {
		query, key = `DELETE FROM seat_blocks WHERE show_id IS NULL AND hall_id = ? AND seat_id IN (`, hallID
	}
	args := make([]any, 0, len(seatIDs)+1)
	args = append(args, key)
	for _, id := range seatIDs {
		args = append(args, id)
	}
	_, err := w.exec(query+placeholders("?", len(seatIDs))+`)`, args...)
	return err
}
