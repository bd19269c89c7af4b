// Package server serves the counter TUI over SSH with Wish: one
// tea.Program per session, public-key auth against the staff and terminal
// keys in the database, connection limits, and a graceful shutdown that
// gives back every seat this server's sessions held.
//
// Who a session is comes only from the key that signed the authentication
// and is checked again when the session starts; a staff key opens signed
// in as that person, a terminal key opens the sign-in screen of that
// counter device.
package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/recover"
	gossh "golang.org/x/crypto/ssh"

	"boxoffice/booking"
	"boxoffice/internal/drain"
	"boxoffice/paper"
	"boxoffice/tui"
)

// Store is what the server needs of the booking core, by capability:
// everything its counter sessions use, which it hands them as it is, and
// for itself finding who a key belongs to and who may still act
// (Roster), releasing this server's holds in bulk (Sales) and quiescing
// writes at shutdown. *db.Store satisfies it.
type Store interface {
	tui.Backend
	booking.Roster
	booking.Sales
	booking.Quiescer
	booking.Books // the drawer of a terminal's printer (printOptions)
}

// Config configures a Server. Zero durations and counts take the defaults
// below; a negative duration turns that timer off.
type Config struct {
	// Addr is the TCP address to listen on; ":2222" when empty.
	Addr string
	// DataDir holds the host key, DataDir/ssh_host_ed25519_key (0600),
	// made on first start and reused.
	DataDir string
	// Store is the booking core.
	Store Store
	// Demo shows DemoCredentials on the sign-in screen, as long as that
	// name's PIN was never changed (Store.PINUnchanged, per session).
	Demo            bool
	DemoCredentials booking.Credentials
	// Logger gets one line per connect, disconnect and auth failure;
	// discarded when nil.
	Logger *slog.Logger
	// Now is the counters' clock; time.Now when nil.
	Now func() time.Time

	// MaxSessions caps counter sessions in total (256); MaxPerAddr per
	// source address (32).
	MaxSessions, MaxPerAddr int
	// MaxPending and MaxPendingPerAddr cap connections whose key has not
	// authenticated yet (64 and 8), apart from authenticated ones: when
	// the pool is full, the oldest unfinished handshake of the address
	// with the most is dropped for the new one, so half-open connections
	// from a few addresses never keep a counter on another one out.
	MaxPending, MaxPendingPerAddr int
	// ConnRate is how many new connections per second one address may
	// make, with bursts of ConnBurst; checked at accept, before any
	// handshake work (2/s, burst 20).
	ConnRate  float64
	ConnBurst int
	// MaxAuthTries bounds authentication attempts per connection (4).
	MaxAuthTries int
	// HandshakeTimeout bounds the handshake and authentication (10s).
	HandshakeTimeout time.Duration
	// IdleTimeout closes a connection with no traffic either way (30m).
	// The counter repaints on every change, so this catches dead
	// connections; clerks are signed out by IdleSignOut.
	IdleTimeout time.Duration
	// MaxSession is the longest a session may last (12h); a minute before,
	// the counter shows a notice.
	MaxSession time.Duration
	// IdleSignOut signs a clerk out after this long without a key press
	// (10m).
	IdleSignOut time.Duration
	// HoldGrace is how long a dropped session's holds stay for a
	// reconnect of the same key to take them over (90s).
	HoldGrace time.Duration
	// AccessCheck is how often open sessions are checked against the
	// staff and terminals still allowed (2s); a disabled person's or a
	// removed terminal's session then closes with a message.
	AccessCheck time.Duration

	// Printing (issue 12). A session on a terminal registered with a
	// printer prints there; any other session writes the tickets of a
	// sale as a PDF in PDFDir (none when empty) and names the file.
	PDFDir string
	// PrintTimeout bounds a print job (paper.Timeout when zero).
	PrintTimeout time.Duration
	// Layout heads every session's printouts (the cinema's name).
	Layout paper.Layout

	// LayoutsDir is the folder the manager screens add halls from, and
	// ExportDir the one the reports screen saves CSV files in (see
	// tui.Options); "" for none.
	LayoutsDir, ExportDir string
}

