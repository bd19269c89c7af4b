package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// The week view of the shipped binary in a real terminal: a manager opens
// it (ctrl+g 3), another process moves a show and the open week repaints
// with it, then the manager moves the same show from the screen and the
// database holds the new start.
func TestE2E_ManagerWeek(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := clitest.Binary(t)
	data := filepath.Join(t.TempDir(), "data")
	tm := startTmux(t, 120, 40, "env", "BOXOFFICE_DATA="+data, "TERM=xterm-256color", bin)
	tm.signIn()
	tm.send("C-g")
	tm.waitFor("Shows: the week")
	tm.send("3")
	tm.waitFor("Hall Grand", "(1 of 3)")
	tm.send("Tab")
	tm.waitFor("Hall Screen 2", "(2 of 3)")
	tm.send("S-Tab")
	tm.waitFor("Hall Grand")

	// Tomorrow's first show in Grand, as the command line sees it.
	tomorrow := time.Now().AddDate(0, 0, 1).Format("2006-01-02")
	first := firstShowIn(t, bin, data, tomorrow, "Grand")
	if strings.Contains(tm.screen(), "07:05") {
		t.Fatalf("a show at 07:05 before any move:\n%s", tm.screen())
	}
	out, err := exec.Command(bin, "--data", data, "show", "move", itoa(int(first)), "--at", tomorrow+" 07:05").CombinedOutput()
	if err != nil {
		t.Fatalf("show move: %v %s", err, out)
	}
	tm.waitFor("07:05")

	// Tomorrow's column, its first row: the show just moved. Move it again
	// from the screen: nobody booked it, so nothing is asked.
	tm.send("Right")
	tm.waitFor("Show " + itoa(int(first)) + " ·")
	tm.send("m")
	tm.waitFor("Move show " + itoa(int(first)))
	tm.send("Tab", "C-u", "07:35", "Enter")
	tm.waitFor("Moved show "+itoa(int(first)), "07:35")
	if got := startOf(t, bin, data, tomorrow, first); got != "07:35" {
		t.Fatalf("show %d starts at %s in the database, want 07:35", first, got)
	}
}

type e2eShow struct {
	ID    int64  `json:"id"`
	Hall  string `json:"hall"`
	Start string `json:"start"`
}

func dayShows(t *testing.T, bin, data, day string) []e2eShow {
	t.Helper()
	out, err := exec.Command(bin, "--data", data, "shows", "--date", day, "--json").Output()
	if err != nil {
		t.Fatalf("shows: %v %s", err, out)
	}
	var shows []e2eShow
	if err := json.Unmarshal(out, &shows); err != nil {
		t.Fatalf("shows --json: %v\n%s", err, out)
	}
	return shows
}

func firstShowIn(t *testing.T, bin, data, day, hall string) int64 {
	t.Helper()
	for _, sh := range dayShows(t, bin, data, day) {
		if sh.Hall == hall {
			return sh.ID
		}
	}
	t.Fatalf("no show in %s on %s", hall, day)
	return 0
}

// startOf is show id's start, HH:MM local, as the command line lists it.
func startOf(t *testing.T, bin, data, day string, id int64) string {
	t.Helper()
	for _, sh := range dayShows(t, bin, data, day) {
		if sh.ID == id {
			st, err := time.Parse(time.RFC3339, sh.Start)
			if err != nil {
				t.Fatalf("start %q: %v", sh.Start, err)
			}
			return st.Local().Format("15:04")
		}
	}
	t.Fatalf("no show %d on %s", id, day)
	return ""
}
