package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"boxoffice/booking"
)

// Backups, checks and restores of whole database files. A copy is made
// with VACUUM INTO: it reads the database in one read transaction of its
// own (WAL lets the writer go on committing meanwhile) and writes a
// compact, self-contained file (rollback journal, no -wal beside it), the
// consistent state of one instant. SQLite does not sync that file, so the
// copy is synced here, checked, and only then linked into place.

// roDSN opens path read-only and never creates it.
func roDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Set("mode", "ro")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Backup writes a checked copy of the database to path (booking.Upkeep).
// The copy is made beside path under a temporary name, synced, checked,
// and linked to path only if path still does not exist.
func (s *Store) Backup(ctx context.Context, path string) (booking.BackupInfo, error) {
	start := time.Now()
	info := booking.BackupInfo{Path: path}
	if err := refuseExisting(path); err != nil {
		return info, err
	}
	tmp, err := copyDatabase(ctx, s.path, path)
	if err != nil {
		return info, err
	}
	defer os.Remove(tmp)
	report, err := Verify(ctx, tmp)
	if err != nil {
		return info, err
	}
	if !report.OK() {
		return info, booking.Errorf(booking.EInvalid, "The copy failed its check, so no backup was written: %s", problemsText(report))
	}
	if err := linkNew(tmp, path); err != nil {
		return info, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return info, err
	}
	info.Bookings, info.Bytes, info.Took = report.Bookings, st.Size(), time.Since(start)
	return info, nil
}

// refuseExisting refuses a path that exists: a backup never overwrites.
func refuseExisting(path string) error {
	_, err := os.Lstat(path)
	if err == nil {
		return booking.Errorf(booking.EInternal, "%s already exists; a backup never overwrites a file. Choose a new name.", booking.CleanLine(path, 200))
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return booking.Errorf(booking.EInternal, "Cannot write %s: %v", booking.CleanLine(path, 200), err)
	}
	return nil
}

// copyDatabase copies the database at src with VACUUM INTO to a new
// temporary file beside dst (so the final link or rename stays on one
// file system), syncs it and returns its name. The caller removes it.
func copyDatabase(ctx context.Context, src, dst string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return "", booking.Errorf(booking.EInternal, "Cannot write beside %s: %v", booking.CleanLine(dst, 200), err)
	}
	tmp := f.Name()
	f.Close() // VACUUM INTO writes into an empty file
	// openReader reads src on a full disk too, so it can be copied away.
	conn, err := openReader(ctx, src)
	if err == nil {
		_, err = conn.ExecContext(ctx, "VACUUM INTO ?", tmp)
		err = errors.Join(err, conn.Close())
	}
	if err == nil {
		err = syncFile(tmp)
	}
	if err != nil {
		os.Remove(tmp)
		return "", booking.Errorf(booking.EInternal, "Copying the database failed: %v", err)
	}
	return tmp, nil
}

// linkNew puts the finished file tmp in place as path, refusing if path
// appeared meanwhile (a link never replaces), and syncs the directory so
// the new name survives a power cut.
func linkNew(tmp, path string) error {
	err := os.Link(tmp, path)
	if errors.Is(err, fs.ErrExist) {
		return refuseExisting(path)
	}
	if err != nil {
		return booking.Errorf(booking.EInternal, "Cannot write %s: %v", booking.CleanLine(path, 200), err)
	}
	return syncDir(filepath.Dir(path))
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	return errors.Join(err, f.Close())
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}

// problemsText names what a report found wrong: the first few problems,
// and how many more.
func problemsText(r booking.CheckReport) string {
	const shown = 5
	all := r.AllProblems()
	if len(all) == 0 && r.Unchecked {
		return "its invariants could not be checked"
	}
	text := strings.Join(all[:min(len(all), shown)], "; ")
	if len(all) > shown {
		text += fmt.Sprintf(" (and %d more)", len(all)-shown)
	}
	return text
}

