package db

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"time"

	"boxoffice/booking"
)

// maxSeatsPerHold keeps one counter from sweeping up a whole hall.
const maxSeatsPerHold = 20

// claim is one live seat claim as a write transaction sees it.
type claim struct {
	status string // held or sold
	owner  string
	holdID int64
}

// expireStale expires the lapsed holds of one show and their claims, so a
// hold that ran out never blocks the transaction that wants its seats.
func expireStale(w *wtx, showID int64) (int, error) {
	ids, err := queryList[int64](w, `UPDATE holds SET status = 'expired' WHERE show_id = ? AND status = 'held' AND expires_at <= ? RETURNING id`, showID, w.nowMS())
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		if _, err := w.exec(`UPDATE seat_claims SET status = 'expired' WHERE hold_id = ? AND status = 'held'`, id); err != nil {
			return 0, err
		}
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
// asker's own holds included: they already have those) or a blocked seat.
func takenSet(hall *booking.Hall, busy map[int64]bool) func(int64) bool {
	blocked := make(map[int64]bool)
	for _, s := range hall.Seats {
		if s.Blocked {
			blocked[s.ID] = true
		}
	}
	return func(id int64) bool { return busy[id] || blocked[id] }
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

// Hold holds the requested seats, all or nothing.
func (s *Store) Hold(ctx context.Context, actor booking.Actor, req booking.HoldRequest) (*booking.Hold, error) {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return nil, err
	}
	if req.Owner == "" {
		return nil, booking.Errorf(booking.EInvalid, "A hold needs an owner.")
	}
	hall, err := s.saleableHall(ctx, req.ShowID)
	if err != nil {
		return nil, err
	}
	seats, err := resolveSeats(hall, req.Seats, req.SeatIDs)
	if err != nil {
		return nil, err
	}
	ttl := ttlOrDefault(req.TTL)
	var hold *booking.Hold
	err = s.doAs(ctx, actor, "hold", func(w *wtx) error {
		// Fast path: insert the claims and let the partial unique index
		// say whether any seat is live elsewhere. Only on a clash does the
		// transaction look further: expire lapsed holds (which must never
		// block) and try once more, then name the taken seats.
		hold, err = s.claimSeats(w, hall, req.ShowID, req.Owner, ttl, req.AddTo, seats)
		if err == nil || !isConstraint(err) {
			return err
		}
		if err := w.rollbackJob(); err != nil {
			return err
		}
		if n, err := expireStale(w, req.ShowID); err != nil {
			return err
		} else if n > 0 {
			hold, err = s.claimSeats(w, hall, req.ShowID, req.Owner, ttl, req.AddTo, seats)
			if err == nil || !isConstraint(err) {
				return err
			}
			if err := w.rollbackJob(); err != nil {
				return err
			}
		}
		live, err := liveClaimsOf(w, req.ShowID, seats)
		if err != nil {
			return err
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
		if len(taken) == 0 {
			hold, err = s.claimSeats(w, hall, req.ShowID, req.Owner, ttl, req.AddTo, fresh)
			return err
		}
		busy, err := liveSeatIDs(w, req.ShowID)
		if err != nil {
			return err
		}
		return &booking.SeatsTakenError{
			Taken:       taken,
			Suggestions: booking.NextTo(hall, takenSet(hall, busy), taken[0], len(seats), 3),
		}
	})
	if err != nil {
		return nil, err
	}
	hold.Together = true
	return hold, nil
}

// HoldBest holds the best available block of N seats.
func (s *Store) HoldBest(ctx context.Context, actor booking.Actor, req booking.HoldBestRequest) (*booking.Hold, error) {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return nil, err
	}
	if req.Owner == "" {
		return nil, booking.Errorf(booking.EInvalid, "A hold needs an owner.")
	}
	if req.N < 1 || req.N > maxSeatsPerHold {
		return nil, booking.Errorf(booking.EInvalid, "Ask for between 1 and %d seats.", maxSeatsPerHold)
	}
	if req.Wheelchair < 0 || req.Wheelchair > req.N {
		return nil, booking.Errorf(booking.EInvalid, "Wheelchair places must be between 0 and the party size.")
	}
	hall, err := s.saleableHall(ctx, req.ShowID)
	if err != nil {
		return nil, err
	}
	ttl := ttlOrDefault(req.TTL)
	var hold *booking.Hold
	var together bool
	err = s.doAs(ctx, actor, "hold best", func(w *wtx) error {
		if _, err := expireStale(w, req.ShowID); err != nil {
			return err
		}
		busy, err := liveSeatIDs(w, req.ShowID)
		if err != nil {
			return err
		}
		taken := takenSet(hall, busy)
		blocks, tog, ok := booking.BestAvailable(hall, taken, req.N, booking.BestOptions{Wheelchair: req.Wheelchair})
		if !ok {
			return notEnoughFree(hall, taken, req)
		}
		var seats []booking.Seat
		for _, b := range blocks {
			seats = append(seats, b...)
		}
		together = tog
		hold, err = s.claimSeats(w, hall, req.ShowID, req.Owner, ttl, req.AddTo, seats)
		return err
	})
	if err != nil {
		return nil, err
	}
	hold.Together = together
	return hold, nil
}

// notEnoughFree explains why no best block of req.N was found, in words a
// clerk can act on: sold out, only accessible places left, or how many
// seats are free.
func notEnoughFree(hall *booking.Hall, taken func(int64) bool, req booking.HoldBestRequest) error {
	var free, accessible int
	for _, seat := range hall.Seats {
		if taken(seat.ID) {
			continue
		}
		free++
		if seat.Kind.Accessible() {
			accessible++
		}
	}
	standard := free - accessible
	switch {
	case free == 0:
		return booking.Errorf(booking.EConflict, "This show is sold out.")
	case req.Wheelchair > 0:
		return booking.Errorf(booking.EConflict, "No %s with %s free for this show.", seatsWord(req.N), plural(req.Wheelchair, "wheelchair place", "wheelchair places"))
	case standard == 0:
		return booking.Errorf(booking.EConflict, "Only wheelchair and companion places are free (%d); hold one by hand for a customer who needs it.", accessible)
	case accessible > 0:
		return booking.Errorf(booking.EConflict, "Only %s free for this show, not %d (and %d wheelchair or companion places).", plural(standard, "seat is", "seats are"), req.N, accessible)
	}
	return booking.Errorf(booking.EConflict, "Only %s free for this show, not %d.", plural(standard, "seat is", "seats are"), req.N)
}

func seatsWord(n int) string { return plural(n, "seat", "seats") }

// plural writes "1 seat" or "3 seats".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// SalesClose is how long after a show starts its seats can still be sold:
// latecomers buy through the trailers.
const SalesClose = 30 * time.Minute

// saleableHall returns the hall of a show that is still on sale.
func (s *Store) saleableHall(ctx context.Context, showID int64) (*booking.Hall, error) {
	sh, err := s.showInfo(ctx, showID)
	if err != nil {
		return nil, err
	}
	if s.opts.Clock().After(sh.Starts.Add(SalesClose)) {
		return nil, booking.Errorf(booking.EInvalid, "Sales for the %s show closed %d minutes after it started.", sh.Starts.Format("Mon 15:04"), int(SalesClose.Minutes()))
	}
	return s.hall(ctx, sh.HallID)
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
		err := w.queryRow(`UPDATE holds SET expires_at = min(?, created_at + ?) WHERE id = ? AND owner = ? AND show_id = ? AND status = 'held' AND expires_at > ?
			RETURNING expires_at`, expires, holdLimitMS, addTo, owner, showID, w.nowMS()).Scan(&expires)
		if err == sql.ErrNoRows {
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
	if len(held) > maxSeatsPerHold {
		return nil, booking.Errorf(booking.EInvalid, "One sale can hold at most %d seats.", maxSeatsPerHold)
	}
	w.touch(showID)
	return &booking.Hold{ID: holdID, ShowID: showID, Owner: owner, Seats: held, ExpiresAt: time.UnixMilli(expires), Status: "held"}, nil
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

// resolveSeats turns labels or ids into the hall's seats, refusing unknown,
// blocked and repeated seats.
func resolveSeats(hall *booking.Hall, labels []string, ids []int64) ([]booking.Seat, error) {
	var seats []booking.Seat
	seen := map[int64]bool{}
	add := func(seat booking.Seat) error {
		if seat.Blocked {
			return booking.Errorf(booking.EInvalid, "%s is blocked and cannot be sold.", seat.Label)
		}
		if !seen[seat.ID] {
			seen[seat.ID] = true
			seats = append(seats, seat)
		}
		return nil
	}
	if len(ids) > 0 {
		byID := make(map[int64]booking.Seat, len(hall.Seats))
		for _, seat := range hall.Seats {
			byID[seat.ID] = seat
		}
		for _, id := range ids {
			seat, ok := byID[id]
			if !ok {
				return nil, booking.Errorf(booking.EInvalid, "No such seat in %s.", hall.Name)
			}
			if err := add(seat); err != nil {
				return nil, err
			}
		}
	} else {
		for _, l := range labels {
			seat, ok := hall.SeatByLabel(strings.TrimSpace(l))
			if !ok {
				return nil, booking.Errorf(booking.EInvalid, "There is no seat %s in %s.", booking.CleanLine(l, 8), hall.Name)
			}
			if err := add(seat); err != nil {
				return nil, err
			}
		}
	}
	if len(seats) == 0 {
		return nil, booking.Errorf(booking.EInvalid, "Choose at least one seat.")
	}
	if len(seats) > maxSeatsPerHold {
		return nil, booking.Errorf(booking.EInvalid, "One sale can hold at most %d seats.", maxSeatsPerHold)
	}
	return seats, nil
}

// Release lets go of some seats of a hold, or all of it.
func (s *Store) Release(ctx context.Context, actor booking.Actor, holdID int64, owner string, seats ...string) error {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return err
	}
	var showID int64
	if err := s.readRow(ctx, `SELECT show_id FROM holds WHERE id = ? AND owner = ?`, holdID, owner).Scan(&showID); err != nil {
		if err == sql.ErrNoRows {
			return booking.Errorf(booking.ENotFound, "That hold is gone.")
		}
		return s.translate("release", err)
	}
	hall, err := s.hallOfShow(ctx, showID)
	if err != nil {
		return err
	}
	var ids []int64
	if len(seats) > 0 {
		resolved, err := resolveSeats(hall, seats, nil)
		if err != nil {
			return err
		}
		for _, seat := range resolved {
			ids = append(ids, seat.ID)
		}
	}
	return s.doAs(ctx, actor, "release", func(w *wtx) error {
		return releaseHold(w, holdID, showID, ids)
	})
}

func releaseHold(w *wtx, holdID, showID int64, seatIDs []int64) error {
	if len(seatIDs) > 0 {
		for _, id := range seatIDs {
			if _, err := w.exec(`UPDATE seat_claims SET status = 'released' WHERE hold_id = ? AND seat_id = ? AND status = 'held'`, holdID, id); err != nil {
				return err
			}
		}
		var left int
		if err := w.queryRow(`SELECT count(*) FROM seat_claims WHERE hold_id = ? AND status = 'held'`, holdID).Scan(&left); err != nil {
			return err
		}
		if left > 0 {
			w.touch(showID)
			return nil
		}
	}
	if _, err := w.exec(`UPDATE seat_claims SET status = 'released' WHERE hold_id = ? AND status = 'held'`, holdID); err != nil {
		return err
	}
	if _, err := w.exec(`UPDATE holds SET status = 'released' WHERE id = ? AND status = 'held'`, holdID); err != nil {
		return err
	}
	w.touch(showID)
	return nil
}

// Extend moves a live hold's expiry to now+ttl, capped at MaxHoldLifetime
// after the hold was made: a hold already at its cap is refused, one near
// it is extended to the cap and no further.
func (s *Store) Extend(ctx context.Context, actor booking.Actor, holdID int64, owner string, ttl time.Duration) (*booking.Hold, error) {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return nil, err
	}
	var showID int64
	if err := s.readRow(ctx, `SELECT show_id FROM holds WHERE id = ? AND owner = ?`, holdID, owner).Scan(&showID); err != nil {
		if err == sql.ErrNoRows {
			return nil, booking.Errorf(booking.ENotFound, "That hold is gone.")
		}
		return nil, s.translate("extend", err)
	}
	hall, err := s.hallOfShow(ctx, showID)
	if err != nil {
		return nil, err
	}
	ttl = ttlOrDefault(ttl)
	var hold *booking.Hold
	err = s.doAs(ctx, actor, "extend", func(w *wtx) error {
		var expires int64
		err := w.queryRow(`UPDATE holds SET expires_at = min(?, created_at + ?)
			WHERE id = ? AND owner = ? AND status = 'held' AND expires_at > ? AND expires_at < created_at + ? RETURNING expires_at`,
			w.now.Add(ttl).UnixMilli(), holdLimitMS, holdID, owner, w.nowMS(), holdLimitMS).Scan(&expires)
		if err == sql.ErrNoRows {
			return whyNotExtended(w, holdID)
		}
		if err != nil {
			return err
		}
		seats, err := s.heldSeats(w, hall, holdID)
		if err != nil {
			return err
		}
		hold = &booking.Hold{ID: holdID, ShowID: showID, Owner: owner, Seats: seats, ExpiresAt: time.UnixMilli(expires), Status: "held", Together: true}
		w.touch(showID)
		return nil
	})
	return hold, err
}

// whyNotExtended tells a hold at its lifetime limit from one that lapsed.
func whyNotExtended(w *wtx, holdID int64) error {
	var status string
	var created, expires int64
	if err := w.queryRow(`SELECT status, created_at, expires_at FROM holds WHERE id = ?`, holdID).Scan(&status, &created, &expires); err != nil {
		return notFoundAs(err, "That hold is gone.")
	}
	if status == "held" && expires > w.nowMS() && expires >= created+holdLimitMS {
		return errHoldLimit()
	}
	return booking.Errorf(booking.EExpired, "The hold ran out; hold the seats again.")
}

// ReleaseOwner releases every live hold of owner: a session that ends
// gives its seats back.
func (s *Store) ReleaseOwner(ctx context.Context, owner string) (int, error) {
	var n int
	err := s.do(ctx, "release owner", func(w *wtx) error {
		rows, err := w.query(`SELECT id, show_id FROM holds WHERE owner = ? AND status = 'held'`, owner)
		if err != nil {
			return err
		}
		type h struct{ id, show int64 }
		var holds []h
		for rows.Next() {
			var x h
			if err := rows.Scan(&x.id, &x.show); err != nil {
				rows.Close()
				return err
			}
			holds = append(holds, x)
		}
		rows.Close()
		n = 0
		for _, x := range holds {
			if err := releaseHold(w, x.id, x.show, nil); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// ReleasePrefix releases every live hold whose owner starts with prefix:
// a server shutting down gives back its own sessions' seats and leaves
// another process's alone.
func (s *Store) ReleasePrefix(ctx context.Context, prefix string) (int, error) {
	if prefix == "" {
		return 0, booking.Errorf(booking.EInvalid, "A release needs an owner prefix.")
	}
	var n int
	err := s.do(ctx, "release prefix", func(w *wtx) error {
		shows, err := queryList[int64](w, `SELECT DISTINCT show_id FROM holds WHERE status = 'held' AND substr(owner, 1, ?) = ?`, len(prefix), prefix)
		if err != nil {
			return err
		}
		if _, err := w.exec(`UPDATE seat_claims SET status = 'released' WHERE status = 'held' AND hold_id IN
			(SELECT id FROM holds WHERE status = 'held' AND substr(owner, 1, ?) = ?)`, len(prefix), prefix); err != nil {
			return err
		}
		res, err := w.exec(`UPDATE holds SET status = 'released' WHERE status = 'held' AND substr(owner, 1, ?) = ?`, len(prefix), prefix)
		if err != nil {
			return err
		}
		k, _ := res.RowsAffected()
		n = int(k)
		for _, id := range shows {
			w.touch(id)
		}
		return nil
	})
	return n, err
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
