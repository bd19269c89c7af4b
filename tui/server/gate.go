package server

import (
	"context"
	"sync"
	"time"

	"boxoffice/booking"
	"boxoffice/tui"
)

// errRestarting is what a counter reads when it calls the store after
// shutdown began.
var errRestarting = booking.Errorf(booking.EInternal, "The server is restarting; reconnect in a moment.")

// gate lets store calls in until it is closed, and then waits for the ones
// under way. Shutdown closes it before it releases this server's holds, so
// no hold is made behind the release and no sale is cut off half way.
type gate struct {
	mu       sync.RWMutex
	closed   bool
	inflight sync.WaitGroup
}

// enter reports whether a call may start; leave must follow a true.
func (g *gate) enter() bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return false
	}
	g.inflight.Add(1)
	return true
}

func (g *gate) leave() { g.inflight.Done() }

// close refuses new calls and waits for those under way, or for ctx.
func (g *gate) close(ctx context.Context) error {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	done := make(chan struct{})
	go func() {
		g.inflight.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// gatedStore is the Backend every counter session gets: the server's store
// behind the gate. Shutdown waits for the calls that got in; new ones are
// refused with errRestarting.
type gatedStore struct {
	Store
	g *gate
}

var _ tui.Backend = (*gatedStore)(nil)

// through runs one store call if the gate lets it in, and lets Shutdown
// wait for it.
func through[T any](g *gate, call func() (T, error)) (T, error) {
	if !g.enter() {
		var zero T
		return zero, errRestarting
	}
	defer g.leave()
	return call()
}

func (s *gatedStore) Shows(ctx context.Context, actor booking.Actor, day time.Time) ([]booking.Show, error) {
	return through(s.g, func() ([]booking.Show, error) {
		return s.Store.Shows(ctx, actor, day)
	})
}

func (s *gatedStore) SeatMap(ctx context.Context, actor booking.Actor, showID int64, owner string) (*booking.SeatMap, error) {
	return through(s.g, func() (*booking.SeatMap, error) {
		return s.Store.SeatMap(ctx, actor, showID, owner)
	})
}

func (s *gatedStore) TicketTypes(ctx context.Context) ([]booking.TicketType, error) {
	return through(s.g, func() ([]booking.TicketType, error) {
		return s.Store.TicketTypes(ctx)
	})
}

func (s *gatedStore) Hold(ctx context.Context, actor booking.Actor, req booking.HoldRequest) (*booking.Hold, error) {
	return through(s.g, func() (*booking.Hold, error) {
		return s.Store.Hold(ctx, actor, req)
	})
}

func (s *gatedStore) HoldBest(ctx context.Context, actor booking.Actor, req booking.HoldBestRequest) (*booking.Hold, error) {
	return through(s.g, func() (*booking.Hold, error) {
		return s.Store.HoldBest(ctx, actor, req)
	})
}

func (s *gatedStore) Release(ctx context.Context, actor booking.Actor, holdID int64, owner string, seats ...string) error {
	_, err := through(s.g, func() (struct{}, error) { return struct{}{}, s.Store.Release(ctx, actor, holdID, owner, seats...) })
	return err
}

func (s *gatedStore) Extend(ctx context.Context, actor booking.Actor, holdID int64, owner string, ttl time.Duration) (*booking.Hold, error) {
	return through(s.g, func() (*booking.Hold, error) {
		return s.Store.Extend(ctx, actor, holdID, owner, ttl)
	})
}

func (s *gatedStore) ReleaseOwner(ctx context.Context, owner string) (int, error) {
	return through(s.g, func() (int, error) {
		return s.Store.ReleaseOwner(ctx, owner)
	})
}

// moneyTimeout bounds a sale or a refund that runs on after its session
// ended.
const moneyTimeout = 15 * time.Second

// Checkout runs to its end even when the session's context ends meanwhile:
// money was taken at the counter, so a sale the clerk confirmed is not
// abandoned because the connection dropped; the idempotency key makes a
// retry land on it.
func (s *gatedStore) Checkout(ctx context.Context, actor booking.Actor, req booking.CheckoutRequest) (*booking.Booking, error) {
	return through(s.g, func() (*booking.Booking, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), moneyTimeout)
		defer cancel()
		return s.Store.Checkout(ctx, actor, req)
	})
}

