package pg

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// HoldBest holds the best available block of N seats. The choice is made
// from the show's claims as one statement reads them; if a seat of the
// chosen block is won by another counter before this transaction claims
// it, the claims are undone and the choice is made again from a fresh
// read (READ COMMITTED gives each statement the newest commits), a
// bounded number of times.
func (s *Store) HoldBest(ctx context.Context, actor booking.Actor, req booking.HoldBestRequest) (*booking.Hold, error) {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return nil, err
	}
	if req.Owner == "" {
		return nil, booking.Errorf(booking.EInvalid, "A hold needs an owner.")
	}
	if req.N < 1 || req.N > booking.MaxSeatsPerSale {
		return nil, booking.Errorf(booking.EInvalid, "Ask for between 1 and %d seats.", booking.MaxSeatsPerSale)
	}
	if req.Wheelchair < 0 || req.Wheelchair > req.N {
		return nil, booking.Errorf(booking.EInvalid, "Wheelchair places must be between 0 and the party size.")
	}
	hall, err := s.hallOfShow(ctx, req.ShowID)
	if err != nil {
		return nil, err
	}
	if err := s.siteServes(ctx, actor, req.ShowID); err != nil {
		return nil, err
	}
	ttl := ttlOrDefault(req.TTL)
	return inTx(s, ctx, "hold best", s.holdMode(), func(t *tx) (*booking.Hold, error) {
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		if _, err := expireStale(t, req.ShowID); err != nil {
			return nil, err
		}
		h, err := s.holdBestIn(t, hall, req, ttl)
		if err != nil {
			return nil, err
		}
		if err := s.salesOpen(t, req.ShowID); err != nil {
			return nil, err
		}
		return h, auditHold(t, actor, h)
	})
}

// holdBestIn holds the best block of req.N seats in t (never a seat kept
// out of sale), with Together saying whether they sit together: a block
// another counter took since it was chosen is chosen again, from a
// savepoint, up to five times.
func (s *Store) holdBestIn(t *tx, hall *booking.Hall, req booking.HoldBestRequest, ttl time.Duration) (*booking.Hold, error) {
	for try := 0; ; try++ {
		if _, err := t.Exec(t.ctx, `SAVEPOINT best`); err != nil {
			return nil, err
		}
		busy, err := busySeats(t, req.ShowID, 0, nil)
		if err != nil {
			return nil, err
		}
		out, err := s.outOfSale(t, req.ShowID)
		if err != nil {
			return nil, err
		}
		taken := takenOrOut(busy, out)
		blocks, together, ok := booking.BestAvailable(hall, taken, req.N, booking.BestOptions{Wheelchair: req.Wheelchair, Premium: req.Premium})
		if !ok {
			return nil, booking.NotEnoughFree(hall, taken, req)
		}
		var seats []booking.Seat
		for _, b := range blocks {
			seats = append(seats, b...)
		}
		h, err := s.holdSeats(t, hall, booking.HoldRequest{ShowID: req.ShowID, Owner: req.Owner, AddTo: req.AddTo}, ttl, seats)
		if _, clash := err.(*booking.SeatsTakenError); clash && try < 5 {
			if _, err := t.Exec(t.ctx, `ROLLBACK TO SAVEPOINT best`); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		h.Together = together
		return h, nil
	}
}

// Release lets go of some seats of owner's hold, or all of it, in one
// READ COMMITTED transaction of compare-and-set moves (held -> released).
func (s *Store) Release(ctx context.Context, actor booking.Actor, holdID int64, owner string, seats ...string) error {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return err
	}
	_, err := inTx(s, ctx, "release", s.holdMode(), func(t *tx) (struct{}, error) {
		if err := checkActor(t, actor); err != nil {
			return struct{}{}, err
		}
		var showID int64
		// The hold's row first, locked, as every other write that moves a
		// hold and its claims takes them (checkout, expiry, give-back):
		// one order, so a release and a checkout of one hold queue
		// instead of deadlocking.
		err := t.QueryRow(t.ctx, `SELECT show_id FROM holds WHERE id = $1 AND owner = $2 FOR NO KEY UPDATE`, holdID, owner).Scan(&showID)
		if err == pgx.ErrNoRows {
			return struct{}{}, booking.Errorf(booking.ENotFound, "That hold is gone.")
		}
		if err != nil {
			return struct{}{}, err
		}
		var ids []int64
		if len(seats) > 0 {
			hall, err := s.hallOfShow(t.ctx, showID)
			if err != nil {
				return struct{}{}, err
			}
			resolved, err := hall.ResolveSeats(seats, nil)
			if err != nil {
				return struct{}{}, err
			}
			for _, seat := range resolved {
				ids = append(ids, seat.ID)
			}
		}
		n, err := releaseHold(t, holdID, showID, ids)
		if err != nil || n == 0 {
			return struct{}{}, err
		}
		return struct{}{}, audit(t, actor, booking.AuditEntry{Action: booking.AuditRelease, ShowID: showID, Detail: fmt.Sprintf("hold %d: %d seats", holdID, n)}, 0)
	})
	return err
}

// releaseHold releases the given seats of a hold (all when none), and the
// hold itself once no seat is left, and says how many claims it moved.
func releaseHold(t *tx, holdID, showID int64, seatIDs []int64) (int64, error) {
	var moved int64
	if len(seatIDs) > 0 {
		tag, err := t.Exec(t.ctx, `UPDATE seat_claims SET status = 'released' WHERE hold_id = $1 AND seat_id = ANY($2) AND status = 'held'`, holdID, seatIDs)
		if err != nil {
			return 0, err
		}
		moved = tag.RowsAffected()
		var left int
		if err := t.QueryRow(t.ctx, `SELECT count(*) FROM seat_claims WHERE hold_id = $1 AND status = 'held'`, holdID).Scan(&left); err != nil {
			return 0, err
		}
		if left > 0 {
			t.touch(showID)
			return moved, nil
		}
	}
	tag, err := t.Exec(t.ctx, `UPDATE seat_claims SET status = 'released' WHERE hold_id = $1 AND status = 'held'`, holdID)
	if err != nil {
		return 0, err
	}
	moved += tag.RowsAffected()
	tag, err = t.Exec(t.ctx, `UPDATE holds SET status = 'released' WHERE id = $1 AND status = 'held'`, holdID)
	if err != nil {
		return 0, err
	}
	if moved+tag.RowsAffected() > 0 {
		t.touch(showID)
	}
	return moved + tag.RowsAffected(), nil
}
