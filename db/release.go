package db

import (
	"context"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// ownHold is the show of owner's hold holdID, read in the transaction:
// ENotFound when owner has no such hold, whatever its status.
func ownHold(w *wtx, holdID int64, owner string) (int64, error) {
	var showID int64
	err := w.queryRow(`SELECT show_id FROM holds WHERE id = ? AND owner = ?`, holdID, owner).Scan(&showID)
	return showID, notFoundAs(err, "That hold is gone.")
}

// Release lets go of some seats of a hold, or all of it. Which hold is
// owner's is read in the transaction that releases it.
func (s *Store) Release(ctx context.Context, actor booking.Actor, holdID int64, owner string, seats ...string) error {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return err
	}
	return apply(s, ctx, actor, "release", func(w *wtx) error {
		showID, err := ownHold(w, holdID, owner)
		if err != nil {
			return err
		}
		var ids []int64
		if len(seats) > 0 {
			hall, err := s.hallOfShow(w.ctx, showID)
			if err != nil {
				return err
			}
			resolved, err := hall.ResolveSeats(seats, nil)
			if err != nil {
				return err
			}
			for _, seat := range resolved {
				ids = append(ids, seat.ID)
			}
		}
		n, err := releaseHold(w, holdID, showID, ids)
		return auditCount(w, actor, booking.AuditRelease, int(n), err, "%s", releaseDetail(holdID, seats))
	})
}

// releaseHold releases the given seats of a hold (all when none) and
// says how many claims and holds it moved: 0 for a hold that had ended,
// which changed nothing and leaves no audit row.
func releaseHold(w *wtx, holdID, showID int64, seatIDs []int64) (int64, error) {
	var moved int64
	if len(seatIDs) > 0 {
		for _, id := range seatIDs {
			res, err := w.exec(`UPDATE seat_claims SET status = 'released' WHERE hold_id = ? AND seat_id = ? AND status = 'held'`, holdID, id)
			if err != nil {
				return 0, err
			}
			n, _ := res.RowsAffected()
			moved += n
		}
		var left int
		if err := w.queryRow(`SELECT count(*) FROM seat_claims WHERE hold_id = ? AND status = 'held'`, holdID).Scan(&left); err != nil {
			return 0, err
		}
		if left > 0 {
			w.touch(showID)
			return moved, nil
		}
	}
	for _, q := range []string{`UPDATE seat_claims SET status = 'released' WHERE hold_id = ? AND status = 'held'`,
		`UPDATE holds SET status = 'released' WHERE id = ? AND status = 'held'`} {
		res, err := w.exec(q, holdID)
		if err != nil {
			return 0, err
		}
		n, _ := res.RowsAffected()
		moved += n
	}
	w.touch(showID)
	return moved, nil
}

// Extend moves a live hold's expiry to now+ttl, capped at MaxHoldLifetime
// after the hold was made: a hold already at its cap is refused, one near
// it is extended to the cap and no further. Which hold is owner's, and
// whether it is live, is decided in the transaction.
func (s *Store) Extend(ctx context.Context, actor booking.Actor, holdID int64, owner string, ttl time.Duration) (*booking.Hold, error) {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return nil, err
	}
	ttl = ttlOrDefault(ttl)
	return write(s, ctx, actor, "extend", func(w *wtx) (*booking.Hold, error) {
		showID, err := ownHold(w, holdID, owner)
		if err != nil {
			return nil, err
		}
		var expires int64
		err = w.queryRow(`UPDATE holds SET expires_at = min(?, created_at + ?)
			WHERE id = ? AND owner = ? AND status = 'held' AND `+liveHoldSQL("holds")+` AND expires_at < created_at + ? RETURNING expires_at`,
			w.now.Add(ttl).UnixMilli(), holdLimitMS, holdID, owner, w.nowMS(), w.nowMS(), holdLimitMS).Scan(&expires)
		if isNoRows(err) {
			return nil, whyNotExtended(w, holdID)
		}
		if err != nil {
			return nil, err
		}
		hall, err := s.hallOfShow(w.ctx, showID)
		if err != nil {
			return nil, err
		}
		seats, err := s.heldSeats(w, hall, holdID)
		if err != nil {
			return nil, err
		}
		w.touch(showID)
		h := &booking.Hold{ID: holdID, ShowID: showID, Owner: owner, Seats: seats, ExpiresAt: time.UnixMilli(expires), Status: booking.HoldHeld, Together: true}
		return h, auditHold(w, actor, booking.AuditExtend, h, nil)
	})
}

// whyNotExtended tells a hold at its lifetime limit from one that lapsed.
func whyNotExtended(w *wtx, holdID int64) error {
	var status booking.HoldStatus
	var owner string
	var created, expires int64
	if err := w.queryRow(`SELECT status, owner, created_at, expires_at FROM holds WHERE id = ?`, holdID).Scan(&status, &owner, &created, &expires); err != nil {
		return notFoundAs(err, "That hold is gone.")
	}
	if status == booking.HoldHeld && store.HoldLive(owner, created, expires, w.nowMS()) && expires >= created+holdLimitMS {
		return errHoldLimit()
	}
	return booking.Errorf(booking.EExpired, "The hold ran out; hold the seats again.")
}

// ReleaseOwner releases every live hold of owner: a session that ends
// gives its seats back. It runs on a quiesced store.
func (s *Store) ReleaseOwner(ctx context.Context, owner string) (int, error) {
	return giveBack(s, ctx, "release owner", func(w *wtx) (int, error) {
		rows, err := w.query(`SELECT id, show_id FROM holds WHERE owner = ? AND status = 'held'`, owner)
		if err != nil {
			return 0, err
		}
		type h struct{ id, show int64 }
		var holds []h
		for rows.Next() {
			var x h
			if err := rows.Scan(&x.id, &x.show); err != nil {
				rows.Close()
				return 0, err
			}
			holds = append(holds, x)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, err
		}
		for _, x := range holds {
			if _, err := releaseHold(w, x.id, x.show, nil); err != nil {
				return 0, err
			}
		}
		return len(holds), auditCount(w, booking.System, booking.AuditRelease, len(holds), nil, "%d holds of %s", len(holds), owner)
	})
}

// ReleasePrefix releases every live hold whose owner starts with prefix:
// a server shutting down gives back its own sessions' seats and leaves
// another process's alone. It runs on a quiesced store.
func (s *Store) ReleasePrefix(ctx context.Context, prefix string) (int, error) {
	if prefix == "" {
		return 0, booking.Errorf(booking.EInvalid, "A release needs an owner prefix.")
	}
	return giveBack(s, ctx, "release prefix", func(w *wtx) (int, error) {
		shows, err := queryList[int64](w, `SELECT DISTINCT show_id FROM holds WHERE status = 'held' AND substr(owner, 1, ?) = ?`, len(prefix), prefix)
		if err != nil {
			return 0, err
		}
		if _, err := w.exec(`UPDATE seat_claims SET status = 'released' WHERE status = 'held' AND hold_id IN
			(SELECT id FROM holds WHERE status = 'held' AND substr(owner, 1, ?) = ?)`, len(prefix), prefix); err != nil {
			return 0, err
		}
		res, err := w.exec(`UPDATE holds SET status = 'released' WHERE status = 'held' AND substr(owner, 1, ?) = ?`, len(prefix), prefix)
		if err != nil {
			return 0, err
		}
		n, err := res.RowsAffected()
		for _, id := range shows {
			w.touch(id)
		}
		return int(n), auditCount(w, booking.System, booking.AuditRelease, int(n), err, "%d holds of %s…", n, prefix)
	})
}
