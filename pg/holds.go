package pg

import (
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"boxoffice/booking"
	"boxoffice/store"
)

// The holds' queries (store.SaleTx). READ COMMITTED: nothing in them is
// decided from a snapshot. A seat is won by the partial unique index
// seat_claims_one_live (INSERT … ON CONFLICT DO NOTHING waits for a
// concurrent claimer of the same seat to commit or roll back, and then
// skips the seat if the other kept it), a seat kept out of sale is
// skipped by seat_claims_not_blocked (0007), and every status move is a
// compare-and-set UPDATE that PostgreSQL re-checks on the newest version
// of the row. Holds and releases commit without waiting for the disk
// (store.Write.Hold, unless Options.SyncHolds): a hold lost in a crash
// frees its seats and nothing was paid, and the checkout that sells a
// hold commits synchronously, which flushes the WAL past the hold's own
// commit.

// liveHold is store.HoldLive in SQL for hold h (a table alias) at now (a
// parameter, unix ms), the one place pg writes the rule: expiry ahead of
// now, and made no later than now and the slack unless a reservation's
// (whose expiry is its cut-off, a time on the wall clock). A hold made
// later than the clock now says was made before the clock was set back,
// and lapsed then: a clock set back an hour must not make a 5-minute hold
// block its seat for 65 minutes. TestLiveHold_IsHoldLive holds it to
// store.HoldLive.
func liveHold(h, now string) string {
	return `(` + h + `.expires_at > ` + now + ` AND (` + h + `.created_at <= ` + now + ` + ` + strconv.Itoa(store.HoldSlackMS) +
		` OR ` + h + `.owner LIKE '` + store.ReservationOwnerPrefix + `%'))`
}

// holdLimitMS is booking.MaxHoldLifetime in the unix ms holds keep.
const holdLimitMS = int64(booking.MaxHoldLifetime / time.Millisecond)

// qHoldNew makes a hold, claims its seats in seat id order (see
// ClaimSeats) and writes its audit row (its detail store.HoldDetail, in
// SQL), in one statement that returns the hold's id and its show's price
// list, or raises (expect) when the unique index or a block skipped a
// seat, when the show is not scheduled and on sale at $3 (unix ms,
// booking.SalesOpen's rule) or when the actor does not stand ($11 staff
// id, $12 its roles, $13 terminal id; 0: none; store.ActorCheck).
const qHoldNew = `WITH h AS (
		INSERT INTO holds (show_id, owner, status, created_at, expires_at) VALUES ($1, $2, 'held', $3, $4) RETURNING id
	), c AS (
		INSERT INTO seat_claims (show_id, seat_id, hold_id, status)
		SELECT $1, x, h.id, 'held' FROM h, unnest($5::bigint[]) AS x ORDER BY x
		ON CONFLICT (show_id, seat_id) WHERE status IN ('held', 'sold') DO NOTHING
		RETURNING seat_id
	), a AS (
		INSERT INTO audit (at, actor, role, terminal, action, show_id, detail)
		SELECT $3, $6, $7, $8, $9, $1, 'hold ' || h.id || ': ' || $10 FROM h
	)
	SELECT h.id, expect((SELECT count(*) FROM c) = cardinality($5::bigint[]), 'seats'),
		expect(s.status = 'scheduled' AND $3 < (s.starts_at + coalesce(s.sales_close,
			(SELECT value::integer FROM meta WHERE key = 'sales_close'), 1800)) * 1000, 'closed'),
		expect(($11::bigint = 0 OR EXISTS (SELECT 1 FROM staff WHERE id = $11 AND NOT disabled AND role = ANY($12::text[])))
			AND ($13::bigint = 0 OR EXISTS (SELECT 1 FROM terminals WHERE id = $13)), 'actor'),
		s.price_list
	FROM h, shows s WHERE s.id = $1`

// missedStep reports a one-step batch that raised (expect): it rolled back,
// and the store takes the checked path.
func missedStep(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "ZB001"
}

// HoldNew makes a hold in one round trip: BEGIN, the hold with its
// claims, audit row, the show's life and the actor in one statement
// (qHoldNew) and COMMIT, in one batch; the notifier tells the other
// servers after the COMMIT (notify.go). When a seat was skipped, the
// show is off sale or the actor withdrawn, the statement raises,
// PostgreSQL skips the COMMIT and it all rolls back. The show is read in
// the statement that claims: a cancel holds claims off with a table lock
// (HoldOffSales), which the statement takes before its snapshot, so a
// hold that waited for a cancel reads the show cancelled, and a hold the
// cancel waited for is one the cancel releases.
func (t *tx) HoldNew(h store.NewHold) (int64, string, bool, error) {
	b := &pgx.Batch{}
	b.Queue(qHoldNew, h.ShowID, h.Owner, t.nowMS(), h.Expires.UnixMilli(), h.SeatIDs,
		h.Audit.Actor, h.Audit.Role, h.Audit.Terminal, string(h.Audit.Action), h.Labels,
		h.Actor.StaffID, h.Actor.Roles, h.Actor.TerminalID)
	b.Queue(`COMMIT`)
	t.touch(h.ShowID)
	br := t.SendBatch(t.ctx, b)
	var id int64
	var ok1, ok2, ok3 bool
	var list string
	err := br.QueryRow().Scan(&id, &ok1, &ok2, &ok3, &list)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if missedStep(err) {
		return 0, "", false, nil
	}
	if err != nil {
		return 0, "", false, err
	}
	t.committed = true
	return id, list, true, nil
}

