package e2e

import (
	"database/sql"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"boxoffice/internal/clitest"
)

// blockRows counts the blocks in force, read straight from the file.
func blockRows(t *testing.T, data string) int {
	t.Helper()
	dbh, err := sql.Open("sqlite", "file:"+filepath.Join(data, "boxoffice.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer dbh.Close()
	var n int
	if err := dbh.QueryRow(`SELECT count(*) FROM seat_blocks WHERE blocked_by <> 'layout'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// showFreeCLI is a show's free count as `seats --json` prints it.
func showFreeCLI(t *testing.T, data, show string) (int, []map[string]any) {
	t.Helper()
	code, out, errOut := runCLI(t, data, "", "seats", show, "--json")
	if code != 0 {
		t.Fatalf("seats: %d %s", code, errOut)
	}
	var m struct {
		Show  clitest.Show     `json:"show"`
		Seats []map[string]any `json:"seats"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	var blocked []map[string]any
	for _, s := range m.Seats {
		if s["block"] != nil {
			blocked = append(blocked, s)
		}
	}
	return m.Show.Free, blocked
}

// TestCLI_Blocks: block and house seats from the command line; the free
// count drops by them, the built binary's `sell` of one exits 3, bad
// input exits non-zero with nothing written, and the check passes.
func TestCLI_Blocks(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	if code, _, errOut := runCLI(t, data, "", "init"); code != 0 {
		t.Fatal(errOut)
	}
	show := firstShowID(t, data)
	free, _ := showFreeCLI(t, data, show)
	for _, args := range [][]string{
		{"block", show, "E7", "e8", "--reason", "broken\x1b]0;x\x07"},
		{"house", show, "F7", "--reason", "press"},
	} {
		if code, out, errOut := runCLI(t, data, "", args...); code != 0 || !strings.Contains(out, "for show "+show) {
			t.Fatalf("%v: exit %d %s %s", args, code, out, errOut)
		}
	}
	after, blocked := showFreeCLI(t, data, show)
	if after != free-3 || len(blocked) != 3 {
		t.Fatalf("free %d -> %d, blocked %v", free, after, blocked)
	}
	if b := blocked[0]["block"].(map[string]any); blocked[0]["state"] != "blocked" || b["reason"] != "broken]0;x" || b["by"] != "system" {
		t.Fatalf("seat %v", blocked[0])
	}
	if blocked[2]["state"] != "house" || blocked[2]["block"].(map[string]any)["reason"] != "press" {
		t.Fatalf("house seat %v", blocked[2])
	}

	t.Run("SellExits3", func(t *testing.T) {
		bin := clitest.Binary(t)
		for _, seat := range []string{"E7", "F7"} {
			out, err := exec.Command(bin, "--data", data, "sell", show, seat, "--pay", "card").CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 3 || !strings.Contains(string(out), seat+" is not for sale") {
				t.Fatalf("sell %s: %v %s", seat, err, out)
			}
		}
		out, _ := exec.Command(bin, "--data", data, "sell", show, "E7", "--pay", "card", "--json").Output()
		var j struct {
			Error     string   `json:"error"`
			Taken     []string `json:"taken"`
			OutOfSale bool     `json:"out_of_sale"`
		}
		if err := json.Unmarshal(out, &j); err != nil || j.Error != "seats_taken" || !j.OutOfSale || len(j.Taken) != 1 {
			t.Fatalf("sell --json of a blocked seat: %v %s", err, out)
		}
	})

	t.Run("BadInput", func(t *testing.T) {
		if code, _, _ := runCLI(t, data, "", "sell", show, "E10", "--pay", "card", "--allow-single"); code != 0 {
			t.Fatal("sell E10")
		}
		n := blockRows(t, data)
		for _, c := range []struct {
			code int
			args []string
		}{
			{2, []string{"block", show}},
			{2, []string{"block", "seven", "E1"}},
			{2, []string{"block", show, "E1", "Z99"}},
			{2, []string{"block", show, "E1", "E7"}}, // E7 is blocked already
			{2, []string{"house", show, "E1", "--hall-wide"}},
			{2, []string{"unblock", show, "E1"}},
			{2, []string{"release-house", show, "E7"}},
			{3, []string{"block", show, "E1", "E10"}}, // E10 is sold
			{4, []string{"block", "99999", "E1"}},
		} {
			code, _, errOut := runCLI(t, data, "", c.args...)
			if code != c.code || errOut == "" {
				t.Errorf("%v: exit %d, want %d; stderr %q", c.args, code, c.code, errOut)
			}
		}
		if blockRows(t, data) != n {
			t.Fatalf("a refused command wrote a block")
		}
	})

	t.Run("Lift", func(t *testing.T) {
		for _, args := range [][]string{{"unblock", show, "E7", "E8"}, {"release-house", show, "F7"}} {
			if code, _, errOut := runCLI(t, data, "", args...); code != 0 {
				t.Fatalf("%v: %s", args, errOut)
			}
		}
		if got, blocked := showFreeCLI(t, data, show); got != free-1 || len(blocked) != 0 {
			t.Fatalf("free %d (want %d, E10 sold), blocked %v", got, free-1, blocked)
		}
		if code, out, errOut := runCLI(t, data, "", "check"); code != 0 {
			t.Fatalf("check: %s %s", out, errOut)
		}
	})
}
