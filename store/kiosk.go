package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"boxoffice/booking"
)

// The kiosk's holds (booking.Kiosk): short, at most
// booking.MaxSeatsPerReservation seats, one live hold per session, the
// kiosks' share of a show (booking.KioskShareCheck) and the slowing of an
// address that lets holds go (booking.KioskHoldWait), all decided inside
// the transaction whatever the kiosk's screen sends. Each kiosk hold is
// named with its address and seats (NameKioskHold); its outcome says how
// it ended.
//
// The session's one live hold is a count, which two of its writes at once
// (a double key press, a resent request) would both pass: the session's
// lock (LockKioskSession) orders them. The kiosks' share is a count too,
// of every kiosk's holds of the show: the show's kiosk lock
// (LockKioskShow), taken next, orders the kiosk holds of one show, and
// nothing else (a counter's sale never takes it). The seats themselves
// are won as a counter's hold wins them.

// KioskTx is what the kiosk's holds ask of a transaction.
type KioskTx interface {
	// LockKioskSession orders the writes of kiosk session owner: two
	// transactions that lock it take turns until the first ends.
	// (SQLite, one writer: nothing to do.)
	LockKioskSession(owner string) error
	// LockKioskShow orders the kiosk holds of show showID, as
	// LockKioskSession orders a session's writes.
	LockKioskShow(showID int64) error
	// HoldForUpdate reads owner's hold holdID, locked, whatever its
	// status; found is false when owner has no hold of that id.
	HoldForUpdate(holdID int64, owner string) (h HoldRow, found bool, err error)
	// HeldHoldsForUpdate lists owner's holds still held (lapsed or not:
	// only ID and ShowID set), locked, by id.
	HeldHoldsForUpdate(owner string) ([]HoldRow, error)
	// LiveHolds counts owner's holds live at the transaction's time
	// (HoldLive).
	LiveHolds(owner string) (int, error)
	// KioskLetGo counts addr's kiosk holds made after since that were let
	// go unbooked by the transaction's time (ended as let go, or never
	// ended and lapsed), and says when the latest of them ended (the
	// epoch when none did).
	KioskLetGo(addr string, since time.Time) (n int, lastEnd time.Time, err error)
	// KioskSeatsHeld sums the seats of show showID's kiosk holds still
	// held and unexpired at the transaction's time: a reservation a
	// kiosk made keeps its hold, and counts.
	KioskSeatsHeld(showID int64) (int, error)
	// NameKioskHold records hold h as a kiosk's, made from addr at the
	// transaction's time, and forgets the kiosk holds made before
	// forgetBefore that ended as anything but reserved.
	NameKioskHold(h *booking.Hold, addr string, forgetBefore time.Time) error
	// EndKioskHold says how kiosk hold holdID ended, at the transaction's
	// time, unless it ended already; a hold no kiosk made changes
	// nothing.
	EndKioskHold(holdID int64, outcome KioskOutcome) error
}

// HoldRow is a hold as a driver stores it: Created and Expires in unix ms.
type HoldRow struct {
	ID, ShowID       int64
	Status           booking.HoldStatus
	Created, Expires int64
}

// KioskOutcome is how a kiosk's hold ended.
type KioskOutcome string

const (
	// KioskMoved: the customer moved the block to other seats.
	KioskMoved KioskOutcome = "moved"
	// KioskReserved: the hold became a reservation.
	KioskReserved KioskOutcome = "reserved"
	// KioskLetGo: the customer started again, or the kiosk sat idle.
	KioskLetGo KioskOutcome = "let go"
)

