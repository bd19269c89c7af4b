package pg

import (
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// The kiosk's holds' queries (store.KioskTx): kiosk_holds (0012) names
// each kiosk hold with its address and seats. The session's and the
// show's locks are transaction-scoped advisory locks, keyed in the
// schema's name so two stores in one database never share them; the
// holds' rows are locked as checkout and release lock them (FOR NO KEY
// UPDATE), so a release and a checkout of one hold take turns.

// advisoryLock takes the transaction's advisory lock of key.
func advisoryLock(t *tx, key string) error {
	_, err := t.Exec(t.ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1 || current_schema(), 0))`, key)
	return err
}

// LockKioskSession orders the writes of one kiosk session.
func (t *tx) LockKioskSession(owner string) error { return advisoryLock(t, "boxoffice kiosk "+owner) }

// LockKioskShow orders the kiosk holds of one show.
func (t *tx) LockKioskShow(showID int64) error {
	return advisoryLock(t, "boxoffice kiosk show "+strconv.FormatInt(showID, 10))
}

// HoldForUpdate reads owner's hold, its row locked.
func (t *tx) HoldForUpdate(holdID int64, owner string) (store.HoldRow, bool, error) {
	h := store.HoldRow{ID: holdID}
	err := t.QueryRow(t.ctx, `SELECT show_id, status, created_at, expires_at FROM holds WHERE id = $1 AND owner = $2 FOR NO KEY UPDATE`, holdID, owner).Scan(
		&h.ShowID, &h.Status, &h.Created, &h.Expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return h, false, nil
	}
	return h, err == nil, err
}

// HeldHoldsForUpdate lists owner's holds still held, their rows locked in
// id order.
func (t *tx) HeldHoldsForUpdate(owner string) ([]store.HoldRow, error) {
	rows, err := t.Query(t.ctx, `SELECT id, show_id FROM holds WHERE owner = $1 AND status = 'held' ORDER BY id FOR NO KEY UPDATE`, owner)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.HoldRow, error) {
		h := store.HoldRow{Status: booking.HoldHeld}
		return h, r.Scan(&h.ID, &h.ShowID)
	})
}

// LiveHolds counts owner's live holds (liveHold).
func (t *tx) LiveHolds(owner string) (int, error) {
	var n int
	err := t.QueryRow(t.ctx, `SELECT count(*) FROM holds h WHERE owner = $1 AND status = 'held' AND `+liveHold("h", "$2"), owner, t.nowMS()).Scan(&n)
	return n, err
}

// KioskLetGo counts an address's kiosk holds let go unbooked since since
// (the customer started again, or the kiosk reset, or the hold lapsed)
// and when the latest of them ended.
func (t *tx) KioskLetGo(addr string, since time.Time) (int, time.Time, error) {
	var n int
	var last int64
	err := t.QueryRow(t.ctx, `SELECT count(*), coalesce(max(coalesce(k.ended_at, h.expires_at)), 0)
		FROM kiosk_holds k JOIN holds h ON h.id = k.hold_id
		WHERE k.addr = $1 AND k.created_at > $2
		AND (k.outcome = 'let go' OR (k.outcome = '' AND (h.status <> 'held' OR h.expires_at <= $3)))`,
		addr, since.UnixMilli(), t.nowMS()).Scan(&n, &last)
	return n, time.UnixMilli(last), err
}

// KioskSeatsHeld sums the seats of a show's live kiosk holds.
func (t *tx) KioskSeatsHeld(showID int64) (int, error) {
	var n int
	err := t.QueryRow(t.ctx, `SELECT coalesce(sum(k.seats), 0)::integer FROM holds h JOIN kiosk_holds k ON k.hold_id = h.id
		WHERE h.show_id = $1 AND h.status = 'held' AND h.expires_at > $2`, showID, t.nowMS()).Scan(&n)
	return n, err
}

// NameKioskHold records a kiosk's hold and forgets the old ones that can
// count for nothing any more.
func (t *tx) NameKioskHold(h *booking.Hold, addr string, forgetBefore time.Time) error {
	if _, err := t.Exec(t.ctx, `DELETE FROM kiosk_holds WHERE created_at < $1 AND outcome <> 'reserved'`, forgetBefore.UnixMilli()); err != nil {
		return err
	}
	_, err := t.Exec(t.ctx, `INSERT INTO kiosk_holds (hold_id, show_id, addr, seats, created_at) VALUES ($1, $2, $3, $4, $5)`,
		h.ID, h.ShowID, addr, len(h.Seats), t.nowMS())
	return err
}

// EndKioskHold says how a kiosk hold ended.
func (t *tx) EndKioskHold(holdID int64, outcome store.KioskOutcome) error {
	_, err := t.Exec(t.ctx, `UPDATE kiosk_holds SET outcome = $1, ended_at = $2 WHERE hold_id = $3 AND outcome = ''`, string(outcome), t.nowMS(), holdID)
	return err
}
