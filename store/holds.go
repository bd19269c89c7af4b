package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"boxoffice/booking"
)

// Holding seats: Hold, HoldBest, and the claims KioskHold and an exchange
// make the same way. A seat is won by the database's partial unique index
// of live claims, never by a check in Go: a claim the index (or a block of
// the seat) skips is a seat another has, or one a lapsed hold still
// claims, which is freed (ExpireStaleHolds) and claimed again.

// ttlOrDefault is the TTL a hold asks for, or the default, and never more
// than a hold may live.
func ttlOrDefault(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		return booking.DefaultHoldTTL
	}
	return min(ttl, booking.MaxHoldLifetime)
}

// errNoOwner refuses a hold nobody would own.
func errNoOwner() error { return booking.Errorf(booking.EInvalid, "A hold needs an owner.") }

// Hold holds the requested seats, all or nothing, or adds them to the
// owner's live hold req.AddTo. A new hold is made in one step (HoldNew)
// when the database agrees the show is on sale and every seat free;
// otherwise, and for AddTo, in a checked transaction that frees lapsed
// holds' seats and names the taken ones.
func (s *Store) Hold(ctx context.Context, actor booking.Actor, req booking.HoldRequest) (*booking.Hold, error) {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return nil, err
	}
	if req.Owner == "" {
		return nil, errNoOwner()
	}
	// The labels name seats of a layout that never changes: resolve them
	// before the transaction.
	hall, err := s.prog.HallOfShow(ctx, req.ShowID)
	if err != nil {
		return nil, beforeWrite(err)
	}
	if !booking.SiteServes(actor.Site, hall.Site) {
		return nil, booking.ErrOtherSite(req.ShowID)
	}
	seats, err := hall.ResolveSeats(req.Seats, req.SeatIDs)
	if err != nil {
		return nil, err
	}
	// In the hall's order, whatever order they were typed in: the
	// tickets, the receipt and the audit list them so.
	slices.SortFunc(seats, func(a, b booking.Seat) int { return cmp.Compare(a.ID, b.ID) })
	ttl := ttlOrDefault(req.TTL)
	// Seats picked by hand answer to the single-seat rule, which reads
	// the show first: they take the transaction below, at a clerk's
	// pace; the program's own picks take the one-statement way.
	if req.AddTo == 0 && !req.ByHand {
		h, missed, err := s.holdNew(ctx, actor, req, ttl, seats)
		if !missed {
			return h, err
		}
	}
	h, err := write(s, ctx, actor, Write{Op: "hold", Hold: true}, func(tx Tx) (*booking.Hold, error) {
		if err := salesOpen(tx, s.prog, req.ShowID); err != nil {
			return nil, err
		}
		singles, err := s.checkSingles(tx, hall, req, seats)
		if err != nil {
			return nil, err
		}
		h, err := s.holdSeats(tx, hall, req, ttl, seats)
		if err != nil {
			return nil, err
		}
		if len(singles) > 0 {
			if err := Audit(tx, actor, booking.SinglesAudit(req.ShowID, h.ID, seats, singles), 0); err != nil {
				return nil, err
			}
		}
		return h, s.afterClaims(tx, actor, h, booking.AuditHold)
	})
	if err != nil {
		return nil, s.suggest(ctx, err, hall, req.ShowID, len(seats))
	}
	h.Together = true
	s.sales.hold(h, "", false)
	return h, nil
}

// holdNew makes a new hold of seats in one step (HoldNew); missed when the
// database disagreed, with nothing written.
func (s *Store) holdNew(ctx context.Context, actor booking.Actor, req booking.HoldRequest, ttl time.Duration, seats []booking.Seat) (*booking.Hold, bool, error) {
	ids := seatIDs(seats)
	slices.Sort(ids)
	type made struct {
		hold *booking.Hold
		list string
	}
	m, missed, err := oneStep(s, ctx, Write{Op: "hold", Hold: true}, func(tx Tx) (made, bool, error) {
		expires := tx.Now().Add(ttl)
		tx.Touch(req.ShowID)
		h := &booking.Hold{ShowID: req.ShowID, Owner: req.Owner, Seats: seats, ExpiresAt: time.UnixMilli(expires.UnixMilli()), Status: booking.HoldHeld, Together: true}
		row := auditRow(tx.Now(), actor, booking.AuditEntry{Action: booking.AuditHold, ShowID: req.ShowID}, 0)
		id, list, ok, err := tx.HoldNew(NewHold{ShowID: req.ShowID, Owner: req.Owner, SeatIDs: ids, Labels: strings.Join(booking.Labels(seats), " "),
			Expires: expires, Actor: actorCheck(actor), Audit: row})
		h.ID = id
		return made{h, list}, ok, err
	})
	if missed || err != nil {
		return nil, missed, err
	}
	s.sales.hold(m.hold, m.list, true)
	return m.hold, false, nil
}