// Cancel, like Checkout, runs to its end once confirmed.
func (s *gatedStore) Cancel(ctx context.Context, actor booking.Actor, req booking.CancelRequest) (*booking.Booking, error) {
	return through(s.g, func() (*booking.Booking, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), moneyTimeout)
		defer cancel()
		return s.Store.Cancel(ctx, actor, req)
	})
}

func (s *gatedStore) Booking(ctx context.Context, actor booking.Actor, number string) (*booking.Booking, error) {
	return through(s.g, func() (*booking.Booking, error) {
		return s.Store.Booking(ctx, actor, number)
	})
}

func (s *gatedStore) FindBookings(ctx context.Context, actor booking.Actor, q booking.BookingQuery) ([]booking.Booking, error) {
	return through(s.g, func() ([]booking.Booking, error) {
		return s.Store.FindBookings(ctx, actor, q)
	})
}

func (s *gatedStore) SignIn(ctx context.Context, name, pin string) (*booking.Staff, error) {
	return through(s.g, func() (*booking.Staff, error) {
		return s.Store.SignIn(ctx, name, pin)
	})
}

func (s *gatedStore) Admit(ctx context.Context, actor booking.Actor, code string) (*booking.Admission, error) {
	return through(s.g, func() (*booking.Admission, error) {
		return s.Store.Admit(ctx, actor, code)
	})
}

func (s *gatedStore) AddWaitlist(ctx context.Context, actor booking.Actor, showID int64, name, phone string, seats int) (*booking.WaitlistEntry, error) {
	return through(s.g, func() (*booking.WaitlistEntry, error) {
		return s.Store.AddWaitlist(ctx, actor, showID, name, phone, seats)
	})
}

func (s *gatedStore) WaitlistCalls(ctx context.Context, actor booking.Actor) ([]booking.WaitlistEntry, error) {
	return through(s.g, func() ([]booking.WaitlistEntry, error) {
		return s.Store.WaitlistCalls(ctx, actor)
	})
}

func (s *gatedStore) MarkCalled(ctx context.Context, actor booking.Actor, entryID int64) error {
	_, err := through(s.g, func() (struct{}, error) { return struct{}{}, s.Store.MarkCalled(ctx, actor, entryID) })
	return err
}

func (s *gatedStore) BookingByKey(ctx context.Context, actor booking.Actor, key string) (*booking.Booking, error) {
	return through(s.g, func() (*booking.Booking, error) {
		return s.Store.BookingByKey(ctx, actor, key)
	})
}

// sessionStore is one session's Backend: the gated store, counting the
// session's sales and refunds under way. Those run on after the session
// ends (see gatedStore.Checkout), so a reconnect waits for them to settle
// before it looks up what its checkout's key made.
type sessionStore struct {
	*gatedStore
	// money is read-locked by every sale and refund; settled takes the
	// write lock to learn when those under way are done.
	money sync.RWMutex
}

var _ tui.Backend = (*sessionStore)(nil)

func (s *sessionStore) Checkout(ctx context.Context, actor booking.Actor, req booking.CheckoutRequest) (*booking.Booking, error) {
	s.money.RLock()
	defer s.money.RUnlock()
	return s.gatedStore.Checkout(ctx, actor, req)
}

func (s *sessionStore) Cancel(ctx context.Context, actor booking.Actor, req booking.CancelRequest) (*booking.Booking, error) {
	s.money.RLock()
	defer s.money.RUnlock()
	return s.gatedStore.Cancel(ctx, actor, req)
}

// settled returns a channel closed once the sales and refunds under way
// when it was called have answered.
func (s *sessionStore) settled() <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		// Only the wait for the readers matters, not the lock.
		s.money.Lock()
		//lint:ignore SA2001 taking the write lock is how we wait for them
		s.money.Unlock()
		close(ch)
	}()
	return ch
}
