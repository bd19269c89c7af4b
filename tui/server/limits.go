package server

import (
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"

	"boxoffice/tui"
)

// addrOf is the host part of a remote address: the unit every per-address
// limit counts in.
func addrOf(a net.Addr) string {
	if a == nil {
		return "unknown"
	}
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// guardListener admits connections before the SSH handshake starts and
// keeps unfinished handshakes apart from authenticated connections, so
// that half-open connections can never refuse a registered counter:
//
//   - a token bucket per address limits how fast one address may connect;
//   - a connection is pending until its key has authenticated: at most
//     maxPendingPerAddr per address and maxPending in all. When the
//     pending pool is full, a new connection evicts the oldest pending one
//     of the address with the most pending, so an attacker holding
//     handshakes open from a few addresses evicts only their own, and a
//     counter on any other address always gets its turn;
//   - an authenticated connection counts apart, up to maxConns in all and
//     maxConnsPerAddr per address (sessions have limits of their own
//     below these); half-open ones never use these slots.
//
// A refused connection is closed at once, so a flood costs an accept and a
// close, never a goroutine parked in a handshake. Accept never waits on a
// client: every handshake runs on its own goroutine under the handshake
// deadline, after which the server drops it.
type guardListener struct {
	net.Listener
	log *slog.Logger
	now func() time.Time

	rate                          float64 // tokens per second per address
	burst                         float64
	maxPending, maxPendingPerAddr int
	maxConns, maxConnsPerAddr     int

	mu      sync.Mutex
	pending int // connections still in the handshake
	conns   int // authenticated connections
	addrs   map[string]*addrState
}

type addrState struct {
	tokens  float64
	last    time.Time
	pending []*guardConn // oldest first
	conns   int
}

// connState is where a guardConn is in the listener's accounting.
type connState int

const (
	connPending connState = iota
	connAuthed
	connGone // closed, evicted or refused: counted nowhere
)

func newGuardListener(l net.Listener, cfg Config, log *slog.Logger) *guardListener {
	return &guardListener{
		Listener:          l,
		log:               log,
		now:               time.Now,
		rate:              cfg.ConnRate,
		burst:             float64(cfg.ConnBurst),
		maxPending:        cfg.MaxPending,
		maxPendingPerAddr: cfg.MaxPendingPerAddr,
		// Headroom over the session limits, so that one connection too
		// many is refused by the session limit, with a line saying why.
		maxConns:        cfg.MaxSessions + cfg.MaxPending,
		maxConnsPerAddr: cfg.MaxPerAddr + cfg.MaxPendingPerAddr,
		addrs:           make(map[string]*addrState),
	}
}

// Accept returns the next admitted connection.
func (l *guardListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		gc := &guardConn{Conn: c, l: l, addr: addrOf(c.RemoteAddr())}
		why, evicted := l.admit(gc)
		if evicted != nil {
			l.log.Warn("unfinished handshake dropped", "addr", evicted.RemoteAddr().String(), "reason", "pending pool full")
			_ = evicted.Conn.Close()
		}
		if why != "" {
			l.log.Warn("connection refused", "addr", c.RemoteAddr().String(), "reason", why)
			_ = c.Close()
			continue
		}
		return gc, nil
	}
}

// admit takes a token and a pending slot for c, or says why not. When the
// pool is full it returns the connection it evicted to make room, for the
// caller to close outside the lock.
func (l *guardListener) admit(c *guardConn) (why string, evicted *guardConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	st := l.addrs[c.addr]
	if st == nil {
		if len(l.addrs) >= 4096 {
			l.forgetIdleLocked(now)
		}
		st = &addrState{tokens: l.burst, last: now}
		l.addrs[c.addr] = st
	}
	st.tokens = min(l.burst, st.tokens+now.Sub(st.last).Seconds()*l.rate)
	st.last = now
	switch {
	case st.tokens < 1:
		return "connection rate", nil
	case len(st.pending) >= l.maxPendingPerAddr:
		return fmt.Sprintf("%d unfinished handshakes from this address", len(st.pending)), nil
	}
	if l.pending >= l.maxPending {
		evicted = l.evictLocked()
	}
	st.tokens--
	c.since = now
	st.pending = append(st.pending, c)
	l.pending++
	return "", evicted
}

