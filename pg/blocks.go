package pg

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
