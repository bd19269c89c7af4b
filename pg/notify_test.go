package pg_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/pg"
)

// TestNotify_AnotherServerHearsTheSale: two stores on one database (two
// servers); a hold and then a sale on one reach the other's subscribers.
// The latency is logged, not asserted: a timed assertion would fail on a
// busy machine for no fault of the code. The deadline is only there so a
// lost notification fails the test instead of hanging it.
func TestNotify_AnotherServerHearsTheSale(t *testing.T) {
	t.Parallel()
	a, u, clk := seeded(t)
	b := MustOpen(t, u, clk)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.WaitListening(ctx); err != nil {
		t.Fatal(err)
	}
	heard := b.Changes().Subscribe(ctx)
	own := a.Changes().Subscribe(ctx)
	// t0 is when the call began, t1 when it returned: the other server
	// hears after t1 by the notifier's round trip.
	var t1 time.Time
	wait := func(what string, ch <-chan booking.ShowChanged, t0 time.Time) {
		t.Helper()
		select {
		case c := <-ch:
			if c.ShowID != 1 {
				t.Fatalf("%s: heard show %d, want 1", what, c.ShowID)
			}
			t.Logf("%s heard %v after the call began, %v after it returned", what, time.Since(t0), time.Since(t1))
		case <-ctx.Done():
			t.Fatalf("%s: never heard", what)
		}
	}
	t0 := time.Now()
	h, err := a.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A1"}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	t1 = time.Now()
	wait("hold on the other server", heard, t0)
	wait("hold on this server", own, t0)
	t0 = time.Now()
	if _, err := a.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "n1", Method: booking.Card}); err != nil {
		t.Fatal(err)
	}
	t1 = time.Now()
	wait("sale on the other server", heard, t0)
	wait("sale on this server", own, t0)
	m, err := b.SeatMap(ctx, clerk, 1, "")
	if err != nil || m.State(h.Seats[0].ID) != booking.SeatSold {
		t.Fatalf("the other server's map: %v, %v", m.State(h.Seats[0].ID), err)
	}
	// A store does not hear its own notifications back: one repaint per
	// change, not two.
	select {
	case c := <-own:
		t.Fatalf("the selling store heard its own change again: %+v", c)
	case <-time.After(300 * time.Millisecond):
	}
}

func TestExtend_ReleaseOwner_Quote(t *testing.T) {
	t.Parallel()
	s, _, clk := seeded(t)
	ctx := context.Background()
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"B1", "B2"}, Owner: "srv1/a", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	clk.Add(30 * time.Second)
	e, err := s.Extend(ctx, clerk, h.ID, "srv1/a", 5*time.Minute)
	if err != nil || !e.ExpiresAt.Equal(clk.Now().Add(5*time.Minute).Truncate(time.Millisecond)) || len(e.Seats) != 2 {
		t.Fatalf("extend: %+v, %v", e, err)
	}
	q, err := s.Quote(ctx, clerk, booking.QuoteRequest{ShowID: 1, SeatIDs: []int64{h.Seats[0].ID, h.Seats[1].ID}, Types: map[string]string{"B2": "child"}})
	if err != nil || q.Total != 2050 {
		t.Fatalf("quote: %+v, %v", q, err)
	}
	if _, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"B5"}, Owner: "srv2/b"}); err != nil {
		t.Fatal(err)
	}
	n, err := s.ReleasePrefix(ctx, "srv1/")
	if err != nil || n != 1 {
		t.Fatalf("release prefix: %d, %v", n, err)
	}
	sh, _ := s.Show(ctx, clerk, 1)
	if sh.Held != 1 {
		t.Fatalf("held %d, want srv2's one seat", sh.Held)
	}
	if n, err := s.ReleaseOwner(ctx, "srv2/b"); err != nil || n != 1 {
		t.Fatalf("release owner: %d, %v", n, err)
	}
	if _, err := s.Extend(ctx, clerk, h.ID, "srv1/a", time.Minute); booking.ErrorCode(err) != booking.EExpired {
		t.Fatalf("extend a released hold: %v", err)
	}
}

// TestNotify_EachOutageRetriesSoon: the listening connection of a store
// is cut five times, each after it listened again. Every reconnect waits
// the first backoff, not one doubled by the outages before it (which left
// the maps of a server repainting up to 2 s late after a few outages).
func TestNotify_EachOutageRetriesSoon(t *testing.T) {
	u := testURL(t) // one store alone listens in this database
	var logs lockedBuffer
	b, err := pg.Open(context.Background(), u, pg.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var schema string
	if err := conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	listen := `LISTEN "boxoffice_changes:` + schema + `"`
	listener := func(not int) int {
		for {
			var pid int
			err := conn.QueryRow(ctx, `SELECT pid FROM pg_stat_activity WHERE query = $1 AND pid <> $2 AND datname = current_database() LIMIT 1`, listen, not).Scan(&pid)
			if err == nil {
				return pid
			}
			if ctx.Err() != nil {
				t.Fatalf("no listening connection after pid %d", not)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	pid := listener(0)
	for i := 0; i < 5; i++ {
		if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
			t.Fatal(err)
		}
		pid = listener(pid)
	}
	got := strings.Count(logs.String(), "retry_in=50ms")
	if lost := strings.Count(logs.String(), "listen: connection lost"); got != 5 || lost != 5 {
		t.Fatalf("%d outages logged, %d of them retried after 50ms; want 5 and 5:\n%s", lost, got, logs.String())
	}
}

// lockedBuffer is a log's buffer written by the store's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