// evictLocked takes the oldest pending connection of the address with
// the most pending out of the pool.
func (l *guardListener) evictLocked() *guardConn {
	var worst *addrState
	for _, st := range l.addrs {
		if n := len(st.pending); n > 0 && (worst == nil || n > len(worst.pending) ||
			(n == len(worst.pending) && st.pending[0].since.Before(worst.pending[0].since))) {
			worst = st
		}
	}
	if worst == nil {
		return nil
	}
	c := worst.pending[0]
	l.forgetLocked(c)
	return c
}

// authed moves c from the pending pool to the authenticated connections.
// It reports false, and c is then to be closed, when c was evicted
// meanwhile or authenticated connections are at their limit.
func (l *guardListener) authed(c *guardConn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.state != connPending {
		return false
	}
	l.forgetLocked(c)
	st := l.addrs[c.addr]
	if st == nil || l.conns >= l.maxConns || st.conns >= l.maxConnsPerAddr {
		l.log.Warn("connection refused", "addr", c.RemoteAddr().String(), "reason", "too many connections")
		return false
	}
	c.state = connAuthed
	l.conns++
	st.conns++
	return true
}

// forgetLocked takes c out of the accounting, whatever its state.
func (l *guardListener) forgetLocked(c *guardConn) {
	st := l.addrs[c.addr]
	switch c.state {
	case connPending:
		l.pending--
		if st != nil {
			for i, p := range st.pending {
				if p == c {
					st.pending = append(st.pending[:i], st.pending[i+1:]...)
					break
				}
			}
		}
	case connAuthed:
		l.conns--
		if st != nil {
			st.conns--
		}
	}
	c.state = connGone
}

// forgetIdleLocked drops addresses with nothing open and a full bucket:
// they are indistinguishable from addresses never seen.
func (l *guardListener) forgetIdleLocked(now time.Time) {
	for a, st := range l.addrs {
		if len(st.pending) == 0 && st.conns == 0 && st.tokens+now.Sub(st.last).Seconds()*l.rate >= l.burst {
			delete(l.addrs, a)
		}
	}
}

// counts returns the pending and authenticated connections.
func (l *guardListener) counts() (pending, conns int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pending, l.conns
}

// guardKey is the ssh context key of a connection's *guardConn.
type guardKey struct{}

// carryGuardConn puts the listener's connection in the ssh context, where
// authedCallback finds it when its key has authenticated.
func carryGuardConn(ctx ssh.Context, c net.Conn) net.Conn {
	ctx.SetValue(guardKey{}, c)
	return c
}

// authedCallback is the connection's x/crypto/ssh AuthLogCallback: the
// first successful authentication moves the connection out of the pending
// pool, or closes it when authenticated connections are at their limit.
func authedCallback(ctx ssh.Context) func(gossh.ConnMetadata, string, error) {
	gc, _ := ctx.Value(guardKey{}).(*guardConn)
	return func(_ gossh.ConnMetadata, _ string, err error) {
		if err == nil && gc != nil && !gc.l.authed(gc) {
			_ = gc.Close()
		}
	}
}

// Connections is how many connections are still in their handshake and how
// many have authenticated.
func (s *Server) Connections() (pending, authed int) {
	s.mu.Lock()
	ln, _ := s.ln.(*guardListener)
	s.mu.Unlock()
	if ln == nil {
		return 0, 0
	}
	return ln.counts()
}

// guardConn gives its slot back when closed, once.
type guardConn struct {
	net.Conn
	l     *guardListener
	addr  string
	since time.Time
	state connState // guarded by l.mu
}

func (c *guardConn) Close() error {
	err := c.Conn.Close()
	c.l.mu.Lock()
	c.l.forgetLocked(c)
	c.l.mu.Unlock()
	return err
}

// slots counts counter sessions in total and per address. A connection
// may open several session channels, so sessions are counted apart from
// connections.
type slots struct {
	mu         sync.Mutex
	max        int
	maxPerAddr int
	total      int
	perAddr    map[string]int
}

func newSlots(max, maxPerAddr int) *slots {
	return &slots{max: max, maxPerAddr: maxPerAddr, perAddr: make(map[string]int)}
}

// acquire takes a slot for addr, or returns the line to show the client.
func (s *slots) acquire(addr string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.total >= s.max:
		return fmt.Sprintf("The box office server is full (%d sessions); try again in a minute.", s.max)
	case s.perAddr[addr] >= s.maxPerAddr:
		return fmt.Sprintf("Too many sessions from %s (%d); close one and try again.", addr, s.maxPerAddr)
	}
	s.total++
	s.perAddr[addr]++
	return ""
}

