package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// The rest of booking.Sales: extending a hold, giving back a session's or
// a server's holds, and quoting.
var _ booking.Sales = (*Store)(nil)
var _ booking.Changes = (*Store)(nil)

// Extend moves owner's live hold's expiry to now+ttl, never past
// MaxHoldLifetime from its creation, by compare-and-set (holdMode).
func (s *Store) Extend(ctx context.Context, actor booking.Actor, holdID int64, owner string, ttl time.Duration) (*booking.Hold, error) {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return nil, err
	}
	ttl = ttlOrDefault(ttl)
	return inTx(s, ctx, "extend", s.holdMode(), func(t *tx) (*booking.Hold, error) {
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		var showID int64
		err := t.QueryRow(t.ctx, `SELECT show_id FROM holds WHERE id = $1 AND owner = $2`, holdID, owner).Scan(&showID)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, booking.Errorf(booking.ENotFound, "That hold is gone.")
		}
		if err != nil {
			return nil, err
		}
		var expires int64
		err = t.QueryRow(t.ctx, `UPDATE holds SET expires_at = least($1, created_at + $2)
			WHERE id = $3 AND owner = $4 AND status = 'held' AND `+liveHold("holds", "$5")+` AND expires_at < created_at + $2 RETURNING expires_at`,
			t.now.Add(ttl).UnixMilli(), holdLimitMS, holdID, owner, t.nowMS()).Scan(&expires)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, whyNotExtended(t, holdID)
		}
		if err != nil {
			return nil, err
		}
		hall, err := s.hallOfShow(t.ctx, showID)
		if err != nil {
			return nil, err
		}
		seats, err := s.heldSeats(t, hall, holdID)
		if err != nil {
			return nil, err
		}
		t.touch(showID)
		h := &booking.Hold{ID: holdID, ShowID: showID, Owner: owner, Seats: seats, ExpiresAt: time.UnixMilli(expires), Status: booking.HoldHeld, Together: true}
		return h, audit(t, actor, booking.AuditEntry{Action: booking.AuditExtend, ShowID: showID,
			Detail: fmt.Sprintf("hold %d until %s", holdID, h.ExpiresAt.In(t.now.Location()).Format("15:04:05"))}, 0)
	})
}

func whyNotExtended(t *tx, holdID int64) error {
	var status booking.HoldStatus
	var owner string
	var created, expires int64
	if err := t.QueryRow(t.ctx, `SELECT status, owner, created_at, expires_at FROM holds WHERE id = $1`, holdID).Scan(&status, &owner, &created, &expires); err != nil {
		return err
	}
	if status == booking.HoldHeld && store.HoldLive(owner, created, expires, t.nowMS()) && expires >= created+holdLimitMS {
		return booking.Errorf(booking.EInvalid, "This hold has reached its %d-minute limit: sell the seats or let them go.", int(booking.MaxHoldLifetime.Minutes()))
	}
	return booking.Errorf(booking.EExpired, "The hold ran out; hold the seats again.")
}

// ReleaseOwner releases every live hold of owner and says how many.
func (s *Store) ReleaseOwner(ctx context.Context, owner string) (int, error) {
	return s.giveBack(ctx, "release owner", `owner = $1`, owner)
}

// ReleasePrefix releases every live hold whose owner starts with prefix.
func (s *Store) ReleasePrefix(ctx context.Context, prefix string) (int, error) {
	if prefix == "" {
		return 0, booking.Errorf(booking.EInvalid, "Name the prefix of the holds to release.")
	}
	return s.giveBack(ctx, "release prefix", `starts_with(owner, $1)`, prefix)
}

// giveBack releases the live holds matching where ($1 its argument) and
// their claims, in one holdMode transaction: each hold moves held ->
// released by compare-and-set, so a checkout that confirmed it first
// keeps it.
func (s *Store) giveBack(ctx context.Context, what, where string, arg string) (int, error) {
	mode := s.holdMode()
	mode.release = true
	return inTx(s, ctx, what, mode, func(t *tx) (int, error) {
		rows, err := t.Query(t.ctx, `UPDATE holds SET status = 'released' WHERE status = 'held' AND `+where+` RETURNING id, show_id`, arg)
		if err != nil {
			return 0, err
		}
		var ids []int64
		for rows.Next() {
			var id, show int64
			if err := rows.Scan(&id, &show); err != nil {
				rows.Close()
				return 0, err
			}
			ids = append(ids, id)
			t.touch(show)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(ids) == 0 {
			return 0, err
		}
		if _, err := t.Exec(t.ctx, `UPDATE seat_claims SET status = 'released' WHERE hold_id = ANY($1) AND status = 'held'`, ids); err != nil {
			return 0, err
		}
		return len(ids), audit(t, booking.System, booking.AuditEntry{Action: booking.AuditRelease,
			Detail: fmt.Sprintf("%s: %d holds", what, len(ids))}, 0)
	})
}

// Quote prices seats of a show as a checkout would now.
func (s *Store) Quote(ctx context.Context, actor booking.Actor, req booking.QuoteRequest) (*booking.Quote, error) {
	if err := booking.Authorize(actor, booking.ActionSell); err != nil {
		return nil, err
	}
	if len(req.SeatIDs) == 0 || len(req.SeatIDs) > booking.MaxSeatsPerSale {
		return nil, booking.Errorf(booking.EInvalid, "A quote is for 1 to %d seats.", booking.MaxSeatsPerSale)
	}
	sh, err := s.showInfo(ctx, req.ShowID)
	if err != nil {
		return nil, err
	}
	if _, err := s.hall(ctx, sh.HallID); err != nil {
		return nil, err
	}
	seats := make([]booking.Seat, len(req.SeatIDs))
	for i, id := range req.SeatIDs {
		var ok bool
		if seats[i], ok = s.seatByID(sh.HallID, id); !ok {
			return nil, booking.Errorf(booking.EInvalid, "Seat %d is not in %s.", id, booking.CleanLine(sh.HallName, 60))
		}
	}
	// One REPEATABLE READ read-only transaction: the list and the prices
	// of one moment.
	var q *booking.Quote
	_, err = inTx(s, ctx, "quote", txMode{iso: pgx.RepeatableRead}, func(t *tx) (struct{}, error) {
		var list string
		if err := t.QueryRow(t.ctx, `SELECT price_list FROM shows WHERE id = $1`, req.ShowID).Scan(&list); err != nil {
			return struct{}{}, err
		}
		pt, err := priceTable(t)
		if err != nil {
			return struct{}{}, err
		}
		q, err = booking.QuoteSeats(pt, strings.ToLower(list), seats, req.Types)
		return struct{}{}, err
	})
	if err != nil {
		return nil, err
	}
	q.ShowID = req.ShowID
	return q, nil
}
