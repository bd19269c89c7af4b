package db

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"boxoffice/booking"
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

// scanBlocks reads qShowBlocks' rows into blocks by seat; where a
// hall-wide block and the show's own both hold a seat, blocked wins over
// house and hall-wide over the show's own.
func (s *Store) scanBlocks(rows *sql.Rows, hallID int64) (map[int64]booking.SeatBlock, error) {
	defer rows.Close()
	out := map[int64]booking.SeatBlock{}
	for rows.Next() {
		var b booking.SeatBlock
		var seatID, at int64
		var kind string
		if err := rows.Scan(&seatID, &kind, &b.Reason, &b.By, &at, &b.HallWide); err != nil {
			return nil, err
		}
		b.Kind, _ = booking.ParseBlockKind(kind)
		b.At = time.UnixMilli(at)
		b.Reason, b.By = booking.CleanLine(b.Reason, booking.MaxBlockReason), booking.CleanLine(b.By, 40)
		seat, ok := s.seatByID(hallID, seatID)
		if !ok {
			continue
		}
		b.Seat = seat
		if prev, ok := out[seatID]; ok && (prev.Kind == booking.BlockBlocked && b.Kind != booking.BlockBlocked || prev.HallWide) {
			continue
		}
		out[seatID] = b
	}
	return out, rows.Err()
}

// txBlocks is the blocks in force for show sh, as the write sees them.
func (s *Store) txBlocks(w *wtx, sh booking.Show) (map[int64]booking.SeatBlock, error) {
	rows, err := w.query(qShowBlocks, sh.ID, sh.HallID, sh.Starts.UnixMilli())
	if err != nil {
		return nil, err
	}
	return s.scanBlocks(rows, sh.HallID)
}

// outOfSale is the set of seats of show sh kept out of sale, for the
// hold's and the clash's taken test.
func (s *Store) outOfSale(w *wtx, sh booking.Show) (map[int64]bool, error) {
	blocks, err := s.txBlocks(w, sh)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]bool, len(blocks))
	for id := range blocks {
		out[id] = true
	}
	return out, nil
}

// blockTarget checks a block request and resolves its show, hall and
// seats, before the transaction: layouts and shows never change.
func (s *Store) blockTarget(ctx context.Context, req booking.BlockRequest) (booking.Show, *booking.Hall, []booking.Seat, error) {
	if err := req.Validate(); err != nil {
		return booking.Show{}, nil, nil, err
	}
	sh, err := s.showInfo(ctx, req.ShowID)
	if err != nil {
		return sh, nil, nil, err
	}
	hall, err := s.hall(ctx, sh.HallID)
	if err != nil {
		return sh, nil, nil, err
	}
	var seats []booking.Seat
	seen := map[int64]bool{}
	for _, l := range req.Seats {
		seat, ok := hall.SeatByLabel(strings.TrimSpace(l))
		if !ok {
			return sh, nil, nil, booking.Errorf(booking.EInvalid, "There is no seat %s in %s.", booking.CleanLine(l, 8), booking.CleanLine(hall.Name, 40))
		}
		if !seen[seat.ID] {
			seen[seat.ID] = true
			seats = append(seats, seat)
		}
	}
	return sh, hall, seats, nil
}

// blockRow is a seat_blocks row as a change to blocks meets it.
type blockRow struct {
	kind, by string
	hallWide bool
}

// blockRowsOf returns, by seat, the show's own block of each seat and
// the hall-wide block of each; a seat may have both.
func blockRowsOf(w *wtx, sh booking.Show, seats []booking.Seat) (own, hallWide map[int64]blockRow, err error) {
	args := make([]any, 0, 2*len(seats)+2)
	args = append(args, sh.ID)
	for _, seat := range seats {
		args = append(args, seat.ID)
	}
	args = append(args, sh.HallID)
	for _, seat := range seats {
		args = append(args, seat.ID)
	}
	in := placeholders("?", len(seats))
	rows, err := w.query(`SELECT seat_id, kind, blocked_by, 0 FROM seat_blocks WHERE show_id = ? AND seat_id IN (`+in+`)
		UNION ALL SELECT seat_id, kind, blocked_by, 1 FROM seat_blocks WHERE show_id IS NULL AND hall_id = ? AND seat_id IN (`+in+`)`, args...)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	own, hallWide = map[int64]blockRow{}, map[int64]blockRow{}
	for rows.Next() {
		var id int64
		var r blockRow
		if err := rows.Scan(&id, &r.kind, &r.by, &r.hallWide); err != nil {
			return nil, nil, err
		}
		if r.hallWide {
			hallWide[id] = r
		} else {
			own[id] = r
		}
	}
	return own, hallWide, rows.Err()
}

