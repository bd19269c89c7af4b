package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The books on the command line: a film rated above rating.id_above is
// sold only with --id-checked (exit 2 without), and the check is audited;
// a "no sale" needs a reason; a day closes only with its shifts closed
// (exit 3 naming them), once (exit 3 again), and its report reads back
// unchanged.
func TestCLI_BooksAgeDrawerDayClose(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	show := firstShowID(t, data)
	for _, film := range []string{"1", "2", "3", "4", "5"} {
		if code, _, errOut := runCLI(t, data, "", "film", "edit", film, "--rating", "18"); code != 0 {
			t.Fatalf("film edit %s: %s", film, errOut)
		}
	}
	code, _, errOut := runCLI(t, data, "", "sell", show, "--best", "2", "--pay", "card")
	if code != 2 || !strings.Contains(errOut, "is rated 18: check the customer's ID, then confirm it (--id-checked).") {
		t.Fatalf("a sale of an 18 film without --id-checked: exit %d %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "sell", show, "--best", "2", "--pay", "card", "--id-checked"); code != 0 {
		t.Fatalf("with --id-checked: exit %d %s", code, errOut)
	}
	if _, out, _ := runCLI(t, data, "", "audit", "--limit", "5"); !strings.Contains(out, "id_check") {
		t.Fatalf("no id_check row in the audit trail:\n%s", out)
	}
	if code, _, _ := runCLI(t, data, "", "drawer", "open"); code != 2 {
		t.Fatalf("a no sale without a reason: exit %d", code)
	}
	if code, out, errOut := runCLI(t, data, "", "drawer", "open", "--reason", "change"); code != 0 || !strings.Contains(out, "No sale recorded: change.") {
		t.Fatalf("drawer open: exit %d %s %s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, data, "", "day", "close")
	if code != 3 || !strings.Contains(errOut, "1 shift(s) still open (#1 system)") {
		t.Fatalf("a day with a shift open: exit %d %q", code, errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "shift", "close", "--counted", "100"); code != 0 {
		t.Fatalf("shift close: %s", errOut)
	}
	code, closed, errOut := runCLI(t, data, "", "day", "close", "--csv")
	if code != 0 || !strings.Contains(closed, "card,1,") || !strings.Contains(closed, "cash to bank,,,,0.00,") {
		t.Fatalf("day close: exit %d %s %s", code, closed, errOut)
	}
	if code, _, errOut := runCLI(t, data, "", "day", "close"); code != 3 || !strings.Contains(errOut, "was closed already") {
		t.Fatalf("a second close: exit %d %q", code, errOut)
	}
	today := time.Now().Format(time.DateOnly)
	if code, again, _ := runCLI(t, data, "", "day", "report", today, "--csv"); code != 0 || again != closed {
		t.Fatalf("day report: exit %d\n%s\nwant\n%s", code, again, closed)
	}
}
