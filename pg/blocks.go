package pg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
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

// layoutBlock is the block a seat the layout blocks reads as.
func layoutBlock(seat booking.Seat) booking.SeatBlock {
	return booking.SeatBlock{Seat: seat, Kind: booking.BlockBlocked, HallWide: true, Reason: "blocked in the hall layout", By: store.LayoutBlocker, At: time.UnixMilli(0)}
}

// showBlocks is the blocks in force for show sh, read through q, the
// layout's first (store.KeepBlock).
func (s *Store) showBlocks(ctx context.Context, q querier, sh booking.Show, hall *booking.Hall) (map[int64]booking.SeatBlock, error) {
	out := map[int64]booking.SeatBlock{}
	for _, seat := range hall.Seats {
		if seat.Blocked {
			out[seat.ID] = layoutBlock(seat)
		}
	}
	err := eachRow(ctx, q, pqShowBlocks, []any{sh.ID, sh.HallID, sh.Starts.UnixMilli()}, func(r pgx.Rows) error {
		var seatID, at int64
		var kind, reason, by string
		var hallWide bool
		if err := r.Scan(&seatID, &kind, &reason, &by, &at, &hallWide); err != nil {
			return err
		}
		if seat, ok := s.seatByID(hall.ID, seatID); ok {
			store.KeepBlock(out, seat, kind, reason, by, at, hallWide)
		}
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
	return store.OutOfSale(blocks), nil
}

// takenOrOut says which seats cannot be offered: a live claim (busy) or
// a seat kept out of sale (out, from outOfSale), as db's takenSet.
func takenOrOut(busy, out map[int64]bool) func(int64) bool {
	return func(id int64) bool { return busy[id] || out[id] }
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
