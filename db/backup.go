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
	"boxoffice/store"
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
	return s.backup(ctx, path, "")
}

// BackupWithKeys is s.Backup with sealed, the data dir's ticket keys
// sealed with a passphrase (opaque here), written into the copy before it
// is checked, so the backup carries them (SealedTicketKeys reads them
// back). The live database never holds them: Restore takes them out of
// the copy it puts in place. (A function, not a method: the keys are the
// command line's, not a capability of the store.)
func BackupWithKeys(ctx context.Context, s *Store, path, sealed string) (booking.BackupInfo, error) {
	return s.backup(ctx, path, sealed)
}

func (s *Store) backup(ctx context.Context, path, sealed string) (booking.BackupInfo, error) {
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
	if sealed != "" {
		if err := setSealedKeys(ctx, tmp, sealed); err != nil {
			return info, booking.Errorf(booking.EInternal, "Writing the ticket keys into the copy failed: %v", err)
		}
	}
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
	info.Bookings, info.Bytes, info.Took, info.AuditHead = report.Bookings, st.Size(), time.Since(start), report.AuditHead
	s.log.Info("backup written", "path", path, "audit_chain_head", report.AuditHead)
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
	if err := vacuumInto(ctx, src, tmp); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// vacuumInto copies the database at src into dst, which must be missing
// or empty, with VACUUM INTO, and syncs it. The copy has a new file's
// pages (pageSize), whatever src has: a backup restored moves an older
// database to them.
func vacuumInto(ctx context.Context, src, dst string) error {
	// openReader reads src on a full disk too, so it can be copied away.
	pool, err := openReader(ctx, src)
	if err == nil {
		err = errors.Join(vacuumOn(ctx, pool, dst), pool.Close())
	}
	if err == nil {
		err = syncFile(dst)
	}
	if err != nil {
		return booking.Errorf(booking.EInternal, "Copying the database failed: %v", err)
	}
	return nil
}

// vacuumOn runs VACUUM INTO dst on one connection of pool, after the page
// size the copy is to have.
func vacuumOn(ctx context.Context, pool *sql.DB, dst string) error {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA page_size = %d", pageSize)); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, "VACUUM INTO ?", dst)
	return err
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
	if chained, err := hasAuditChain(ctx, r); err != nil || !chained || len(report.Problems) > 0 {
		// No chain yet (a file from before it), or a head that means
		// nothing until the problems are put right.
		return report, s.translate("check invariants", err)
	}
	var head store.ChainHead
	if err := r.QueryRowContext(ctx, `SELECT id, hash FROM audit WHERE id = (SELECT max(id) FROM audit)`).Scan(&head.ID, &head.Hash); err != nil && !isNoRows(err) {
		return report, s.translate("check invariants", err)
	}
	report.AuditHead = head.String()
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
