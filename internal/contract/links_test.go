package contract_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The contract suite is backend-neutral, and so are its imports: it links
// neither driver, so pg's tests, which run it, link no SQLite (the SQLite
// openers are internal/dbtest's, which it must not import).
func TestContract_LinksNoDriver(t *testing.T) {
	for _, c := range []struct {
		args   []string
		banned []string
	}{
		{[]string{"list", "-deps", "boxoffice/internal/contract"}, []string{"boxoffice/db", "boxoffice/pg", "boxoffice/internal/dbtest", "modernc.org/sqlite"}},
		{[]string{"list", "-test", "-deps", "boxoffice/pg"}, []string{"boxoffice/db", "boxoffice/internal/dbtest", "modernc.org/sqlite"}},
	} {
		out, err := exec.Command("go", c.args...).CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(c.args, " "), err, out)
		}
		deps := strings.Fields(string(out))
		for _, b := range c.banned {
			if slices.Contains(deps, b) {
				t.Errorf("go %s lists %s", strings.Join(c.args, " "), b)
			}
		}
	}
}
