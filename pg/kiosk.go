package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// The kiosk's holds, as db's kiosk.go: short, at most
// booking.MaxSeatsPerReservation seats, and one live hold per session,
// all decided inside the transaction whatever the kiosk's screen sends.
//
// The hold's mode (holdMode: READ COMMITTED, the unique index deciding
// who wins a seat), with the session's own advisory lock first
// (sessionLock): its one-live-hold rule is a count, which two of its
// writes at once (a double key press, a resent request) would both pass
// without it.

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

// sessionLock orders the writes of one kiosk session.
func sessionLock(t *tx, owner string) error {
	_, err := t.Exec(t.ctx, `SELECT pg_advisory_xact_lock(hashtextextended('boxoffice kiosk ' || $1 || current_schema(), 0))`, owner)
	return err
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
	return inTx(s, ctx, "kiosk hold", s.holdMode(), func(t *tx) (*booking.Hold, error) {
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		if err := sessionLock(t, req.Owner); err != nil {
			return nil, err
		}
		if err := s.salesOpen(t, req.ShowID); err != nil {
			return nil, err
		}
		// Lapsed holds go first, so a clash below is a live seat and
		// never the retry that would undo the move's release.
		if _, err := expireStale(t, req.ShowID); err != nil {
			return nil, err
		}
		if err := kioskMove(t, req); err != nil {
			return nil, err
		}
		h, err := s.kioskClaim(t, hall, req, n, seats)
		if err != nil {
			return nil, err
		}
		// Read again after the claims: a cancel that committed while
		// they waited is seen (salesOpen says why).
		if err := s.salesOpen(t, req.ShowID); err != nil {
			return nil, err
		}
		return h, auditHold(t, actor, h)
	})
}

// kioskClaim holds the seats named, or the best n.
func (s *Store) kioskClaim(t *tx, hall *booking.Hall, req booking.KioskHoldRequest, n int, seats []booking.Seat) (*booking.Hold, error) {
	if len(seats) == 0 {
		return s.holdBestIn(t, hall, booking.HoldBestRequest{ShowID: req.ShowID, N: n, Owner: req.Owner}, booking.KioskHoldTTL)
	}
	h, err := s.holdSeats(t, hall, booking.HoldRequest{ShowID: req.ShowID, Owner: req.Owner}, booking.KioskHoldTTL, seats)
	if err != nil {
		return nil, err
	}
	h.Together = true
	return h, nil
}

// kioskMove releases the session's hold req.MoveFrom, then refuses a
// second live hold: a session holds one block at a time.
func kioskMove(t *tx, req booking.KioskHoldRequest) error {
	if req.MoveFrom != 0 {
		var showID int64
		err := t.QueryRow(t.ctx, `SELECT show_id FROM holds WHERE id = $1 AND owner = $2 FOR NO KEY UPDATE`, req.MoveFrom, req.Owner).Scan(&showID)
		if errors.Is(err, pgx.ErrNoRows) {
			return booking.Errorf(booking.ENotFound, "That hold is gone.")
		}
		if err != nil {
			return err
		}
		if _, err := releaseHold(t, req.MoveFrom, showID, nil); err != nil {
			return err
		}
	}
	var live int
	if err := t.QueryRow(t.ctx, `SELECT count(*) FROM holds h WHERE owner = $1 AND status = 'held' AND h.expires_at > $2 AND h.created_at <= $2 + `+clockSlack,
		req.Owner, t.nowMS()).Scan(&live); err != nil {
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
	return inTx(s, ctx, "kiosk release", s.holdMode(), func(t *tx) (int, error) {
		if err := checkActor(t, actor); err != nil {
			return 0, err
		}
		if err := sessionLock(t, owner); err != nil {
			return 0, err
		}
		rows, err := t.Query(t.ctx, `SELECT id, show_id FROM holds WHERE owner = $1 AND status = 'held' ORDER BY id FOR NO KEY UPDATE`, owner)
		if err != nil {
			return 0, err
		}
		holds, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([2]int64, error) {
			var h [2]int64
			return h, r.Scan(&h[0], &h[1])
		})
		if err != nil {
			return 0, err
		}
		for _, h := range holds {
			if _, err := releaseHold(t, h[0], h[1], nil); err != nil {
				return 0, err
			}
		}
		if len(holds) == 0 {
			return 0, nil
		}
		return len(holds), audit(t, actor, booking.AuditEntry{Action: booking.AuditRelease, Detail: fmt.Sprintf("%d holds of %s", len(holds), booking.CleanLine(owner, 40))}, 0)
	})
}