// InsertHold makes a held hold.
func (t *tx) InsertHold(showID int64, owner string, expires time.Time) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO holds (show_id, owner, status, created_at, expires_at) VALUES ($1, $2, 'held', $3, $4) RETURNING id`,
		showID, owner, t.nowMS(), expires.UnixMilli()).Scan(&id)
	return id, err
}

// RenewHold renews owner's live hold, never past its lifetime limit.
func (t *tx) RenewHold(holdID int64, owner string, showID int64, expires time.Time) (time.Time, bool, error) {
	var set int64
	err := t.QueryRow(t.ctx, `UPDATE holds SET expires_at = least($1, created_at + $2) WHERE id = $3 AND owner = $4 AND show_id = $5 AND status = 'held' AND `+liveHold("holds", "$6")+`
		RETURNING expires_at`, expires.UnixMilli(), holdLimitMS, holdID, owner, showID, t.nowMS()).Scan(&set)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(set), err == nil, err
}

// SetHoldExpiry moves a held hold's expiry.
func (t *tx) SetHoldExpiry(holdID int64, expires time.Time) (bool, error) {
	tag, err := t.Exec(t.ctx, `UPDATE holds SET expires_at = $1 WHERE id = $2 AND status = 'held'`, expires.UnixMilli(), holdID)
	return tag.RowsAffected() == 1, err
}

// ClaimSeats inserts held claims in seat id order (two holds racing for
// overlapping seats then wait for each other in one order, never in a
// cycle) and returns the seats the unique index or a block skipped.
func (t *tx) ClaimSeats(showID, holdID int64, seatIDs []int64) ([]int64, error) {
	rows, err := t.Query(t.ctx, `INSERT INTO seat_claims (show_id, seat_id, hold_id, status)
		SELECT $1, x, $2, 'held' FROM unnest($3::bigint[]) AS x ORDER BY x
		ON CONFLICT (show_id, seat_id) WHERE status IN ('held', 'sold') DO NOTHING
		RETURNING seat_id`, showID, holdID, seatIDs)
	if err != nil {
		return nil, err
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	var missing []int64
	for _, id := range seatIDs {
		if !slices.Contains(got, id) {
			missing = append(missing, id)
		}
	}
	return missing, nil
}

// UnclaimSeats removes claims this transaction made.
func (t *tx) UnclaimSeats(holdID int64, seatIDs []int64) error {
	_, err := t.Exec(t.ctx, `DELETE FROM seat_claims WHERE hold_id = $1 AND status = 'held' AND seat_id = ANY($2)`, holdID, seatIDs)
	return err
}

// qShowClaims reads a show's held and sold claims with their holds,
// through the show's range of seat_claims_one_live (the IN repeats its
// condition so the planner may use it).
const qShowClaims = `SELECT c.seat_id, c.hold_id, c.status = 'sold', h.owner, h.created_at, h.expires_at
	FROM seat_claims c JOIN holds h ON h.id = c.hold_id WHERE c.show_id = $1 AND c.status IN ('held', 'sold')`

// scanClaims reads qShowClaims' rows.
func scanClaims(rows pgx.Rows, err error) ([]store.SeatClaim, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.SeatClaim, error) {
		var c store.SeatClaim
		return c, r.Scan(&c.SeatID, &c.HoldID, &c.Sold, &c.Owner, &c.Created, &c.Expires)
	})
}

// ShowClaims reads a show's held and sold claims.
func (t *tx) ShowClaims(showID int64) ([]store.SeatClaim, error) {
	return scanClaims(t.Query(t.ctx, qShowClaims, showID))
}

// ShowBlocks reads the blocks in force for a show.
func (t *tx) ShowBlocks(sh booking.Show) ([]store.BlockInForce, error) {
	return scanBlocks(t.Query(t.ctx, pqShowBlocks, sh.ID, sh.HallID, sh.Starts.UnixMilli()))
}

// scanBlocks reads pqShowBlocks' rows.
func scanBlocks(rows pgx.Rows, err error) ([]store.BlockInForce, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.BlockInForce, error) {
		var b store.BlockInForce
		return b, r.Scan(&b.SeatID, &b.Kind, &b.Reason, &b.By, &b.At, &b.HallWide)
	})
}

// ClaimedSeatIDs lists every seat a hold claimed.
func (t *tx) ClaimedSeatIDs(holdID int64) ([]int64, error) {
	rows, err := t.Query(t.ctx, `SELECT seat_id FROM seat_claims WHERE hold_id = $1`, holdID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

// expireStale expires the lapsed holds of one show and their claims, so a
// hold that ran out never blocks the transaction that wants its seats.
// Two transactions expiring one hold meet on its row; the second finds it
// expired already and moves nothing.
func expireStale(t *tx, showID int64) (int, error) {
	rows, err := t.Query(t.ctx, `UPDATE holds SET status = 'expired' WHERE show_id = $1 AND status = 'held' AND NOT `+liveHold("holds", "$2")+` RETURNING id`, showID, t.nowMS())
	if err != nil {
		return 0, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	if _, err := t.Exec(t.ctx, `UPDATE seat_claims SET status = 'expired' WHERE hold_id = ANY($1) AND status = 'held'`, ids); err != nil {
		return 0, err
	}
	if err := store.LapseReservations(t, ids); err != nil {
		return 0, err
	}
	t.touch(showID)
	return len(ids), nil
}