func (s *slots) release(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total--
	if s.perAddr[addr]--; s.perAddr[addr] <= 0 {
		delete(s.perAddr, addr)
	}
}

// count returns the sessions open.
func (s *slots) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// boundTerminal bounds the session's terminal size where it enters, the
// PTY request and every window change, before anything is made for it:
// wish's bubbletea middleware starts the program at the PTY's size, and
// Bubble Tea's renderer makes a cell for every column × row of it at once
// (a 60000×60000 request asked for 400 GB). Every size the session's
// handlers see is cut to tui.MaxWidth×tui.MaxHeight and the session goes
// on at that size; what is typed into the program is bounded by its
// filter (tui.BoundSizeFilter). The first size cut in a session is
// logged, not every one: a client may send window changes without end.
// It runs before anything keeps the session, so all see the one value.
func boundTerminal(log *slog.Logger) func(ssh.Handler) ssh.Handler {
	return func(next ssh.Handler) ssh.Handler {
		return func(sess ssh.Session) {
			pty, winch, ok := sess.Pty()
			if !ok {
				next(sess)
				return
			}
			b := &boundedSession{Session: sess, pty: pty, asked: pty.Window, winch: make(chan ssh.Window, 1), done: make(chan struct{})}
			b.pty.Window = boundWindow(pty.Window)
			defer close(b.done)
			go b.follow(winch, log)
			next(b)
		}
	}
}

// boundWindow is w cut to the bound; the pixel sizes are dropped with it,
// since they no longer describe it.
func boundWindow(w ssh.Window) ssh.Window {
	bw, bh, cut := tui.BoundSize(w.Width, w.Height)
	if !cut {
		return w
	}
	return ssh.Window{Width: bw, Height: bh}
}

// boundedSession is a session whose Pty reports its size bounded
// (boundTerminal).
type boundedSession struct {
	ssh.Session
	winch chan ssh.Window // bounded sizes, the newest only
	// done is closed when the session's handlers have returned, its
	// program among them: the end releasingModel waits for. The
	// connection's context may outlive it, with other sessions on it.
	done chan struct{}

	mu     sync.Mutex
	pty    ssh.Pty    // its Window bounded
	asked  ssh.Window // the latest size asked for, unbounded
	onSize func(asked ssh.Window)
}

// Pty is the session's PTY with its size bounded, and the window changes,
// bounded.
func (b *boundedSession) Pty() (ssh.Pty, <-chan ssh.Window, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pty, b.winch, true
}

// follow passes every size from the client's window changes (and the PTY
// request's, which the ssh package sends first) on to b.winch bounded,
// until the session's requests or handlers end. Only the newest is kept
// for a reader that has not taken the last, so a reader behind never holds
// up the ssh package's request loop; and a size that bounds to the one
// passed last is not passed again, since each one repaints the screen.
func (b *boundedSession) follow(src <-chan ssh.Window, log *slog.Logger) {
	logged, passed := false, false
	var last ssh.Window
	for {
		var w ssh.Window
		select {
		case <-b.done:
			return
		case win, ok := <-src:
			if !ok {
				return
			}
			w = win
		}
		bounded := boundWindow(w)
		if bounded != w && !logged {
			logged = true
			log.Warn("terminal size bounded", "addr", b.RemoteAddr().String(),
				"asked", fmt.Sprintf("%d×%d", w.Width, w.Height), "drawn", fmt.Sprintf("%d×%d", bounded.Width, bounded.Height))
		}
		b.mu.Lock()
		b.pty.Window, b.asked = bounded, w
		if b.onSize != nil {
			b.onSize(w)
		}
		b.mu.Unlock()
		if passed && bounded == last {
			continue
		}
		passed, last = true, bounded
		select {
		case <-b.winch: // not read yet: the newer size replaces it
		default:
		}
		b.winch <- bounded // follow is the only sender, so there is room
	}
}

// watch calls fn with the size the client asks for now, then with every
// size it asks for after, unbounded, so that a screen can say it draws in
// part of the terminal. fn runs under b's lock and must not wait.
func (b *boundedSession) watch(fn func(asked ssh.Window)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.onSize = fn
	fn(b.asked)
}
