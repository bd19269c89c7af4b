package e2e

import (
	"database/sql"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// Issue 7, must show 2, with the shipped binary: while `serve` runs on a
// data dir with history, CLI commands (other processes) answer instead
// of waiting for the lock, and a second counter opens, signs in and
// sells. (How fast they answer is bench --scale's job, not a test's.)
func TestE2E_SecondCounterWhileServing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary, generates history, runs a server")
	}
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	cli := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(bin, append([]string{"--data", data}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v %s", args, err, out)
		}
		return string(out)
	}
	cli("init", "--demo-history", "14")
	var number string
	dbh, err := sql.Open("sqlite", "file:"+filepath.Join(data, "boxoffice.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	dbh.QueryRow(`SELECT number FROM bookings ORDER BY id LIMIT 1`).Scan(&number)
	dbh.Close()

	serverOut := &clitest.SyncBuffer{}
	srv := exec.Command(bin, "--data", data, "serve", "--listen", "127.0.0.1:"+freePort(t))
	srv.Stdout, srv.Stderr = serverOut, serverOut
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(serverOut.String(), "Serving the counter"); {
		if time.Now().After(deadline) {
			t.Fatalf("server did not start: %s", serverOut.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	for i := 0; i < 10; i++ {
		var shows []clitest.Show
		if err := json.Unmarshal([]byte(cli("shows", "--json")), &shows); err != nil {
			t.Fatal(err)
		}
		if out := cli("booking", number); !strings.Contains(out, number) {
			t.Fatalf("booking %s: %s", number, out)
		}
	}

	tm := startTmux(t, 100, 30, "env", "BOXOFFICE_DATA="+data, "TERM=xterm-256color", bin)
	tm.openTomorrow()
	tm.holdTwo()
	tm.send("Enter")
	tm.waitFor("Tendered")
	tm.send("Enter") // exact money: to the Sell step
	tm.waitFor("Sell 2 tickets")
	tm.send("Enter")
	tm.waitFor("Open a shift first", "Float") // the clerk's first cash sale
	tm.send("100", "Enter")
	tm.waitFor("Sold BO-")
	if strings.Contains(serverOut.String(), "database is locked") {
		t.Fatalf("the server hit a locked database:\n%s", serverOut.String())
	}
}
