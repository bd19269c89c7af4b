package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// A first start killed at any moment — while the data dir, the ticket
// key, the database file, its migrations or the demo cinema are being
// made — leaves nothing that breaks the next start: for a spread of kill
// times, `init` is killed, and then `shows` on the same data dir lists
// the demo's shows and `check` finds the database whole.
func TestCLI_BootstrapKilledAnywhere(t *testing.T) {
	t.Parallel()
	bin := clitest.Binary(t)
	// How long a whole init takes here, to spread the kills across it.
	full := runTimed(t, bin, filepath.Join(t.TempDir(), "data"), "init")
	steps := 12
	for i := range steps {
		data := filepath.Join(t.TempDir(), "data")
		after := full * time.Duration(i) / time.Duration(steps)
		cmd := exec.Command(bin, "--data", data, "init")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(after)
		cmd.Process.Kill()
		cmd.Wait()
		out, err := exec.Command(bin, "--data", data, "shows").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "The Lighthouse Keeper") {
			t.Fatalf("after init killed at %v: shows says %v\n%s", after, err, out)
		}
		if out, err := exec.Command(bin, "--data", data, "check").CombinedOutput(); err != nil {
			t.Fatalf("after init killed at %v: check says %v\n%s", after, err, out)
		}
	}
}

// runTimed runs bin with args on data and returns how long it took.
func runTimed(t *testing.T, bin, data string, args ...string) time.Duration {
	t.Helper()
	start := time.Now()
	if out, err := exec.Command(bin, append([]string{"--data", data}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return time.Since(start)
}
