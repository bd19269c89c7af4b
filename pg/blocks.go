package pg

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// Seats kept out of sale: blocked and house seats, as db's blocks.go. A
// block is a row of seat_blocks in force; lifting it deletes the row and
// the audit trail keeps the history. A seat the hall's layout blocks
// (seats.blocked) reads as a hall-wide block by "layout", as SQLite
// mirrors it into seat_blocks.
//
// The database keeps a live claim off a seat kept out of sale
// (seat_claims_not_blocked, migration 0007): the claim is skipped, as
// the unique index skips a seat claimed already, so a hold of it meets
// the clash. A block racing a claim of its seat: the block locks
// seat_claims against writes first (blockLockSQL), so it sees every claim
// committed before it and a claim made after it sees the block (0007
// says why a table lock and not one per seat).

// pqShowBlocks lists the blocks in force for one show: its own, and its
// hall's hall-wide blocks made before it starts ($1 show, $2 hall, $3
// its start in unix ms).
const pqShowBlocks = `SELECT seat_id, kind, reason, blocked_by, at, false FROM seat_blocks WHERE show_id = $1
	UNION ALL SELECT seat_id, kind, reason, blocked_by, at, true FROM seat_blocks WHERE show_id IS NULL AND hall_id = $2 AND at < $3`

// pqBlockedCount counts the seats of show s kept out of sale and not
// sold, the layout's blocked seats among them: what Show.Free leaves out,
// as db's blockedCount.
const pqBlockedCount = `(SELECT count(*) FROM (SELECT x.id FROM seats x WHERE x.hall_id = s.hall_id AND x.blocked
		UNION SELECT b.seat_id FROM seat_blocks b WHERE b.show_id IS NULL AND b.hall_id = s.hall_id AND b.at < s.starts_at * 1000
		UNION SELECT b.seat_id FROM seat_blocks b WHERE b.show_id = s.id) o
	WHERE NOT EXISTS (SELECT 1 FROM seat_claims c WHERE c.show_id = s.id AND c.seat_id = o.id AND c.status IN ('held', 'sold') AND c.status = 'sold'))`

// blockLockSQL waits for every transaction writing holds or seat claims
// to end and holds off new ones until the block commits (0007). Both
// tables, in the order every hold, checkout and release writes them
// (the hold's row, then its claims), so a transaction already past the
// first is waited for and none is caught between them; SHARE ROW
// EXCLUSIVE, which conflicts with itself, so two blocks take turns
// instead of deadlocking as each goes on to write.
const blockLockSQL = `LOCK TABLE holds, seat_claims IN SHARE ROW EXCLUSIVE MODE`

// layoutBlocker is who a seat blocked in the hall's layout is blocked by.
const layoutBlocker = "layout"

// layoutBlock is the block a seat the layout blocks reads as.
func layoutBlock(seat booking.Seat) booking.SeatBlock {
	return booking.SeatBlock{Seat: seat, Kind: booking.BlockBlocked, HallWide: true, Reason: "blocked in the hall layout", By: layoutBlocker, At: time.UnixMilli(0)}
}

// showBlocks is the blocks in force for show sh, read through q: where a
// hall-wide block and the show's own both hold a seat, blocked wins over
// house and hall-wide over the show's own, as db's scanBlocks.
func (s *Store) showBlocks(ctx context.Context, q querier, sh booking.Show, hall *booking.Hall) (map[int64]booking.SeatBlock, error) {
	out := map[int64]booking.SeatBlock{}
	for _, seat := range hall.Seats {
		if seat.Blocked {
			out[seat.ID] = layoutBlock(seat)
		}
	}
	err := eachRow(ctx, q, pqShowBlocks, []any{sh.ID, sh.HallID, sh.Starts.UnixMilli()}, func(r pgx.Rows) error {
		var b booking.SeatBlock
		var seatID, at int64
		var kind string
		if err := r.Scan(&seatID, &kind, &b.Reason, &b.By, &at, &b.HallWide); err != nil {
			return err
		}
		b.Kind, _ = booking.ParseBlockKind(kind)
		b.At = time.UnixMilli(at)
		b.Reason, b.By = booking.CleanLine(b.Reason, booking.MaxBlockReason), booking.CleanLine(b.By, 40)
		seat, ok := s.seatByID(hall.ID, seatID)
		if !ok {
			return nil
		}
		b.Seat = seat
		if prev, ok := out[seatID]; ok && (prev.Kind == booking.BlockBlocked && b.Kind != booking.BlockBlocked || prev.HallWide) {
			return nil
		}
		out[seatID] = b
		return nil
	})
	return out, err
}

