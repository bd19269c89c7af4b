package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// Every command refuses a data dir whose database is another program's,
// in words that say so and with exit 2, and leaves the file as it was;
// `--json` carries the code. The flags may come before the command.
func TestCLI_ForeignDatabaseUntouched(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	path := filepath.Join(data, "boxoffice.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`CREATE TABLE invoices (id INTEGER PRIMARY KEY); INSERT INTO invoices VALUES (7)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	before, _ := os.ReadFile(path)
	for _, args := range [][]string{{"shows"}, {"init"}, {"check"}, {"shows", "--json"}} {
		code, out, errOut := runCLI(t, data, "", args...)
		if code != 2 || !strings.Contains(out+errOut, "is a SQLite database of another program (tables invoices)") {
			t.Errorf("%v: exit %d, %q %q", args, code, out, errOut)
		}
		if args[len(args)-1] == "--json" && !strings.Contains(out+errOut, `"error": "invalid"`) {
			t.Errorf("--json: %q %q", out, errOut)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("the other program's database was changed")
	}
}
