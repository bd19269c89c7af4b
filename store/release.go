package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"boxoffice/booking"
)

// Letting seats go and keeping them longer: Release, Extend, the
// give-backs of a session or a server (ReleaseOwner, ReleasePrefix), the
// sweep of lapsed holds (ExpireHolds) and what a shutdown leaves held
// (LiveHolds). Every move of a hold is a compare-and-set on its status, so
// a checkout that confirmed it first keeps it.

// errHoldGone refuses a hold its owner does not have.
func errHoldGone() error { return booking.Errorf(booking.ENotFound, "That hold is gone.") }

// Release lets go of some seats of owner's hold, or all of it. Which hold
// is owner's is read, locked, in the transaction that releases it.
func (s *Store) Release(ctx context.Context, actor booking.Actor, holdID int64, owner string, seats ...string) error {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return err
	}
	err := apply(s, ctx, actor, Write{Op: "release", Hold: true}, func(tx Tx) error {
		h, found, err := tx.HoldForUpdate(holdID, owner)
		if err != nil {
			return err
		}
		if !found {
			return errHoldGone()
		}
		var ids []int64
		if len(seats) > 0 {
			hall, err := s.prog.HallOfShow(tx.Context(), h.ShowID)
			if err != nil {
				return err
			}
			resolved, err := hall.ResolveSeats(seats, nil)
			if err != nil {
				return err
			}
			ids = seatIDs(resolved)
		}
		n, err := tx.ReleaseHold(holdID, h.ShowID, ids)
		if err != nil || n == 0 {
			return err // a hold that had ended: nothing changed, nothing to record
		}
		tx.Touch(h.ShowID)
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditRelease, Detail: releaseDetail(holdID, seats)}, 0)
	})
	s.sales.forget(holdID)
	return err
}

// releaseDetail names the seats a release let go of, or the whole hold.
func releaseDetail(holdID int64, seats []string) string {
	if len(seats) == 0 {
		return fmt.Sprintf("hold %d: all", holdID)
	}
	return fmt.Sprintf("hold %d: %s", holdID, strings.Join(seats, " "))
}

// holdLimit is how long a hold may live, in the unix ms holds keep.
const holdLimit = int64(booking.MaxHoldLifetime / time.Millisecond)

// Extend moves owner's live hold's expiry to now+ttl, capped at
// booking.MaxHoldLifetime after the hold was made: a hold at its cap
// already is refused, one near it is extended to the cap and no further.
func (s *Store) Extend(ctx context.Context, actor booking.Actor, holdID int64, owner string, ttl time.Duration) (*booking.Hold, error) {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return nil, err
	}
	ttl = ttlOrDefault(ttl)
	return write(s, ctx, actor, Write{Op: "extend", Hold: true}, func(tx Tx) (*booking.Hold, error) {
		h, found, err := tx.HoldForUpdate(holdID, owner)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, errHoldGone()
		}
		now := tx.Now().UnixMilli()
		if h.Status != booking.HoldHeld || !HoldLive(owner, h.Created, h.Expires, now) {
			return nil, booking.Errorf(booking.EExpired, "The hold ran out; hold the seats again.")
		}
		if h.Expires >= h.Created+holdLimit {
			return nil, booking.Errorf(booking.EInvalid, "This hold has reached its %d-minute limit: sell the seats or let them go.", int(booking.MaxHoldLifetime.Minutes()))
		}
		expires := time.UnixMilli(min(tx.Now().Add(ttl).UnixMilli(), h.Created+holdLimit))
		if ok, err := tx.SetHoldExpiry(holdID, expires); err != nil {
			return nil, err
		} else if !ok {
			return nil, booking.Errorf(booking.EExpired, "The hold ran out; hold the seats again.")
		}
		sh, err := s.prog.Show(tx.Context(), h.ShowID)
		if err != nil {
			return nil, err
		}
		seats, err := s.heldSeats(tx, sh.HallID, holdID)
		if err != nil {
			return nil, err
		}
		tx.Touch(h.ShowID)
		out := &booking.Hold{ID: holdID, ShowID: h.ShowID, Owner: owner, Seats: seats, ExpiresAt: expires, Status: booking.HoldHeld, Together: true}
		return out, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditExtend, ShowID: h.ShowID,
			Detail: fmt.Sprintf("hold %d until %s", holdID, expires.In(tx.Now().Location()).Format("15:04:05"))}, 0)
	})
}

