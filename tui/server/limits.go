package server

import (
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"
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

// guardListener admits connections before the SSH handshake starts: a
// token bucket per address limits how fast one address may connect, and
// open connections are capped in total and per address. A refused
// connection is closed at once, so a flood costs an accept and a close,
// never a goroutine parked in a handshake. Accept never waits on a client:
// every handshake runs on its own goroutine under the handshake deadline,
// so a client that sends garbage or stalls holds one slot until that
// deadline and blocks nobody else.
type guardListener struct {
	net.Listener
	log *slog.Logger
	now func() time.Time

	rate       float64 // tokens per second per address
	burst      float64
	maxOpen    int
	maxPerAddr int

	mu    sync.Mutex
	open  int
	addrs map[string]*addrState
}

type addrState struct {
	tokens float64
	last   time.Time
	open   int
}

func newGuardListener(l net.Listener, cfg Config, log *slog.Logger) *guardListener {
	return &guardListener{
		Listener:   l,
		log:        log,
		now:        time.Now,
		rate:       cfg.ConnRate,
		burst:      float64(cfg.ConnBurst),
		maxOpen:    cfg.MaxSessions + cfg.MaxPending,
		maxPerAddr: cfg.MaxPerAddr + cfg.MaxPendingPerAddr,
		addrs:      make(map[string]*addrState),
	}
}

// Accept returns the next admitted connection.
func (l *guardListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := addrOf(c.RemoteAddr())
		if why := l.admit(addr); why != "" {
			l.log.Warn("connection refused", "addr", c.RemoteAddr().String(), "reason", why)
			_ = c.Close()
			continue
		}
		return &guardConn{Conn: c, l: l, addr: addr}, nil
	}
}

// admit takes a token and a slot for addr, or says why not.
func (l *guardListener) admit(addr string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	st := l.addrs[addr]
	if st == nil {
		if len(l.addrs) >= 4096 {
			l.forgetIdleLocked(now)
		}
		st = &addrState{tokens: l.burst, last: now}
		l.addrs[addr] = st
	}
	st.tokens = min(l.burst, st.tokens+now.Sub(st.last).Seconds()*l.rate)
	st.last = now
	switch {
	case st.tokens < 1:
		return "connection rate"
	case l.open >= l.maxOpen:
		return fmt.Sprintf("%d connections open", l.open)
	case st.open >= l.maxPerAddr:
		return fmt.Sprintf("%d connections open from this address", st.open)
	}
	st.tokens--
	st.open++
	l.open++
	return ""
}

// forgetIdleLocked drops addresses with nothing open and a full bucket:
// they are indistinguishable from addresses never seen.
func (l *guardListener) forgetIdleLocked(now time.Time) {
	for a, st := range l.addrs {
		if st.open == 0 && st.tokens+now.Sub(st.last).Seconds()*l.rate >= l.burst {
			delete(l.addrs, a)
		}
	}
}

func (l *guardListener) done(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if st := l.addrs[addr]; st != nil {
		st.open--
	}
}

// guardConn gives its slot back when closed, once.
type guardConn struct {
	net.Conn
	l    *guardListener
	addr string
	once sync.Once
}

func (c *guardConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.done(c.addr) })
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