// layoutBlocker is who a seat blocked in the hall's layout is blocked by.
const layoutBlocker = "layout"

// BlockSeats keeps seats of a show out of sale, all or nothing.
func (s *Store) BlockSeats(ctx context.Context, actor booking.Actor, req booking.BlockRequest) ([]booking.SeatBlock, error) {
	if err := booking.Authorize(actor, booking.BlockAction(req.Kind, false)); err != nil {
		return nil, err
	}
	sh, hall, seats, err := s.blockTarget(ctx, req)
	if err != nil {
		return nil, err
	}
	reason := booking.CleanLine(req.Reason, booking.MaxBlockReason)
	return write(s, ctx, actor, "block seats", func(w *wtx) ([]booking.SeatBlock, error) {
		if !req.HallWide {
			if err := booking.SalesOpen(sh, w.now); err != nil {
				return nil, err
			}
		}
		own, hallWide, err := blockRowsOf(w, sh, seats)
		if err != nil {
			return nil, err
		}
		for _, seat := range seats {
			if _, ok := hallWide[seat.ID]; ok {
				return nil, booking.Errorf(booking.EInvalid, "%s is already blocked for every show of %s.", seat.Label, booking.CleanLine(hall.Name, 40))
			}
			if r, ok := own[seat.ID]; ok && !req.HallWide {
				return nil, booking.Errorf(booking.EInvalid, "%s is already %s for this show.", seat.Label, kindWords(r.kind))
			}
		}
		if err := releaseOwn(w, sh, seats, req.Owner); err != nil {
			return nil, err
		}
		if err := s.checkUnclaimed(w, sh, seats, req.HallWide); err != nil {
			return nil, err
		}
		return insertBlocks(w, actor, sh, seats, req, reason)
	})
}

// kindWords says what a block of kind makes a seat: "blocked", "a house seat".
func kindWords(kind string) string {
	if kind == string(booking.BlockHouse) {
		return "a house seat"
	}
	return "blocked"
}

// insertBlocks writes the blocks, tells the open maps and writes the one
// audit row.
func insertBlocks(w *wtx, actor booking.Actor, sh booking.Show, seats []booking.Seat, req booking.BlockRequest, reason string) ([]booking.SeatBlock, error) {
	var showID any = sh.ID
	if req.HallWide {
		showID = nil
	}
	by := booking.CleanLine(actor.Name, 40)
	args := make([]any, 0, 7*len(seats))
	out := make([]booking.SeatBlock, 0, len(seats))
	for _, seat := range seats {
		args = append(args, showID, sh.HallID, seat.ID, string(req.Kind), reason, by, w.nowMS())
		out = append(out, booking.SeatBlock{Seat: seat, Kind: req.Kind, HallWide: req.HallWide, Reason: reason, By: by, At: w.now})
	}
	if _, err := w.exec(`INSERT INTO seat_blocks (show_id, hall_id, seat_id, kind, reason, blocked_by, at) VALUES `+placeholders("(?, ?, ?, ?, ?, ?, ?)", len(seats)), args...); err != nil {
		return nil, err
	}
	touchBlocks(w, sh, req.HallWide)
	return out, w.audit(actor, booking.AuditEntry{Action: booking.AuditSeatBlock, ShowID: sh.ID, Detail: blockDetail(req, seats, reason)}, 0)
}

