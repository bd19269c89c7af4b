package db

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// claim is one live seat claim as a write transaction sees it.
type claim struct {
	status string // held or sold
	owner  string
	holdID int64
}

// liveHoldSQL is store.HoldLive in SQL for hold h (a table alias), the
// one place db writes the rule: expiry ahead of now, and made no later
// than now and the slack unless a reservation's. Both its parameters are
// now in unix ms. A hold that is not live is lapsed, whether or not
// swept; TestLiveHoldSQL_IsHoldLive holds it to store.HoldLive. It
// lapses, rather than having its expiry pulled back to now + TTL by a
// write, because then the stored row alone decides: every process on the
// file and every read agrees at once, with no sweeper or writer needing
// to pass first.
func liveHoldSQL(h string) string {
	return `(` + h + `.expires_at > ? AND (` + h + `.created_at <= ? + ` + strconv.Itoa(store.HoldSlackMS) +
		` OR ` + h + `.owner GLOB '` + store.ReservationOwnerPrefix + `*'))`
}

// Lapsed holds are looked for in two ways, each one probe of a partial
// index that holds only live holds: those whose expiry passed
// (holds_live_by_show) and those made later than the clock now says
// (qMadeAhead, through holds_made_ahead, which repeats its condition so
// SQLite may use it). Together they are the holds liveHoldSQL says are
// not live.
const (
	// qMadeAhead selects the live holds, reservations apart, made later
	// than now (its one parameter, unix ms) and the slack.
	qMadeAhead = `status = 'held' AND owner NOT GLOB 'reservation:*' AND created_at > ? + 2000`
	// qExpiredBy selects the live holds whose expiry is not after now.
	qExpiredBy = `status = 'held' AND expires_at <= ?`

	// qExpireStale and qExpireMadeAhead are expireStale's compare-and-sets,
	// spelled out whole so the status test reads each (a test holds them
	// to the two above). The subquery of the second, without show_id, can
	// only be the probe of holds_made_ahead; with it, SQLite would walk
	// the show's live holds.
	qExpireStale     = `UPDATE holds SET status = 'expired' WHERE show_id = ? AND status = 'held' AND expires_at <= ? RETURNING id`
	qExpireMadeAhead = `UPDATE holds SET status = 'expired' WHERE id IN (SELECT id FROM holds WHERE status = 'held' AND owner NOT GLOB 'reservation:*' AND created_at > ? + 2000)
		AND show_id = ? AND status = 'held' RETURNING id`
)

// expireStale expires the lapsed holds of one show and their claims, so a
// hold that ran out never blocks the transaction that wants its seats.
func expireStale(w *wtx, showID int64) (int, error) {
	ids, err := queryList[int64](w, qExpireStale, showID, w.nowMS())
	if err != nil {
		return 0, err
	}
	ahead, err := queryList[int64](w, qExpireMadeAhead, w.nowMS(), showID)
	if err != nil {
		return 0, err
	}
	ids = append(ids, ahead...)
	for _, id := range ids {
		if _, err := w.exec(`UPDATE seat_claims SET status = 'expired' WHERE hold_id = ? AND status = 'held'`, id); err != nil {
			return 0, err
		}
	}
	if err := store.LapseReservations(w, ids); err != nil {
		return 0, err
	}
	if len(ids) > 0 {
		w.touch(showID)
	}
	return len(ids), nil
}

// liveClaimsOf returns the live claims on the given seats of a show, in
// one query.
func liveClaimsOf(w *wtx, showID int64, seats []booking.Seat) (map[int64]claim, error) {
	args := make([]any, 0, len(seats)+1)
	args = append(args, showID)
	for _, seat := range seats {
		args = append(args, seat.ID)
	}
	rows, err := w.query(`SELECT c.seat_id, c.status, h.owner, c.hold_id FROM seat_claims c JOIN holds h ON h.id = c.hold_id
		WHERE c.show_id = ? AND c.status IN ('held', 'sold') AND c.seat_id IN (`+placeholders("?", len(seats))+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[int64]claim, len(seats))
	for rows.Next() {
		var seat int64
		var c claim
		if err := rows.Scan(&seat, &c.status, &c.owner, &c.holdID); err != nil {
			return nil, err
		}
		out[seat] = c
	}
	return out, rows.Err()
}