// ReleaseOwner releases every live hold of owner: a session that ends
// gives its seats back. It runs on a quiesced store.
func (s *Store) ReleaseOwner(ctx context.Context, owner string) (int, error) {
	return s.giveBack(ctx, "release owner", owner, false, "%d holds of %s")
}

// ReleasePrefix releases every live hold whose owner starts with prefix:
// a server shutting down gives back its own sessions' seats and leaves
// another process's alone. It runs on a quiesced store.
func (s *Store) ReleasePrefix(ctx context.Context, prefix string) (int, error) {
	if prefix == "" {
		return 0, booking.Errorf(booking.EInvalid, "A release needs an owner prefix.")
	}
	return s.giveBack(ctx, "release prefix", prefix, true, "%d holds of %s…")
}

// giveBack releases the held holds of owner (with prefix, of every owner
// starting with it) and their claims, with one audit row when any moved.
func (s *Store) giveBack(ctx context.Context, op, owner string, prefix bool, detail string) (int, error) {
	n, err := write(s, ctx, booking.System, Write{Op: op, Hold: true, Release: true}, func(tx Tx) (int, error) {
		n, shows, err := tx.GiveBackHolds(owner, prefix)
		if err != nil || n == 0 {
			return 0, err
		}
		for _, id := range shows {
			tx.Touch(id)
		}
		return n, Audit(tx, booking.System, booking.AuditEntry{Action: booking.AuditRelease, Detail: fmt.Sprintf(detail, n, owner)}, 0)
	})
	s.sales.forgetOwner(owner, prefix)
	return n, err
}

// ExpireHolds marks every lapsed hold and its claims expired and returns
// how many holds it expired. It reads first and writes only when there is
// something to expire, so an idle cinema does not write every second.
func (s *Store) ExpireHolds(ctx context.Context) (int, error) {
	if any, err := s.d.ReadLapsedHolds(ctx, s.d.Now()); err != nil || !any {
		return 0, err
	}
	return write(s, ctx, booking.System, Write{Op: "expire holds", Hold: true}, func(tx Tx) (int, error) {
		shows, err := tx.LapsedHoldShows()
		if err != nil {
			return 0, err
		}
		n := 0
		for _, id := range shows {
			k, err := tx.ExpireStaleHolds(id)
			if err != nil {
				return 0, err
			}
			n += k
		}
		if n == 0 {
			return 0, nil
		}
		return n, Audit(tx, booking.System, booking.AuditEntry{Action: booking.AuditExpire, Detail: fmt.Sprintf("%d lapsed holds", n)}, 0)
	})
}

// LiveHolds lists the live holds whose owner starts with prefix, with
// their seats and expiry, oldest first: what a shutdown whose
// ReleasePrefix could not write leaves behind, to lapse by itself at
// ExpiresAt. No actor: for the process shutting down.
func (s *Store) LiveHolds(ctx context.Context, prefix string) ([]booking.Hold, error) {
	if prefix == "" {
		return nil, booking.Errorf(booking.EInvalid, "A list of holds needs an owner prefix.")
	}
	held, err := s.d.ReadHeldHolds(ctx, prefix)
	if err != nil {
		return nil, err
	}
	now := s.d.Now().UnixMilli()
	var out []booking.Hold
	for _, h := range held {
		if !HoldLive(h.Owner, h.Created, h.Expires, now) {
			continue
		}
		sh, err := s.prog.Show(ctx, h.ShowID)
		if err != nil {
			return nil, err
		}
		seats, err := s.seatsOf(ctx, sh.HallID, h.SeatIDs)
		if err != nil {
			return nil, err
		}
		out = append(out, booking.Hold{ID: h.ID, ShowID: h.ShowID, Owner: h.Owner, Seats: seats, ExpiresAt: time.UnixMilli(h.Expires), Status: booking.HoldHeld, Together: true})
	}
	return out, nil
}
