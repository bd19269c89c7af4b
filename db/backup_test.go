package db_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

func TestStore_Backup(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
		show := firstShow(t, s)
		mustSell(t, s, show.ID, "a", "A1", "A2")
		mustSell(t, s, show.ID, "b", "B1")
		dir := t.TempDir()
		path := filepath.Join(dir, "copy.db")
		info, err := s.Backup(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Bookings != 2 || info.Bytes <= 0 || info.Path != path {
			t.Fatalf("info %+v", info)
		}
		report, err := db.Verify(ctx, path)
		if err != nil || !report.OK() || report.Bookings != 2 {
			t.Fatalf("the copy: %+v %v", report, err)
		}
		// Nothing but the copy is left beside it: no temporary file, and
		// no -wal (VACUUM INTO writes a self-contained file).
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Fatalf("left in the directory: %v", entries)
		}
		// The copy opens as a store and sells on.
		c := dbtest.Open(t, path, db.Options{SweepInterval: -1})
		mustSell(t, c, show.ID, "c", "C1")
	})
	t.Run("ErrExists", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
		path := filepath.Join(t.TempDir(), "copy.db")
		if err := os.WriteFile(path, []byte("keep me"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := s.Backup(ctx, path)
		if err == nil || !strings.Contains(booking.ErrorMessage(err), "never overwrites") {
			t.Fatalf("backup over a file: %v", err)
		}
		if got, _ := os.ReadFile(path); string(got) != "keep me" {
			t.Fatalf("the file was overwritten: %q", got)
		}
		if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
			t.Fatalf("left in the directory: %v", entries)
		}
	})
}

// Must show 5, second half: a copy damaged by hand — the partial unique
// index on live claims dropped and a second live claim slipped in — is
// named by seat.
func TestVerify_DamagedCopy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	b := mustSell(t, s, show.ID, "a", "D4", "D5")
	path := filepath.Join(t.TempDir(), "copy.db")
	if _, err := s.Backup(ctx, path); err != nil {
		t.Fatal(err)
	}
	raw := openRaw(t, path)
	for _, q := range []string{
		`DROP INDEX seat_claims_one_live`,
		`INSERT INTO seat_claims (show_id, seat_id, hold_id, status) SELECT show_id, seat_id, hold_id, 'held'
			FROM seat_claims WHERE booking_id = ` + itoa(b.ID) + ` AND seat_id = (SELECT id FROM seats WHERE label = 'D5' AND hall_id = ` + itoa(show.HallID) + `)`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()
	report, err := db.Verify(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if report.OK() || !slices.ContainsFunc(report.Problems, func(p string) bool { return strings.Contains(p, "seat D5 ") && strings.Contains(p, "2 live claims") }) {
		t.Fatalf("the damaged copy: %+v", report)
	}
}

func TestVerify_Err(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := db.Verify(ctx, filepath.Join(dir, "none.db")); booking.ErrorCode(err) != booking.ENotFound {
		t.Errorf("no file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.db")); err == nil {
		t.Error("Verify created the file it was asked to check")
	}
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, []byte(strings.Repeat("not a database ", 100)), 0o600)
	if _, err := db.Verify(ctx, junk); booking.ErrorCode(err) != booking.EInvalid {
		t.Errorf("not a database: %v", err)
	}
}

// CheckInvariants names a seat let in on two tickets.
func TestStore_CheckInvariants_AdmittedTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	first := mustSell(t, s, show.ID, "a", "F3")
	if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: first.Number}); err != nil {
		t.Fatal(err)
	}
	again := mustSell(t, s, show.ID, "b", "F3")
	dbtest.MustBeWhole(t, s)
	raw := openRaw(t, path)
	for _, id := range []int64{first.ID, again.ID} {
		if _, err := raw.Exec(`UPDATE tickets SET status = 'admitted', admitted_at = 1, admitted_by = 'dora' WHERE booking_id = ?`, id); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.CheckInvariants(ctx)
	if err != nil || !slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, "seat F3 was admitted on 2 tickets") }) {
		t.Fatalf("problems %q %v", got, err)
	}
}

// tamper is the hostile backup of invariant 17: an append-only trigger
// dropped, and a table and a trigger of someone else's that copy every
// new booking's phone number.
var tamper = []string{
	`DROP TRIGGER audit_no_delete`,
	`CREATE TABLE x (phone TEXT)`,
	`CREATE TRIGGER y AFTER INSERT ON bookings BEGIN INSERT INTO x VALUES (NEW.phone); END`,
}

// Invariant 17: a backup whose schema is not the one boxoffice's
// migrations make fails its check by name, and a restore of it is
// refused with the database it would replace left byte for byte as it
// was.
func TestVerify_TamperedSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, live := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	mustSell(t, s, show.ID, "a", "D4", "D5")
	path := filepath.Join(t.TempDir(), "copy.db")
	if _, err := s.Backup(ctx, path); err != nil {
		t.Fatal(err)
	}
	if report, err := db.Verify(ctx, path); err != nil || !report.OK() || len(report.Schema) != 0 {
		t.Fatalf("the untouched copy: %+v %v", report, err)
	}
	raw := openRaw(t, path)
	for _, q := range tamper {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()

	report, err := db.Verify(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"trigger audit_no_delete is missing", "table x is not boxoffice's", "trigger y is not boxoffice's"}
	if report.OK() || !slices.Equal(report.Schema, want) || !report.Unchecked {
		t.Fatalf("the tampered copy: %+v", report)
	}

	s.Close()
	before := fileHash(t, live)
	_, err = db.Restore(ctx, path, live, db.RestoreOptions{Now: time.Now()})
	if booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(booking.ErrorMessage(err), strings.Join(want, "; ")) {
		t.Fatalf("restore of the tampered copy: %v", err)
	}
	if fileHash(t, live) != before {
		t.Fatal("a refused restore changed the live database")
	}
	if kept, _ := filepath.Glob(live + ".replaced-*"); len(kept) != 0 {
		t.Fatalf("a refused restore kept %v", kept)
	}
}

// A trigger of boxoffice's name that does something else is named too;
// the tables being boxoffice's, the invariants are still checked.
func TestVerify_ChangedTrigger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	path := filepath.Join(t.TempDir(), "copy.db")
	if _, err := s.Backup(ctx, path); err != nil {
		t.Fatal(err)
	}
	raw := openRaw(t, path)
	for _, q := range []string{
		`DROP TRIGGER payments_no_update`,
		`CREATE TRIGGER payments_no_update BEFORE UPDATE ON payments WHEN 0 BEGIN SELECT 1; END`,
		`DROP INDEX seat_claims_one_live`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()
	report, err := db.Verify(ctx, path)
	want := []string{"index seat_claims_one_live is missing", "trigger payments_no_update is not as boxoffice makes it"}
	if err != nil || report.OK() || !slices.Equal(report.Schema, want) || report.Unchecked || len(report.Problems) != 0 {
		t.Fatalf("the changed copy: %+v %v", report, err)
	}
}