// Verify checks the database file at path, opened read-only (nothing is
// migrated or written, so it is safe on a live file, a backup or a copy
// damaged by hand): SQLite's integrity check, then its schema against
// the one the migrations it records make (checkSchema), then
// CheckInvariants, unless a table or a view is not boxoffice's: its data
// is then not read at all (Unchecked). ENotFound when there is no file;
// EInvalid when it is not a boxoffice database.
func Verify(ctx context.Context, path string) (booking.CheckReport, error) {
	report := booking.CheckReport{Path: path, Integrity: []string{}, Schema: []string{}, Problems: []string{}}
	if _, err := os.Stat(path); err != nil {
		return report, booking.Errorf(booking.ENotFound, "No database at %s.", booking.CleanLine(path, 200))
	}
	// Another program's file or a newer boxoffice's is named as such; a
	// damaged one is what the integrity check below reports on. A file
	// identify could not read at all (a disk too full for its WAL index)
	// is read by openReader where SQLite can.
	var refused *booking.Error
	if err := identify(path, 5*time.Second); errors.As(err, &refused) && refused.Code != booking.EDamaged {
		return report, err
	}
	r, err := openReader(ctx, path)
	if err != nil {
		return report, unreadable(nil, path, err)
	}
	r.SetMaxOpenConns(2) // CheckInvariants prepares on the pool, then reads in one transaction
	s := &Store{path: path, log: slog.New(slog.NewTextHandler(io.Discard, nil)), read: r}
	defer s.closeReadOnly()
	if report.Integrity, err = integrity(ctx, r); err != nil {
		return report, booking.Errorf(booking.EInvalid, "%s is not a database SQLite can read: %v", booking.CleanLine(path, 200), err)
	}
	notOurs := booking.Errorf(booking.EInvalid, "%s is not a boxoffice database.", booking.CleanLine(path, 200))
	schema, relationsOK, err := checkSchema(ctx, r)
	if errors.Is(err, errNoSchemaRecord) && ctx.Err() == nil {
		return report, notOurs
	}
	if err != nil {
		return report, s.translate("check the schema", err)
	}
	if schema != nil {
		report.Schema = schema
	}
	if !relationsOK {
		report.Unchecked = true
		return report, nil
	}
	if err := r.QueryRowContext(ctx, `SELECT count(*) FROM bookings`).Scan(&report.Bookings); err != nil {
		return report, notOurs
	}
	if report.Problems, err = s.CheckInvariants(ctx); err != nil {
		return report, err
	}
	if report.Problems == nil {
		report.Problems = []string{}
	}
	return report, nil
}

// integrity runs PRAGMA integrity_check and returns what it found wrong:
// nothing for a whole file.
func integrity(ctx context.Context, r *sql.DB) ([]string, error) {
	rows, err := r.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		if line != "ok" {
			out = append(out, line)
		}
	}
	return out, rows.Err()
}

// closeReadOnly closes a store Verify made: it has only the read pool.
func (s *Store) closeReadOnly() {
	s.readStmts.Range(func(_, st any) bool {
		st.(*sql.Stmt).Close()
		return true
	})
	s.read.Close()
}

// RestoreInfo is what Restore did: the file restored, how many bookings
// it holds, and where the database it replaced was kept ("" when there
// was none).
type RestoreInfo struct {
	From     string `json:"from"`
	Into     string `json:"into"`
	Bookings int64  `json:"bookings"`
	Kept     string `json:"kept"`
}

// Restore replaces the database at dst with a checked copy of src. src
// is checked first (integrity, schema and invariants) and nothing is
// touched when it fails; the copy is made and synced under a temporary
// name beside dst and checked again; the database it replaces is kept
// beside it under a name with the time (its -wal with it), and the copy
// is renamed into place, so dst is at every moment either the old
// database or the new one, never half of either. The caller makes sure no process has dst
// open. EInvalid when src fails its check; ENotFound without src.
func Restore(ctx context.Context, src, dst string, now time.Time) (RestoreInfo, error) {
	info := RestoreInfo{From: src, Into: dst}
	report, err := Verify(ctx, src)
	if err != nil {
		return info, err
	}
	if !report.OK() {
		return info, booking.Errorf(booking.EInvalid, "%s failed its check, so nothing was restored: %s", booking.CleanLine(src, 200), problemsText(report))
	}
	tmp, err := copyDatabase(ctx, src, dst)
	if err != nil {
		return info, err
	}
	defer os.Remove(tmp)
	if again, err := Verify(ctx, tmp); err != nil || !again.OK() {
		return info, booking.Errorf(booking.EInternal, "The copy of %s failed its check, so nothing was restored.", booking.CleanLine(src, 200))
	}
	if info.Kept, err = keepReplaced(dst, now); err != nil {
		return info, err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return info, booking.Errorf(booking.EInternal, "Cannot put the copy in place: %v", err)
	}
	info.Bookings = report.Bookings
	return info, syncDir(filepath.Dir(dst))
}

// keepReplaced links the database at path to a new name with the time
// beside it and moves its -wal along (a -wal belongs to the file it is
// named after: left behind, SQLite would replay it onto the restored
// one), and drops its -shm, which SQLite rebuilds. It returns the kept
// name, or "" when there is no database at path.
func keepReplaced(path string, now time.Time) (string, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	base := path + ".replaced-" + now.UTC().Format("20060102T150405Z")
	kept := base
	for n := 2; ; n++ {
		err := os.Link(path, kept)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || n > 100 {
			return "", booking.Errorf(booking.EInternal, "Cannot keep the database being replaced: %v", err)
		}
		kept = fmt.Sprintf("%s-%d", base, n)
	}
	if err := os.Rename(path+"-wal", kept+"-wal"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", booking.Errorf(booking.EInternal, "Cannot keep the database being replaced: %v", err)
	}
	if err := os.Remove(path + "-shm"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", booking.Errorf(booking.EInternal, "Cannot remove %s-shm: %v", booking.CleanLine(path, 200), err)
	}
	return kept, nil
}
