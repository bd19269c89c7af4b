package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"boxoffice/internal/clitest"
)

// checkJSON reads check --json.
type checkJSON struct {
	Bookings  int64    `json:"bookings"`
	Integrity []string `json:"integrity"`
	Schema    []string `json:"schema"`
	Problems  []string `json:"problems"`
	Unchecked bool     `json:"invariants_unchecked"`
	OK        bool     `json:"ok"`
}

func mustCheck(t *testing.T, data string, args ...string) checkJSON {
	t.Helper()
	code, out, errOut := runCLI(t, data, "", append([]string{"check", "--json"}, args...)...)
	var r checkJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("check %v: exit %d, %v %q %q", args, code, err, out, errOut)
	}
	if r.OK != (code == 0) {
		t.Fatalf("check %v: exit %d but ok %v", args, code, r.OK)
	}
	return r
}

func mustRun(t *testing.T, data string, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(t, data, "", args...)
	if code != 0 {
		t.Fatalf("%v: exit %d, %s%s", args, code, out, errOut)
	}
	return out
}

func TestCLI_BackupCheckRestore(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	show := firstShowID(t, data)
	mustRun(t, data, "sell", show, "--best", "2", "--pay", "card")
	copyPath := filepath.Join(t.TempDir(), "monday.db")

	out := mustRun(t, data, "backup", copyPath)
	if !strings.Contains(out, "Backed up 1 booking to "+copyPath) || !strings.Contains(out, "every invariant holds") {
		t.Fatalf("backup said %q", out)
	}
	// Never over a file, not even its own backup: exit 1, the file as it was.
	before, _ := os.ReadFile(copyPath)
	code, _, errOut := runCLI(t, data, "", "backup", copyPath)
	if after, _ := os.ReadFile(copyPath); code != exitInternal || !strings.Contains(errOut, "never overwrites") || string(after) != string(before) {
		t.Fatalf("a second backup to the same file: exit %d, %q", code, errOut)
	}
	if r := mustCheck(t, data); !r.OK || r.Bookings != 1 {
		t.Fatalf("check of the data dir: %+v", r)
	}
	if r := mustCheck(t, data, copyPath); !r.OK || r.Bookings != 1 {
		t.Fatalf("check of the backup: %+v", r)
	}

	mustRun(t, data, "sell", show, "--best", "3", "--pay", "card")
	out = mustRun(t, data, "restore", copyPath)
	if !strings.Contains(out, "Restored 1 booking from "+copyPath) || !strings.Contains(out, "kept as ") {
		t.Fatalf("restore said %q", out)
	}
	if r := mustCheck(t, data); !r.OK || r.Bookings != 1 {
		t.Fatalf("after the restore: %+v", r)
	}
	kept, _ := filepath.Glob(filepath.Join(data, "boxoffice.db.replaced-*"))
	if len(kept) != 1 {
		t.Fatalf("kept %v", kept)
	}
	if r := mustCheck(t, data, kept[0]); !r.OK || r.Bookings != 2 {
		t.Fatalf("the replaced database, kept: %+v", r)
	}
	// The restored database sells on.
	mustRun(t, data, "sell", show, "--best", "2", "--pay", "card")
	if r := mustCheck(t, data); !r.OK || r.Bookings != 2 {
		t.Fatalf("a sale after the restore: %+v", r)
	}
}

// A file that is not a sound boxoffice database is refused before
// anything is touched.
func TestCLI_RestoreErrBadFile(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	show := firstShowID(t, data)
	mustRun(t, data, "sell", show, "--best", "2", "--pay", "card")
	junk := filepath.Join(t.TempDir(), "junk.db")
	os.WriteFile(junk, []byte(strings.Repeat("junk ", 1000)), 0o600)
	damaged := damagedCopy(t, data)
	for file, want := range map[string]int{junk: exitUsage, damaged: exitUsage, filepath.Join(t.TempDir(), "none.db"): exitNotFound} {
		code, _, errOut := runCLI(t, data, "", "restore", file)
		if code != want || errOut == "" {
			t.Errorf("restore %s: exit %d (want %d), %q", file, code, want, errOut)
		}
	}
	if kept, _ := filepath.Glob(filepath.Join(data, "*.replaced-*")); len(kept) != 0 {
		t.Errorf("a refused restore kept %v", kept)
	}
	if r := mustCheck(t, data); !r.OK || r.Bookings != 1 {
		t.Fatalf("after refused restores: %+v", r)
	}
}

// damagedCopy backs the data dir up and damages the copy by hand as must
// show 5 says: the partial unique index on live claims dropped and a
// second live claim slipped in for one sold seat. It returns the copy and
// the seat's label.
func damagedCopy(t *testing.T, data string) string {
	t.Helper()
	path, _ := damagedCopySeat(t, data)
	return path
}

