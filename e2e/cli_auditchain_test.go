package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"boxoffice/internal/clitest"
)

// TestCLI_CheckAuditChainBroken is issue 27's must-show 5: with the file
// in hand, the sqlite3 shell drops the trigger that keeps audit rows and
// deletes row 5; check on the real binary then exits non-zero naming the
// first broken link of the audit chain, where before it said clean. The
// backup taken before prints the chain head, the anchor kept apart.
func TestCLI_CheckAuditChainBroken(t *testing.T) {
	t.Parallel()
	shell, err := exec.LookPath("sqlite3")
	if err != nil {
		t.Skip("sqlite3 is not installed (.ci/run installs it)")
	}
	bin := clitest.Binary(t)
	data := t.TempDir()
	show := firstShowID(t, data)
	for range 3 {
		if code, _, stderr := runCLI(t, data, "", "sell", show, "--best", "2", "--tendered", "100"); code != 0 {
			t.Fatalf("sell: exit %d: %s", code, stderr)
		}
	}
	check := func() (int, string) {
		out, err := exec.Command(bin, "--data", data, "check").CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	if code, out := check(); code != 0 || !strings.Contains(out, "Audit chain head: row ") {
		t.Fatalf("check before tampering: exit %d\n%s", code, out)
	}
	code, out, stderr := runCLI(t, data, "", "backup", filepath.Join(t.TempDir(), "before.db"))
	if code != 0 || !strings.Contains(out, "Audit chain head: row ") {
		t.Fatalf("backup: exit %d\n%s%s", code, out, stderr)
	}
	db := filepath.Join(data, "boxoffice.db")
	if out, err := exec.Command(shell, "-bail", db, `SELECT count(*) FROM audit WHERE id > 5`).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) == "0" {
		t.Fatalf("fewer than 6 audit rows to tamper with (%v): %s", err, out)
	}
	if out, err := exec.Command(shell, "-bail", db, `DROP TRIGGER audit_no_delete; DELETE FROM audit WHERE id = 5;`).CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v: %s", err, out)
	}
	code, out = check()
	if code == 0 || !strings.Contains(out, "the audit chain is broken at row 6: it does not follow row 4") {
		t.Fatalf("check after deleting audit row 5: exit %d, want non-zero naming the broken link\n%s", code, out)
	}
	t.Logf("check after the delete: exit %d\n%s", code, out)
}