// afterClaims is the end of every write that made or grew hold h: the
// show's life read again (a cancel that committed while the claims
// waited for another's seat is seen) and the audit row.
func (s *Store) afterClaims(tx Tx, actor booking.Actor, h *booking.Hold, action booking.AuditAction) error {
	if err := salesOpen(tx, s.prog, h.ShowID); err != nil {
		return err
	}
	return Audit(tx, actor, booking.AuditEntry{Action: action, ShowID: h.ShowID, Detail: HoldDetail(h.ID, strings.Join(booking.Labels(h.Seats), " "))}, 0)
}

// HoldDetail is the audit row's detail of a write that made or grew hold
// id, of the seats labels (space separated). A driver writing HoldNew's
// row in its own statement says the same in its SQL.
func HoldDetail(id int64, labels string) string { return fmt.Sprintf("hold %d: %s", id, labels) }

// holdSeats claims seats for req inside tx, all or nothing: in a new hold
// lasting ttl, or in owner's live hold req.AddTo, renewed. A seat the
// database skips is freed when a lapsed hold has it, and claimed again;
// any still skipped is the clash.
func (s *Store) holdSeats(tx Tx, hall *booking.Hall, req booking.HoldRequest, ttl time.Duration, seats []booking.Seat) (*booking.Hold, error) {
	holdID, expires, err := openHold(tx, req.ShowID, req.Owner, ttl, req.AddTo)
	if err != nil {
		return nil, err
	}
	ids := seatIDs(seats)
	slices.Sort(ids)
	missing, err := tx.ClaimSeats(req.ShowID, holdID, ids)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		if _, err := tx.ExpireStaleHolds(req.ShowID); err != nil {
			return nil, err
		}
		if missing, err = tx.ClaimSeats(req.ShowID, holdID, missing); err != nil {
			return nil, err
		}
	}
	if len(missing) > 0 {
		if err := s.clash(tx, hall, req.ShowID, holdID, missing); err != nil {
			return nil, err
		}
	}
	return s.heldHold(tx, hall, req.ShowID, req.Owner, holdID, expires, req.AddTo != 0, seats)
}

// claimForSale claims seats of a show of hall for a new hold of owner's
// as a hold claims them, and confirms it at once, for a sale in the same
// transaction (an exchange's new seats), and returns its id.
func (s *Store) claimForSale(tx Tx, hall *booking.Hall, showID int64, owner string, seats []booking.Seat) (int64, error) {
	h, err := s.holdSeats(tx, hall, booking.HoldRequest{ShowID: showID, Owner: owner}, time.Minute, seats)
	if err != nil {
		return 0, err
	}
	if _, ok, err := tx.ConfirmHold(h.ID, owner); err != nil || !ok {
		return 0, errors.Join(err, fmt.Errorf("claim for sale: hold %d not confirmed", h.ID))
	}
	return h.ID, nil
}

// openHold makes a new hold lasting ttl, or renews owner's live hold
// addTo (never past its lifetime limit), and returns its id and expiry.
func openHold(tx Tx, showID int64, owner string, ttl time.Duration, addTo int64) (int64, time.Time, error) {
	expires := tx.Now().Add(ttl)
	if addTo == 0 {
		id, err := tx.InsertHold(showID, owner, expires)
		return id, expires, err
	}
	set, ok, err := tx.RenewHold(addTo, owner, showID, expires)
	if err == nil && !ok {
		err = booking.Errorf(booking.EExpired, "Your held seats were released; hold them again.")
	}
	return addTo, set, err
}

// heldHold is the hold holdID once its claims are made: seats, or with
// grown every seat it now holds, never more than a sale may take.
func (s *Store) heldHold(tx Tx, hall *booking.Hall, showID int64, owner string, holdID int64, expires time.Time, grown bool, seats []booking.Seat) (*booking.Hold, error) {
	held := seats
	if grown {
		var err error
		if held, err = s.heldSeats(tx, hall.ID, holdID); err != nil {
			return nil, err
		}
	}
	if len(held) > booking.MaxSeatsPerSale {
		return nil, booking.ErrTooManySeats()
	}
	tx.Touch(showID)
	return &booking.Hold{ID: holdID, ShowID: showID, Owner: owner, Seats: held, ExpiresAt: time.UnixMilli(expires.UnixMilli()), Status: booking.HoldHeld}, nil
}

