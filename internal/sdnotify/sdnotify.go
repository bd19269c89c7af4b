// Package sdnotify tells the service manager how the process is doing,
// the way sd_notify(3) does: one datagram of NAME=value lines to the
// unix socket named by NOTIFY_SOCKET. Outside systemd (no NOTIFY_SOCKET)
// every call does nothing, so a server calls it unconditionally.
//
// It is the protocol's few lines written out rather than a dependency:
// a unixgram write and two environment variables.
package sdnotify

import (
	"net"
	"os"
	"strconv"
	"time"
)

// States the server sends (see sd_notify(3)).
const (
	Ready    = "READY=1"    // startup finished: the server accepts connections
	Stopping = "STOPPING=1" // shutdown began
	Watchdog = "WATCHDOG=1" // still alive: the watchdog timer starts again
)

// maxState bounds a datagram: a status line is short, and a socket
// refuses datagrams over its buffer size anyway.
const maxState = 4096

// Notify sends state (one or more NAME=value lines) to the service
// manager. sent is false, with no error, when the process was not
// started with NOTIFY_SOCKET.
func Notify(state string) (sent bool, err error) {
	addr := os.Getenv("NOTIFY_SOCKET")
	if addr == "" {
		return false, nil
	}
	if len(state) > maxState {
		state = state[:maxState]
	}
	// A name starting with @ is in the abstract namespace: a leading NUL.
	if addr[0] == '@' {
		addr = "\x00" + addr[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: addr, Net: "unixgram"})
	if err != nil {
		return false, err
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(state)); err != nil {
		return false, err
	}
	return true, nil
}

// WatchdogInterval is how often the service manager wants WATCHDOG=1
// (WATCHDOG_USEC), when it wants it from this process (WATCHDOG_PID, if
// set, is this pid); ok is false when no watchdog is set. Ping at half of
// it, as sd_watchdog_enabled(3) advises.
func WatchdogInterval() (interval time.Duration, ok bool) {
	usec, err := strconv.ParseInt(os.Getenv("WATCHDOG_USEC"), 10, 64)
	if err != nil || usec <= 0 {
		return 0, false
	}
	if pid := os.Getenv("WATCHDOG_PID"); pid != "" && pid != strconv.Itoa(os.Getpid()) {
		return 0, false
	}
	return time.Duration(usec) * time.Microsecond, true
}
