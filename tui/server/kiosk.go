package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/recover"
	gossh "golang.org/x/crypto/ssh"

	"boxoffice/booking"
	"boxoffice/tui/kiosk"
)

// The kiosk over SSH (issue 13): a server of its own on its own address,
// apart from the staff server. It never looks a key up: the SSH user
// "kiosk" gets in with any key or none (keyboard-interactive with no
// questions), and every session runs the kiosk model (package kiosk), which holds only
// the kiosk's store calls and acts as the kiosk role. Staff
// authentication is never reached from here, and nothing typed in a
// kiosk session can reach a staff screen or action.

// KioskUser is the one SSH user name the kiosk server lets in.
const KioskUser = "kiosk"

// KioskStore is what the kiosk server needs of the booking core.
type KioskStore interface {
	kiosk.Backend
	// ReleasePrefix gives back every hold of this server's sessions at
	// shutdown; LiveHolds names those it could not.
	ReleasePrefix(ctx context.Context, prefix string) (int, error)
	LiveHolds(ctx context.Context, prefix string) ([]booking.Hold, error)
}

// KioskConfig configures a KioskServer; zero values take the defaults.
type KioskConfig struct {
	// Addr is the TCP address; ":2223" when empty.
	Addr string
	// DataDir holds the host key, shared with the staff server.
	DataDir string
	Store   KioskStore
	Logger  *slog.Logger
	Now     func() time.Time
	// MaxSessions caps kiosk sessions in total (64); MaxPerAddr per
	// source address (2): a kiosk is one customer at a time.
	MaxSessions, MaxPerAddr int
	// IdleTimeout closes a silent connection (5m); MaxSession caps one
	// (30m). The kiosk itself starts again after booking.KioskIdle.
	IdleTimeout, MaxSession time.Duration
}

// KioskServer serves the kiosk over SSH.
type KioskServer struct {
	cfg    KioskConfig
	guard  Config // the connection guard's limits (rate, pending)
	log    *slog.Logger
	ssh    *ssh.Server
	slots  *slots
	prefix string
	nextID atomic.Uint64

	mu sync.Mutex
	ln net.Listener
}

// NewKioskServer makes the kiosk's SSH server; nothing listens until
// Serve.
func NewKioskServer(cfg KioskConfig) (*KioskServer, error) {
	if cfg.Store == nil || cfg.DataDir == "" {
		return nil, errors.New("kiosk server: no store or data directory")
	}
	if cfg.Addr == "" {
		cfg.Addr = ":2223"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	for v, def := range map[*int]int{&cfg.MaxSessions: 64, &cfg.MaxPerAddr: 2} {
		if *v <= 0 {
			*v = def
		}
	}
	for v, def := range map[*time.Duration]time.Duration{&cfg.IdleTimeout: 5 * time.Minute, &cfg.MaxSession: 30 * time.Minute} {
		if *v <= 0 {
			*v = def
		}
	}
	signer, err := loadHostKey(filepath.Join(cfg.DataDir, HostKeyFile))
	if err != nil {
		return nil, err
	}
	var rnd [4]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return nil, err
	}
	guard := Config{Addr: cfg.Addr}
	guard.setDefaults()
	k := &KioskServer{cfg: cfg, guard: guard, log: cfg.Logger, slots: newSlots(cfg.MaxSessions, cfg.MaxPerAddr),
		prefix: "kiosk-" + hex.EncodeToString(rnd[:]) + ":"}
	k.ssh, err = wish.NewServer(
		wish.WithAddress(cfg.Addr),
		func(srv *ssh.Server) error { srv.AddHostKey(signer); return nil },
		wish.WithPublicKeyAuth(func(ctx ssh.Context, _ ssh.PublicKey) bool { return ctx.User() == KioskUser }),
		wish.WithKeyboardInteractiveAuth(func(ctx ssh.Context, ask gossh.KeyboardInteractiveChallenge) bool {
			if ctx.User() != KioskUser {
				return false
			}
			_, err := ask("", "", nil, nil) // no questions
			return err == nil
		}),
		func(srv *ssh.Server) error {
			srv.HandshakeTimeout = guard.HandshakeTimeout
			srv.IdleTimeout = cfg.IdleTimeout
			srv.MaxTimeout = cfg.MaxSession
			srv.ConnCallback = carryGuardConn
			srv.ServerConfigCallback = func(ctx ssh.Context) *gossh.ServerConfig {
				return &gossh.ServerConfig{MaxAuthTries: guard.MaxAuthTries, AuthLogCallback: authedCallback(ctx)}
			}
			return nil
		},
		// The last listed runs first: recover, the terminal size bounded,
		// a PTY, a slot under the limits, then the kiosk program.
		wish.WithMiddleware(
			serveProgram(k.newProgram, k.log),
			k.session,
			requirePTY,
			boundTerminal(k.log),
			recover.MiddlewareWithLogger(printfLogger{k.log}),
		),
	)
	if err != nil {
		return nil, err
	}
	return k, nil
}