func (c *Config) setDefaults() {
	if c.Addr == "" {
		c.Addr = ":2222"
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	setInt := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	setInt(&c.MaxSessions, 256)
	setInt(&c.MaxPerAddr, 32)
	setInt(&c.MaxPending, 64)
	setInt(&c.MaxPendingPerAddr, 8)
	setInt(&c.ConnBurst, 20)
	setInt(&c.MaxAuthTries, 4)
	if c.ConnRate <= 0 {
		c.ConnRate = 2
	}
	setDur := func(v *time.Duration, def time.Duration) {
		switch {
		case *v == 0:
			*v = def
		case *v < 0:
			*v = 0
		}
	}
	setDur(&c.HandshakeTimeout, 10*time.Second)
	setDur(&c.IdleTimeout, 30*time.Minute)
	setDur(&c.MaxSession, 12*time.Hour)
	setDur(&c.IdleSignOut, 10*time.Minute)
	setDur(&c.HoldGrace, 90*time.Second)
	setDur(&c.AccessCheck, 2*time.Second)
}

// ShutdownNotice is the banner every counter shows when the server stops.
const ShutdownNotice = "Server restarting…"

// resumeNotice is the banner, shown for resumeNoticeFor, of a session that
// took over a dropped session's holds.
const (
	resumeNotice    = "Reconnected: any seats held before the drop are still yours."
	resumeNoticeFor = 10 * time.Second
)

// Server serves the counter over SSH.
type Server struct {
	cfg    Config
	log    *slog.Logger
	ssh    *ssh.Server
	signer gossh.Signer
	owners *owners
	slots  *slots
	prefix string

	closing atomic.Bool
	nextID  atomic.Uint64
	quit    chan struct{} // closed by Shutdown: stops the access watcher

	mu       sync.Mutex
	ln       net.Listener
	sessions map[ssh.Session]*session
	// handlers counts the session handlers under way; Shutdown shuts it
	// and waits for them.
	handlers drain.Drain
}

// Permission extensions set by the auth callback for the key being
// checked. x/crypto/ssh returns to the session the permissions of the key
// that signed, not of the last key offered.
const (
	extFingerprint = "boxoffice-fp"
	extIdentity    = "boxoffice-identity"
)

// New makes a server: it loads or creates the host key and wires the
// middlewares. Nothing listens until Serve or ListenAndServe.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("server: no store")
	}
	if cfg.DataDir == "" {
		return nil, errors.New("server: no data directory")
	}
	cfg.setDefaults()
	signer, err := loadHostKey(filepath.Join(cfg.DataDir, HostKeyFile))
	if err != nil {
		return nil, err
	}
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	s := &Server{
		cfg:      cfg,
		log:      cfg.Logger,
		signer:   signer,
		slots:    newSlots(cfg.MaxSessions, cfg.MaxPerAddr),
		prefix:   "ssh-" + hex.EncodeToString(rnd[:]) + ":",
		sessions: make(map[ssh.Session]*session),
		quit:     make(chan struct{}),
	}
	s.owners = newOwners(s.prefix, cfg.HoldGrace, cfg.Store.ReleaseOwner, s.log)

	maxTimeout := time.Duration(0)
	if cfg.MaxSession > 0 {
		// The app ends the session at MaxSession with a notice first; this
		// is the backstop for a connection that does not go quietly.
		maxTimeout = cfg.MaxSession + time.Minute
	}
	s.ssh, err = wish.NewServer(
		wish.WithAddress(cfg.Addr),
		func(srv *ssh.Server) error { srv.AddHostKey(signer); return nil },
		wish.WithPublicKeyAuth(s.authKey),
		func(srv *ssh.Server) error {
			srv.HandshakeTimeout = cfg.HandshakeTimeout
			srv.IdleTimeout = cfg.IdleTimeout
			srv.MaxTimeout = maxTimeout
			srv.ConnCallback = carryGuardConn
			srv.ServerConfigCallback = func(ctx ssh.Context) *gossh.ServerConfig {
				return &gossh.ServerConfig{MaxAuthTries: cfg.MaxAuthTries, AuthLogCallback: authedCallback(ctx)}
			}
			srv.ConnectionFailedCallback = func(c net.Conn, err error) {
				s.log.Info("handshake failed", "addr", c.RemoteAddr().String(), "err", err)
			}
			return nil
		},
		// The last listed runs first: recover wraps everything, then the
		// terminal size is bounded, the key is checked again, the session
		// is logged, a PTY is required, limits and the hold owner are set
		// up, and last the program runs.
		wish.WithMiddleware(
			serveProgram(s.newProgram, s.log), // one tea.Program per session
			s.counter,                         // session limits, hold owner, lifetime, shutdown message
			requirePTY,                        // no PTY: say to use ssh -t, exit
			s.logSession,                      // one line at connect and at disconnect
			s.identify,                        // the key that signed is the session's key; look it up again
			boundTerminal(s.log),              // the PTY's size and every window change, before anything is made for them
			recover.MiddlewareWithLogger(printfLogger{s.log}), // a panic ends this session only
		),
	)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Fingerprint is the SHA256 fingerprint of the host key, as ssh-keygen -l
