package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"boxoffice/booking"
	"boxoffice/tui"
)

// sessionStore is the Backend one counter session gets: the server's
// store with who the session is, as the server knows it, stamped on every
// call that names someone — the registered terminal, the remote address —
// so the store's checks never rest on what the screen says. It does not
// gate anything: the store refuses writes itself once Shutdown quiesces
// it, whatever method they come through.
//
// Every method of tui.Backend that takes an actor, a sign-in or a cancel
// is declared here; TestSessionStore_StampsEveryIdentity fails for one
// that is only passed through.
type sessionStore struct {
	Store
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
	// money is read-locked by every sale and refund; settled takes the
	// write lock to learn when those under way are done.
	money sync.RWMutex
}

var _ tui.Backend = (*sessionStore)(nil)

func newSessionStore(store Store, term *booking.Terminal, addr string, withdrawn func()) *sessionStore {
	return &sessionStore{Store: store, term: term, addr: addr, withdrawn: withdrawn}
}

// as is actor with the session's terminal, as the server knows it.
func (s *sessionStore) as(actor booking.Actor) booking.Actor {
	if s.term != nil {
		actor.TerminalID, actor.Terminal = s.term.ID, s.term.Name
	}
	if actor.StaffID != 0 {
		s.noteActing(actor.StaffID, actor.Role)
	}
	return actor
}

// check tells the server when the store refused a write because the
// session's access was withdrawn.
func (s *sessionStore) check(err error) {
	if s.withdrawn != nil && booking.IsWithdrawn(err) {
		s.withdrawn()
	}
}

func (s *sessionStore) noteActing(id int64, role booking.Role) {
	s.actingRole.Store(int64(role))
	s.actingID.Store(id)
}

// acting returns the staff id and role last seen acting here; 0 for none.
func (s *sessionStore) acting() (int64, booking.Role) {
	return s.actingID.Load(), booking.Role(s.actingRole.Load())
}

func (s *sessionStore) Shows(ctx context.Context, actor booking.Actor, day time.Time) ([]booking.Show, error) {
	v, err := s.Store.Shows(ctx, s.as(actor), day)
	s.check(err)
	return v, err
}

func (s *sessionStore) SeatMap(ctx context.Context, actor booking.Actor, showID int64, owner string) (*booking.SeatMap, error) {
	v, err := s.Store.SeatMap(ctx, s.as(actor), showID, owner)
	s.check(err)
	return v, err
}

func (s *sessionStore) Hold(ctx context.Context, actor booking.Actor, req booking.HoldRequest) (*booking.Hold, error) {
	v, err := s.Store.Hold(ctx, s.as(actor), req)
	s.check(err)
	return v, err
}

func (s *sessionStore) HoldBest(ctx context.Context, actor booking.Actor, req booking.HoldBestRequest) (*booking.Hold, error) {
	v, err := s.Store.HoldBest(ctx, s.as(actor), req)
	s.check(err)
	return v, err
}

func (s *sessionStore) Release(ctx context.Context, actor booking.Actor, holdID int64, owner string, seats ...string) error {
	err := s.Store.Release(ctx, s.as(actor), holdID, owner, seats...)
	s.check(err)
	return err
}

func (s *sessionStore) Extend(ctx context.Context, actor booking.Actor, holdID int64, owner string, ttl time.Duration) (*booking.Hold, error) {
	v, err := s.Store.Extend(ctx, s.as(actor), holdID, owner, ttl)
	s.check(err)
	return v, err
}

// ReleaseOwner is how a counter lets go of everything as its clerk signs
// out or quits: from then on nobody acts in this session.
func (s *sessionStore) ReleaseOwner(ctx context.Context, owner string) (int, error) {
	s.noteActing(0, 0)
	n, err := s.Store.ReleaseOwner(ctx, owner)
	s.check(err)
	return n, err
}