// kioskOwner refuses an owner a kiosk session may not use: none, or a
// reservation's, which only paying or the cut-off may end.
func kioskOwner(owner string) error {
	if strings.TrimSpace(owner) == "" {
		return booking.Errorf(booking.EInvalid, "A hold needs an owner.")
	}
	if IsReservationOwner(owner) {
		return errReservedAlready()
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
	hall, err := s.prog.HallOfShow(ctx, req.ShowID)
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
	h, err := write(s, ctx, actor, Write{Op: "kiosk hold"}, func(tx Tx) (*booking.Hold, error) {
		if err := tx.LockKioskSession(req.Owner); err != nil {
			return nil, err
		}
		if err := tx.LockKioskShow(req.ShowID); err != nil {
			return nil, err
		}
		if err := salesOpen(tx, s.prog, req.ShowID); err != nil {
			return nil, err
		}
		// Lapsed holds go first, so a clash below is a live seat and
		// never the retry that would undo the move's release.
		if _, err := tx.ExpireStaleHolds(req.ShowID); err != nil {
			return nil, err
		}
		if err := kioskMove(tx, req); err != nil {
			return nil, err
		}
		if err := s.kioskLimits(tx, req, hall, addr, n); err != nil {
			return nil, err
		}
		var h *booking.Hold
		var err error
		if len(seats) > 0 {
			h, err = s.holdSeats(tx, hall, booking.HoldRequest{ShowID: req.ShowID, Owner: req.Owner}, booking.KioskHoldTTL, seats)
			if h != nil {
				h.Together = true
			}
		} else {
			h, err = s.holdBest(tx, hall, booking.HoldBestRequest{ShowID: req.ShowID, N: n, Owner: req.Owner}, booking.KioskHoldTTL)
		}
		if err != nil {
			return nil, err
		}
		if err := tx.NameKioskHold(h, addr, tx.Now().Add(-booking.KioskLetGoWindow)); err != nil {
			return nil, err
		}
		// Read again after the claims: a cancel that committed while
		// they waited for another's seat is seen.
		if err := salesOpen(tx, s.prog, req.ShowID); err != nil {
			return nil, err
		}
		return h, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditHold, ShowID: h.ShowID,
			Detail: fmt.Sprintf("hold %d: %s", h.ID, strings.Join(booking.Labels(h.Seats), " "))}, 0)
	})
	return h, s.suggest(ctx, err, hall, req.ShowID, n)
}

// salesOpen refuses a hold of a show that was cancelled or whose sales
// closed, as the transaction reads the show's life now.
func salesOpen(tx Tx, prog *Programme, showID int64) error {
	sh, err := LiveShow(tx, prog, showID)
	if err != nil {
		return err
	}
	return booking.SalesOpen(sh, tx.Now())
}

// kioskLimits refuses a kiosk hold of n seats past the kiosks' share of
// the show, and a new hold (not a move) from an address that must wait
// after letting holds go.
func (s *Store) kioskLimits(tx Tx, req booking.KioskHoldRequest, hall *booking.Hall, addr string, n int) error {
	now := tx.Now()
	if req.MoveFrom == 0 {
		letGo, lastEnd, err := tx.KioskLetGo(addr, now.Add(-booking.KioskLetGoWindow))
		if err != nil {
			return err
		}
		if wait := booking.KioskHoldWait(letGo, lastEnd, now); wait > 0 {
			s.log.Warn("kiosk hold refused", "addr", addr, "show", req.ShowID, "reason", "slowed", "let_go", letGo, "wait", wait)
			return booking.KioskSlowed(wait)
		}
	}
	taken, err := tx.KioskSeatsHeld(req.ShowID)
	if err != nil {
		return err
	}
	if err := booking.KioskShareCheck(len(hall.Seats), taken, n); err != nil {
		s.log.Warn("kiosk hold refused", "addr", addr, "show", req.ShowID, "reason", "kiosks' share", "taken", taken, "seats", n)
		return err
	}
	return nil
}

// kioskMove releases the session's hold req.MoveFrom, then refuses a
// second live hold: a session holds one block at a time.
func kioskMove(tx Tx, req booking.KioskHoldRequest) error {
	if req.MoveFrom != 0 {
		h, found, err := tx.HoldForUpdate(req.MoveFrom, req.Owner)
		if err != nil {
			return err
		}
		if !found {
			return booking.Errorf(booking.ENotFound, "That hold is gone.")
		}
		if err := tx.ReleaseHeldSeats(h.ID, h.ShowID, nil); err != nil {
			return err
		}
		if err := tx.EndKioskHold(h.ID, KioskMoved); err != nil {
			return err
		}
	}
	live, err := tx.LiveHolds(req.Owner)
	if err != nil {
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
	return write(s, ctx, actor, Write{Op: "kiosk release"}, func(tx Tx) (int, error) {
		if err := tx.LockKioskSession(owner); err != nil {
			return 0, err
		}
		holds, err := tx.HeldHoldsForUpdate(owner)
		if err != nil {
			return 0, err
		}
		for _, h := range holds {
			if err := tx.ReleaseHeldSeats(h.ID, h.ShowID, nil); err != nil {
				return 0, err
			}
			if err := tx.EndKioskHold(h.ID, KioskLetGo); err != nil {
				return 0, err
			}
		}
		if len(holds) == 0 {
			return 0, nil
		}
		return len(holds), Audit(tx, actor, booking.AuditEntry{Action: booking.AuditRelease,
			Detail: fmt.Sprintf("%d holds of %s", len(holds), booking.CleanLine(owner, 40))}, 0)
	})
}
