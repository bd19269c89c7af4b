package server_test

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"boxoffice/booking"
	"boxoffice/tui/server"
)

// Must show 5: 360 half-open connections (at least 300) from nine
// loopback addresses, each sending its version line and then nothing.
// They never hold more than the pending pool, and a registered counter on
// a tenth address still connects and sells while the flood is pending
// (their handshake deadline is a minute, so a counter that had to wait
// for them would time out). The times are logged beside a baseline; the
// speed target itself lives in the benchmarks, not in a stopwatch here.
func TestServer_HalfOpenFlood(t *testing.T) {
	e := newEnv(t, func(c *server.Config) {
		c.HandshakeTimeout = time.Minute // they would stay for good
		c.ConnRate, c.ConnBurst = 100, 100
	})
	baseline := dialAndSell(t, e, e.staffKey("anna", booking.RoleClerk), "A1")
	key := e.staffKey("bert", booking.RoleClerk)

	_, port, _ := net.SplitHostPort(e.addr)
	var open []net.Conn
	defer func() {
		for _, c := range open {
			c.Close()
		}
	}()
	for i := 0; i < 360; i++ {
		src := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i%9))}
		d := net.Dialer{LocalAddr: src, Timeout: 2 * time.Second}
		c, err := d.Dial("tcp", net.JoinHostPort("127.0.0.1", port))
		if err != nil {
			t.Skipf("cannot dial from %s (needs the whole 127/8 on loopback): %v", src.IP, err)
		}
		open = append(open, c)
		_, _ = io.WriteString(c, "SSH-2.0-halfopen\r\n")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		pending, _ := e.srv.Connections()
		if pending <= 64 && time.Now().After(deadline.Add(-4*time.Second)) {
			t.Logf("after the flood: %d handshakes pending (pool 64)", pending)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d handshakes pending, want at most 64", pending)
		}
		time.Sleep(20 * time.Millisecond)
	}
	flooded := dialAndSell(t, e, key, "A2")
	t.Logf("connect and sell: %v before the flood, %v under it (%.1f×)", baseline.Round(time.Millisecond),
		flooded.Round(time.Millisecond), float64(flooded)/float64(baseline))
	if pending, _ := e.srv.Connections(); pending < 32 {
		t.Errorf("only %d handshakes pending after the sale: the flood was not there while the counter sold", pending)
	}
	if !waitLog(e, "unfinished handshake dropped", "pending pool full") {
		t.Errorf("no eviction logged:\n%s", e.logs.String())
	}
}

// dialAndSell connects with key, sells seat of tonight's first show and
// returns how long that took from the dial.
func dialAndSell(t *testing.T, e *env, key gossh.Signer, seat string) time.Duration {
	t.Helper()
	start := time.Now()
	c := e.mustDial(key)
	c.openFirstShow()
	c.goTo(seat)
	c.send("\r")
	c.waitText("Holding 1: " + seat)
	number := c.sell()
	took := time.Since(start)
	c.close()
	if b, err := e.store.Booking(context.Background(), booking.System, number); err != nil || seatsOf(b) != seat {
		t.Fatalf("sale %s: %v %v", number, b, err)
	}
	return took
}