// outOfSale is the set of seats of show showID kept out of sale (the
// layout's blocked seats among them), as t sees them: for a hold's taken
// test and a clash's suggestions (takenOrOut).
func (s *Store) outOfSale(t *tx, showID int64) (map[int64]bool, error) {
	sh, err := s.showInfo(t.ctx, showID)
	if err != nil {
		return nil, err
	}
	hall, err := s.hall(t.ctx, sh.HallID)
	if err != nil {
		return nil, err
	}
	blocks, err := s.showBlocks(t.ctx, t, sh, hall)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]bool, len(blocks))
	for id := range blocks {
		out[id] = true
	}
	return out, nil
}

// takenOrOut says which seats cannot be offered: a live claim (busy) or
// a seat kept out of sale (out, from outOfSale), as db's takenSet.
func takenOrOut(busy, out map[int64]bool) func(int64) bool {
	return func(id int64) bool { return busy[id] || out[id] }
}

// blockTarget checks a block request and resolves its show, hall and
// seats, before the transaction.
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

// blockRowsOf returns, by seat, the show's own block of each and the
// hall-wide block of each (the layout's among them); a seat may have
// both.
func blockRowsOf(t *tx, sh booking.Show, seats []booking.Seat) (own, hallWide map[int64]blockRow, err error) {
	ids := seatIDs(seats)
	own, hallWide = map[int64]blockRow{}, map[int64]blockRow{}
	for _, seat := range seats {
		if seat.Blocked {
			hallWide[seat.ID] = blockRow{kind: string(booking.BlockBlocked), by: layoutBlocker, hallWide: true}
		}
	}
	err = eachRow(t.ctx, t, `SELECT seat_id, kind, blocked_by, false FROM seat_blocks WHERE show_id = $1 AND seat_id = ANY($2)
		UNION ALL SELECT seat_id, kind, blocked_by, true FROM seat_blocks WHERE show_id IS NULL AND hall_id = $3 AND seat_id = ANY($2)`,
		[]any{sh.ID, ids, sh.HallID}, func(r pgx.Rows) error {
			var id int64
			var b blockRow
			if err := r.Scan(&id, &b.kind, &b.by, &b.hallWide); err != nil {
				return err
			}
			if b.hallWide {
				hallWide[id] = b
			} else {
				own[id] = b
			}
			return nil
		})
	return own, hallWide, err
}

func seatIDs(seats []booking.Seat) []int64 {
	ids := make([]int64, len(seats))
	for i, seat := range seats {
		ids[i] = seat.ID
	}
	return ids
}

