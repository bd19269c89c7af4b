package db_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// A live database too damaged to open is still replaced (restoring it is
// what a backup is for), and kept byte for byte with its -wal, which the
// checkpoint could not fold in: nothing of it is thrown away.
func TestRestore_DamagedLive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, live := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	mustSell(t, s, show.ID, "a", "A1")
	backup := filepath.Join(t.TempDir(), "copy.db")
	if _, err := s.Backup(ctx, backup); err != nil {
		t.Fatal(err)
	}
	s.Close()
	damaged := bytes.Repeat([]byte("not a database "), 300)
	wal := []byte("the log of a damaged database")
	os.WriteFile(live, damaged, 0o600)
	os.WriteFile(live+"-wal", wal, 0o600)

	info, err := db.Restore(ctx, backup, live, db.RestoreOptions{Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(info.Kept); !bytes.Equal(got, damaged) {
		t.Fatalf("the kept copy is not the damaged file (%d bytes)", len(got))
	}
	if got, _ := os.ReadFile(info.Kept + "-wal"); !bytes.Equal(got, wal) {
		t.Fatalf("the kept log: %q", got)
	}
	if _, err := os.Stat(live + "-wal"); !os.IsNotExist(err) {
		t.Fatalf("the old log was left beside the restored database: %v", err)
	}
	if report, err := db.Verify(ctx, live); err != nil || !report.OK() || report.Bookings != 1 {
		t.Fatalf("the restored database: %+v %v", report, err)
	}
}

// A backup made with sealed ticket keys carries them; the database
// restored from it does not (the live database never holds them), and a
// plain backup carries none.
func TestStore_BackupWithKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, live := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	dir := t.TempDir()
	with, plain := filepath.Join(dir, "with.db"), filepath.Join(dir, "plain.db")
	if _, err := db.BackupWithKeys(ctx, s, with, "sealed keys"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Backup(ctx, plain); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for path, want := range map[string]string{with: "sealed keys", plain: "", live: ""} {
		if got, err := db.SealedTicketKeys(ctx, path); err != nil || got != want {
			t.Errorf("%s carries %q %v, want %q", filepath.Base(path), got, err, want)
		}
	}
	if report, err := db.Verify(ctx, with); err != nil || !report.OK() {
		t.Fatalf("the backup with keys: %+v %v", report, err)
	}
	if _, err := db.Restore(ctx, with, live, db.RestoreOptions{Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if got, err := db.SealedTicketKeys(ctx, live); err != nil || got != "" {
		t.Fatalf("the restored database carries %q %v", got, err)
	}
}

// A journal that is not one restore writes is refused by name, and no
// file is removed on its word; nothing opens the database meanwhile.
func TestRecoverRestore_ErrJournal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	live := filepath.Join(dir, "boxoffice.db")
	other := filepath.Join(dir, "ticket_key")
	os.WriteFile(other, []byte("1:00\n"), 0o600)
	for _, journal := range []string{
		`{"from":"x.db","kept":"ticket_key","step":"copying"}`,
		`{"from":"x.db","kept":"../boxoffice.db.replaced-20260101T000000Z","step":"copying"}`,
		`{"from":"x.db","kept":"","step":"half"}`,
		`not json`,
	} {
		os.WriteFile(live+".restore-journal", []byte(journal), 0o600)
		_, err := db.RecoverRestore(live)
		if booking.ErrorCode(err) != booking.EInternal || !strings.Contains(booking.ErrorMessage(err), "cannot be read") {
			t.Errorf("journal %s: %v", journal, err)
		}
		if _, err := os.Stat(other); err != nil {
			t.Fatalf("journal %s removed another file: %v", journal, err)
		}
	}
	if _, err := db.Open(live, dbtest.Options(db.Options{})); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("open with a restore pending: %v", err)
	}
}
