package e2e

import (
	"database/sql"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// freePort returns a loopback port nobody listens on right now.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// needTools skips the test when a program it drives is not installed.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (apt-get install openssh-client tmux)", tool)
		}
	}
}

// sshKey makes a passphrase-less key pair at path and path.pub.
func sshKey(t *testing.T, path string) {
	t.Helper()
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
}

// commandLine runs bin with the global flags given before each command's
// own arguments, stdin on its input, and returns what it printed; a
// command that fails fails the test.
func commandLine(t *testing.T, bin string, global ...string) func(stdin string, args ...string) string {
	return func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append(append([]string{}, global...), args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v %s", args, err, out)
		}
		return string(out)
	}
}

// The shipped binary serves the counter; the system's own ssh client in a
// real terminal sells a seat; SIGTERM stops the server cleanly.
func TestE2E_ServeOverRealSSH(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	needTools(t, "ssh", "ssh-keygen", "tmux")
	bin := clitest.Binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	key := filepath.Join(dir, "clerk")
	sshKey(t, key)
	cli := commandLine(t, bin, "--data", data)
	cli("", "init")
	cli("4321\n", "staff", "add", "Maria", "--role", "clerk", "--key-file", key+".pub")

	port, metricsPort := freePort(t), freePort(t)
	serverOut := &clitest.SyncBuffer{}
	srv := exec.Command(bin, "--data", data, "serve", "--listen", "127.0.0.1:"+port, "--metrics", "127.0.0.1:"+metricsPort)
	srv.Stdout, srv.Stderr = serverOut, serverOut
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill() })
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(serverOut.String(), "Serving the counter") {
		if time.Now().After(deadline) {
			t.Fatalf("server did not start: %s", serverOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	tm := startTmux(t, 100, 30, "ssh", "-t", "-p", port, "-i", key,
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "127.0.0.1")
	tm.waitFor("Maria (clerk)", "Grand")
	tm.send("Right")
	tm.waitFor("Tomorrow", "Grand")
	tm.send("Enter")
	tm.waitFor("SCREEN")
	tm.send("/")
	tm.send("C5", "Enter")
	tm.waitFor("Holding 1")
	tm.send("Enter")
	tm.waitFor("Tendered")
	tm.send("Enter", "Enter")                 // Tendered (exact money) to Sell, sell
	tm.waitFor("Open a shift first", "Float") // Maria's first cash sale
	tm.send("100", "Enter")
	tm.waitFor("Sold BO-")
	checkSaleCounted(t, "http://127.0.0.1:"+metricsPort+"/metrics") // must show 6 (e2e_metrics_test.go)

	// Hold another seat, then stop the server under the live session.
	tm.send("Enter")
	tm.waitFor("Free  Sold", "Grand")
	tm.send("Enter")
	tm.waitFor("SCREEN")
	tm.send("2", "b")
	tm.waitFor("Holding 2")
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("server exit: %v\n%s", err, serverOut.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("server did not stop on SIGTERM:\n%s", serverOut.String())
	}
	if !strings.Contains(serverOut.String(), "fp=SHA256:") || !strings.Contains(serverOut.String(), "staff=Maria") {
		t.Errorf("connect not logged with fingerprint and name:\n%s", serverOut.String())
	}

	dbh, err := sql.Open("sqlite", "file:"+filepath.Join(data, "boxoffice.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer dbh.Close()
	var check string
	var bookings, held, sold int
	dbh.QueryRow(`PRAGMA integrity_check`).Scan(&check)
	dbh.QueryRow(`SELECT count(*) FROM bookings`).Scan(&bookings)
	dbh.QueryRow(`SELECT count(*) FROM holds WHERE status = 'held'`).Scan(&held)
	dbh.QueryRow(`SELECT count(*) FROM seat_claims WHERE status = 'sold'`).Scan(&sold)
	if check != "ok" || bookings != 1 || sold != 1 || held != 0 {
		t.Fatalf("integrity %q, bookings %d, sold %d, holds left %d", check, bookings, sold, held)
	}
}
