package e2e

import (
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// exitTailBound is how long a command may take to exit once it printed
// its answer: a person at a terminal, or a script running one command
// after another, should not notice the wait.
const exitTailBound = 300 * time.Millisecond

// exitTail runs the binary and returns how long it took to exit after the
// last byte of its output, and its output.
func exitTail(t *testing.T, bin string, args ...string) (time.Duration, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out []byte
	var last time.Time
	buf := make([]byte, 4096)
	for {
		n, err := stdout.Read(buf)
		if n > 0 {
			out, last = append(out, buf[:n]...), time.Now()
		}
		if err == io.EOF {
			break // the pipe closes when the process ends
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	if last.IsZero() {
		t.Fatalf("%v printed nothing", args)
	}
	return time.Since(last), string(out)
}

// Every command exits as soon as it has answered while another process
// holds a read transaction open on the file (a backup, a check, the
// sqlite3 shell), with commits in the WAL that reader still sees past.
// Before, Close waited in a TRUNCATE checkpoint for the reader to leave:
// about a second after every answer.
func TestCLI_ExitBesideAReader(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	show := firstShowID(t, data)
	code, out, errOut := runCLI(t, data, "", "sell", show, "G6", "G7", "--name", "Ann Moreau", "--json")
	var sold clitest.Booking
	if code != 0 || json.Unmarshal([]byte(out), &sold) != nil {
		t.Fatalf("sell: %d %s", code, errOut)
	}
	readHolder(t, filepath.Join(data, "boxoffice.db"))
	// A commit after the reader's snapshot: the WAL now holds frames the
	// reader must keep, so the WAL cannot be truncated until it leaves.
	if code, _, errOut := runCLI(t, data, "", "sell", show, "G8", "--pay", "card"); code != 0 {
		t.Fatalf("sell beside the reader: %d %s", code, errOut)
	}
	figures := map[string][]time.Duration{}
	for _, args := range [][]string{{"shows"}, {"seats", show}, {"booking", sold.Number}, {"find", "Ann Moreau"}} {
		name := args[0]
		for range 3 {
			tail, _ := exitTail(t, bin, append([]string{"--data", data}, args...)...)
			figures[name] = append(figures[name], tail)
		}
		slices.Sort(figures[name])
		t.Logf("%-8s exit after its answer: %v", name, figures[name])
		// The best of three, so a scheduling hiccup of a busy machine is
		// no failure; a wait on the reader is in every run.
		if best := figures[name][0]; best > exitTailBound {
			t.Errorf("%s exited %v after its answer beside a reader, want under %v", name, best, exitTailBound)
		}
	}
}