// moneyTimeout bounds a sale or a refund that runs on after its session
// ended.
const moneyTimeout = 15 * time.Second

// Checkout runs to its end even when the session's context ends meanwhile:
// money was taken at the counter, so a sale the clerk confirmed is not
// abandoned because the connection dropped; the idempotency key makes a
// retry land on it. A reconnect waits for it (settled).
func (s *sessionStore) Checkout(ctx context.Context, actor booking.Actor, req booking.CheckoutRequest) (*booking.Booking, error) {
	s.money.RLock()
	defer s.money.RUnlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), moneyTimeout)
	defer cancel()
	v, err := s.Store.Checkout(ctx, s.as(actor), req)
	s.check(err)
	return v, err
}

// Cancel, like Checkout, runs to its end once confirmed.
func (s *sessionStore) Cancel(ctx context.Context, actor booking.Actor, req booking.CancelRequest) (*booking.Booking, error) {
	s.money.RLock()
	defer s.money.RUnlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), moneyTimeout)
	defer cancel()
	req.Addr = s.addr
	v, err := s.Store.Cancel(ctx, s.as(actor), req)
	s.check(err)
	return v, err
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

func (s *sessionStore) Booking(ctx context.Context, actor booking.Actor, number string) (*booking.Booking, error) {
	v, err := s.Store.Booking(ctx, s.as(actor), number)
	s.check(err)
	return v, err
}

func (s *sessionStore) BookingByKey(ctx context.Context, actor booking.Actor, key string) (*booking.Booking, error) {
	v, err := s.Store.BookingByKey(ctx, s.as(actor), key)
	s.check(err)
	return v, err
}

func (s *sessionStore) FindBookings(ctx context.Context, actor booking.Actor, q booking.BookingQuery) ([]booking.Booking, error) {
	v, err := s.Store.FindBookings(ctx, s.as(actor), q)
	s.check(err)
	return v, err
}

// SignIn is told where the PIN was typed: the session's terminal and
// address, whatever the screen passed.
func (s *sessionStore) SignIn(ctx context.Context, req booking.SignInRequest) (*booking.Staff, error) {
	if s.term != nil {
		req.Terminal, req.TerminalID = s.term.Name, s.term.ID
	}
	req.Addr = s.addr
	st, err := s.Store.SignIn(ctx, req)
	s.check(err)
	if err == nil && st != nil {
		s.noteActing(st.ID, st.Role)
	}
	return st, err
}

func (s *sessionStore) Admit(ctx context.Context, actor booking.Actor, code string) (*booking.Admission, error) {
	v, err := s.Store.Admit(ctx, s.as(actor), code)
	s.check(err)
	return v, err
}

func (s *sessionStore) AddWaitlist(ctx context.Context, actor booking.Actor, showID int64, name, phone string, seats int) (*booking.WaitlistEntry, error) {
	v, err := s.Store.AddWaitlist(ctx, s.as(actor), showID, name, phone, seats)
	s.check(err)
	return v, err
}

func (s *sessionStore) Waitlist(ctx context.Context, actor booking.Actor, showID int64) ([]booking.WaitlistEntry, error) {
	v, err := s.Store.Waitlist(ctx, s.as(actor), showID)
	s.check(err)
	return v, err
}

func (s *sessionStore) WaitlistCalls(ctx context.Context, actor booking.Actor) ([]booking.WaitlistEntry, error) {
	v, err := s.Store.WaitlistCalls(ctx, s.as(actor))
	s.check(err)
	return v, err
}

func (s *sessionStore) MarkCalled(ctx context.Context, actor booking.Actor, entryID int64) error {
	err := s.Store.MarkCalled(ctx, s.as(actor), entryID)
	s.check(err)
	return err
}

func (s *sessionStore) RemoveWaitlist(ctx context.Context, actor booking.Actor, entryID int64) error {
	err := s.Store.RemoveWaitlist(ctx, s.as(actor), entryID)
	s.check(err)
	return err
}
