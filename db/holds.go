package db

import (
	"strconv"
	"strings"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// The holds' queries (store.SaleTx): a hold is a row of holds and one row
// of seat_claims per seat; a seat is won by the partial unique index
// seat_claims_one_live, and the trigger seat_claims_not_blocked keeps a
// live claim off a seat kept out of sale.

// liveHoldSQL is store.HoldLive in SQL for hold h (a table alias), the
// one place db writes the rule: expiry ahead of now, and made no later
// than now and the slack unless a reservation's. Both its parameters are
// now in unix ms. A hold that is not live is lapsed, whether or not
// swept; TestLiveHoldSQL_IsHoldLive holds it to store.HoldLive. It
// lapses, rather than having its expiry pulled back to now + TTL by a
// write, because then the stored row alone decides: every process on the
// file and every read agrees at once, with no sweeper or writer needing
// to pass first.
func liveHoldSQL(h string) string {
	return `(` + h + `.expires_at > ? AND (` + h + `.created_at <= ? + ` + strconv.Itoa(store.HoldSlackMS) +
		` OR ` + h + `.owner GLOB '` + store.ReservationOwnerPrefix + `*'))`
}

// Lapsed holds are looked for in two ways, each one probe of a partial
// index that holds only live holds: those whose expiry passed
// (holds_live_by_show) and those made later than the clock now says
// (qMadeAhead, through holds_made_ahead, which repeats its condition so
// SQLite may use it). Together they are the holds liveHoldSQL says are
// not live.
const (
	// qMadeAhead selects the live holds, reservations apart, made later
	// than now (its one parameter, unix ms) and the slack.
	qMadeAhead = `status = 'held' AND owner NOT GLOB 'reservation:*' AND created_at > ? + 2000`
	// qExpiredBy selects the live holds whose expiry is not after now.
	qExpiredBy = `status = 'held' AND expires_at <= ?`

	// qExpireStale and qExpireMadeAhead are expireStale's compare-and-sets,
	// spelled out whole so the status test reads each (a test holds them
	// to the two above). The subquery of the second, without show_id, can
	// only be the probe of holds_made_ahead; with it, SQLite would walk
	// the show's live holds.
	qExpireStale     = `UPDATE holds SET status = 'expired' WHERE show_id = ? AND status = 'held' AND expires_at <= ? RETURNING id`
	qExpireMadeAhead = `UPDATE holds SET status = 'expired' WHERE id IN (SELECT id FROM holds WHERE status = 'held' AND owner NOT GLOB 'reservation:*' AND created_at > ? + 2000)
		AND show_id = ? AND status = 'held' RETURNING id`
)

// expireStale expires the lapsed holds of one show and their claims, so a
// hold that ran out never blocks the transaction that wants its seats.
func expireStale(w *wtx, showID int64) (int, error) {
	ids, err := queryList[int64](w, qExpireStale, showID, w.nowMS())
	if err != nil {
		return 0, err
	}
	ahead, err := queryList[int64](w, qExpireMadeAhead, w.nowMS(), showID)
	if err != nil {
		return 0, err
	}
	ids = append(ids, ahead...)
	for _, id := range ids {
		if _, err := w.exec(`UPDATE seat_claims SET status = 'expired' WHERE hold_id = ? AND status = 'held'`, id); err != nil {
			return 0, err
		}
	}
	if err := store.LapseReservations(w, ids); err != nil {
		return 0, err
	}
	if len(ids) > 0 {
		w.touch(showID)
	}
	return len(ids), nil
}

// qOnSale is booking.SalesOpen in SQL for show s at now (parameter ?1,
// unix ms): scheduled, and before its sales close (its own, else the
// cinema's default, else booking.DefaultSalesClose: lifeColumns' close).
const qOnSale = `s.status = 'scheduled' AND ?1 < (s.starts_at + coalesce(s.sales_close, (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'sales_close'), 1800)) * 1000`

// qSeatFree is a seat (the expression seat) of show ?2 that a claim may
// take: no live claim has it (seat_claims_one_live), and it is not kept
// out of sale for the show (seat_claims_not_blocked's condition).
func qSeatFree(seat string) string {
	return `NOT EXISTS (SELECT 1 FROM seat_claims c WHERE c.show_id = ?2 AND c.seat_id = ` + seat + ` AND c.status IN ('held', 'sold'))
	AND NOT EXISTS (SELECT 1 FROM seat_blocks b WHERE b.show_id = ?2 AND b.seat_id = ` + seat + `)
	AND NOT EXISTS (SELECT 1 FROM shows so JOIN seat_blocks b ON b.hall_id = so.hall_id AND b.seat_id = ` + seat + ` AND b.show_id IS NULL
		WHERE so.id = ?2 AND b.at < so.starts_at * 1000)`
}

// qActorStands is store.ActorCheck in SQL (?3 staff id, ?4 its roles as
// ",clerk,manager,", ?5 terminal id; 0: none).
const qActorStands = `(?3 = 0 OR EXISTS (SELECT 1 FROM staff WHERE id = ?3 AND disabled = 0 AND instr(?4, ',' || role || ',') > 0))
	AND (?5 = 0 OR EXISTS (SELECT 1 FROM terminals WHERE id = ?5))`

// actorArgs are qActorStands' parameters.
func actorArgs(c store.ActorCheck) []any {
	return []any{c.StaffID, "," + strings.Join(c.Roles, ",") + ",", c.TerminalID}
}

// valueRows is n one-column rows of numbered parameters from ?from on,
// for a VALUES list: "(?6), (?7)".
func valueRows(from, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(?" + strconv.Itoa(from+i) + ")")
	}
	return b.String()
}

