package sdnotify

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// listen is a service manager's socket at name, and what it reads next.
func listen(t *testing.T, name string) func() string {
	t.Helper()
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return func() string {
		buf := make([]byte, 8192)
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := conn.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		return string(buf[:n])
	}
}

func TestNotify_OK(t *testing.T) {
	dir, err := os.MkdirTemp("", "sd")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for name, addr := range map[string]string{
		"Path":     filepath.Join(dir, "notify"),
		"Abstract": "@boxoffice-sdnotify-test-" + strconv.Itoa(os.Getpid()),
	} {
		t.Run(name, func(t *testing.T) {
			bind := addr
			if bind[0] == '@' {
				bind = "\x00" + bind[1:]
			}
			read := listen(t, bind)
			t.Setenv("NOTIFY_SOCKET", addr)
			sent, err := Notify(Ready + "\nSTATUS=up")
			if !sent || err != nil {
				t.Fatalf("Notify: %v %v", sent, err)
			}
			if got := read(); got != "READY=1\nSTATUS=up" {
				t.Fatalf("read %q", got)
			}
		})
	}
}

// Outside a service manager nothing is sent and nothing fails; a socket
// that is gone is an error.
func TestNotify_ErrNoSocket(t *testing.T) {
	t.Setenv("NOTIFY_SOCKET", "")
	if sent, err := Notify(Ready); sent || err != nil {
		t.Fatalf("without NOTIFY_SOCKET: %v %v", sent, err)
	}
	t.Setenv("NOTIFY_SOCKET", filepath.Join(t.TempDir(), "gone"))
	if sent, err := Notify(Ready); sent || err == nil {
		t.Fatalf("to a socket nobody listens on: %v %v", sent, err)
	}
}

func TestWatchdogInterval(t *testing.T) {
	for _, c := range []struct {
		usec, pid string
		want      time.Duration
		ok        bool
	}{
		{"30000000", "", 30 * time.Second, true},
		{"30000000", strconv.Itoa(os.Getpid()), 30 * time.Second, true},
		{"30000000", strconv.Itoa(os.Getpid() + 1), 0, false}, // another process's watchdog
		{"", "", 0, false},
		{"0", "", 0, false},
		{"x", "", 0, false},
	} {
		t.Setenv("WATCHDOG_USEC", c.usec)
		t.Setenv("WATCHDOG_PID", c.pid)
		if got, ok := WatchdogInterval(); got != c.want || ok != c.ok {
			t.Errorf("WATCHDOG_USEC=%q WATCHDOG_PID=%q: %v %v, want %v %v", c.usec, c.pid, got, ok, c.want, c.ok)
		}
	}
}