// liveSeatIDs lists every seat of a show with a live claim. It reads only
// the partial unique index, which covers exactly these rows.
func liveSeatIDs(w *wtx, showID int64) (map[int64]bool, error) {
	list, err := queryList[int64](w, `SELECT seat_id FROM seat_claims WHERE show_id = ? AND status IN ('held', 'sold')`, showID)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]bool, len(list))
	for _, id := range list {
		out[id] = true
	}
	return out, nil
}

// takenSet says which seats cannot be offered: any live claim (the
// asker's own holds included: they already have those), a seat blocked in
// the layout, or one kept out of sale for the show (out).
func takenSet(hall *booking.Hall, busy, out map[int64]bool) func(int64) bool {
	blocked := make(map[int64]bool)
	for _, s := range hall.Seats {
		if s.Blocked {
			blocked[s.ID] = true
		}
	}
	return func(id int64) bool { return busy[id] || blocked[id] || out[id] }
}

// ttlOrDefault is the TTL a hold asks for, or the default, and never more
// than a hold may live.
func ttlOrDefault(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		return booking.DefaultHoldTTL
	}
	return min(ttl, booking.MaxHoldLifetime)
}

// holdLimitMS is MaxHoldLifetime in milliseconds, as holds store time.
const holdLimitMS = int64(booking.MaxHoldLifetime / time.Millisecond)

// errHoldLimit says a hold already ends at MaxHoldLifetime.
func errHoldLimit() error {
	return booking.Errorf(booking.EInvalid, "This hold has reached its %d-minute limit: sell the seats or let them go.", int(booking.MaxHoldLifetime.Minutes()))
}

// Hold holds the requested seats, all or nothing. Whether the show's
// sales are open it decides in the transaction, on the transaction's
// clock.
func (s *Store) Hold(ctx context.Context, actor booking.Actor, req booking.HoldRequest) (*booking.Hold, error) {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return nil, err
	}
	if req.Owner == "" {
		return nil, booking.Errorf(booking.EInvalid, "A hold needs an owner.")
	}
	// The labels name seats of a layout that never changes: resolve
	// them first, off the writer.
	hall, err := s.hallOfShow(ctx, req.ShowID)
	if err != nil {
		return nil, err
	}
	if !booking.SiteServes(actor.Site, hall.Site) {
		return nil, booking.ErrOtherSite(req.ShowID)
	}
	seats, err := hall.ResolveSeats(req.Seats, req.SeatIDs)
	if err != nil {
		return nil, err
	}
	ttl := ttlOrDefault(req.TTL)
	hold, err := write(s, ctx, actor, "hold", func(w *wtx) (*booking.Hold, error) {
		if _, err := s.saleableHall(w, req.ShowID); err != nil {
			return nil, err
		}
		h, err := s.holdSeats(w, hall, req, ttl, seats)
		return h, auditHold(w, actor, booking.AuditHold, h, err)
	})
	if err != nil {
		return nil, err
	}
	hold.Together = true
	return hold, nil
}

