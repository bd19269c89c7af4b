package server

import (
	"context"
	"sync"
	"sync/atomic"
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
// refused with errRestarting. Each session has its own, which stamps on
// every call who the session is as the server knows it (the registered
// terminal, the remote address), so the store's checks never rest on what
// the screen says.
type gatedStore struct {
	Store
	g *gate
	// term is the session's registered terminal, nil for a staff key.
	term *booking.Terminal
	// addr is the session's remote address, for the log of failed PINs.
	addr string
	// withdrawn is called when the store refuses a write because the
	// actor's access was withdrawn; nil to ignore.
	withdrawn func()
	// acting is the staff id and role last seen acting in this session,
	// so the server can close it when that person is disabled.
	actingID   atomic.Int64
	actingRole atomic.Int64
}

var _ tui.Backend = (*gatedStore)(nil)

// through runs one store call if the gate lets it in, and lets Shutdown
// wait for it.
func through[T any](s *gatedStore, call func() (T, error)) (T, error) {
	if !s.g.enter() {
		var zero T
		return zero, errRestarting
	}
	defer s.g.leave()
	v, err := call()
	if s.withdrawn != nil && booking.IsWithdrawn(err) {
		s.withdrawn()
	}
	return v, err
}

// as is actor with the session's terminal, as the server knows it.
func (s *gatedStore) as(actor booking.Actor) booking.Actor {
	if s.term != nil {
		actor.TerminalID, actor.Terminal = s.term.ID, s.term.Name
	}
	if actor.StaffID != 0 {
		s.noteActing(actor.StaffID, actor.Role)
	}
	return actor
}

func (s *gatedStore) noteActing(id int64, role booking.Role) {
	s.actingRole.Store(int64(role))
	s.actingID.Store(id)
}

// acting returns the staff id and role last seen acting here; 0 for none.
func (s *gatedStore) acting() (int64, booking.Role) {
	return s.actingID.Load(), booking.Role(s.actingRole.Load())
}

func (s *gatedStore) Shows(ctx context.Context, actor booking.Actor, day time.Time) ([]booking.Show, error) {
	return through(s, func() ([]booking.Show, error) {
		return s.Store.Shows(ctx, s.as(actor), day)
	})
}

func (s *gatedStore) SeatMap(ctx context.Context, actor booking.Actor, showID int64, owner string) (*booking.SeatMap, error) {
	return through(s, func() (*booking.SeatMap, error) {
		return s.Store.SeatMap(ctx, s.as(actor), showID, owner)
	})
}

func (s *gatedStore) TicketTypes(ctx context.Context) ([]booking.TicketType, error) {
	return through(s, func() ([]booking.TicketType, error) {
		return s.Store.TicketTypes(ctx)
	})
}

func (s *gatedStore) Hold(ctx context.Context, actor booking.Actor, req booking.HoldRequest) (*booking.Hold, error) {
	return through(s, func() (*booking.Hold, error) {
		return s.Store.Hold(ctx, s.as(actor), req)
	})
}

func (s *gatedStore) HoldBest(ctx context.Context, actor booking.Actor, req booking.HoldBestRequest) (*booking.Hold, error) {
	return through(s, func() (*booking.Hold, error) {
		return s.Store.HoldBest(ctx, s.as(actor), req)
	})
}

func (s *gatedStore) Release(ctx context.Context, actor booking.Actor, holdID int64, owner string, seats ...string) error {
	_, err := through(s, func() (struct{}, error) {
		return struct{}{}, s.Store.Release(ctx, s.as(actor), holdID, owner, seats...)
	})
	return err
}

func (s *gatedStore) Extend(ctx context.Context, actor booking.Actor, holdID int64, owner string, ttl time.Duration) (*booking.Hold, error) {
	return through(s, func() (*booking.Hold, error) {
		return s.Store.Extend(ctx, s.as(actor), holdID, owner, ttl)
	})
}

// ReleaseOwner is how a counter lets go of everything as its clerk signs
// out or quits: from then on nobody acts in this session.
func (s *gatedStore) ReleaseOwner(ctx context.Context, owner string) (int, error) {
	s.noteActing(0, 0)
	return through(s, func() (int, error) {
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
	return through(s, func() (*booking.Booking, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), moneyTimeout)
		defer cancel()
		return s.Store.Checkout(ctx, s.as(actor), req)
	})
}

// Cancel, like Checkout, runs to its end once confirmed.
func (s *gatedStore) Cancel(ctx context.Context, actor booking.Actor, req booking.CancelRequest) (*booking.Booking, error) {
	return through(s, func() (*booking.Booking, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), moneyTimeout)
		defer cancel()
		req.Addr = s.addr
		return s.Store.Cancel(ctx, s.as(actor), req)
	})
}

func (s *gatedStore) Booking(ctx context.Context, actor booking.Actor, number string) (*booking.Booking, error) {
	return through(s, func() (*booking.Booking, error) {
		return s.Store.Booking(ctx, s.as(actor), number)
	})
}

func (s *gatedStore) FindBookings(ctx context.Context, actor booking.Actor, q booking.BookingQuery) ([]booking.Booking, error) {
	return through(s, func() ([]booking.Booking, error) {
		return s.Store.FindBookings(ctx, s.as(actor), q)
	})
}

// SignIn is told where the PIN was typed: the session's terminal and
// address, whatever the screen passed.
func (s *gatedStore) SignIn(ctx context.Context, req booking.SignInRequest) (*booking.Staff, error) {
	if s.term != nil {
		req.Terminal, req.TerminalID = s.term.Name, s.term.ID
	}
	req.Addr = s.addr
	st, err := through(s, func() (*booking.Staff, error) {
		return s.Store.SignIn(ctx, req)
	})
	if err == nil && st != nil {
		s.noteActing(st.ID, st.Role)
	}
	return st, err
}

func (s *gatedStore) Admit(ctx context.Context, actor booking.Actor, code string) (*booking.Admission, error) {
	return through(s, func() (*booking.Admission, error) {
		return s.Store.Admit(ctx, s.as(actor), code)
	})
}

func (s *gatedStore) AddWaitlist(ctx context.Context, actor booking.Actor, showID int64, name, phone string, seats int) (*booking.WaitlistEntry, error) {
	return through(s, func() (*booking.WaitlistEntry, error) {
		return s.Store.AddWaitlist(ctx, s.as(actor), showID, name, phone, seats)
	})
}

func (s *gatedStore) WaitlistCalls(ctx context.Context, actor booking.Actor) ([]booking.WaitlistEntry, error) {
	return through(s, func() ([]booking.WaitlistEntry, error) {
		return s.Store.WaitlistCalls(ctx, s.as(actor))
	})
}

func (s *gatedStore) MarkCalled(ctx context.Context, actor booking.Actor, entryID int64) error {
	_, err := through(s, func() (struct{}, error) { return struct{}{}, s.Store.MarkCalled(ctx, s.as(actor), entryID) })
	return err
}

func (s *gatedStore) BookingByKey(ctx context.Context, actor booking.Actor, key string) (*booking.Booking, error) {
	return through(s, func() (*booking.Booking, error) {
		return s.Store.BookingByKey(ctx, s.as(actor), key)
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