func damagedCopySeat(t *testing.T, data string) (string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "damaged.db")
	mustRun(t, data, "backup", path)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var label string
	if err := raw.QueryRow(`SELECT s.label FROM seat_claims c JOIN seats s ON s.id = c.seat_id WHERE c.status = 'sold' ORDER BY c.id LIMIT 1`).Scan(&label); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DROP INDEX seat_claims_one_live`,
		`INSERT INTO seat_claims (show_id, seat_id, hold_id, status) SELECT show_id, seat_id, hold_id, 'held' FROM seat_claims WHERE status = 'sold' ORDER BY id LIMIT 1`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return path, label
}

// Must show 5, second half: check on a copy damaged by hand names the
// seat and exits non-zero, as a file and as a data dir's database.
func TestCLI_CheckDamagedCopy(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	show := firstShowID(t, data)
	mustRun(t, data, "sell", show, "--best", "2", "--pay", "card")
	path, seat := damagedCopySeat(t, data)

	code, out, _ := runCLI(t, data, "", "check", path)
	if code != exitInternal || !strings.Contains(out, "Invariant broken: show "+show+" seat "+seat+" ") || !strings.Contains(out, "2 live claims") {
		t.Fatalf("check of the damaged copy: exit %d, %q", code, out)
	}
	other := filepath.Join(t.TempDir(), "data")
	os.MkdirAll(other, 0o700)
	if err := os.Rename(path, filepath.Join(other, "boxoffice.db")); err != nil {
		t.Fatal(err)
	}
	if r := mustCheck(t, other); r.OK || len(r.Problems) != 1 || !strings.Contains(r.Problems[0], "seat "+seat+" ") {
		t.Fatalf("check --json of the damaged data dir: %+v", r)
	}
	if r := mustCheck(t, data); !r.OK {
		t.Fatalf("the original: %+v", r)
	}
}

// check never makes a data dir or a database it was asked to check.
func TestCLI_CheckErrNoDatabase(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	code, _, errOut := runCLI(t, data, "", "check")
	if code != exitNotFound || !strings.Contains(errOut, "No database at") {
		t.Fatalf("check of nothing: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Fatalf("check made the data dir: %v", err)
	}
}

// restore refuses while a server holds the data dir, and changes nothing;
// once the server has stopped it goes ahead.
func TestCLI_RestoreErrWhileServing(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	show := firstShowID(t, data)
	mustRun(t, data, "sell", show, "--best", "2", "--pay", "card")
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	mustRun(t, data, "backup", copyPath)
	mustRun(t, data, "sell", show, "--best", "2", "--pay", "card")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, errb := &clitest.SyncBuffer{}, &clitest.SyncBuffer{}
	served := make(chan error, 1)
	go func() {
		served <- run(ctx, []string{"--data", data, "serve", "--listen", "127.0.0.1:0"}, strings.NewReader(""), out, errb)
	}()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(out.String(), "Serving"); {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %q %q", out.String(), errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	code, _, errOut := runCLI(t, data, "", "restore", copyPath)
	if code != exitConflict || !strings.Contains(errOut, "stop it before restoring") {
		t.Fatalf("restore while serving: exit %d, %q", code, errOut)
	}
	if r := mustCheck(t, data); r.Bookings != 2 {
		t.Fatalf("a refused restore changed the database: %+v", r)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	mustRun(t, data, "restore", copyPath)
	if r := mustCheck(t, data); !r.OK || r.Bookings != 1 {
		t.Fatalf("after the server stopped: %+v", r)
	}
}

// Invariant 17 through the command line: a backup with an append-only
// trigger dropped and a table and a trigger of someone else's added
// fails check FILE by name, and restore refuses it with the data dir's
// database left byte for byte as it was.
func TestCLI_RestoreErrTamperedSchema(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	show := firstShowID(t, data)
	mustRun(t, data, "sell", show, "--best", "2", "--pay", "card")
	path := filepath.Join(t.TempDir(), "tampered.db")
	mustRun(t, data, "backup", path)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`DROP TRIGGER audit_no_delete`,
		`CREATE TABLE x (phone TEXT)`,
		`CREATE TRIGGER y AFTER INSERT ON bookings BEGIN INSERT INTO x VALUES (NEW.phone); END`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()
	named := []string{"trigger audit_no_delete is missing", "table x is not boxoffice's", "trigger y is not boxoffice's"}

	code, out, _ := runCLI(t, data, "", "check", path)
	if code != exitInternal || !strings.Contains(out, "Invariants: not checked") {
		t.Fatalf("check of the tampered copy: exit %d, %q", code, out)
	}
	for _, n := range named {
		if !strings.Contains(out, "Schema: "+n+"\n") {
			t.Errorf("check does not say %q:\n%s", n, out)
		}
	}

	live := filepath.Join(data, "boxoffice.db")
	before, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, data, "", "restore", path)
	if code != exitUsage || !strings.Contains(errOut, strings.Join(named, "; ")) {
		t.Fatalf("restore of the tampered copy: exit %d, %q", code, errOut)
	}
	if after, _ := os.ReadFile(live); string(after) != string(before) {
		t.Fatal("a refused restore changed the data dir's database")
	}
	if kept, _ := filepath.Glob(filepath.Join(data, "*.replaced-*")); len(kept) != 0 {
		t.Fatalf("a refused restore kept %v", kept)
	}
	if r := mustCheck(t, data); !r.OK || r.Bookings != 1 {
		t.Fatalf("after the refused restore: %+v", r)
	}
	// The same file as a data dir's live database: check names the same.
	other := filepath.Join(t.TempDir(), "data")
	os.MkdirAll(other, 0o700)
	if err := os.Rename(path, filepath.Join(other, "boxoffice.db")); err != nil {
		t.Fatal(err)
	}
	if r := mustCheck(t, other); r.OK || !slices.Equal(r.Schema, named) || !r.Unchecked {
		t.Fatalf("check --json of the tampered data dir: %+v", r)
	}
}