// touchBlocks tells every open map the seats changed: the show's, or for
// a hall-wide change every show's (0), since it reaches every show of the
// hall to come.
func touchBlocks(w *wtx, sh booking.Show, hallWide bool) {
	if hallWide {
		w.touch(0)
		return
	}
	w.touch(sh.ID)
}

// blockDetail is the audit row's detail: the kind, the seats, hall-wide
// or not, and the reason.
func blockDetail(req booking.BlockRequest, seats []booking.Seat, reason string) string {
	d := fmt.Sprintf("%s %s", req.Kind, strings.Join(booking.Labels(seats), " "))
	if req.HallWide {
		d += " (every show of the hall from now on)"
	}
	if reason != "" {
		d += ": " + reason
	}
	return d
}

// releaseOwn lets go of the seats owner holds itself among seats, so a
// seat map's selection is blocked in one transaction with nothing between
// the release and the block.
func releaseOwn(w *wtx, sh booking.Show, seats []booking.Seat, owner string) error {
	if owner == "" {
		return nil
	}
	live, err := liveClaimsOf(w, sh.ID, seats)
	if err != nil {
		return err
	}
	byHold := map[int64][]int64{}
	for _, seat := range seats {
		if c, ok := live[seat.ID]; ok && c.status == "held" && c.owner == owner {
			byHold[c.holdID] = append(byHold[c.holdID], seat.ID)
		}
	}
	for holdID, ids := range byHold {
		if _, err := releaseHold(w, holdID, sh.ID, ids); err != nil {
			return err
		}
	}
	return nil
}