// blockMode is how blocks and unblocks run. READ COMMITTED: a block
// reads every decision after blockLockSQL, each statement seeing what
// committed before it; a stronger level would only fail against the
// holds that committed meanwhile. Two blocks of one seat meet on the
// unique indexes of seat_blocks.
var blockMode = txMode{iso: pgx.ReadCommitted}

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
	return inTx(s, ctx, "block seats", blockMode, func(t *tx) ([]booking.SeatBlock, error) {
		// The lock first, before any other lock the block takes.
		if _, err := t.Exec(t.ctx, blockLockSQL); err != nil {
			return nil, err
		}
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		if !req.HallWide {
			if err := s.salesOpen(t, sh.ID); err != nil {
				return nil, err
			}
		}
		own, hallWide, err := blockRowsOf(t, sh, seats)
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
		if err := releaseOwn(t, sh, seats, req.Owner); err != nil {
			return nil, err
		}
		if err := s.checkUnclaimed(t, sh, seats, req.HallWide); err != nil {
			return nil, err
		}
		return insertBlocks(t, actor, sh, seats, req, reason)
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
func insertBlocks(t *tx, actor booking.Actor, sh booking.Show, seats []booking.Seat, req booking.BlockRequest, reason string) ([]booking.SeatBlock, error) {
	var showID *int64
	if !req.HallWide {
		showID = &sh.ID
	}
	by := booking.CleanLine(actor.Name, 40)
	out := make([]booking.SeatBlock, 0, len(seats))
	for _, seat := range seats {
		out = append(out, booking.SeatBlock{Seat: seat, Kind: req.Kind, HallWide: req.HallWide, Reason: reason, By: by, At: t.now})
	}
	if _, err := t.Exec(t.ctx, `INSERT INTO seat_blocks (show_id, hall_id, seat_id, kind, reason, blocked_by, at)
		SELECT $1, $2, x, $4, $5, $6, $7 FROM unnest($3::bigint[]) AS x`,
		showID, sh.HallID, seatIDs(seats), string(req.Kind), reason, by, t.nowMS()); err != nil {
		return nil, err
	}
	touchBlocks(t, sh, req.HallWide)
	return out, audit(t, actor, booking.AuditEntry{Action: booking.AuditSeatBlock, ShowID: sh.ID, Detail: blockDetail(req, seats, reason)}, 0)
}

// touchBlocks tells every open map the seats changed: the show's, or for
// a hall-wide change every show's (0), since it reaches every show of the
// hall to come.
func touchBlocks(t *tx, sh booking.Show, hallWide bool) {
	if hallWide {
		t.touch(0)
		return
	}
	t.touch(sh.ID)
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

// liveClaim is a live claim of a seat as a block meets it.
type liveClaim struct {
	status, owner string
	holdID        int64
}

// liveClaimsOf returns the live claims of seats in a show, by seat.
func liveClaimsOf(t *tx, showID int64, seats []booking.Seat) (map[int64]liveClaim, error) {
	out := map[int64]liveClaim{}
	err := eachRow(t.ctx, t, `SELECT c.seat_id, c.status, h.owner, c.hold_id FROM seat_claims c JOIN holds h ON h.id = c.hold_id
		WHERE c.show_id = $1 AND c.status IN ('held', 'sold') AND c.seat_id = ANY($2)`, []any{showID, seatIDs(seats)}, func(r pgx.Rows) error {
		var seat int64
		var c liveClaim
		if err := r.Scan(&seat, &c.status, &c.owner, &c.holdID); err != nil {
			return err
		}
		out[seat] = c
		return nil
	})
	return out, err
}

// releaseOwn lets go of the seats owner holds itself among seats, so a
// seat map's selection is blocked in one transaction with nothing between
// the release and the block.
func releaseOwn(t *tx, sh booking.Show, seats []booking.Seat, owner string) error {
	if owner == "" {
		return nil
	}
	live, err := liveClaimsOf(t, sh.ID, seats)
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
		if _, err := releaseHold(t, holdID, sh.ID, ids); err != nil {
			return err
		}
	}
	return nil
}

// checkUnclaimed refuses, naming each, seats that are sold or held: for
// the show, or for HallWide in any show of the hall to come. A lapsed
// hold does not count (the write expires the show's first).
func (s *Store) checkUnclaimed(t *tx, sh booking.Show, seats []booking.Seat, hallWide bool) error {
	if !hallWide {
		if _, err := expireStale(t, sh.ID); err != nil {
			return err
		}
		live, err := liveClaimsOf(t, sh.ID, seats)
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
	var starts, seatID int64
	var status string
	err := t.QueryRow(t.ctx, `SELECT s.starts_at, c.seat_id, c.status FROM shows s
		JOIN seat_claims c ON c.show_id = s.id JOIN holds h ON h.id = c.hold_id
		WHERE s.hall_id = $1 AND s.starts_at > $2 AND c.status IN ('held', 'sold')
		AND (c.status = 'sold' OR (h.expires_at > $3 AND h.created_at <= $3 + `+clockSlack+`))
		AND c.seat_id = ANY($4) ORDER BY s.starts_at LIMIT 1`, sh.HallID, t.nowMS()/1000, t.nowMS(), seatIDs(seats)).Scan(&starts, &seatID, &status)
	if err == pgx.ErrNoRows {
		return nil
	}
	if err != nil {
		return err
	}
	seat, _ := s.seatByID(sh.HallID, seatID)
	return claimedError([]booking.Seat{seat}, status, " for the show at "+time.Unix(starts, 0).In(t.now.Location()).Format("Mon 02 Jan 15:04"))
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
	return inTx(s, ctx, "unblock seats", blockMode, func(t *tx) ([]booking.SeatBlock, error) {
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		if !req.HallWide {
			if err := s.salesOpen(t, sh.ID); err != nil {
				return nil, err
			}
		}
		own, hallWide, err := blockRowsOf(t, sh, seats)
		if err != nil {
			return nil, err
		}
		for _, seat := range seats {
			if err := canLift(seat, req, own, hallWide, hall.Name); err != nil {
				return nil, err
			}
		}
		return deleteBlocks(t, actor, sh, seats, req)
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
func deleteBlocks(t *tx, actor booking.Actor, sh booking.Show, seats []booking.Seat, req booking.BlockRequest) ([]booking.SeatBlock, error) {
	query, key := `DELETE FROM seat_blocks WHERE show_id = $1 AND seat_id = ANY($2)`, sh.ID
	if req.HallWide {
		query, key = `DELETE FROM seat_blocks WHERE show_id IS NULL AND hall_id = $1 AND seat_id = ANY($2)`, sh.HallID
	}
	out := make([]booking.SeatBlock, 0, len(seats))
	for _, seat := range seats {
		out = append(out, booking.SeatBlock{Seat: seat, Kind: req.Kind, HallWide: req.HallWide, By: booking.CleanLine(actor.Name, 40), At: t.now})
	}
	if _, err := t.Exec(t.ctx, query, key, seatIDs(seats)); err != nil {
		return nil, err
	}
	touchBlocks(t, sh, req.HallWide)
	return out, audit(t, actor, booking.AuditEntry{Action: booking.AuditSeatUnblock, ShowID: sh.ID, Detail: blockDetail(req, seats, booking.CleanLine(req.Reason, booking.MaxBlockReason))}, 0)
}

// applyBlocks puts blocks on map m: each seat kept out of sale reads as
// blocked or a house seat unless it is sold or held live (its state set
// already), and keeps its block either way. It returns the seats kept out
// of sale and neither sold nor held, as db's countBlocked.
func applyBlocks(m *booking.SeatMap, blocks map[int64]booking.SeatBlock) int {
	n := 0
	for id, b := range blocks {
		m.Blocks[id] = b
		if _, claimed := m.States[id]; claimed {
			continue
		}
		m.States[id] = booking.SeatBlocked
		if b.Kind == booking.BlockHouse {
			m.States[id] = booking.SeatHouse
		}
		n++
	}
	return n
}

// clashOutOfSale is the clash of a hold that missed seats (taken), as
// db's: the seats another hold or a sale claims, when any; else the
// seats kept out of sale among them, saying so (OutOfSale). Either way
// the suggestions are the free blocks of the party's size nearest the
// first, never a seat kept out of sale. A hold and an exchange name
// their clash with it.
func (s *Store) clashOutOfSale(t *tx, hall *booking.Hall, showID, holdID int64, ours, taken []booking.Seat, party int) error {
	busy, err := busySeats(t, showID, holdID, ours)
	if err != nil {
		return err
	}
	out, err := s.outOfSale(t, showID)
	if err != nil {
		return err
	}
	var live, blocked []booking.Seat
	for _, seat := range taken {
		if busy[seat.ID] {
			live = append(live, seat)
		} else if out[seat.ID] {
			blocked = append(blocked, seat)
		}
	}
	e := &booking.SeatsTakenError{Taken: live}
	if len(live) == 0 && len(blocked) > 0 {
		e = &booking.SeatsTakenError{Taken: blocked, OutOfSale: true}
	}
	if len(e.Taken) == 0 {
		e.Taken = taken
	}
	e.Suggestions = booking.NextTo(hall, takenOrOut(busy, out), e.Taken[0], party, 3)
	return e
}
