package db

import (
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// The kiosk's holds' queries (store.KioskTx). Each kiosk hold is named in
// kiosk_holds (migration 0029) with its address and seats; its outcome
// says how it ended. The writer runs one write at a time, so the locks
// are nothing here.

// LockKioskSession: one writer orders a session's writes already.
func (w *wtx) LockKioskSession(string) error { return nil }

// LockKioskShow: one writer orders a show's kiosk holds already.
func (w *wtx) LockKioskShow(int64) error { return nil }

// HoldForUpdate reads owner's hold.
func (w *wtx) HoldForUpdate(holdID int64, owner string) (store.HoldRow, bool, error) {
	h := store.HoldRow{ID: holdID}
	err := w.queryRow(`SELECT show_id, status, created_at, expires_at FROM holds WHERE id = ? AND owner = ?`, holdID, owner).Scan(
		&h.ShowID, &h.Status, &h.Created, &h.Expires)
	if isNoRows(err) {
		return h, false, nil
	}
	return h, err == nil, err
}

// HeldHoldsForUpdate lists owner's holds still held.
func (w *wtx) HeldHoldsForUpdate(owner string) ([]store.HoldRow, error) {
	rows, err := w.query(`SELECT id, show_id FROM holds WHERE owner = ? AND status = 'held'`, owner)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.HoldRow
	for rows.Next() {
		h := store.HoldRow{Status: booking.HoldHeld}
		if err := rows.Scan(&h.ID, &h.ShowID); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// LiveHolds counts owner's live holds (liveHoldSQL).
func (w *wtx) LiveHolds(owner string) (int, error) {
	var n int
	err := w.queryRow(`SELECT count(*) FROM holds h WHERE owner = ? AND status = 'held' AND `+liveHoldSQL("h"), owner, w.nowMS(), w.nowMS()).Scan(&n)
	return n, err
}

// KioskLetGo counts an address's kiosk holds let go unbooked since since
// (the customer started again, or the kiosk reset, or the hold lapsed)
// and when the latest of them ended.
func (w *wtx) KioskLetGo(addr string, since time.Time) (int, time.Time, error) {
	var n int
	var last int64
	err := w.queryRow(`SELECT count(*), coalesce(max(coalesce(k.ended_at, h.expires_at)), 0)
		FROM kiosk_holds k JOIN holds h ON h.id = k.hold_id
		WHERE k.addr = ?1 AND k.created_at > ?2
		AND (k.outcome = 'let go' OR (k.outcome = '' AND (h.status <> 'held' OR h.expires_at <= ?3)))`,
		addr, since.UnixMilli(), w.nowMS()).Scan(&n, &last)
	return n, time.UnixMilli(last), err
}

// KioskSeatsHeld sums the seats of a show's live kiosk holds: one probe
// of holds_live_by_show.
func (w *wtx) KioskSeatsHeld(showID int64) (int, error) {
	var n int
	err := w.queryRow(`SELECT coalesce(sum(k.seats), 0) FROM holds h JOIN kiosk_holds k ON k.hold_id = h.id
		WHERE h.show_id = ?1 AND h.status = 'held' AND h.expires_at > ?2`, showID, w.nowMS()).Scan(&n)
	return n, err
}

// NameKioskHold records a kiosk's hold and forgets the old ones that can
// count for nothing any more.
func (w *wtx) NameKioskHold(h *booking.Hold, addr string, forgetBefore time.Time) error {
	if _, err := w.exec(`DELETE FROM kiosk_holds WHERE created_at < ? AND outcome <> 'reserved'`, forgetBefore.UnixMilli()); err != nil {
		return err
	}
	_, err := w.exec(`INSERT INTO kiosk_holds (hold_id, show_id, addr, seats, created_at) VALUES (?, ?, ?, ?, ?)`,
		h.ID, h.ShowID, addr, len(h.Seats), w.nowMS())
	return err
}

// EndKioskHold says how a kiosk hold ended.
func (w *wtx) EndKioskHold(holdID int64, outcome store.KioskOutcome) error {
	_, err := w.exec(`UPDATE kiosk_holds SET outcome = ?, ended_at = ? WHERE hold_id = ? AND outcome = ''`, string(outcome), w.nowMS(), holdID)
	return err
}