// qHoldNew makes a hold of n seats when the show is on sale, every seat
// free and the actor standing: its parameters are now (?1), the show
// (?2), the actor (?3-?5), the owner (?6), the expiry (?7) and the seats
// (?8 on). No row when any fails.
func qHoldNew(n int) string {
	return `INSERT INTO holds (show_id, owner, status, created_at, expires_at)
		SELECT s.id, ?6, 'held', ?1, ?7 FROM shows s WHERE s.id = ?2 AND ` + qOnSale + ` AND ` + qActorStands + `
		AND NOT EXISTS (SELECT 1 FROM (VALUES ` + valueRows(8, n) + `) v WHERE NOT (` + qSeatFree("v.column1") + `))
		RETURNING id, (SELECT price_list FROM shows WHERE id = holds.show_id)`
}

// HoldNew makes the hold in two statements: the hold's row, written only
// when everything checks, and its claims, which then cannot clash.
func (w *wtx) HoldNew(h store.NewHold) (int64, string, bool, error) {
	args := append([]any{w.nowMS(), h.ShowID}, actorArgs(h.Actor)...)
	args = append(args, h.Owner, h.Expires.UnixMilli())
	for _, id := range h.SeatIDs {
		args = append(args, id)
	}
	var id int64
	var list string
	err := w.queryRow(qHoldNew(len(h.SeatIDs)), args...).Scan(&id, &list)
	if isNoRows(err) {
		return 0, "", false, nil
	}
	if err != nil {
		return 0, "", false, err
	}
	if err := insertClaims(w, h.ShowID, id, h.SeatIDs); err != nil {
		return 0, "", false, err
	}
	h.Audit.Detail = booking.CleanLine(store.HoldDetail(id, h.Labels), 200)
	w.touch(h.ShowID)
	return id, list, true, w.InsertAudit(h.Audit)
}

// insertClaims inserts held claims of seats for a hold in one statement.
func insertClaims(w *wtx, showID, holdID int64, seatIDs []int64) error {
	args := make([]any, 0, 3*len(seatIDs))
	for _, id := range seatIDs {
		args = append(args, showID, id, holdID)
	}
	_, err := w.exec(`INSERT INTO seat_claims (show_id, seat_id, hold_id, status) VALUES `+placeholders("(?, ?, ?, 'held')", len(seatIDs)), args...)
	return err
}

// InsertHold makes a held hold.
func (w *wtx) InsertHold(showID int64, owner string, expires time.Time) (int64, error) {
	var id int64
	err := w.queryRow(`INSERT INTO holds (show_id, owner, status, created_at, expires_at) VALUES (?, ?, 'held', ?, ?) RETURNING id`,
		showID, owner, w.nowMS(), expires.UnixMilli()).Scan(&id)
	return id, err
}

