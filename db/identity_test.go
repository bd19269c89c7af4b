package db_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(raw)
}

// openRefused opens path and wants a refusal of code naming want.
func openRefused(t *testing.T, path, code, want string) {
	t.Helper()
	s, err := db.Open(path, dbtest.Options(db.Options{}))
	if err == nil {
		s.Close()
		t.Fatalf("%s opened", path)
	}
	if booking.ErrorCode(err) != code || !strings.Contains(booking.ErrorMessage(err), want) {
		t.Fatalf("open %s: %s %q, want %s with %q", path, booking.ErrorCode(err), booking.ErrorMessage(err), code, want)
	}
}

// A SQLite file of another program is refused and left byte for byte as
// it was (its journal mode included).
func TestOpen_ForeignFileUntouched(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "boxoffice.db")
	raw := openRaw(t, path)
	if _, err := raw.Exec(`CREATE TABLE invoices (id INTEGER PRIMARY KEY, total INTEGER); INSERT INTO invoices VALUES (1, 100)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	before := fileHash(t, path)
	openRefused(t, path, booking.EInvalid, "is a SQLite database of another program (tables invoices)")
	if fileHash(t, path) != before {
		t.Fatal("the refused file was changed")
	}
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + side); err == nil {
			t.Errorf("refusing left a %s file", side)
		}
	}
}

// A database a newer boxoffice wrote is refused with both schema numbers;
// one of ours is marked as such in the SQLite header.
func TestOpen_NewerSchema(t *testing.T) {
	t.Parallel()
	s, path := dbtest.MustOpenEmpty(t, db.Options{})
	s.Close()
	raw := openRaw(t, path)
	var id int64
	if err := raw.QueryRow(`PRAGMA application_id`).Scan(&id); err != nil || id != 0x42584F46 {
		t.Fatalf("application id %#x, %v", id, err)
	}
	next := db.SchemaVersion() + 1
	if _, err := raw.Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)`, next); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	openRefused(t, path, booking.EInvalid, fmt.Sprintf("written by a newer boxoffice (schema %d > %d): upgrade boxoffice", next, db.SchemaVersion()))
}

