package db

import (
	"context"
	"strings"
	"time"

	"boxoffice/booking"
)

// The kiosk's holds: short, at most booking.MaxSeatsPerReservation seats,
// one live hold per session, the kiosks' share of a show
// (booking.KioskShareCheck) and the slowing of an address that lets holds
// go (booking.KioskHoldWait), all decided inside the transaction whatever
// the kiosk's screen sends. Each kiosk hold is named in kiosk_holds
// (migration 0029) with its address and seats; its outcome says how it
// ended.

// kioskOwner refuses an owner a kiosk session may not use: none, or a
// reservation's, which only paying or the cut-off may end.
func kioskOwner(owner string) error {
	if strings.TrimSpace(owner) == "" {
		return booking.Errorf(booking.EInvalid, "A hold needs an owner.")
	}
	if strings.HasPrefix(owner, reservationOwnerPrefix) {
		return booking.Errorf(booking.EInvalid, "Those seats are reserved already.")
	}
	return nil
}

// KioskHold holds the best N seats, or the seats named, for a kiosk
// session, releasing its hold MoveFrom first when the customer moved the
// block.
func (s *Store) KioskHold(ctx context.Context, actor booking.Actor, req booking.KioskHoldRequest) (*booking.Hold, error) {
	if err := booking.Authorize(actor, booking.ActionKiosk); err != nil {
		return nil, err
	}
	if err := kioskOwner(req.Owner); err != nil {
		return nil, err
	}
	n := req.N
	if len(req.Seats) > 0 {
		n = len(req.Seats)
	}
	if n < 1 || n > booking.MaxSeatsPerReservation {
		return nil, booking.Errorf(booking.EInvalid, "Choose between 1 and %d seats.", booking.MaxSeatsPerReservation)
	}
	hall, err := s.hallOfShow(ctx, req.ShowID)
	if err != nil {
		return nil, err
	}
	var seats []booking.Seat
	if len(req.Seats) > 0 {
		if seats, err = hall.ResolveSeats(req.Seats, nil); err != nil {
			return nil, err
		}
	}
	addr := booking.KioskAddr(req.Addr, req.Owner)
	best, err := write(s, ctx, actor, "kiosk hold", func(w *wtx) (bestHold, error) {
		if _, err := s.saleableHall(w, req.ShowID); err != nil {
			return bestHold{}, err
		}
		// Lapsed holds go first, so a clash below is a live seat and
		// never the retry that would undo the move's release.
		if _, err := expireStale(w, req.ShowID); err != nil {
			return bestHold{}, err
		}
		if err := s.kioskMove(w, req); err != nil {
			return bestHold{}, err
		}
		if err := s.kioskLimits(w, req, hall, addr, n); err != nil {
			return bestHold{}, err
		}
		var best bestHold
		var err error
		if len(seats) > 0 {
			best.together = true
			best.hold, err = s.holdSeats(w, hall, booking.HoldRequest{ShowID: req.ShowID, Owner: req.Owner}, booking.KioskHoldTTL, seats)
		} else {
			best, err = s.holdBestIn(w, hall, booking.HoldBestRequest{ShowID: req.ShowID, N: n, Owner: req.Owner}, booking.KioskHoldTTL)
		}
		if err == nil {
			err = nameKioskHold(w, best.hold, addr)
		}
		return best, auditHold(w, actor, booking.AuditHold, best.hold, err)
	})
	if err != nil {
		return nil, err
	}
	best.hold.Together = best.together
	return best.hold, nil
}

// kioskLimits refuses a kiosk hold of n seats past the kiosks' share of
// the show, and a new hold (not a move) from an address that must wait
// after letting holds go. Each count reads kiosk_holds; the rules are
// booking's.
func (s *Store) kioskLimits(w *wtx, req booking.KioskHoldRequest, hall *booking.Hall, addr string, n int) error {
	now := w.nowMS()
	if req.MoveFrom == 0 {
		var letGo int
		var lastEnd int64
		if err := w.queryRow(qLetGo, addr, w.now.Add(-booking.KioskLetGoWindow).UnixMilli(), now).Scan(&letGo, &lastEnd); err != nil {
			return err
		}
		if wait := booking.KioskHoldWait(letGo, time.UnixMilli(lastEnd), w.now); wait > 0 {
			s.log.Warn("kiosk hold refused", "addr", addr, "show", req.ShowID, "reason", "slowed", "let_go", letGo, "wait", wait)
			return booking.KioskSlowed(wait)
		}
	}
	var taken int
	if err := w.queryRow(qKioskTaken, req.ShowID, now).Scan(&taken); err != nil {
		return err
	}
	if err := booking.KioskShareCheck(len(hall.Seats), taken, n); err != nil {
		s.log.Warn("kiosk hold refused", "addr", addr, "show", req.ShowID, "reason", "kiosks' share", "taken", taken, "seats", n)
		return err
	}
	return nil
}