// prints it: the line to compare when a counter first connects.
func (s *Server) Fingerprint() string { return gossh.FingerprintSHA256(s.signer.PublicKey()) }

// Prefix is the owner prefix of every hold this server's sessions make.
func (s *Server) Prefix() string { return s.prefix }

// ListenAndServe listens on Config.Addr and serves until Shutdown, then
// returns nil.
func (s *Server) ListenAndServe() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	return s.Serve(ln)
}

// Serve serves connections from ln until Shutdown, then returns nil.
func (s *Server) Serve(ln net.Listener) error {
	g := newGuardListener(ln, s.cfg, s.log)
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	s.ln = g
	s.mu.Unlock()
	if s.cfg.AccessCheck > 0 {
		go s.watchAccess()
	}
	s.log.Info("listening", "addr", ln.Addr().String(), "host_key", s.Fingerprint())
	err := s.ssh.Serve(g)
	if s.closing.Load() {
		return nil
	}
	return err
}

// Addr is the address the server listens on, or nil before Serve.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

// Sessions is how many counter sessions are open.
func (s *Server) Sessions() int { return s.slots.count() }

// Shutdown stops the server gracefully and within ctx's deadline (10 s
// when it has none), whatever another process does with the database's
// write lock: it stops accepting, shows every counter ShutdownNotice,
// quiesces the store (writes under way commit, new ones are refused) for
// part of the time, ends the sessions, and releases every hold this
// server's sessions made, waiting for the lock until just before the
// deadline. Writes still stuck on the lock when the quiesce's time is up
// give up (Store.GiveUpWaiting), so the release gets the writer; holds
// it could not release are named in the log and lapse by themselves.
// The error is the first of these that did not finish in time.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.closing.Swap(true) {
		return errors.New("server: already shut down")
	}
	close(s.quit)
	handlersDone := s.handlers.Shut()
	s.mu.Lock()
	ln := s.ln
	open := make([]*session, 0, len(s.sessions))
	for _, st := range s.sessions {
		open = append(open, st)
	}
	s.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	s.log.Info("shutting down", "sessions", len(open), "deadline", time.Until(deadlineOf(ctx)).Round(time.Millisecond))
	for _, st := range open {
		st.send(tui.ServerNoticeMsg{Text: ShutdownNotice})
	}

	// Sales and holds under way commit; every write after is refused by
	// the store itself, so no hold appears behind the release below.
	var errs []error
	qctx, cancel := share(ctx, quiesceShare)
	if err := s.cfg.Store.Quiesce(qctx); err != nil {
		errs = append(errs, fmt.Errorf("waiting for writes: %w", err))
		s.cfg.Store.GiveUpWaiting()
	}
	cancel()
	for _, st := range open {
		st.stop()
	}
	hctx, cancel := share(ctx, quiesceShare)
	select {
	case <-handlersDone:
	case <-hctx.Done():
		errs = append(errs, fmt.Errorf("waiting for sessions: %w", hctx.Err()))
	}
	cancel()
	_ = s.ssh.Close()
	s.owners.stop()

	// Release even when ctx has run out: seats left held would block
	// sales elsewhere until their holds expire. A quiesced store still
	// runs this release.
	n, err := releaseBy(ctx, s.cfg.Store, s.prefix, s.log)
	if err != nil {
		errs = append(errs, fmt.Errorf("releasing holds: %w", err))
	}
	s.log.Info("shut down", "released_holds", n)
	return errors.Join(errs...)
}

