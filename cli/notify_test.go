package cli

import (
	"bytes"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
)

// The watchdog pings only after a read of the store came back: a store
// that stops answering stops the pings, so the service manager restarts
// the server.
func TestStartWatchdog_PingsWhileTheStoreAnswers(t *testing.T) {
	dir, err := os.MkdirTemp("", "sd")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "notify")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const interval = 200 * time.Millisecond
	t.Setenv("NOTIFY_SOCKET", sock)
	t.Setenv("WATCHDOG_USEC", "200000")
	t.Setenv("WATCHDOG_PID", "")

	st, err := db.Open(filepath.Join(t.TempDir(), "boxoffice.db"), db.Options{
		TicketKey: booking.TicketKey{ID: 1, Secret: bytes.Repeat([]byte{7}, 32)}, SweepInterval: -1, PollInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	var logged lockedBuffer
	stop := startWatchdog(st, slog.New(slog.NewTextHandler(&logged, nil)))
	defer stop()
	buf := make([]byte, 64)
	for i := range 2 {
		conn.SetReadDeadline(time.Now().Add(10 * interval))
		n, err := conn.Read(buf)
		if err != nil || string(buf[:n]) != "WATCHDOG=1" {
			t.Fatalf("ping %d: %q %v", i, buf[:n], err)
		}
	}
	st.Close() // every read fails from now on
	// A ping already on its way may still come; after it, none for three
	// intervals.
	conn.SetReadDeadline(time.Now().Add(interval))
	conn.Read(buf)
	conn.SetReadDeadline(time.Now().Add(3 * interval))
	if n, err := conn.Read(buf); err == nil {
		t.Fatalf("a ping with the store closed: %q", buf[:n])
	}
	if !strings.Contains(logged.String(), "watchdog: the store did not answer") {
		t.Fatalf("log: %q", logged.String())
	}
}

// lockedBuffer is a bytes.Buffer a goroutine writes while the test reads.
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
