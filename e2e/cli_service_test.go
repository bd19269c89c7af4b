//go:build unix

package e2e

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// serviceUnit is the systemd unit the repository ships, from this
// package's directory.
const serviceUnit = "../dist/boxoffice.service"

// unitValues reads a unit file's Key=Value lines of one section, in order;
// a key given more than once keeps each value.
func unitValues(t *testing.T, path, section string) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	in := false
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			in = line == "["+section+"]"
		case in:
			k, v, _ := strings.Cut(line, "=")
			out[k] = append(out[k], v)
		}
	}
	return out
}

// notifyListener is the service manager's end of NOTIFY_SOCKET: every
// datagram the server sends, in order.
type notifyListener struct {
	path string
	msgs chan string
}

func listenNotify(t *testing.T) *notifyListener {
	t.Helper()
	// A socket path must fit in 108 bytes: a short temp dir of its own.
	dir, err := os.MkdirTemp("", "sd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	n := &notifyListener{path: filepath.Join(dir, "notify"), msgs: make(chan string, 256)}
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: n.path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	go func() {
		buf := make([]byte, 4096)
		for {
			k, err := conn.Read(buf)
			if err != nil {
				close(n.msgs)
				return
			}
			n.msgs <- string(buf[:k])
		}
	}()
	return n
}

// next is the next datagram, failing after wait.
func (n *notifyListener) next(t *testing.T, wait time.Duration, what string) string {
	t.Helper()
	select {
	case m, ok := <-n.msgs:
		if !ok {
			t.Fatalf("the notify socket closed waiting for %s", what)
		}
		return m
	case <-time.After(wait):
		t.Fatalf("no %s within %s", what, wait)
	}
	return ""
}

// The shipped unit's command line, run as systemd would run it: NOTIFY_SOCKET
// at a socket the test listens on, a watchdog, stderr as the journal's
// stream. READY=1 comes once the SSH port answers with its banner, WATCHDOG=1
// pings follow at half the interval, SIGTERM brings STOPPING=1 and exit 0,
// and every log line carries its syslog priority and no time of its own.
func TestService_UnitNotifies(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	svc := unitValues(t, serviceUnit, "Service")
	for key, want := range map[string]string{"Type": "notify", "NotifyAccess": "main", "Restart": "on-failure",
		"NoNewPrivileges": "yes", "ProtectSystem": "strict", "PrivateTmp": "yes", "StateDirectory": "boxoffice", "User": "boxoffice"} {
		if got := svc[key]; len(got) != 1 || got[0] != want {
			t.Errorf("%s: %s=%q, want %q", serviceUnit, key, got, want)
		}
	}
	if len(svc["ExecStart"]) != 1 || len(svc["WatchdogSec"]) != 1 {
		t.Fatalf("%s: want one ExecStart and one WatchdogSec, have %q %q", serviceUnit, svc["ExecStart"], svc["WatchdogSec"])
	}
	bin := clitest.Binary(t)

	t.Run("Verify", func(t *testing.T) {
		tool, err := exec.LookPath("systemd-analyze")
		if err != nil {
			t.Skip("systemd-analyze is not installed (apt-get install systemd)")
		}
		// verify wants ExecStart's binary to exist: the unit as installed
		// here, beside the built binary.
		raw, err := os.ReadFile(serviceUnit)
		if err != nil {
			t.Fatal(err)
		}
		first := strings.Fields(svc["ExecStart"][0])[0]
		unit := filepath.Join(t.TempDir(), "boxoffice.service")
		if err := os.WriteFile(unit, []byte(strings.Replace(string(raw), "ExecStart="+first, "ExecStart="+bin, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(tool, "verify", unit).CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
		}
	})

	// ExecStart as the unit has it, the binary the one built, the data dir
	// and the address made the test's own.
	port := freePort(t)
	data := filepath.Join(t.TempDir(), "state")
	args := strings.Fields(svc["ExecStart"][0])
	args[0] = bin
	var sawData, sawListen bool
	for i := 1; i+1 < len(args); i++ {
		switch args[i] {
		case "--data":
			args[i+1], sawData = data, true
		case "--listen":
			args[i+1], sawListen = "127.0.0.1:"+port, true
		}
	}
	if !sawData || !sawListen || args[1] != "serve" {
		t.Fatalf("ExecStart %q: want serve with --data and --listen", svc["ExecStart"][0])
	}

	sock := listenNotify(t)
	logR, logW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer logR.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(logW.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	const watchdog = 400 * time.Millisecond
	srv := exec.Command(args[0], args[1:]...)
	srv.Env = append(os.Environ(), "NOTIFY_SOCKET="+sock.path, "WATCHDOG_USEC="+itoa(int(watchdog.Microseconds())),
		"JOURNAL_STREAM="+itoa(int(st.Dev))+":"+itoa(int(st.Ino)))
	out := &clitest.SyncBuffer{}
	srv.Stdout, srv.Stderr = out, logW
	began := time.Now()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	logW.Close()
	t.Cleanup(func() { srv.Process.Kill() })
	journal := make(chan []string, 1)
	go func() {
		var lines []string
		sc := bufio.NewScanner(logR)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		journal <- lines
	}()

	// A first start makes the data dir and the demo cinema before READY.
	ready := sock.next(t, 60*time.Second, "READY=1")
	if !strings.HasPrefix(ready, "READY=1\n") || !strings.Contains(ready, "STATUS=Serving the counter on 127.0.0.1:"+port) {
		t.Fatalf("first datagram %q, want READY=1 and a STATUS", ready)
	}
	readyAt := time.Since(began)
	// The moment READY arrives, the SSH port answers, and the server has
	// said on stdout that it serves (printed once the store is open, and
	// before READY: the line is in the pipe by then, though the goroutine
	// that copies the pipe into out may not have read it yet).
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), "Serving the counter"); {
		if time.Now().After(deadline) {
			t.Fatalf("READY=1 but the server never said it serves: stdout %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	dialed := time.Now()
	conn, err := net.DialTimeout("tcp", "127.0.0.1:"+port, 5*time.Second)
	if err != nil {
		t.Fatalf("READY=1 came but the port does not accept connections: %v", err)
	}
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	banner, err := bufio.NewReader(conn).ReadString('\n')
	conn.Close()
	if err != nil || !strings.HasPrefix(banner, "SSH-2.0-") {
		t.Fatalf("READY=1 came but the port gave no SSH banner: %q %v", banner, err)
	}
	t.Logf("READY=1 %s after start (a new data dir); the SSH banner %s after it", readyAt.Round(time.Millisecond), time.Since(dialed).Round(time.Millisecond))

	// Pings at half the interval: two within a few intervals.
	start := time.Now()
	for i := range 2 {
		if m := sock.next(t, 10*watchdog, "a WATCHDOG=1 ping"); m != "WATCHDOG=1" {
			t.Fatalf("ping %d: %q", i, m)
		}
	}
	t.Logf("2 watchdog pings in %s (WATCHDOG_USEC %s)", time.Since(start).Round(time.Millisecond), watchdog)

	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for {
		m := sock.next(t, 20*time.Second, "STOPPING=1")
		if m == "STOPPING=1" {
			break
		}
		if m != "WATCHDOG=1" {
			t.Fatalf("after SIGTERM: %q", m)
		}
	}
	if err := srv.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v\n%s", err, out.String())
	}

	lines := <-journal
	if len(lines) == 0 {
		t.Fatal("no log lines on the journal stream")
	}
	var stopped bool
	for _, l := range lines {
		if len(l) < 3 || l[0] != '<' || l[2] != '>' || !strings.Contains("3467", l[1:2]) || strings.Contains(l, "time=") {
			t.Errorf("journal line %q: want <PRIORITY> first and no time", l)
		}
		stopped = stopped || strings.HasPrefix(l, "<6>level=INFO msg=stopped")
	}
	if !stopped {
		t.Errorf("no <6> stopped line in the journal:\n%s", strings.Join(lines, "\n"))
	}
}