// authKey is the public-key callback. x/crypto/ssh calls it for every key
// a client offers, including keys it then never signs with, so it must not
// decide who the session is: it only vets the key and records the result
// in the permissions of this key, which x/crypto/ssh hands to the session
// only if this very key signs.
func (s *Server) authKey(ctx ssh.Context, key ssh.PublicKey) bool {
	fp := gossh.FingerprintSHA256(key)
	remote := ctx.RemoteAddr().String()
	if s.closing.Load() {
		return false
	}
	if _, ok := key.(*gossh.Certificate); ok {
		s.log.Warn("auth failure", "addr", remote, "fp", fp, "reason", "certificates are not accepted")
		return false
	}
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	staff, term, err := s.cfg.Store.IdentifyKey(lctx, key.Marshal())
	if err != nil {
		s.log.Warn("auth failure", "addr", remote, "fp", fp, "user", booking.CleanLine(ctx.User(), 40), "reason", booking.ErrorMessage(err))
		return false
	}
	perms := ctx.Permissions()
	if perms.Extensions == nil {
		perms.Extensions = map[string]string{}
	}
	perms.Extensions[extFingerprint] = fp
	perms.Extensions[extIdentity] = identityOf(staff, term)
	return true
}

func identityOf(staff *booking.Staff, term *booking.Terminal) string {
	if staff != nil {
		return "staff:" + strconv.FormatInt(staff.ID, 10)
	}
	return "terminal:" + strconv.FormatInt(term.ID, 10)
}

// counter sets a session up for the program: a slot under the session
// limits, the owner of its holds, and its lifetime. When the session ends
// its owner is parked for the grace period.
func (s *Server) counter(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		st := s.lookup(sess)
		if !s.handlers.Enter() {
			wish.Fatalln(sess, "The box office server is restarting; reconnect in a moment.\r")
			return
		}
		defer s.handlers.Leave()
		if why := s.slots.acquire(st.addr); why != "" {
			s.log.Warn("session refused", append(st.logAttrs(), "reason", why)...)
			wish.Fatalln(sess, why+"\r")
			return
		}
		defer s.slots.release(st.addr)
		if b, ok := sess.(*boundedSession); ok {
			// A terminal larger than the bound gets a banner saying the
			// counter uses part of it, for as long as it is.
			var banner tui.SizeBanner
			b.watch(func(asked ssh.Window) {
				if msg := banner.Update(asked.Width, asked.Height); msg != nil {
					st.showBanner(msg)
				}
			})
		}
		st.owner, st.takeover = s.owners.take(st.ident())
		if t := st.takeover; t != nil && t.settled != nil {
			// A sale the dropped session sent may still be running: let
			// it answer, so the resumed checkout finds the booking it made.
			wait := time.NewTimer(settleWait)
			select {
			case <-t.settled:
				wait.Stop()
			case <-wait.C:
			case <-sess.Context().Done():
				wait.Stop()
				// Gone again before it began: keep the holds parked.
				s.owners.park(st.ident(), st.owner, t.resume, t.settled)
				return
			}
		}

		if d := s.cfg.MaxSession; d > 0 {
			warn := time.AfterFunc(max(d-time.Minute, 0), func() {
				st.send(tui.ServerNoticeMsg{Text: "This session ends in a minute: finish the sale and reconnect."})
			})
			end := time.AfterFunc(d, st.stop)
			defer warn.Stop()
			defer end.Stop()
		}

		if st.takeover != nil {
			clear := time.AfterFunc(resumeNoticeFor, func() {
				if !s.closing.Load() {
					st.send(tui.ServerNoticeMsg{})
				}
			})
			defer clear.Stop()
		}

		next(sess)
		s.ended(sess, st)
	}
}

