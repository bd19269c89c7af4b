package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// Must show 2 across processes: a counter has tomorrow's first map open
// in a real terminal while `boxoffice block` (another process) blocks
// three of its seats: the map's free count drops by three within
// moments. Then the manager at the counter blocks one more with B and a
// reason, and the command line sees it.
func TestE2E_BlockReachesOpenCounter(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	if out, err := exec.Command(bin, "--data", data, "init").CombinedOutput(); err != nil {
		t.Fatalf("init: %v %s", err, out)
	}
	out, err := exec.Command(bin, "--data", data, "shows", "--date", time.Now().AddDate(0, 0, 1).Format("2006-01-02"), "--json").Output()
	var shows []clitest.Show
	if err != nil || json.Unmarshal(out, &shows) != nil || len(shows) == 0 {
		t.Fatalf("shows: %v %s", err, out)
	}
	first := shows[0]
	show := strconv.FormatInt(first.ID, 10)
	tm := startTmux(t, 100, 30, "env", "BOXOFFICE_DATA="+data, "TERM=xterm-256color", bin)
	tm.signIn()
	tm.tomorrow(first.Hall)
	tm.send("Enter")
	tm.waitFor("SCREEN", "free "+itoa(first.Free)+"/")

	if out, err := exec.Command(bin, "--data", data, "block", show, "E7", "E8", "E9", "--reason", "broken").CombinedOutput(); err != nil {
		t.Fatalf("block: %v %s", err, out)
	}
	tm.waitFor("free "+itoa(first.Free-3)+"/", "# blocked")

	tm.send("/", "K5", "Enter") // holds K5: the selection B acts on
	tm.waitFor("Holding 1")
	tm.send("B")
	tm.waitFor("Block K5 — reason:")
	tm.send("wobbly", "Enter")
	tm.waitFor("Blocked: K5.", "free "+itoa(first.Free-4)+"/")
	out, err = exec.Command(bin, "--data", data, "seats", show, "--json").Output()
	var m struct {
		Show clitest.Show `json:"show"`
	}
	if err != nil || json.Unmarshal(out, &m) != nil || m.Show.Free != first.Free-4 {
		t.Fatalf("seats after the counter's block: %v %s", err, out)
	}
}