// RenewHold renews owner's live hold, never past its lifetime limit.
func (w *wtx) RenewHold(holdID int64, owner string, showID int64, expires time.Time) (time.Time, bool, error) {
	var set int64
	err := w.queryRow(`UPDATE holds SET expires_at = min(?, created_at + ?) WHERE id = ? AND owner = ? AND show_id = ? AND status = 'held' AND `+liveHoldSQL("holds")+`
		RETURNING expires_at`, expires.UnixMilli(), holdLimitMS, holdID, owner, showID, w.nowMS(), w.nowMS()).Scan(&set)
	if isNoRows(err) {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(set), err == nil, err
}

// holdLimitMS is booking.MaxHoldLifetime in the unix ms holds keep.
const holdLimitMS = int64(booking.MaxHoldLifetime / time.Millisecond)

// SetHoldExpiry moves a held hold's expiry.
func (w *wtx) SetHoldExpiry(holdID int64, expires time.Time) (bool, error) {
	return changedOne(w.exec(`UPDATE holds SET expires_at = ? WHERE id = ? AND status = 'held'`, expires.UnixMilli(), holdID))
}

// ClaimSeats inserts the claims of the seats free now, in seat id order,
// in one statement that returns them: a seat a live claim has, or one
// kept out of sale, is left out (qSeatFree), so neither the unique index
// nor the trigger has anything to refuse.
func (w *wtx) ClaimSeats(showID, holdID int64, seatIDs []int64) ([]int64, error) {
	args := []any{holdID, showID}
	for _, id := range seatIDs {
		args = append(args, id)
	}
	got, err := queryList[int64](w, `INSERT INTO seat_claims (show_id, seat_id, hold_id, status)
		SELECT ?2, v.column1, ?1, 'held' FROM (VALUES `+valueRows(3, len(seatIDs))+`) v
		WHERE `+qSeatFree("v.column1")+` ORDER BY v.column1 RETURNING seat_id`, args...)
	if err != nil {
		return nil, err
	}
	return missing(seatIDs, got), nil
}

// missing is the ids of want not in got.
func missing(want, got []int64) []int64 {
	in := make(map[int64]bool, len(got))
	for _, id := range got {
		in[id] = true
	}
	var out []int64
	for _, id := range want {
		if !in[id] {
			out = append(out, id)
		}
	}
	return out
}

// UnclaimSeats removes claims this transaction made.
func (w *wtx) UnclaimSeats(holdID int64, seatIDs []int64) error {
	args := []any{holdID}
	for _, id := range seatIDs {
		args = append(args, id)
	}
	_, err := w.exec(`DELETE FROM seat_claims WHERE hold_id = ? AND status = 'held' AND seat_id IN (`+placeholders("?", len(seatIDs))+`)`, args...)
	return err
}

// qShowClaims reads a show's held and sold claims with their holds: the
// show's range of seat_claims_one_live, whose condition it repeats.
const qShowClaims = `SELECT c.seat_id, c.hold_id, c.status = 'sold', h.owner, h.created_at, h.expires_at
	FROM seat_claims c JOIN holds h ON h.id = c.hold_id
	WHERE c.show_id = ? AND c.status IN ('held', 'sold')`

// scanClaims reads qShowClaims' rows.
func scanClaims(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
}) ([]store.SeatClaim, error) {
	var out []store.SeatClaim
	for rows.Next() {
		var c store.SeatClaim
		if err := rows.Scan(&c.SeatID, &c.HoldID, &c.Sold, &c.Owner, &c.Created, &c.Expires); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// ShowClaims reads a show's held and sold claims.
func (w *wtx) ShowClaims(showID int64) ([]store.SeatClaim, error) {
	rows, err := w.query(qShowClaims, showID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanClaims(rows)
}

// ShowBlocks reads the blocks in force for a show (qShowBlocks).
func (w *wtx) ShowBlocks(sh booking.Show) ([]store.BlockInForce, error) {
	rows, err := w.query(qShowBlocks, sh.ID, sh.HallID, sh.Starts.UnixMilli())
	if err != nil {
		return nil, err
	}
	return scanBlocks(rows)
}

// ClaimedSeatIDs lists every seat a hold claimed.
func (w *wtx) ClaimedSeatIDs(holdID int64) ([]int64, error) {
	return queryList[int64](w, `SELECT seat_id FROM seat_claims WHERE hold_id = ?`, holdID)
}

// placeholders repeats a VALUES tuple n times, comma separated. The
// statement text depends only on n, so each size is prepared once.
func placeholders(tuple string, n int) string {
	return strings.TrimSuffix(strings.Repeat(tuple+", ", n), ", ")
}
