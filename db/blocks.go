package db

import (
	"context"
	"database/sql"
	"fmt"

	"boxoffice/booking"
	"boxoffice/store"
)

// Seats kept out of sale (issue 11): blocked and house seats, stored in
// seat_blocks (migration 21). A block is a row in force; lifting it
// deletes the row and the audit trail keeps the history.

// qShowBlocks lists the blocks in force for one show: its own, and its
// hall's hall-wide blocks made before it starts. Parameters: the show,
// its hall, its start in unix ms. Each half is a range of one index.
const qShowBlocks = `SELECT seat_id, kind, reason, blocked_by, at, 0 FROM seat_blocks WHERE show_id = ?1
	UNION ALL SELECT seat_id, kind, reason, blocked_by, at, 1 FROM seat_blocks WHERE show_id IS NULL AND hall_id = ?2 AND at < ?3`

// blockedCount counts the seats of show s kept out of sale and not sold:
// its own blocks not also under a hall-wide one, and the hall-wide blocks
// that apply to it. Each probe is a range of seat_blocks' indexes or of
// seat_claims_one_live (whose condition it repeats), so a show costs its
// blocked seats, never its history.
const blockedCount = `((SELECT count(*) FROM seat_blocks b WHERE b.show_id = s.id
		AND NOT EXISTS (SELECT 1 FROM seat_blocks o WHERE o.show_id IS NULL AND o.hall_id = s.hall_id AND o.seat_id = b.seat_id AND o.at < s.starts_at * 1000)
		AND NOT EXISTS (SELECT 1 FROM seat_claims c WHERE c.show_id = s.id AND c.seat_id = b.seat_id AND c.status IN ('held', 'sold') AND c.status = 'sold'))
	+ (SELECT count(*) FROM seat_blocks b WHERE b.show_id IS NULL AND b.hall_id = s.hall_id AND b.at < s.starts_at * 1000
		AND NOT EXISTS (SELECT 1 FROM seat_claims c WHERE c.show_id = s.id AND c.seat_id = b.seat_id AND c.status IN ('held', 'sold') AND c.status = 'sold')))`

// scanBlocks reads qShowBlocks' rows.
func scanBlocks(rows *sql.Rows) ([]store.BlockInForce, error) {
	defer rows.Close()
	var out []store.BlockInForce
	for rows.Next() {
		var b store.BlockInForce
		if err := rows.Scan(&b.SeatID, &b.Kind, &b.Reason, &b.By, &b.At, &b.HallWide); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// qBlockedClaims finds live claims made on a seat after it was kept out
// of sale, for the show or hall-wide: the write refuses a block of a
// claimed seat and the database a claim of a blocked one, so any is a
// claim that skipped both. A claim older than its block (a lapsed hold,
// a seat set blocked by hand after its sale) is not a problem. Part of
// CheckInvariants: a full check, run on demand.
const qBlockedClaims = `SELECT c.show_id, coalesce((SELECT label FROM seats WHERE id = c.seat_id), '?'), b.kind
		FROM seat_blocks b JOIN seat_claims c ON c.show_id = b.show_id AND c.seat_id = b.seat_id AND c.status IN ('held', 'sold')
		JOIN holds h ON h.id = c.hold_id WHERE b.show_id IS NOT NULL AND h.created_at >= b.at
	UNION ALL SELECT c.show_id, coalesce((SELECT label FROM seats WHERE id = c.seat_id), '?'), b.kind
		FROM seat_blocks b JOIN shows s ON s.hall_id = b.hall_id AND s.starts_at * 1000 > b.at
		JOIN seat_claims c ON c.show_id = s.id AND c.seat_id = b.seat_id AND c.status IN ('held', 'sold')
		JOIN holds h ON h.id = c.hold_id WHERE b.show_id IS NULL AND h.created_at >= b.at
	LIMIT ?`

// checkBlocked names each live claim on a seat kept out of sale before
// the claim was made.
func (s *Store) checkBlocked(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := s.txRows(ctx, tx, qBlockedClaims, maxProblems)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var show int64
		var label, kind string
		if err := rows.Scan(&show, &label, &kind); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("show %d seat %s was claimed after it was %s", show, booking.CleanLine(label, 16), store.BlockWords(booking.BlockKind(kind))))
	}
	return out, rows.Err()
}