// qLetGo counts an address's kiosk holds let go unbooked since ?2 (the
// customer started again, or the kiosk reset, or the hold lapsed: ?3 is
// now) and when the latest of them ended.
const qLetGo = `SELECT count(*), coalesce(max(coalesce(k.ended_at, h.expires_at)), 0)
	FROM kiosk_holds k JOIN holds h ON h.id = k.hold_id
	WHERE k.addr = ?1 AND k.created_at > ?2
	AND (k.outcome = 'let go' OR (k.outcome = '' AND (h.status <> 'held' OR h.expires_at <= ?3)))`

// qKioskTaken is the kiosks' share of show ?1 taken at ?2: the seats of
// its live holds a kiosk made, its unpaid kiosk reservations among them
// (a reservation keeps its hold). One probe of holds_live_by_show.
const qKioskTaken = `SELECT coalesce(sum(k.seats), 0) FROM holds h JOIN kiosk_holds k ON k.hold_id = h.id
	WHERE h.show_id = ?1 AND h.status = 'held' AND h.expires_at > ?2`

// nameKioskHold records hold as a kiosk's, from addr, and forgets the
// kiosk holds made before booking.KioskLetGoWindow that can count for
// nothing any more: all but reservations', whose holds may live until
// their show (a kiosk hold lives KioskHoldTTL).
func nameKioskHold(w *wtx, hold *booking.Hold, addr string) error {
	now := w.nowMS()
	if _, err := w.exec(`DELETE FROM kiosk_holds WHERE created_at < ? AND outcome <> 'reserved'`, w.now.Add(-booking.KioskLetGoWindow).UnixMilli()); err != nil {
		return err
	}
	_, err := w.exec(`INSERT INTO kiosk_holds (hold_id, show_id, addr, seats, created_at) VALUES (?, ?, ?, ?, ?)`,
		hold.ID, hold.ShowID, addr, len(hold.Seats), now)
	return err
}

// endKioskHold says how a kiosk hold ended: moved, reserved or let go.
// A hold no kiosk made has no row, and nothing changes.
func endKioskHold(w *wtx, holdID int64, outcome string) error {
	_, err := w.exec(`UPDATE kiosk_holds SET outcome = ?, ended_at = ? WHERE hold_id = ? AND outcome = ''`, outcome, w.nowMS(), holdID)
	return err
}

// kioskMove releases the session's hold req.MoveFrom, then refuses a
// second live hold: a session holds one block at a time.
func (s *Store) kioskMove(w *wtx, req booking.KioskHoldRequest) error {
	if req.MoveFrom != 0 {
		showID, err := ownHold(w, req.MoveFrom, req.Owner)
		if err != nil {
			return err
		}
		if _, err := releaseHold(w, req.MoveFrom, showID, nil); err != nil {
			return err
		}
		if err := endKioskHold(w, req.MoveFrom, "moved"); err != nil {
			return err
		}
	}
	var live int
	if err := w.queryRow(`SELECT count(*) FROM holds h WHERE owner = ? AND status = 'held' AND `+liveHoldSQL("h"), req.Owner, w.nowMS(), w.nowMS()).Scan(&live); err != nil {
		return err
	}
	if live > 0 {
		return booking.Errorf(booking.EConflict, "You have seats held already: reserve them or start again.")
	}
	return nil
}

// KioskRelease lets go of every live hold of a kiosk session: the
// customer started again, or the kiosk sat idle.
func (s *Store) KioskRelease(ctx context.Context, actor booking.Actor, owner string) (int, error) {
	if err := booking.Authorize(actor, booking.ActionKiosk); err != nil {
		return 0, err
	}
	if err := kioskOwner(owner); err != nil {
		return 0, err
	}
	return write(s, ctx, actor, "kiosk release", func(w *wtx) (int, error) {
		rows, err := w.query(`SELECT id, show_id FROM holds WHERE owner = ? AND status = 'held'`, owner)
		if err != nil {
			return 0, err
		}
		var holds [][2]int64
		for rows.Next() {
			var h [2]int64
			if err := rows.Scan(&h[0], &h[1]); err != nil {
				rows.Close()
				return 0, err
			}
			holds = append(holds, h)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, err
		}
		for _, h := range holds {
			if _, err := releaseHold(w, h[0], h[1], nil); err != nil {
				return 0, err
			}
			if err := endKioskHold(w, h[0], "let go"); err != nil {
				return 0, err
			}
		}
		return len(holds), auditCount(w, actor, booking.AuditRelease, len(holds), nil, "%d holds of %s", len(holds), booking.CleanLine(owner, 40))
	})
}
