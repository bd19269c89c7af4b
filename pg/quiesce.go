package pg

import (
	"context"

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