// settleWait bounds how long a resumed session waits for the sales and
// refunds of the dropped one: as long as one may run (tui bounds each by
// 15 s).
const settleWait = 15 * time.Second

// ended settles a session whose program has stopped: on shutdown or
// withdrawal it says so, and its holds are released, or parked for a
// reconnect when there is somewhere to come back to.
func (s *Server) ended(sess ssh.Session, st *session) {
	// The program has stopped, so its model may be read here.
	st.mu.Lock()
	m := st.model
	st.mu.Unlock()
	var resume *tui.Resume
	quit := false
	if m != nil {
		m.Close()
		resume, quit = m.Resume(), m.ClerkQuit()
		if m.Withdrawn() && st.withdrawn.CompareAndSwap(false, true) {
			// The store refused a write: the program said so and ended.
			s.log.Warn("session withdrawn", append(st.logAttrs(), "session", st.id, "reason", "a write was refused")...)
		}
	}
	switch {
	case s.closing.Load():
		// Shutdown releases every hold of this server at once.
		wish.Println(sess, "\r\nThe box office server is restarting; reconnect in a moment.\r")
	case st.withdrawn.Load():
		wish.Println(sess, "\r\n"+withdrawnLine+"\r")
		s.owners.drop(st.owner) // nobody may resume what they held
	case quit || resume == nil:
		// Nothing to come back to (the clerk quit, or held nothing and
		// had no show open): release now rather than greet the next
		// session with "Reconnected".
		s.owners.drop(st.owner)
	default:
		s.owners.park(st.ident(), st.owner, resume, m.Settle())
	}
}

// newProgram makes the session's tea.Program. It opens signed in for a
// staff key and on the sign-in screen for a terminal key.
func (s *Server) newProgram(sess ssh.Session) *sessionProgram {
	st := s.lookup(sess)
	if st == nil || st.owner == "" {
		return nil
	}
	opts := tui.Options{
		Store:           s.cfg.Store,
		Demo:            s.cfg.Demo,
		DemoCredentials: s.demoCredentials(sess.Context()),
		Owner:           st.owner,
		Now:             s.cfg.Now,
		IdleSignOut:     s.cfg.IdleSignOut,
		Logger:          s.log.With("session", st.id, "owner", st.owner),
		Context:         sess.Context(),
		// Where the session is, as the server knows it (the address here,
		// the terminal below): the model joins it to every actor, sign-in
		// and cancel it sends.
		Addr:       st.remote,
		LayoutsDir: s.cfg.LayoutsDir,
		ExportDir:  s.cfg.ExportDir,
	}
	if st.staff != nil {
		opts.Staff = &booking.Actor{StaffID: st.staff.ID, Name: st.staff.Name, Role: st.staff.Role}
		opts.Site = st.staff.Site
	} else {
		opts.Terminal, opts.TerminalID = st.term.Name, st.term.ID
		opts.Site = st.term.Site
	}
	s.printOptions(sess.Context(), st, &opts)
	if st.takeover != nil {
		opts.Resume = st.takeover.resume
	}
	m := tui.New(opts)
	// No tea.WithContext: the middleware quits the program when the
	// connection ends, which is a clean exit rather than a kill logged as
	// an error for every dropped counter.
	p := newSessionProgram(sess, m, resumeForSuspend)
	if !st.setProgram(p.Program, m) {
		m.Close()
		return nil
	}
	if st.takeover != nil {
		st.send(tui.ServerNoticeMsg{Text: resumeNotice})
	}
	return p
}

// resumeForSuspend turns a suspend into a resume, as the filter of
// bm.MakeOptions does, which newSessionProgram's replaces (a program keeps
// one filter): suspending would stop the whole server process, not the
// session.
func resumeForSuspend(_ tea.Model, msg tea.Msg) tea.Msg {
	if _, ok := msg.(tea.SuspendMsg); ok {
		return tea.ResumeMsg{}
	}
	return msg
}

// printfLogger adapts slog to the Printf logger wish's recover wants.
type printfLogger struct{ log *slog.Logger }

func (l printfLogger) Printf(format string, v ...any) {
	l.log.Error("session panic", "detail", fmt.Sprintf(format, v...))
}
