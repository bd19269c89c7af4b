package server

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"boxoffice/tui"
)

// owners hands out hold owners to sessions and keeps a dropped session's
// owner parked for the grace period. An owner is
//
//	prefix + identity + "/" + generation
//
// where prefix is unique to this server run (so Shutdown can release all
// of its holds with one ReleasePrefix and leave another process's alone),
// identity is the staff member or terminal of the key, and generation
// tells apart sessions of one identity open at the same time. A session
// that starts while an owner of its identity is parked takes that owner
// over: its holds are still live, so the seat map shows them as held here
// and the sale continues, and with them the dropped session's place (the
// open show, the checkout and its key). A parked owner nobody takes within
// the grace is released.
type owners struct {
	prefix  string
	grace   time.Duration
	release func(ctx context.Context, owner string) (int, error)
	log     *slog.Logger

	mu      sync.Mutex
	stopped bool
	idents  map[string]*identOwners
	pending sync.WaitGroup // releases under way

	// ctx bounds every release; stop cancels it, so a release stuck on
	// another process's write lock does not hold up a shutdown, whose
	// ReleasePrefix covers its holds (they carry the same prefix).
	ctx    context.Context
	cancel context.CancelFunc
}

type identOwners struct {
	next   int
	parked []*parkedOwner // most recent last
}

type parkedOwner struct {
	owner string
	timer *time.Timer
	// resume is where the dropped session was, nil for nowhere; settled
	// is closed once its sales under way have answered.
	resume  *tui.Resume
	settled <-chan struct{}
}

// resumed is what a session takes over from a dropped one.
type resumed struct {
	resume  *tui.Resume
	settled <-chan struct{}
}

func newOwners(prefix string, grace time.Duration, release func(context.Context, string) (int, error), log *slog.Logger) *owners {
	ctx, cancel := context.WithCancel(context.Background())
	return &owners{prefix: prefix, grace: grace, release: release, log: log, idents: make(map[string]*identOwners), ctx: ctx, cancel: cancel}
}

// take returns the owner for a new session of ident and, when it takes
// over a dropped session, what that session left; nil otherwise.
func (o *owners) take(ident string) (string, *resumed) {
	o.mu.Lock()
	defer o.mu.Unlock()
	io := o.idents[ident]
	if io == nil {
		io = &identOwners{}
		o.idents[ident] = io
	}
	if n := len(io.parked); n > 0 {
		p := io.parked[n-1]
		io.parked = io.parked[:n-1]
		p.timer.Stop() // its release finds it gone from parked and does nothing
		return p.owner, &resumed{resume: p.resume, settled: p.settled}
	}
	io.next++
	return o.prefix + ident + "/" + strconv.Itoa(io.next), nil
}

// park starts the grace period of a dropped session's owner once the
// session has ended, keeping where it was for a session that takes it
// over. After Stop, holds are left to the final ReleasePrefix.
func (o *owners) park(ident, owner string, r *tui.Resume, settled <-chan struct{}) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return
	}
	io := o.idents[ident]
	if o.grace <= 0 {
		o.pending.Add(1)
		go o.releaseNow(owner)
		return
	}
	p := &parkedOwner{owner: owner, resume: r, settled: settled}
	p.timer = time.AfterFunc(o.grace, func() { o.expire(ident, p) })
	io.parked = append(io.parked, p)
}

// drop releases the holds of a session the clerk ended, at once and
// without parking: a quit leaves nothing to resume. The program released
// them already; this catches a release that failed.
func (o *owners) drop(owner string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stopped {
		return
	}
	o.pending.Add(1)
	go o.releaseNow(owner)
}

// expire releases a parked owner nobody took over.
func (o *owners) expire(ident string, p *parkedOwner) {
	o.mu.Lock()
	io := o.idents[ident]
	found := false
	for i, q := range io.parked {
		if q == p {
			io.parked = append(io.parked[:i], io.parked[i+1:]...)
			found = true
			break
		}
	}
	if !found || o.stopped {
		o.mu.Unlock()
		return
	}
	o.pending.Add(1)
	o.mu.Unlock()
	o.releaseNow(p.owner)
}

func (o *owners) releaseNow(owner string) {
	defer o.pending.Done()
	ctx, cancel := context.WithTimeout(o.ctx, 15*time.Second)
	defer cancel()
	n, err := o.release(ctx, owner)
	switch {
	case err != nil:
		o.log.Error("release dropped session's holds", "owner", owner, "err", err)
	case n > 0:
		o.log.Info("released dropped session's holds", "owner", owner, "holds", n)
	}
}

// stop ends every grace period, makes the releases under way give up if
// they have not got the write lock, and waits for them.
func (o *owners) stop() {
	o.mu.Lock()
	o.stopped = true
	for _, io := range o.idents {
		for _, p := range io.parked {
			p.timer.Stop()
		}
		io.parked = nil
	}
	o.mu.Unlock()
	o.cancel()
	o.pending.Wait()
}