// Garbage is not a database; a damaged schema page is named with what
// SQLite's integrity check says. Neither is written to.
func TestOpen_NotOursOrDamaged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte(strings.Repeat("not a cinema ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	openRefused(t, junk, booking.EInvalid, "junk.db is not a database")

	s, path := dbtest.MustOpen(t, db.Options{})
	s.Close()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Keep the 100-byte header, wreck the rest of page 1 (the schema).
	for i := 100; i < 4096 && i < len(raw); i++ {
		raw[i] = 0x5a
	}
	damaged := filepath.Join(dir, "damaged.db")
	if err := os.WriteFile(damaged, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	before := fileHash(t, damaged)
	openRefused(t, damaged, booking.EDamaged, "damaged.db is damaged: ")
	if fileHash(t, damaged) != before {
		t.Fatal("the damaged file was changed")
	}
}

// A file or a directory this process cannot write is named. Root writes
// anywhere, so the test mounts a read-only view of the data dir (CI runs
// as root) and skips where it cannot mount.
func TestOpen_ReadOnly(t *testing.T) {
	t.Parallel()
	s, path := dbtest.MustOpen(t, db.Options{})
	s.Close()
	view := filepath.Join(t.TempDir(), "view")
	if err := os.Mkdir(view, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "--bind", filepath.Dir(path), view).CombinedOutput(); err != nil {
		t.Skipf("cannot bind-mount here (%v: %s)", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", view).Run() })
	if out, err := exec.Command("mount", "-o", "remount,ro,bind", view).CombinedOutput(); err != nil {
		t.Skipf("cannot remount read-only here (%v: %s)", err, out)
	}
	openRefused(t, filepath.Join(view, "boxoffice.db"), booking.EInvalid, "view/boxoffice.db: it is read-only")
	if _, err := db.Open(filepath.Join(view, "new.db"), dbtest.Options(db.Options{})); booking.ErrorCode(err) != booking.EInvalid ||
		!strings.Contains(booking.ErrorMessage(err), "Cannot write "+view) {
		t.Fatalf("a new file in a read-only directory: %v", err)
	}
}

// A store on a full disk refuses a sale in words a clerk understands,
// keeps every sale it acknowledged, and sells again once space is freed.
// The disk is a small tmpfs (CI runs as root); skipped where it cannot be
// mounted.
func TestStore_DiskFull(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (%v: %s)", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	path := filepath.Join(dir, "boxoffice.db")
	clock := storetest.FixedClock()
	s := dbtest.Open(t, path, db.Options{Clock: clock.Now, SweepInterval: -1})
	dbtest.MustSeed(t, s, storetest.Seed(clock.Now()), false)
	show := firstShow(t, s)
	// Fill the disk but for a little.
	filler := filepath.Join(dir, "filler")
	fillDisk(t, filler)

	ctx := context.Background()
	var sold []*booking.Booking
	var full error
	for _, row := range []string{"A", "B", "C", "D", "E", "F"} {
		for n := 1; n <= 10 && full == nil; n++ {
			seat := fmt.Sprint(row, n)
			h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{seat}, Owner: "o" + seat})
			if err == nil {
				var b *booking.Booking
				b, err = s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "o" + seat, IdempotencyKey: "k" + seat, Method: booking.Card,
					Customer: strings.Repeat("x", 80)})
				if err == nil {
					sold = append(sold, b)
				}
			}
			if err != nil {
				full = err
			}
		}
	}
	if booking.ErrorCode(full) != booking.EDiskFull || booking.ErrorMessage(full) != "The disk is full: nothing was saved. Free space and try again." {
		t.Fatalf("after %d sales: %s %q", len(sold), booking.ErrorCode(full), booking.ErrorMessage(full))
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	b := mustSell(t, s, show.ID, "after", "J9")
	for _, want := range append(sold, b) {
		if got, err := s.Booking(ctx, clerk, want.Number); err != nil || got.Total != want.Total {
			t.Fatalf("booking %s after the disk filled: %v", want.Number, err)
		}
	}
	dbtest.MustBeWhole(t, s)
}

// fillDisk writes path until the file system refuses, then gives back a
// few pages so the store can still start a transaction.
func fillDisk(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	var n int64
	for {
		w, err := f.Write(chunk)
		n += int64(w)
		if err != nil {
			break
		}
	}
	if err := f.Truncate(max(n-8*4096, 0)); err != nil {
		t.Fatal(err)
	}
}

// A first start killed in its first transaction, before it switched the
// file to WAL, leaves a hot rollback journal beside a file with boxoffice's
// first table. The next start rolls it back and makes the cinema, where a
// read-only look at the file alone would say "attempt to write a readonly
// database". The killed moment is made by copying the file and its journal
// while the writer's transaction is open: the copy is what a SIGKILL leaves.
func TestOpen_AfterAFirstStartKilledMidTransaction(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join(dir, "writer.db")
	w, err := sql.Open("sqlite", "file:"+src+"?_pragma=cache_size(2)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	ctx := context.Background()
	conn, err := w.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	// The transaction spills pages into the file, so the file alone is torn.
	for _, q := range []string{`BEGIN`, `INSERT INTO schema_migrations VALUES (1, 0)`, `CREATE TABLE meta (k TEXT, v BLOB)`,
		`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 400) INSERT INTO meta SELECT i, randomblob(2000) FROM n`} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(q, err)
		}
	}
	killed := filepath.Join(dir, "killed")
	if err := os.Mkdir(killed, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, suffix := range []string{"", "-journal"} {
		raw, err := os.ReadFile(src + suffix)
		if err != nil {
			t.Fatalf("the writer left no %q: %v", suffix, err)
		}
		if err := os.WriteFile(filepath.Join(killed, "boxoffice.db"+suffix), raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(killed, "boxoffice.db")
	s := dbtest.Open(t, path, db.Options{SweepInterval: -1})
	dbtest.MustSeed(t, s, storetest.Seed(storetest.FixedClock().Now()), false)
	if _, err := os.Stat(path + "-journal"); err == nil {
		t.Fatal("the hot journal is still there after the store opened")
	}
	dbtest.MustBeWhole(t, s)
}