// kioskOwnerKey is where a session's hold owner waits for newProgram,
// and kioskAddrKey its address.
type (
	kioskOwnerKey struct{}
	kioskAddrKey  struct{}
)

// session takes a slot for the session's address, names its hold owner,
// and lets its hold go when it ends.
func (k *KioskServer) session(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		addr := hostOf(sess.RemoteAddr())
		sess.Context().SetValue(kioskAddrKey{}, addr)
		if why := k.slots.acquire(addr); why != "" {
			k.log.Warn("kiosk session refused", "addr", addr, "reason", why)
			wish.Fatalln(sess, why+"\r")
			return
		}
		defer k.slots.release(addr)
		owner := k.prefix + itoa(k.nextID.Add(1))
		sess.Context().SetValue(kioskOwnerKey{}, owner)
		k.log.Info("kiosk connect", "addr", addr, "owner", owner)
		next(sess)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if _, err := k.cfg.Store.KioskRelease(ctx, booking.Actor{Name: "kiosk", Role: booking.RoleKiosk, Terminal: "kiosk-ssh"}, owner); err != nil {
			k.log.Warn("kiosk release", "owner", owner, "err", err)
		}
		k.log.Info("kiosk disconnect", "addr", addr, "owner", owner)
	}
}

// newProgram runs the kiosk for the session: no staff chord (Unlock is
// nil), interrupt and suspend filtered out.
func (k *KioskServer) newProgram(sess ssh.Session) *sessionProgram {
	owner, _ := sess.Context().Value(kioskOwnerKey{}).(string)
	addr, _ := sess.Context().Value(kioskAddrKey{}).(string)
	if owner == "" || addr == "" {
		return nil
	}
	m := kiosk.New(kiosk.Options{Store: k.cfg.Store, Owner: owner, Terminal: "kiosk-ssh", Addr: addr,
		Now: k.cfg.Now, Context: sess.Context(), Logger: k.log.With("owner", owner)})
	return newSessionProgram(sess, m, kiosk.Filter)
}

// hostOf is where a kiosk session comes from, as the per-address limits
// count it (the sessions per address here, and the store's reservations
// an hour, collect's tries and the slowing of let-go holds): an IPv4
// host, or the /64 network of an IPv6 one, since one IPv6 customer line
// is given a whole /64 and could otherwise come from a new address for
// every try.
func hostOf(a net.Addr) string {
	if a == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	ip, err := netip.ParseAddr(host)
	switch {
	case err != nil:
		return host
	case ip.Unmap().Is4():
		return ip.Unmap().String()
	}
	p, err := ip.WithZone("").Prefix(64)
	if err != nil {
		return host
	}
	return p.String()
}

func itoa(n uint64) string {
	const digits = "0123456789"
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = digits[n%10]
		n /= 10
	}
	return string(b[i:])
}

// Serve serves kiosk sessions from ln until Shutdown.
func (k *KioskServer) Serve(ln net.Listener) error {
	g := newGuardListener(ln, k.guard, k.log)
	k.mu.Lock()
	k.ln = g
	k.mu.Unlock()
	k.log.Info("kiosk listening", "addr", ln.Addr().String())
	err := k.ssh.Serve(g)
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// Addr is where the kiosk server listens, nil before Serve.
func (k *KioskServer) Addr() net.Addr {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.ln == nil {
		return nil
	}
	return k.ln.Addr()
}

// Shutdown closes every kiosk session and gives back their holds, within
// ctx's deadline (10 s when it has none) whatever another process does
// with the write lock: the sessions get a share of the time, the release
// the rest, and holds it could not release are named in the log.
func (k *KioskServer) Shutdown(ctx context.Context) error {
	sctx, cancel := share(ctx, quiesceShare)
	err := k.ssh.Shutdown(sctx)
	cancel()
	if err != nil {
		_ = k.ssh.Close()
	}
	if _, rerr := releaseBy(ctx, k.cfg.Store, k.prefix, k.log); rerr != nil {
		err = errors.Join(err, rerr)
	}
	return err
}