// holdSeats claims seats for req. Fast path: insert the claims and let
// the partial unique index say whether any seat is live elsewhere. Only
// on a clash does the transaction look further: expire lapsed holds
// (which must never block) and try once more, then name the taken seats.
func (s *Store) holdSeats(w *wtx, hall *booking.Hall, req booking.HoldRequest, ttl time.Duration, seats []booking.Seat) (*booking.Hold, error) {
	hold, err := s.claimSeats(w, hall, req.ShowID, req.Owner, ttl, req.AddTo, seats)
	if err == nil || !isConstraint(err) {
		return hold, err
	}
	if err := w.rollbackJob(); err != nil {
		return nil, err
	}
	if n, err := expireStale(w, req.ShowID); err != nil {
		return nil, err
	} else if n > 0 {
		hold, err = s.claimSeats(w, hall, req.ShowID, req.Owner, ttl, req.AddTo, seats)
		if err == nil || !isConstraint(err) {
			return hold, err
		}
		if err := w.rollbackJob(); err != nil {
			return nil, err
		}
	}
	live, err := liveClaimsOf(w, req.ShowID, seats)
	if err != nil {
		return nil, err
	}
	var taken, fresh []booking.Seat
	for _, seat := range seats {
		c, ok := live[seat.ID]
		switch {
		case !ok:
			fresh = append(fresh, seat)
		case req.AddTo != 0 && c.holdID == req.AddTo && c.owner == req.Owner:
			// Already in this selection: holding it again is a no-op.
		default:
			taken = append(taken, seat)
		}
	}
	if len(taken) > 0 {
		return nil, s.clash(w, hall, req.ShowID, taken, len(seats), false)
	}
	// Nothing live in the way, yet the database refused: a seat is kept
	// out of sale (seat_claims_not_blocked). Only this slow path looks.
	sh, err := s.showInfo(w.ctx, req.ShowID)
	if err != nil {
		return nil, err
	}
	out, err := s.outOfSale(w, sh)
	if err != nil {
		return nil, err
	}
	for _, seat := range fresh {
		if out[seat.ID] {
			taken = append(taken, seat)
		}
	}
	if len(taken) > 0 {
		return nil, s.clash(w, hall, req.ShowID, taken, len(seats), true)
	}
	return s.claimSeats(w, hall, req.ShowID, req.Owner, ttl, req.AddTo, fresh)
}

// clash names the taken seats with the free blocks of the party's size
// nearest the first of them, as the transaction sees the show: never a
// seat kept out of sale. outOfSale says the taken seats are such seats.
func (s *Store) clash(w *wtx, hall *booking.Hall, showID int64, taken []booking.Seat, party int, outOfSale bool) error {
	busy, err := liveSeatIDs(w, showID)
	if err != nil {
		return err
	}
	sh, err := s.showInfo(w.ctx, showID)
	if err != nil {
		return err
	}
	out, err := s.outOfSale(w, sh)
	if err != nil {
		return err
	}
	return &booking.SeatsTakenError{
		Taken:       taken,
		Suggestions: booking.NextTo(hall, takenSet(hall, busy, out), taken[0], party, 3),
		OutOfSale:   outOfSale,
	}
}

// bestHold is what HoldBest's transaction returns: the hold, and whether
// its seats sit together.
type bestHold struct {
	hold     *booking.Hold
	together bool
}

// HoldBest holds the best available block of N seats.
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
	ttl := ttlOrDefault(req.TTL)
	best, err := write(s, ctx, actor, "hold best", func(w *wtx) (bestHold, error) {
		hall, err := s.saleableHall(w, req.ShowID)
		if err != nil {
			return bestHold{}, err
		}
		if !booking.SiteServes(actor.Site, hall.Site) {
			return bestHold{}, booking.ErrOtherSite(req.ShowID)
		}
		best, err := s.holdBestIn(w, hall, req, ttl)
		return best, auditHold(w, actor, booking.AuditHold, best.hold, err)
	})
	if err != nil {
		return nil, err
	}
	best.hold.Together = best.together
	return best.hold, nil
}

// holdBestIn claims the best available block of req.N in the hall of a
// show whose sales are open, inside the caller's transaction (HoldBest,
// KioskHold).
func (s *Store) holdBestIn(w *wtx, hall *booking.Hall, req booking.HoldBestRequest, ttl time.Duration) (bestHold, error) {
	if _, err := expireStale(w, req.ShowID); err != nil {
		return bestHold{}, err
	}
	busy, err := liveSeatIDs(w, req.ShowID)
	if err != nil {
		return bestHold{}, err
	}
	sh, err := s.showInfo(w.ctx, req.ShowID)
	if err != nil {
		return bestHold{}, err
	}
	out, err := s.outOfSale(w, sh)
	if err != nil {
		return bestHold{}, err
	}
	taken := takenSet(hall, busy, out)
	blocks, together, ok := booking.BestAvailable(hall, taken, req.N, booking.BestOptions{Wheelchair: req.Wheelchair, Premium: req.Premium})
	if !ok {
		return bestHold{}, booking.NotEnoughFree(hall, taken, req)
	}
	var seats []booking.Seat
	for _, b := range blocks {
		seats = append(seats, b...)
	}
	hold, err := s.claimSeats(w, hall, req.ShowID, req.Owner, ttl, req.AddTo, seats)
	return bestHold{hold, together}, err
}