// clash explains seats the database would not claim for hold holdID: the
// seats another hold or a sale has live, when any; else those kept out of
// sale, saying so (OutOfSale). Seats this hold has already (a hold grown
// by a seat it holds) are no clash: nil when they are all there is. The
// suggestions are left to suggest, after the write: reading the whole
// show here cost the single writer a fifth of its time whenever counters
// raced for seats.
func (s *Store) clash(tx Tx, hall *booking.Hall, showID, holdID int64, missing []int64) error {
	live, err := tx.LiveClaimsOf(showID, missing)
	if err != nil {
		return err
	}
	var taken, fresh []booking.Seat
	for _, id := range missing {
		seat, _ := s.prog.Seat(hall.ID, id)
		switch c, ok := live[id]; {
		case ok && c.HoldID == holdID:
		case ok:
			taken = append(taken, seat)
		default:
			fresh = append(fresh, seat)
		}
	}
	if len(taken) > 0 {
		return &booking.SeatsTakenError{Taken: taken}
	}
	if len(fresh) == 0 {
		return nil
	}
	out, err := s.outOfSale(tx, hall, showID)
	if err != nil {
		return err
	}
	var blocked []booking.Seat
	for _, seat := range fresh {
		if out[seat.ID] {
			blocked = append(blocked, seat)
		}
	}
	if len(blocked) > 0 {
		return &booking.SeatsTakenError{Taken: blocked, OutOfSale: true}
	}
	return &booking.SeatsTakenError{Taken: fresh}
}

// suggest gives a clash (a *booking.SeatsTakenError in err) its
// suggestions once the write that met it is over: the free blocks of the
// party's size nearest the first taken seat, as a read sees the show now
// (the seat map's copy, never a seat kept out of sale). A suggestion is
// advice a moment later is as good for; a read that fails leaves the
// clash without suggestions. Any other error is returned as it is.
func (s *Store) suggest(ctx context.Context, err error, hall *booking.Hall, showID int64, party int) error {
	var e *booking.SeatsTakenError
	if !errors.As(err, &e) || len(e.Taken) == 0 || e.Suggestions != nil {
		return err
	}
	sh, rerr := s.prog.Show(ctx, showID)
	if rerr != nil {
		return err
	}
	snap, rerr := s.d.ReadSeatMap(ctx, sh)
	if rerr != nil {
		return err
	}
	busy := liveSeats(snap.Claims, s.d.Now())
	out := OutOfSale(s.blocksInForce(hall, snap.Blocks))
	e.Suggestions = booking.NextTo(hall, takenSet(hall, busy, out), e.Taken[0], party, 3)
	return err
}

// outOfSale is the seats of a show of hall kept out of sale, as tx reads
// its blocks.
func (s *Store) outOfSale(tx Tx, hall *booking.Hall, showID int64) (map[int64]bool, error) {
	sh, err := s.prog.Show(tx.Context(), showID)
	if err != nil {
		return nil, err
	}
	rows, err := tx.ShowBlocks(sh)
	if err != nil {
		return nil, err
	}
	return OutOfSale(s.blocksInForce(hall, rows)), nil
}

// takenNow is what of a show cannot be offered, as tx sees it: the seats
// claimed live (sold, or held by a live hold) and the seats kept out of
// sale.
func (s *Store) takenNow(tx Tx, hall *booking.Hall, showID int64) (busy, out map[int64]bool, err error) {
	claims, err := tx.ShowClaims(showID)
	if err != nil {
		return nil, nil, err
	}
	out, err = s.outOfSale(tx, hall, showID)
	return liveSeats(claims, tx.Now()), out, err
}

// liveSeats is the seats of claims that are live at now: sold, or held
// by a live hold.
func liveSeats(claims []SeatClaim, now time.Time) map[int64]bool {
	ms := now.UnixMilli()
	busy := make(map[int64]bool, len(claims))
	for _, c := range claims {
		if c.live(ms) {
			busy[c.SeatID] = true
		}
	}
	return busy
}

// checkSingles is booking.CheckSingles on the seats of a hold picked by
// hand, as tx sees the show before the hold's claims: live claims (a
// lapsed hold is not one) and seats kept out of sale. A hold the program
// makes is not checked, and reads nothing.
func (s *Store) checkSingles(tx Tx, hall *booking.Hall, req booking.HoldRequest, seats []booking.Seat) ([]booking.Seat, error) {
	if !req.ByHand {
		return nil, nil
	}
	busy, out, err := s.takenNow(tx, hall, req.ShowID)
	if err != nil {
		return nil, err
	}
	return booking.CheckSingles(hall, takenSet(hall, busy, out), seats, req.AllowSingle)
}

// takenSet says which seats cannot be offered: a live claim (the asker's
// own holds included: they already have those), a seat blocked in the
// layout, or one kept out of sale for the show (out).
func takenSet(hall *booking.Hall, busy, out map[int64]bool) func(int64) bool {
	blocked := make(map[int64]bool)
	for _, seat := range hall.Seats {
		if seat.Blocked {
			blocked[seat.ID] = true
		}
	}
	return func(id int64) bool { return busy[id] || blocked[id] || out[id] }
}

