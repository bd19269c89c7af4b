package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// damagePage zeroes the root page of one of the seats table's indexes in
// the data dir's database: the file still opens and the demo still
// reads, but SQLite's quick check finds the page.
func damagePage(t *testing.T, data string) {
	t.Helper()
	path := filepath.Join(data, "boxoffice.db")
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	var root, size int64
	err = raw.QueryRow(`SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'seats' ORDER BY name LIMIT 1`).Scan(&root)
	if err == nil {
		err = raw.QueryRow(`PRAGMA page_size`).Scan(&size)
	}
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(make([]byte, size), (root-1)*size); err != nil {
		t.Fatal(err)
	}
}

// init on a data dir whose database has a damaged page refuses it (exit
// 1) in the words of SQLite's quick check, and leaves
// the file as it was; on a whole file it says the cinema is there.
func TestCLI_InitErrDamaged(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	copyDemo(t, data)
	if code, out, stderr := runCLI(t, data, "", "init"); code != 0 || !strings.Contains(out, "The demo cinema is already there.") {
		t.Fatalf("init again on a whole file: exit %d %s %s", code, out, stderr)
	}
	damagePage(t, data)
	before, err := os.ReadFile(filepath.Join(data, "boxoffice.db"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, data, "", "init")
	if code != exitInternal || !strings.Contains(stderr, "boxoffice.db is damaged: ") || !strings.Contains(stderr, "Restore a backup (boxoffice restore FILE).") || strings.Contains(out, "already there") {
		t.Fatalf("init on a damaged page: exit %d\n%s%s", code, out, stderr)
	}
	after, err := os.ReadFile(filepath.Join(data, "boxoffice.db"))
	if err != nil || string(after) != string(before) {
		t.Fatalf("init changed the damaged file (%v)", err)
	}
	t.Logf("init says: %s", strings.TrimSpace(stderr))
}