// saleableHall returns the hall of a show whose sales are open at the
// transaction's time. The show and its hall never change once made, so
// they come from the store's cache (or the read pool, once).
func (s *Store) saleableHall(w *wtx, showID int64) (*booking.Hall, error) {
	sh, err := s.liveShow(w, showID)
	if err != nil {
		return nil, err
	}
	if err := booking.SalesOpen(sh, w.now); err != nil {
		return nil, err
	}
	return s.hall(w.ctx, sh.HallID)
}

// claimSeats inserts live claims for seats into a new hold, or into the
// live hold addTo of the same owner, and returns the whole hold. A caller
// that meets a constraint error undoes the partial inserts with
// w.rollbackJob().
func (s *Store) claimSeats(w *wtx, hall *booking.Hall, showID int64, owner string, ttl time.Duration, addTo int64, seats []booking.Seat) (*booking.Hold, error) {
	expires := w.now.Add(ttl).UnixMilli()
	holdID := addTo
	if addTo != 0 {
		// Growing a hold renews it, but never past its lifetime limit.
		err := w.queryRow(`UPDATE holds SET expires_at = min(?, created_at + ?) WHERE id = ? AND owner = ? AND show_id = ? AND status = 'held' AND `+liveHoldSQL("holds")+`
			RETURNING expires_at`, expires, holdLimitMS, addTo, owner, showID, w.nowMS(), w.nowMS()).Scan(&expires)
		if isNoRows(err) {
			return nil, booking.Errorf(booking.EExpired, "Your held seats were released; hold them again.")
		}
		if err != nil {
			return nil, err
		}
	} else {
		if err := w.queryRow(`INSERT INTO holds (show_id, owner, status, created_at, expires_at) VALUES (?, ?, 'held', ?, ?) RETURNING id`,
			showID, owner, w.nowMS(), expires).Scan(&holdID); err != nil {
			return nil, err
		}
	}
	if len(seats) > 0 {
		// One multi-row INSERT: one statement per hold, not per seat.
		args := make([]any, 0, 3*len(seats))
		for _, seat := range seats {
			args = append(args, showID, seat.ID, holdID)
		}
		if _, err := w.exec(`INSERT INTO seat_claims (show_id, seat_id, hold_id, status) VALUES `+placeholders("(?, ?, ?, 'held')", len(seats)), args...); err != nil {
			return nil, err
		}
	}
	held := seats
	if addTo != 0 {
		var err error
		if held, err = s.heldSeats(w, hall, holdID); err != nil {
			return nil, err
		}
	}
	if len(held) > booking.MaxSeatsPerSale {
		return nil, booking.ErrTooManySeats()
	}
	w.touch(showID)
	return &booking.Hold{ID: holdID, ShowID: showID, Owner: owner, Seats: held, ExpiresAt: time.UnixMilli(expires), Status: booking.HoldHeld}, nil
}

// heldSeats lists the seats a hold still holds, in hall order.
func (s *Store) heldSeats(w *wtx, hall *booking.Hall, holdID int64) ([]booking.Seat, error) {
	list, err := queryList[int64](w, `SELECT seat_id FROM seat_claims WHERE hold_id = ? AND status = 'held'`, holdID)
	if err != nil {
		return nil, err
	}
	out := make([]booking.Seat, 0, len(list))
	for _, id := range list {
		if seat, ok := s.seatByID(hall.ID, id); ok {
			out = append(out, seat)
		}
	}
	slices.SortFunc(out, func(a, b booking.Seat) int {
		if a.Row != b.Row {
			return a.Row - b.Row
		}
		return a.Col - b.Col
	})
	return out, nil
}

// placeholders repeats a VALUES tuple n times, comma separated. The
// statement text depends only on n, so each size is prepared once.
func placeholders(tuple string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tuple)
	}
	return b.String()
}
