package pg_test

import (
	"bytes"
	"context"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/pg"
)

// cutProxy stands between a store and PostgreSQL and cuts, once, the
// connection that sends a given byte string: the one way to lose, on
// purpose and every time, the answer to a COMMIT.
type cutProxy struct {
	ln     net.Listener
	target string

	mu      sync.Mutex
	magic   []byte // the bytes to cut at (nil: disarmed)
	forward bool   // send the cut bytes on to the server first
	gone    bool   // at the cut, the server goes away
	away    bool   // every connection closed, new ones refused
	conns   map[net.Conn]bool
	cut     chan struct{} // closed once the cut is made

	store *pg.Store // the store on it (cutStore)
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target, conns: map[net.Conn]bool{}, cut: make(chan struct{})}
	t.Cleanup(func() { ln.Close(); p.closeAll() })
	go p.accept()
	return p
}

// arm makes the next connection that sends magic the one cut; the
// server's answer to it is never delivered.
func (p *cutProxy) arm(magic string, forward, gone bool) {
	p.mu.Lock()
	p.magic, p.forward, p.gone = []byte(magic), forward, gone
	p.mu.Unlock()
}

// goAway closes every connection and refuses new ones, as a server
// that went away.
func (p *cutProxy) goAway() {
	p.mu.Lock()
	p.away = true
	p.mu.Unlock()
	p.closeAll()
}

// back lets connections through again.
func (p *cutProxy) back() { p.mu.Lock(); p.away = false; p.mu.Unlock() }

func (p *cutProxy) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
}

func (p *cutProxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.away {
		return false
	}
	for _, c := range cs {
		p.conns[c] = true
	}
	return true
}

func (p *cutProxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil || !p.track(client, server) {
			client.Close()
			if server != nil {
				server.Close()
			}
			continue
		}
		go p.pipe(client, server)
	}
}

// pipe copies both ways; the client's side checks each chunk for magic.
func (p *cutProxy) pipe(client, server net.Conn) {
	var mu sync.Mutex
	drop := false // the server's answers are dropped from the cut on
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := server.Read(buf)
			mu.Lock()
			d := drop
			mu.Unlock()
			if n > 0 && !d {
				if _, werr := client.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				client.Close()
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			p.mu.Lock()
			hit := p.magic != nil && bytes.Contains(buf[:n], p.magic)
			forward, gone := p.forward, p.gone
			if hit {
				p.magic = nil
			}
			p.mu.Unlock()
			if hit {
				mu.Lock()
				drop = true
				mu.Unlock()
				if forward {
					server.Write(buf[:n])
					time.Sleep(300 * time.Millisecond) // the server answers, to nobody
				}
				if gone {
					p.goAway() // before the client hears of the cut
				}
				client.Close()
				server.Close()
				close(p.cut)
				return
			}
			if _, werr := server.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			server.Close()
			return
		}
	}
}

// cutStore is a store whose every connection goes through a cutProxy,
// seeded with smallSeed, and a hold of A3 and A4 to sell.
func cutStore(t *testing.T) (*cutProxy, *booking.Hold, func(key string) (*booking.Booking, error)) {
	t.Helper()
	u, err := url.Parse(testURL(t))
	if err != nil {
		t.Fatal(err)
	}
	p := newCutProxy(t, u.Host)
	u.Host = p.ln.Addr().String()
	clk := &clock{now: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)}
	s := MustOpen(t, u.String(), clk)
	p.store = s
	ctx := context.Background()
	if err := s.Seed(ctx, smallSeed(clk.Now()), false); err != nil {
		t.Fatal(err)
	}
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A3", "A4"}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	checkout := func(key string) (*booking.Booking, error) {
		return s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: key, Method: booking.Card})
	}
	return p, h, checkout
}

// soldOnce checks what the database holds, whatever the store said: the
// hold's two seats sold, once.
func soldOnce(t *testing.T, p *cutProxy) {
	t.Helper()
	sh, err := p.store.Show(context.Background(), clerk, 1)
	if err != nil || sh.Sold != 2 || sh.Held != 0 {
		t.Errorf("show after the cut: %+v, %v; want 2 sold, 0 held", sh, err)
	}
}

// TestFault_CommitAnswerLostServerStaysUp: the connection breaks after a
// sale's COMMIT went out; the server committed it (forwarded) or never
// saw it (dropped). Either way the checkout answers with one booking, by
// its key, not an error.
func TestFault_CommitAnswerLostServerStaysUp(t *testing.T) {
	for _, forward := range []bool{true, false} {
		name := map[bool]string{true: "committed", false: "never sent"}[forward]
		t.Run(name, func(t *testing.T) {
			p, _, checkout := cutStore(t)
			p.arm("cut-key-1", forward, false)
			b, err := checkout("cut-key-1")
			select {
			case <-p.cut:
			default:
				t.Fatal("the proxy never cut the sale's connection")
			}
			if err != nil {
				t.Fatalf("checkout after a lost COMMIT answer: %v (%s)", err, booking.ErrorMessage(err))
			}
			again, err := checkout("cut-key-1")
			if err != nil || again.Number != b.Number || len(b.Tickets) != 2 {
				t.Fatalf("the key again: %+v, %v; the first %s with %d tickets", again, err, b.Number, len(b.Tickets))
			}
			soldOnce(t, p)
		})
	}
}

