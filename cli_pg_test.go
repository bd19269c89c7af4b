package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"boxoffice/internal/pgtest"
)

// --db (or BOXOFFICE_DB) puts the command line on PostgreSQL: init makes
// the demo cinema there, shows and sell and booking work on it, nothing is
// written to a SQLite file, and a command that works on the SQLite file
// says what to use instead. A --db that is not a PostgreSQL URL is a
// usage error before anything opens.
func TestCLI_OnPostgres(t *testing.T) {
	data := t.TempDir()
	code, _, errOut := runCLI(t, data, "", "--db", "mysql://x/y", "shows")
	if code != 2 || !strings.Contains(errOut, "--db wants a PostgreSQL URL") {
		t.Fatalf("a MySQL URL: exit %d, %q", code, errOut)
	}

	t.Setenv("BOXOFFICE_DB", pgtest.URL(t))
	if code, _, errOut := runCLI(t, data, "", "init"); code != 0 {
		t.Fatalf("init on PostgreSQL: exit %d %s", code, errOut)
	}
	show := grandShowID(t, data)
	code, out, errOut := runCLI(t, data, "", "sell", show, "D1", "D2", "--json")
	if code != 0 {
		t.Fatalf("sell: exit %d %s", code, errOut)
	}
	var sold struct {
		Number string `json:"booking"`
	}
	if err := json.Unmarshal([]byte(out), &sold); err != nil || sold.Number == "" {
		t.Fatalf("sell --json: %v %q", err, out)
	}
	code, _, errOut = runCLI(t, data, "", "sell", show, "D2", "--json")
	if code == 0 || !strings.Contains(errOut+out, "D2") {
		t.Fatalf("D2 sold twice: exit %d", code)
	}
	code, out, errOut = runCLI(t, data, "", "booking", sold.Number)
	if code != 0 || !strings.Contains(out, "D1") || !strings.Contains(out, "D2") {
		t.Fatalf("booking %s: exit %d %q %s", sold.Number, code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(data, "boxoffice.db")); err == nil {
		t.Fatal("a SQLite file was made in the data dir")
	}
	for _, args := range [][]string{
		{"backup", filepath.Join(t.TempDir(), "b.db")},
		{"restore", filepath.Join(t.TempDir(), "b.db")},
		{"check", filepath.Join(t.TempDir(), "b.db")},
		{"init", "--demo-history", "3"},
	} {
		code, _, errOut = runCLI(t, data, "", args...)
		if code == 0 || !strings.Contains(errOut, "SQLite") {
			t.Fatalf("%v on PostgreSQL: exit %d %q", args, code, errOut)
		}
	}
	if code, out, errOut := runCLI(t, data, "", "check"); code != 0 || !strings.Contains(out, "Invariants: every one holds") {
		t.Fatalf("check on PostgreSQL: exit %d %q %s", code, out, errOut)
	}
}
