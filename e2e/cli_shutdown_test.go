package e2e

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// lockEnv names the database the helper process below locks; with
// readEnv set too it holds a read instead.
const (
	lockEnv = "BOXOFFICE_TEST_HOLD_LOCK"
	readEnv = "BOXOFFICE_TEST_HOLD_READ"
)

// TestHelper_HoldWriteLock is not a test: run as a process of its own by
// TestCLI_ShutdownUnderHeldLock (the test binary again, with lockEnv
// set), it is another program holding the database's write lock: BEGIN
// IMMEDIATE, "locked" on stdout, and the lock kept until stdin closes.
// With readEnv set it holds a read transaction instead, as a backup or a
// check does (TestCLI_ExitBesideAReader).
func TestHelper_HoldWriteLock(t *testing.T) {
	path := os.Getenv(lockEnv)
	if path == "" {
		t.Skip("the lock-holding helper process of TestCLI_ShutdownUnderHeldLock")
	}
	dbh, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer dbh.Close()
	ctx := context.Background()
	conn, err := dbh.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if os.Getenv(readEnv) != "" {
		var n int
		if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM bookings").Scan(&n); err != nil {
			t.Fatal(err)
		}
	} else if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin)
	conn.ExecContext(ctx, "ROLLBACK")
}

// lockHolder starts the helper process on the database at path and
// returns once it holds the write lock; unlock lets it go and waits for
// the process to end.
func lockHolder(t *testing.T, path string) (unlock func()) {
	t.Helper()
	return holder(t, lockEnv+"="+path)
}

// readHolder is lockHolder for a read transaction: it returns once the
// helper process reads the database at path.
func readHolder(t *testing.T, path string) (unlock func()) {
	t.Helper()
	return holder(t, lockEnv+"="+path, readEnv+"=1")
}

// holder starts the helper process with env added to its environment.
func holder(t *testing.T, env ...string) (unlock func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelper_HoldWriteLock$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	locked := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "locked" {
				locked <- true
				io.Copy(io.Discard, stdout)
				return
			}
		}
		locked <- false
	}()
	select {
	case ok := <-locked:
		if !ok {
			cmd.Wait()
			t.Fatal("the helper process did not take its lock")
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the helper process did not take its lock in 30 s")
	}
	done := false
	unlock = func() {
		if !done {
			done = true
			stdin.Close()
			cmd.Wait()
		}
	}
	t.Cleanup(unlock)
	return unlock
}

// heldHold is a live hold as the database file has it.
type heldHold struct {
	id, show int64
	owner    string
	seats    []string
}