// blocksInForce is the blocks rows read for a hall's show, by seat, the
// layout's blocked seats first (KeepBlock).
func (s *Store) blocksInForce(hall *booking.Hall, rows []BlockInForce) map[int64]booking.SeatBlock {
	out := map[int64]booking.SeatBlock{}
	for _, seat := range hall.Seats {
		if seat.Blocked {
			out[seat.ID] = booking.SeatBlock{Seat: seat, Kind: booking.BlockBlocked, HallWide: true, Reason: "blocked in the hall layout", By: LayoutBlocker, At: time.UnixMilli(0)}
		}
	}
	for _, r := range rows {
		if seat, ok := s.prog.Seat(hall.ID, r.SeatID); ok {
			KeepBlock(out, seat, r.Kind, r.Reason, r.By, r.At, r.HallWide)
		}
	}
	return out
}

// HoldBest holds the best available block of req.N seats (never one kept
// out of sale), or the best split when no block fits (Together false).
func (s *Store) HoldBest(ctx context.Context, actor booking.Actor, req booking.HoldBestRequest) (*booking.Hold, error) {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return nil, err
	}
	if req.Owner == "" {
		return nil, errNoOwner()
	}
	if req.N < 1 || req.N > booking.MaxSeatsPerSale {
		return nil, booking.Errorf(booking.EInvalid, "Ask for between 1 and %d seats.", booking.MaxSeatsPerSale)
	}
	if req.Wheelchair < 0 || req.Wheelchair > req.N {
		return nil, booking.Errorf(booking.EInvalid, "Wheelchair places must be between 0 and the party size.")
	}
	hall, err := s.prog.HallOfShow(ctx, req.ShowID)
	if err != nil {
		return nil, beforeWrite(err)
	}
	ttl := ttlOrDefault(req.TTL)
	h, err := write(s, ctx, actor, Write{Op: "hold best", Hold: true}, func(tx Tx) (*booking.Hold, error) {
		if err := salesOpen(tx, s.prog, req.ShowID); err != nil {
			return nil, err
		}
		if !booking.SiteServes(actor.Site, hall.Site) {
			return nil, booking.ErrOtherSite(req.ShowID)
		}
		h, err := s.holdBest(tx, hall, req, ttl)
		if err != nil {
			return nil, err
		}
		return h, s.afterClaims(tx, actor, h, booking.AuditHold)
	})
	if err != nil {
		return nil, s.suggest(ctx, err, hall, req.ShowID, req.N)
	}
	s.sales.hold(h, "", false)
	return h, nil
}

// bestTries bounds how often holdBest chooses again after another counter
// took a seat of the block it chose.
const bestTries = 5

// holdBest claims the best block of req.N free seats of a show of hall
// inside tx, after freeing lapsed holds' seats, with Together saying
// whether they sit together. A block another counter took since it was
// chosen is chosen again from a fresh read, a bounded number of times.
func (s *Store) holdBest(tx Tx, hall *booking.Hall, req booking.HoldBestRequest, ttl time.Duration) (*booking.Hold, error) {
	if _, err := tx.ExpireStaleHolds(req.ShowID); err != nil {
		return nil, err
	}
	var holdID int64
	var expires time.Time
	for try := 0; ; try++ {
		busy, out, err := s.takenNow(tx, hall, req.ShowID)
		if err != nil {
			return nil, err
		}
		taken := takenSet(hall, busy, out)
		blocks, together, ok := booking.BestAvailable(hall, taken, req.N, booking.BestOptions{Wheelchair: req.Wheelchair, Premium: req.Premium})
		if !ok {
			return nil, booking.NotEnoughFree(hall, taken, req)
		}
		seats := slices.Concat(blocks...)
		if holdID == 0 {
			if holdID, expires, err = openHold(tx, req.ShowID, req.Owner, ttl, req.AddTo); err != nil {
				return nil, err
			}
		}
		ids := seatIDs(seats)
		slices.Sort(ids)
		missing, err := tx.ClaimSeats(req.ShowID, holdID, ids)
		if err != nil {
			return nil, err
		}
		if len(missing) > 0 && try < bestTries {
			if err := tx.UnclaimSeats(holdID, ids); err != nil {
				return nil, err
			}
			continue
		}
		if len(missing) > 0 {
			if err := s.clash(tx, hall, req.ShowID, holdID, missing); err != nil {
				return nil, err
			}
		}
		h, err := s.heldHold(tx, hall, req.ShowID, req.Owner, holdID, expires, req.AddTo != 0, seats)
		if h != nil {
			h.Together = together
		}
		return h, err
	}
}
