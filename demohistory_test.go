package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

func TestCLI_InitDemoHistory(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	code, out, errOut := runCLI(t, data, "", "init", "--demo-history", "1")
	if code != 0 || !strings.Contains(out, "bookings") || !strings.Contains(out, "Checked:") || !strings.Contains(out, "Playing 1 day of business") {
		t.Fatalf("init --demo-history: %d %s %s", code, out, errOut)
	}
	yesterday := time.Now().AddDate(0, 0, -1).Format("2006-01-02")
	code, out, _ = runCLI(t, data, "", "shows", "--date", yesterday, "--json")
	var shows []clitest.Show
	if code != 0 || jsonDecode(out, &shows) != nil || len(shows) == 0 {
		t.Fatalf("yesterday's shows: %d %s", code, out)
	}
	sold := 0
	for _, s := range shows {
		sold += s.Capacity - s.Free
	}
	if sold == 0 {
		t.Fatalf("no seats sold yesterday: %+v", shows)
	}
	if code, _, errOut := runCLI(t, data, "", "init", "--demo-history", "1"); code != exitConflict || !strings.Contains(errOut, "already holds sales") {
		t.Fatalf("a second history: %d %s", code, errOut)
	}
	for _, args := range [][]string{{"--demo-history", "-1"}, {"--demo-history", "99999"}, {"--no-demo", "--demo-history", "3"}} {
		if code, _, _ := runCLI(t, t.TempDir(), "", append([]string{"init"}, args...)...); code != exitUsage {
			t.Errorf("init %v: exit %d", args, code)
		}
	}
}

// A data dir that already sold something is refused before anything is
// written: no past programme is added.
func TestCLI_InitDemoHistory_RefusesSales(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	show := firstShowID(t, data)
	if code, _, errOut := runCLI(t, data, "", "sell", show, "A1", "A2"); code != 0 {
		t.Fatal(errOut)
	}
	if code, _, _ := runCLI(t, data, "", "init", "--demo-history", "5"); code != exitConflict {
		t.Fatalf("history over a sale: exit %d", code)
	}
	past := time.Now().AddDate(0, 0, -3).Format("2006-01-02")
	if code, out, _ := runCLI(t, data, "", "shows", "--date", past, "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("the refused history added shows: %s", out)
	}
}

func jsonDecode(s string, v any) error { return json.Unmarshal([]byte(s), v) }
