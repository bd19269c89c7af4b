package server_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
	"boxoffice/tui/server"

	_ "modernc.org/sqlite"
)

// syncBuffer is a bytes.Buffer safe for the server's log goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// env is a real server on a loopback port over a seeded database in a
// temp data dir.
type env struct {
	tb     testing.TB
	dir    string
	dbPath string
	store  *db.Store
	srv    *server.Server
	addr   string
	logs   *syncBuffer
	show   booking.Show // tonight's first show
	served chan error
	closed bool
}

// newEnv opens a seeded store and serves it; cfg may adjust the config.
func newEnv(tb testing.TB, cfg func(*server.Config)) *env {
	tb.Helper()
	return newEnvWith(tb, db.Options{}, cfg)
}

// middayClock runs at the wall clock's pace from midday today, so the
// seed's shows tonight (20:00) have not started whenever the tests run:
// after 20:00 on the wall clock a cancel would need a manager.
func middayClock() func() time.Time {
	real := time.Now()
	y, m, d := real.Date()
	shift := time.Date(y, m, d, 12, 0, 0, 0, real.Location()).Sub(real)
	return func() time.Time { return time.Now().Add(shift) }
}

// newEnvWith is newEnv with store options (a clock), the counters on the
// same clock (midday's, when opts has none). The store logs to
// the env's log like the server.
func newEnvWith(tb testing.TB, opts db.Options, cfg func(*server.Config)) *env {
	tb.Helper()
	e := &env{tb: tb, dir: tb.TempDir(), logs: &syncBuffer{}, served: make(chan error, 1)}
	e.dbPath = filepath.Join(e.dir, "boxoffice.db")
	opts.PollInterval = -1
	opts.Logger = slog.New(slog.NewTextHandler(e.logs, nil))
	now := opts.Clock
	if now == nil {
		now = middayClock()
		opts.Clock = now
	}
	store := dbtest.Open(tb, e.dbPath, opts)
	e.store = store
	dbtest.MustSeed(tb, store, storetest.TonightSeed(now()), false)
	shows, err := store.Shows(context.Background(), booking.System, now())
	if err != nil || len(shows) == 0 {
		tb.Fatalf("no shows tonight: %v", err)
	}
	e.show = shows[0]

	c := server.Config{
		Addr:             "127.0.0.1:0",
		DataDir:          e.dir,
		Store:            store,
		Logger:           slog.New(slog.NewTextHandler(e.logs, nil)),
		HandshakeTimeout: 5 * time.Second,
		ConnRate:         50,
		ConnBurst:        50,
		Now:              now,
	}
	if cfg != nil {
		cfg(&c)
	}
	e.srv, err = server.New(c)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	e.addr = ln.Addr().String()
	go func() { e.served <- e.srv.Serve(ln) }()
	tb.Cleanup(func() {
		e.shutdown()
		store.Close()
		if tb.Failed() {
			tb.Logf("server log:\n%s", e.logs.String())
		}
	})
	return e
}

// shutdown stops the server once and checks Serve returned nil.
func (e *env) shutdown() error {
	if e.closed {
		return nil
	}
	e.closed = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := e.srv.Shutdown(ctx)
	select {
	case serr := <-e.served:
		if serr != nil {
			e.tb.Errorf("Serve returned %v after Shutdown", serr)
		}
	case <-time.After(5 * time.Second):
		e.tb.Error("Serve did not return after Shutdown")
	}
	return err
}

// newKey makes a client key and its authorized_keys line.
func newKey(tb testing.TB) (gossh.Signer, []byte) {
	tb.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		tb.Fatal(err)
	}
	return signer, gossh.MarshalAuthorizedKey(signer.PublicKey())
}

// staffKey adds a member of staff with a personal key.
func (e *env) staffKey(name string, role booking.Role) gossh.Signer {
	e.tb.Helper()
	signer, pub := newKey(e.tb)
	if _, err := e.store.AddStaff(context.Background(), booking.System, name, role, "1234", pub); err != nil {
		e.tb.Fatal(err)
	}
	dbtest.MustStaffShift(e.tb, e.store, name, role)
	return signer
}

// terminalKey registers a counter device key.
func (e *env) terminalKey(name string) gossh.Signer {
	e.tb.Helper()
	signer, pub := newKey(e.tb)
	if _, err := e.store.AddTerminal(context.Background(), booking.System, name, pub); err != nil {
		e.tb.Fatal(err)
	}
	return signer
}

func (e *env) clientConfig(signers ...gossh.Signer) *gossh.ClientConfig {
	fp := e.srv.Fingerprint()
	return &gossh.ClientConfig{
		User: "counter",
		Auth: []gossh.AuthMethod{gossh.PublicKeys(signers...)},
		HostKeyCallback: func(_ string, _ net.Addr, key gossh.PublicKey) error {
			if got := gossh.FingerprintSHA256(key); got != fp {
				return fmt.Errorf("host key %s, want %s", got, fp)
			}
			return nil
		},
		Timeout: 5 * time.Second,
	}
}