// checkUnclaimed refuses, naming each, seats that are sold or held: for
// the show, or for HallWide in any show of the hall to come. A lapsed
// hold does not count (the write expires the show's first).
func (s *Store) checkUnclaimed(w *wtx, sh booking.Show, seats []booking.Seat, hallWide bool) error {
	if !hallWide {
		if _, err := expireStale(w, sh.ID); err != nil {
			return err
		}
		live, err := liveClaimsOf(w, sh.ID, seats)
		if err != nil {
			return err
		}
		var sold, held []booking.Seat
		for _, seat := range seats {
			if c, ok := live[seat.ID]; ok && c.status == "sold" {
				sold = append(sold, seat)
			} else if ok {
				held = append(held, seat)
			}
		}
		switch {
		case len(sold) > 0:
			return claimedError(sold, "sold", "")
		case len(held) > 0:
			return claimedError(held, "held", "")
		}
		return nil
	}
	args := make([]any, 0, len(seats)+3)
	args = append(args, sh.HallID, w.nowMS()/1000, w.nowMS(), w.nowMS())
	for _, seat := range seats {
		args = append(args, seat.ID)
	}
	rows, err := w.query(`SELECT s.starts_at, c.seat_id, c.status FROM shows s
		JOIN seat_claims c ON c.show_id = s.id JOIN holds h ON h.id = c.hold_id
		WHERE s.hall_id = ? AND s.starts_at > ? AND c.status IN ('held', 'sold') AND (c.status = 'sold' OR `+liveHoldSQL("h")+`)
		AND c.seat_id IN (`+placeholders("?", len(seats))+`) ORDER BY s.starts_at LIMIT 1`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Next() {
		var starts, seatID int64
		var status string
		if err := rows.Scan(&starts, &seatID, &status); err != nil {
			return err
		}
		seat, _ := s.seatByID(sh.HallID, seatID)
		return claimedError([]booking.Seat{seat}, status, " for the show at "+time.Unix(starts, 0).In(w.now.Location()).Format("Mon 02 Jan 15:04"))
	}
	return rows.Err()
}

// claimedError is the clerk's message for seats that cannot be kept out
// of sale because they are sold (or held), naming each.
func claimedError(seats []booking.Seat, status, when string) error {
	labels, verb := strings.Join(booking.Labels(seats), ", "), "is"
	if len(seats) > 1 {
		verb = "are"
	}
	if status == "sold" {
		return booking.Errorf(booking.EConflict, "%s %s sold%s and cannot be blocked; refund or move the booking first.", labels, verb, when)
	}
	return booking.Errorf(booking.EConflict, "%s %s held at a counter%s and cannot be blocked; try again when that sale is done.", labels, verb, when)
}

// UnblockSeats puts seats of a show back on sale, all or nothing.
func (s *Store) UnblockSeats(ctx context.Context, actor booking.Actor, req booking.BlockRequest) ([]booking.SeatBlock, error) {
	if err := booking.Authorize(actor, booking.BlockAction(req.Kind, true)); err != nil {
		return nil, err
	}
	sh, hall, seats, err := s.blockTarget(ctx, req)
	if err != nil {
		return nil, err
	}
	return write(s, ctx, actor, "unblock seats", func(w *wtx) ([]booking.SeatBlock, error) {
		if !req.HallWide {
			if err := booking.SalesOpen(sh, w.now); err != nil {
				return nil, err
			}
		}
		own, hallWide, err := blockRowsOf(w, sh, seats)
		if err != nil {
			return nil, err
		}
		for _, seat := range seats {
			if err := canLift(seat, req, own, hallWide, hall.Name); err != nil {
				return nil, err
			}
		}
		return deleteBlocks(w, actor, sh, seats, req)
	})
}

// canLift says why a seat's block of req.Kind cannot be lifted, if it
// cannot.
func canLift(seat booking.Seat, req booking.BlockRequest, own, hallWide map[int64]blockRow, hallName string) error {
	r, ok := own[seat.ID]
	if req.HallWide {
		r, ok = hallWide[seat.ID]
	}
	switch {
	case ok && r.by == layoutBlocker && r.hallWide:
		return booking.Errorf(booking.EInvalid, "%s is blocked in the layout of %s and cannot be unblocked here.", seat.Label, booking.CleanLine(hallName, 40))
	case ok && r.kind == string(req.Kind):
		return nil
	case !ok && !req.HallWide && hallWide[seat.ID].kind != "":
		return booking.Errorf(booking.EInvalid, "%s is blocked for every show of %s: unblock it for the whole hall.", seat.Label, booking.CleanLine(hallName, 40))
	case req.Kind == booking.BlockHouse:
		return booking.Errorf(booking.EInvalid, "%s is not a house seat of this show.", seat.Label)
	case req.HallWide:
		return booking.Errorf(booking.EInvalid, "%s is not blocked for the whole hall.", seat.Label)
	}
	return booking.Errorf(booking.EInvalid, "%s is not blocked for this show.", seat.Label)
}

// deleteBlocks lifts the blocks, tells the open maps and writes the one
// audit row.
func deleteBlocks(w *wtx, actor booking.Actor, sh booking.Show, seats []booking.Seat, req booking.BlockRequest) ([]booking.SeatBlock, error) {
	args := make([]any, 0, len(seats)+1)
	query := `DELETE FROM seat_blocks WHERE show_id = ? AND seat_id IN (`
	args = append(args, sh.ID)
	if req.HallWide {
		query = `DELETE FROM seat_blocks WHERE show_id IS NULL AND hall_id = ? AND seat_id IN (`
		args[0] = sh.HallID
	}
	out := make([]booking.SeatBlock, 0, len(seats))
	for _, seat := range seats {
		args = append(args, seat.ID)
		out = append(out, booking.SeatBlock{Seat: seat, Kind: req.Kind, HallWide: req.HallWide, By: booking.CleanLine(actor.Name, 40), At: w.now})
	}
	if _, err := w.exec(query+placeholders("?", len(seats))+`)`, args...); err != nil {
		return nil, err
	}
	touchBlocks(w, sh, req.HallWide)
	return out, w.audit(actor, booking.AuditEntry{Action: booking.AuditSeatUnblock, ShowID: sh.ID, Detail: blockDetail(req, seats, booking.CleanLine(req.Reason, booking.MaxBlockReason))}, 0)
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
		out = append(out, fmt.Sprintf("show %d seat %s was claimed after it was %s", show, booking.CleanLine(label, 16), kindWords(kind)))
	}
	return out, rows.Err()
}