// TestFault_CommitAnswerLostServerGone: the COMMIT went out and the
// server went away before answering. The checkout must not say "nothing
// was saved" — not the first time, nor on a try again with the same key
// while the server is away — and, once it is back, the same key answers
// with the one booking it made.
func TestFault_CommitAnswerLostServerGone(t *testing.T) {
	p, _, checkout := cutStore(t)
	p.arm("cut-key-2", true, true)
	for try := 1; try <= 2; try++ {
		_, err := checkout("cut-key-2")
		if booking.ErrorCode(err) != booking.EUnavailable {
			t.Fatalf("try %d while the server is away: %v, want unavailable", try, err)
		}
		if msg := booking.ErrorMessage(err); msg != "The database server cannot be reached: the sale may have gone through. Trying again…" {
			t.Fatalf("try %d while the server is away says %q", try, msg)
		}
	}
	p.back()
	b, err := checkout("cut-key-2")
	if err != nil || len(b.Tickets) != 2 {
		t.Fatalf("once the server is back: %+v, %v", b, err)
	}
	// Settled: an unknown key now, with the server away again, reads
	// "nothing was saved".
	p.goAway()
	if _, err := checkout("cut-key-3"); booking.ErrorMessage(err) != "The database server cannot be reached: nothing was saved. Trying again…" {
		t.Fatalf("a new key with the server away: %v", err)
	}
	p.back()
	soldOnce(t, p)
}

// TestFault_EveryCallSaysUnavailable: with the server away, every call of
// the store answers unavailable in the clerk's words, none "Internal
// error." and none hangs; once it is back the same calls work. A write
// says nothing was saved and that it is tried again; a read says neither.
func TestFault_EveryCallSaysUnavailable(t *testing.T) {
	p, h, checkout := cutStore(t)
	s := p.store
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	day := time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)
	const read = "The database server cannot be reached."
	calls := []struct {
		name string
		call func() error
		want string // "" for a write's words
	}{
		{"Shows", func() error { _, err := s.Shows(ctx, clerk, day); return err }, read},
		{"Show", func() error { _, err := s.Show(ctx, clerk, 1); return err }, read},
		{"SeatMap", func() error { _, err := s.SeatMap(ctx, clerk, 1, "a"); return err }, read},
		{"TicketTypes", func() error { _, err := s.TicketTypes(ctx); return err }, read},
		{"BookingByKey", func() error { _, err := s.BookingByKey(ctx, clerk, "no-such-key"); return err }, read},
		{"SchemaVersion", func() error { _, err := s.SchemaVersion(ctx); return err }, read},
		{"Hold", func() error {
			_, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"B1"}, Owner: "b"})
			return err
		}, ""},
		{"HoldBest", func() error {
			_, err := s.HoldBest(ctx, clerk, booking.HoldBestRequest{ShowID: 1, N: 2, Owner: "b"})
			return err
		}, ""},
		{"Extend", func() error { _, err := s.Extend(ctx, clerk, h.ID, "a", 0); return err }, ""},
		{"Quote", func() error {
			_, err := s.Quote(ctx, clerk, booking.QuoteRequest{ShowID: 1, SeatIDs: []int64{h.Seats[0].ID}})
			return err
		}, read}, // a quote reads the prices, in no transaction
		{"OpenShift", func() error { _, err := s.OpenShift(ctx, clerk, booking.OpenShiftRequest{Float: 5000}); return err }, ""},
		{"Release", func() error { return s.Release(ctx, clerk, h.ID, "a", "A4") }, ""},
		{"ReleaseOwner", func() error { _, err := s.ReleaseOwner(ctx, "nobody"); return err }, ""},
		{"ReleasePrefix", func() error { _, err := s.ReleasePrefix(ctx, "nobody/"); return err }, ""},
		{"Seed", func() error { return s.Seed(ctx, smallSeed(day), false) }, ""},
		{"Checkout", func() error { _, err := checkout("every-call"); return err }, ""},
	}
	p.goAway()
	for _, c := range calls {
		err := c.call()
		want := c.want
		if want == "" {
			want = "The database server cannot be reached: nothing was saved. Trying again…"
		}
		if booking.ErrorCode(err) != booking.EUnavailable || booking.ErrorMessage(err) != want {
			t.Errorf("%s with the server away: %v, want %q", c.name, err, want)
		}
	}
	p.back()
	if _, err := s.Show(ctx, clerk, 1); err != nil {
		t.Fatalf("Show once the server is back: %v", err)
	}
	if _, err := checkout("every-call"); err != nil {
		t.Fatalf("Checkout once the server is back: %v", err)
	}
	soldOnce(t, p)
}

// TestFault_DeadConnectionsAreNotHandedOut: a server that restarted in an
// instant leaves the pool full of dead connections used a moment ago
// (pgxpool pings only those idle for over a second). The first call to
// meet one is refused; the calls after it are handed live ones.
func TestFault_DeadConnectionsAreNotHandedOut(t *testing.T) {
	p, _, _ := cutStore(t)
	s := p.store
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ { // eight connections in the pool
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.SeatMap(ctx, clerk, 1, "a"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	p.closeAll() // every connection dead; new ones welcome
	refused := 0
	for i := 0; i < 8; i++ {
		if _, err := s.SeatMap(ctx, clerk, 1, "a"); err != nil {
			t.Logf("call %d: %v", i, err)
			refused++
		}
	}
	if refused > 1 {
		t.Fatalf("%d of 8 calls after the restart were handed a dead connection, want at most the first", refused)
	}
}