// client is one counter: an SSH connection with a PTY whose output is
// replayed onto a screen.
type client struct {
	tb     testing.TB
	conn   *gossh.Client
	sess   *gossh.Session
	stdin  io.WriteCloser
	scr    *screen
	stderr *syncBuffer
	done   chan struct{} // closed when stdout ends
}

// dial connects with the given keys; the error is the handshake's.
func (e *env) dial(w, h int, signers ...gossh.Signer) (*client, error) {
	conn, err := gossh.Dial("tcp", e.addr, e.clientConfig(signers...))
	if err != nil {
		return nil, err
	}
	return openCounter(e.tb, conn, w, h, true)
}

// mustDial connects at 120×40 or fails the test.
func (e *env) mustDial(signers ...gossh.Signer) *client {
	e.tb.Helper()
	c, err := e.dial(120, 40, signers...)
	if err != nil {
		e.tb.Fatalf("dial: %v", err)
	}
	return c
}

func openCounter(tb testing.TB, conn *gossh.Client, w, h int, pty bool) (*client, error) {
	sess, err := conn.NewSession()
	if err != nil {
		conn.Close()
		return nil, err
	}
	c := &client{tb: tb, conn: conn, sess: sess, scr: newScreen(w, h), stderr: &syncBuffer{}, done: make(chan struct{})}
	if pty {
		if err := sess.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
			conn.Close()
			return nil, err
		}
	}
	c.stdin, _ = sess.StdinPipe()
	stdout, _ := sess.StdoutPipe()
	sess.Stderr = c.stderr
	if err := sess.Shell(); err != nil {
		conn.Close()
		return nil, err
	}
	go func() {
		defer close(c.done)
		_, _ = io.Copy(c.scr, stdout)
	}()
	tb.Cleanup(c.close)
	return c, nil
}

func (c *client) close() { c.conn.Close() }

// send types keys: text, or escape sequences such as "\x1b[A".
func (c *client) send(keys string) {
	c.tb.Helper()
	if _, err := io.WriteString(c.stdin, keys); err != nil {
		c.tb.Fatalf("send %q: %v", keys, err)
	}
}

// waitFor waits until ok(screen text) holds and reports whether it did.
func (c *client) waitFor(d time.Duration, ok func(string) bool) bool {
	deadline := time.After(d)
	for {
		ch := c.scr.changed()
		if ok(c.scr.Text()) {
			return true
		}
		select {
		case <-ch:
		case <-deadline:
			return ok(c.scr.Text())
		case <-c.done:
			return ok(c.scr.Text())
		}
	}
}

// waitText waits for s on the screen or fails the test with the screen.
func (c *client) waitText(s string) {
	c.tb.Helper()
	if !c.waitFor(10*time.Second, func(t string) bool { return strings.Contains(t, s) }) {
		c.tb.Fatalf("screen never showed %q; it shows:\n%s", s, c.scr.Text())
	}
}

// openFirstShow opens tonight's first show from the shows list.
func (c *client) openFirstShow() {
	c.tb.Helper()
	c.waitText("First Film")
	c.send("\r")
	c.waitText("SCREEN")
	c.waitFor(5*time.Second, func(string) bool { return c.seat('A', 1) != 0 })
}

// goTo types a seat at the go-to prompt, without the final enter.
func (c *client) goTo(label string) {
	c.tb.Helper()
	c.send("/")
	c.waitText("Go to seat")
	c.send(label)
	c.waitText("Go to seat (G7 or G7-9): " + label)
}

// seat returns the glyph drawn for seat row+n of the test hall, or 0 when
// the map is not on the screen. A map row is drawn as the row label, then
// for each seat a cursor cell and the glyph, then the label again.
func (c *client) seat(row rune, n int) rune {
	for _, l := range c.scr.Lines() {
		x0 := -1
		for x, r := range l {
			if r != ' ' {
				x0 = x
				break
			}
		}
		if x0 < 0 || l[x0] != row || x0+22 >= len(l) || l[x0+22] != row {
			continue
		}
		if !strings.ContainsRune(" [", l[x0+1]) {
			continue
		}
		return l[x0+2*n]
	}
	return 0
}

// waitSeat waits until seat row+n is drawn with glyph.
func (c *client) waitSeat(row rune, n int, glyph rune) bool {
	return c.waitFor(10*time.Second, func(string) bool { return c.seat(row, n) == glyph })
}

// rawDB opens the database file for checks that skip the store.
func (e *env) rawDB() *sql.DB {
	e.tb.Helper()
	d, err := sql.Open("sqlite", "file:"+e.dbPath+"?_pragma=busy_timeout(5000)")
	if err != nil {
		e.tb.Fatal(err)
	}
	e.tb.Cleanup(func() { d.Close() })
	return d
}

func queryInt(tb testing.TB, d *sql.DB, q string, args ...any) int {
	tb.Helper()
	var n int
	if err := d.QueryRow(q, args...).Scan(&n); err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	return n
}
