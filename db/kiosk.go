package db

import (
	"context"
	"strings"

	"boxoffice/booking"
)

// The kiosk's holds: short, at most booking.MaxSeatsPerReservation seats,
// and one live hold per session, all decided inside the transaction
// whatever the kiosk's screen sends.

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
		var best bestHold
		var err error
		if len(seats) > 0 {
			best.together = true
			best.hold, err = s.holdSeats(w, hall, booking.HoldRequest{ShowID: req.ShowID, Owner: req.Owner}, booking.KioskHoldTTL, seats)
		} else {
			best, err = s.holdBestIn(w, hall, booking.HoldBestRequest{ShowID: req.ShowID, N: n, Owner: req.Owner}, booking.KioskHoldTTL)
		}
		return best, auditHold(w, actor, booking.AuditHold, best.hold, err)
	})
	if err != nil {
		return nil, err
	}
	best.hold.Together = best.together
	return best.hold, nil
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
		}
		return len(holds), auditCount(w, actor, booking.AuditRelease, len(holds), nil, "%d holds of %s", len(holds), booking.CleanLine(owner, 40))
	})
}