// liveHolds reads the live holds straight from the file.
func liveHolds(t *testing.T, path string) []heldHold {
	t.Helper()
	dbh, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer dbh.Close()
	rows, err := dbh.Query(`SELECT h.id, h.show_id, h.owner, s.label
		FROM holds h JOIN seat_claims c ON c.hold_id = h.id AND c.status = 'held' JOIN seats s ON s.id = c.seat_id
		WHERE h.status = 'held' ORDER BY h.id, s.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []heldHold
	for rows.Next() {
		var h heldHold
		var seat string
		if err := rows.Scan(&h.id, &h.show, &h.owner, &seat); err != nil {
			t.Fatal(err)
		}
		if n := len(out); n > 0 && out[n-1].id == h.id {
			out[n-1].seats = append(out[n-1].seats, seat)
			continue
		}
		h.seats = []string{seat}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// shutdownRig is a built binary, a data dir with Maria's key, and
// serve started on it.
type shutdownRig struct {
	t         *testing.T
	bin, data string
	key       string
	port      string
	srv       *exec.Cmd
	out       *clitest.SyncBuffer
}

func newShutdownRig(t *testing.T, bin string) *shutdownRig {
	t.Helper()
	dir := t.TempDir()
	r := &shutdownRig{t: t, bin: bin, data: filepath.Join(dir, "data"), key: filepath.Join(dir, "clerk")}
	sshKey(t, r.key)
	r.cli("", "init")
	r.cli("4321\n", "staff", "add", "Maria", "--role", "clerk", "--key-file", r.key+".pub")
	r.port = freePort(t)
	r.out = &clitest.SyncBuffer{}
	r.srv = exec.Command(bin, "--data", r.data, "serve", "--listen", "127.0.0.1:"+r.port)
	r.srv.Stdout, r.srv.Stderr = r.out, r.out
	if err := r.srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.srv.Process.Kill() })
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(r.out.String(), "Serving the counter") {
		if time.Now().After(deadline) {
			t.Fatalf("server did not start: %s", r.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return r
}

func (r *shutdownRig) cli(stdin string, args ...string) string {
	r.t.Helper()
	out, err := r.run(nil, stdin, args...)
	if err != nil {
		r.t.Fatalf("%v: %v %s", args, err, out)
	}
	return out
}

func (r *shutdownRig) run(env []string, stdin string, args ...string) (string, error) {
	cmd := exec.Command(r.bin, append([]string{"--data", r.data}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (r *shutdownRig) dbPath() string { return filepath.Join(r.data, "boxoffice.db") }

// holdTwo opens an SSH counter in a real terminal and holds the best two
// seats of tomorrow's first show.
func (r *shutdownRig) holdTwo() *tmuxTerm {
	r.t.Helper()
	tm := startTmux(r.t, 100, 30, "ssh", "-t", "-p", r.port, "-i", r.key,
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "127.0.0.1")
	tm.waitFor("Maria (clerk)", "Grand")
	tm.send("Right")
	tm.waitFor("Tomorrow", "Grand")
	tm.send("Enter")
	tm.waitFor("SCREEN")
	tm.send("2", "b")
	tm.waitFor("Holding 2")
	return tm
}

// stop sends SIGTERM and returns how long the server took to exit and
// its exit status.
func (r *shutdownRig) stop() (time.Duration, error) {
	r.t.Helper()
	start := time.Now()
	if err := r.srv.Process.Signal(syscall.SIGTERM); err != nil {
		r.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.srv.Wait() }()
	select {
	case err := <-done:
		return time.Since(start), err
	case <-time.After(60 * time.Second):
		r.t.Fatalf("server did not stop within 60 s of SIGTERM:\n%s", r.out.String())
	}
	return 0, nil
}

// SIGTERM while another process holds the database's write lock: serve
// exits 0 within 10 s (it took 25 s and 52 s before, and past ~46 s gave
// up its release), names every hold it could not release in its log,
// and those holds lapse by themselves: once the lock is let go and the
// hold time has passed, their seats sell, and check is clean. Without
// the lock, the same shutdown releases them. BOXOFFICE_SHUTDOWN_TRIES
// repeats the held-lock run for the README's figure.
func TestCLI_ShutdownUnderHeldLock(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	needTools(t, "ssh", "ssh-keygen", "tmux")
	bin := clitest.Binary(t)
	tries := 1
	if n, err := strconv.Atoi(os.Getenv("BOXOFFICE_SHUTDOWN_TRIES")); err == nil && n > 1 {
		tries = n
	}

	t.Run("WithoutLock", func(t *testing.T) {
		r := newShutdownRig(t, bin)
		r.holdTwo()
		if n := len(liveHolds(t, r.dbPath())); n != 1 {
			t.Fatalf("%d live holds before the shutdown, want 1", n)
		}
		took, err := r.stop()
		if err != nil || took > 10*time.Second {
			t.Fatalf("serve exited with %v after %v, want 0 within 10 s:\n%s", err, took, r.out.String())
		}
		if left := liveHolds(t, r.dbPath()); len(left) != 0 {
			t.Fatalf("holds left after a shutdown with the lock free: %+v\n%s", left, r.out.String())
		}
		t.Logf("shutdown with the lock free: %v", took.Round(time.Millisecond))
	})

	for try := 1; try <= tries; try++ {
		t.Run(fmt.Sprintf("HeldLock%d", try), func(t *testing.T) {
			r := newShutdownRig(t, bin)
			r.holdTwo()
			second := r.holdTwo() // a second session, the next best two
			before := liveHolds(t, r.dbPath())
			if len(before) != 2 {
				t.Fatalf("live holds before the shutdown: %+v, want two sessions' holds", before)
			}
			unlock := lockHolder(t, r.dbPath())
			// A write under way, stuck on the lock: the shutdown must not
			// wait it out (nor the sweeper's, which may be stuck too).
			second.send("+")
			time.Sleep(2 * time.Second)
			took, err := r.stop()
			if err != nil || took > 10*time.Second {
				t.Fatalf("serve exited with %v after %v under another process's lock, want 0 within 10 s:\n%s", err, took, r.out.String())
			}
			log := r.out.String()
			// Whether the extend reached the writer before SIGTERM depends
			// on the machine's load: said, not asserted (TestStore_GiveUpWaiting
			// in db checks that path itself).
			stuck := strings.Contains(log, "waiting for writes")
			for _, h := range before {
				line := ""
				for _, l := range strings.Split(log, "\n") {
					if strings.Contains(l, "hold not released") && strings.Contains(l, "hold="+strconv.FormatInt(h.id, 10)+" ") {
						line = l
					}
				}
				// The server names seats in seat-id order too.
				want := []string{"lapses by itself", "show=" + strconv.FormatInt(h.show, 10), `seats="` + strings.Join(h.seats, " ") + `"`, "owner=" + h.owner, "expires="}
				for _, w := range want {
					if !strings.Contains(line, w) {
						t.Errorf("hold %d (%v of %s) not named with %q in the log:\n%s", h.id, h.seats, h.owner, w, log)
					}
				}
			}
			if left := liveHolds(t, r.dbPath()); len(left) != 2 {
				t.Fatalf("holds left held: %+v, want both (the lock was held)", left)
			}
			t.Logf("shutdown under another process's write lock: %v, a write stuck on the lock: %v (with the lock free it is well under a second)", took.Round(time.Millisecond), stuck)

			// The lock let go and the hold time passed, the seats sell.
			unlock()
			later := []string{"BOXOFFICE_NOW=" + time.Now().Add(6*time.Minute).UTC().Format(time.RFC3339)}
			for _, h := range before {
				args := append([]string{"sell", strconv.FormatInt(h.show, 10)}, h.seats...)
				if out, err := r.run(later, "", append(args, "--pay", "card")...); err != nil {
					t.Fatalf("selling %v after the holds lapsed: %v %s", h.seats, err, out)
				}
			}
			if out, err := r.run(nil, "", "check"); err != nil {
				t.Fatalf("check: %v %s", err, out)
			}
		})
	}
}

// The counter in this terminal, SIGTERM while another process holds the
// write lock: it ends within 10 s, its log names the hold it could not
// release, and the seats sell once the lock is gone and the hold lapsed.
func TestCLI_CounterShutdownUnderHeldLock(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := clitest.Binary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if out, err := exec.Command(bin, "--data", data, "init").CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	pidFile := filepath.Join(dir, "pid")
	tm := startTmux(t, 100, 30, "sh", "-c", `echo $$ >"$1"; exec env BOXOFFICE_DATA="$2" TERM=xterm-256color "$3" 2>"$4"`,
		"sh", pidFile, data, bin, filepath.Join(dir, "counter.err"))
	tm.openTomorrow()
	tm.holdTwo()
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(data, "boxoffice.db")
	before := liveHolds(t, dbPath)
	if len(before) != 1 {
		t.Fatalf("live holds: %+v, want the counter's one", before)
	}

	unlock := lockHolder(t, dbPath)
	tm.send("+") // an extend, stuck on the lock
	time.Sleep(1500 * time.Millisecond)
	start := time.Now()
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for syscall.Kill(pid, 0) == nil {
		if time.Since(start) > 60*time.Second {
			t.Fatal("the counter did not end within 60 s of SIGTERM")
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(start)
	logs, _ := os.ReadFile(filepath.Join(data, "boxoffice.log"))
	if took > 10*time.Second {
		t.Fatalf("the counter took %v to end under another process's lock, want within 10 s:\n%s", took, logs)
	}
	h := before[0]
	for _, want := range []string{"hold not released", "lapses by itself", "hold=" + strconv.FormatInt(h.id, 10) + " ",
		`seats="` + strings.Join(h.seats, " ") + `"`, "owner=" + h.owner} {
		if !strings.Contains(string(logs), want) {
			t.Errorf("the counter's log lacks %q:\n%s", want, logs)
		}
	}
	t.Logf("the counter ended %v after SIGTERM under another process's write lock", took.Round(time.Millisecond))

	unlock()
	later := []string{"BOXOFFICE_NOW=" + time.Now().Add(6*time.Minute).UTC().Format(time.RFC3339)}
	cmd := exec.Command(bin, append([]string{"--data", data, "sell", strconv.FormatInt(h.show, 10)}, append(h.seats, "--pay", "card")...)...)
	cmd.Env = append(os.Environ(), later...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("selling %v after the hold lapsed: %v %s", h.seats, err, out)
	}
	if out, err := exec.Command(bin, "--data", data, "check").CombinedOutput(); err != nil {
		t.Fatalf("check: %v %s", err, out)
	}
}
