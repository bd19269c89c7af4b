package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// The kiosk's holds, as db's kiosk.go: short, at most
// booking.MaxSeatsPerReservation seats, one live hold per session, the
// kiosks' share of a show and the slowing of an address that lets holds
// go, all decided inside the transaction whatever the kiosk's screen
// sends; each kiosk hold is named in kiosk_holds (0012).
//
// The hold's mode (holdMode: READ COMMITTED, the unique index deciding
// who wins a seat), with the session's own advisory lock first
// (sessionLock): its one-live-hold rule is a count, which two of its
// writes at once (a double key press, a resent request) would both pass
// without it. The kiosks' share is a count too, of every kiosk's holds
// of the show: the show's kiosk lock (kioskShowLock), taken next, orders
// the kiosk holds of one show, and nothing else (a counter's sale never
// takes it).

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

// kioskShowLock orders the kiosk holds of one show, whose share of it is
// counted before each is made.
func kioskShowLock(t *tx, showID int64) error {
	_, err := t.Exec(t.ctx, `SELECT pg_advisory_xact_lock(hashtextextended('boxoffice kiosk show ' || $1::bigint || current_schema(), 0))`, showID)
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
	addr := booking.KioskAddr(req.Addr, req.Owner)
	return inTx(s, ctx, "kiosk hold", s.holdMode(), func(t *tx) (*booking.Hold, error) {
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		if err := sessionLock(t, req.Owner); err != nil {
			return nil, err
		}
		if err := kioskShowLock(t, req.ShowID); err != nil {
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
		if err := s.kioskLimits(t, req, hall, addr, n); err != nil {
			return nil, err
		}
		h, err := s.kioskClaim(t, hall, req, n, seats)
		if err != nil {
			return nil, err
		}
		if err := nameKioskHold(t, h, addr); err != nil {
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

// kioskLimits refuses a kiosk hold of n seats past the kiosks' share of
// the show, and a new hold (not a move) from an address that must wait
// after letting holds go, as db's kioskLimits.
func (s *Store) kioskLimits(t *tx, req booking.KioskHoldRequest, hall *booking.Hall, addr string, n int) error {
	now := t.nowMS()
	if req.MoveFrom == 0 {
		var letGo int
		var lastEnd int64
		if err := t.QueryRow(t.ctx, qLetGo, addr, t.now.Add(-booking.KioskLetGoWindow).UnixMilli(), now).Scan(&letGo, &lastEnd); err != nil {
			return err
		}
		if wait := booking.KioskHoldWait(letGo, time.UnixMilli(lastEnd), t.now); wait > 0 {
			s.log.Warn("kiosk hold refused", "addr", addr, "show", req.ShowID, "reason", "slowed", "let_go", letGo, "wait", wait)
			return booking.KioskSlowed(wait)
		}
	}
	var taken int
	if err := t.QueryRow(t.ctx, qKioskTaken, req.ShowID, now).Scan(&taken); err != nil {
		return err
	}
	if err := booking.KioskShareCheck(len(hall.Seats), taken, n); err != nil {
		s.log.Warn("kiosk hold refused", "addr", addr, "show", req.ShowID, "reason", "kiosks' share", "taken", taken, "seats", n)
		return err
	}
	return nil
}

// qLetGo counts an address's kiosk holds let go unbooked since $2 (the
// customer started again, or the kiosk reset, or the hold lapsed: $3 is
// now) and when the latest of them ended.
const qLetGo = `SELECT count(*), coalesce(max(coalesce(k.ended_at, h.expires_at)), 0)
	FROM kiosk_holds k JOIN holds h ON h.id = k.hold_id
	WHERE k.addr = $1 AND k.created_at > $2
	AND (k.outcome = 'let go' OR (k.outcome = '' AND (h.status <> 'held' OR h.expires_at <= $3)))`

// qKioskTaken is the kiosks' share of show $1 taken at $2: the seats of
// its live holds a kiosk made, its unpaid kiosk reservations among them
// (a reservation keeps its hold).
const qKioskTaken = `SELECT coalesce(sum(k.seats), 0)::integer FROM holds h JOIN kiosk_holds k ON k.hold_id = h.id
	WHERE h.show_id = $1 AND h.status = 'held' AND h.expires_at > $2`

// nameKioskHold records hold as a kiosk's, from addr, and forgets the
// kiosk holds made before booking.KioskLetGoWindow that can count for
// nothing any more: all but reservations', whose holds may live until
// their show (a kiosk hold lives KioskHoldTTL).
func nameKioskHold(t *tx, hold *booking.Hold, addr string) error {
	now := t.nowMS()
	if _, err := t.Exec(t.ctx, `DELETE FROM kiosk_holds WHERE created_at < $1 AND outcome <> 'reserved'`, t.now.Add(-booking.KioskLetGoWindow).UnixMilli()); err != nil {
		return err
	}
	_, err := t.Exec(t.ctx, `INSERT INTO kiosk_holds (hold_id, show_id, addr, seats, created_at) VALUES ($1, $2, $3, $4, $5)`,
		hold.ID, hold.ShowID, addr, len(hold.Seats), now)
	return err
}

// endKioskHold says how a kiosk hold ended: moved, reserved or let go.
// A hold no kiosk made has no row, and nothing changes.
func endKioskHold(t *tx, holdID int64, outcome string) error {
	_, err := t.Exec(t.ctx, `UPDATE kiosk_holds SET outcome = $1, ended_at = $2 WHERE hold_id = $3 AND outcome = ''`, outcome, t.nowMS(), holdID)
	return err
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
		if err := endKioskHold(t, req.MoveFrom, "moved"); err != nil {
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
			if err := endKioskHold(t, h[0], "let go"); err != nil {
				return 0, err
			}
		}
		if len(holds) == 0 {
			return 0, nil
		}
		return len(holds), audit(t, actor, booking.AuditEntry{Action: booking.AuditRelease, Detail: fmt.Sprintf("%d holds of %s", len(holds), booking.CleanLine(owner, 40))}, 0)
	})
}
