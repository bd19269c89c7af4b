package pg

import (
	"context"
	"time"

	"boxoffice/booking"
	"boxoffice/internal/drain"
)

// shutdown is a store's half of a bounded stop (booking.Quiescer): the
// door every write but a shutdown's releases enters, and the signal that
// gives up on the writes still running.
type shutdown struct {
	writes drain.Drain
	// givenUp ends when GiveUpWaiting is called.
	givenUp context.Context
	giveUp  context.CancelFunc
}

func newShutdown() *shutdown {
	ctx, cancel := context.WithCancel(context.Background())
	return &shutdown{givenUp: ctx, giveUp: cancel}
}

var errShuttingDown = booking.Errorf(booking.EInternal, "The box office is shutting down.")

// enter admits one write of mode: any write until Quiesce, a release
// (ReleaseOwner, ReleasePrefix) always. The returned context ends when
// GiveUpWaiting is called, for every write but a release, so a write
// waiting on PostgreSQL's row locks or a slow server stops waiting; leave
// must be called once the write answered.
func (s *Store) enter(ctx context.Context, mode txMode) (context.Context, func(), error) {
	if mode.release {
		return ctx, func() {}, nil
	}
	if s.down.givenUp.Err() != nil || !s.down.writes.Enter() {
		return nil, nil, errShuttingDown
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.down.givenUp, cancel)
	return ctx, func() { stop(); cancel(); s.down.writes.Leave() }, nil
}

// Quiesce refuses every write asked for from now on, except the releases
// a shutdown needs, and returns once the writes under way answered or ctx
// ended. Reads go on.
func (s *Store) Quiesce(ctx context.Context) error {
	select {
	case <-s.down.writes.Shut():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// GiveUpWaiting ends every write still running, and refuses every one not
// yet begun, with "The box office is shutting down.", except ReleaseOwner
// and ReleasePrefix: for a shutdown whose Quiesce ran out of time. For good.
func (s *Store) GiveUpWaiting() {
	s.down.giveUp()
}

// LiveHolds lists the live holds whose owner starts with prefix, with their
// seats and expiry: what a shutdown could not release. EInvalid for an
// empty prefix.
func (s *Store) LiveHolds(ctx context.Context, prefix string) ([]booking.Hold, error) {
	if prefix == "" {
		return nil, booking.Errorf(booking.EInvalid, "LiveHolds needs an owner prefix.")
	}
	now := s.opts.Clock().UnixMilli()
	rows, err := s.pool.Query(ctx, `SELECT h.id, h.show_id, h.owner, h.expires_at, coalesce(array_agg(c.seat_id ORDER BY c.seat_id) FILTER (WHERE c.seat_id IS NOT NULL), '{}')
		FROM holds h LEFT JOIN seat_claims c ON c.hold_id = h.id AND c.status = 'held'
		WHERE h.status = 'held' AND h.expires_at > $1 AND starts_with(h.owner, $2)
		GROUP BY h.id ORDER BY h.id`, now, prefix)
	if err != nil {
		return nil, s.translate("live holds", err)
	}
	defer rows.Close()
	var out []booking.Hold
	for rows.Next() {
		var h booking.Hold
		var expires int64
		var seatIDs []int64
		if err := rows.Scan(&h.ID, &h.ShowID, &h.Owner, &expires, &seatIDs); err != nil {
			return nil, s.translate("live holds", err)
		}
		h.ExpiresAt, h.Status, h.Together = time.UnixMilli(expires), booking.HoldHeld, true
		hall, err := s.hallOfShow(ctx, h.ShowID)
		if err != nil {
			return nil, err
		}
		for _, id := range seatIDs {
			if seat, ok := s.seatByID(hall.ID, id); ok {
				h.Seats = append(h.Seats, seat)
			}
		}
		out = append(out, h)
	}
	return out, s.translate("live holds", rows.Err())
}
