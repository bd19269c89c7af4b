package db

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"boxoffice/booking"
)

// applicationID marks a SQLite file as boxoffice's ("BXOF" in the
// header's application id, set by migration 0027).
const applicationID = 0x42584F46

// SQLite result codes Open tells apart (the primary code, the low byte).
const (
	sqliteReadOnly = 8
	sqliteCorrupt  = 11
	sqliteFull     = 13
	sqliteCantOpen = 14
	sqliteNotADB   = 26

	// Extended read-only codes: the file needs a writer's recovery first
	// (a hot rollback journal, or a WAL index to rebuild) — what a process
	// killed mid-write leaves.
	sqliteReadOnlyRecovery = sqliteReadOnly | 1<<8
	sqliteReadOnlyRollback = sqliteReadOnly | 3<<8
	sqliteReadOnlyCantInit = sqliteReadOnly | 5<<8
)

// inspect decides, before anything writes to path, whether Open may take
// it: a missing or empty file (a new cinema) or one of boxoffice's, of a
// schema this binary knows. Anything else is refused untouched, in words
// that say what the file is — another program's database, a newer
// boxoffice's, a damaged file with SQLite's integrity check's words, or a
// file or directory that cannot be written. It reads through a read-only
// connection with no pragmas, so even the journal mode of a file it
// refuses stays as it was.
func inspect(path string, busy time.Duration) error {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return writable(filepath.Dir(path))
	case err != nil:
		return booking.Errorf(booking.EInvalid, "Cannot read %s: %s.", cleanPath(path), errText(err))
	case info.IsDir():
		return booking.Errorf(booking.EInvalid, "%s is a directory, not a database file.", cleanPath(path))
	case info.Size() == 0:
		return writable(path)
	}
	// SQLite writes its -wal and -shm files beside the database.
	if err := errors.Join(writable(path), writable(filepath.Dir(path))); err != nil {
		return err
	}
	return identify(path, busy)
}

// identify reads an existing, non-empty file and refuses it unless it is
// boxoffice's, of a schema this binary knows (see inspect). A file a
// killed writer left mid-transaction (a first start killed before it set
// WAL leaves a hot rollback journal) cannot be read read-only until a
// writer has rolled it back: SQLite does that on a read-write connection's
// first read, which restores the last committed state and writes nothing
// else, so identify lets it and reads again.
func identify(path string, busy time.Duration) error {
	err := identifyReadOnly(path, busy)
	if !errors.Is(err, errNeedsRecovery) {
		return err
	}
	if err := recoverFile(path, busy); err != nil {
		return err
	}
	return identifyReadOnly(path, busy)
}

var errNeedsRecovery = errors.New("the file needs a writer's recovery")

// recoverFile opens path read-write with no pragmas and reads its header,
// which rolls back a hot journal or rebuilds a WAL index.
func recoverFile(path string, busy time.Duration) error {
	w, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=rw&_pragma="+url.QueryEscape(fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds())))
	if err != nil {
		return err
	}
	defer w.Close()
	var version int64
	if err := w.QueryRow(`PRAGMA schema_version`).Scan(&version); err != nil {
		return unreadable(w, path, err)
	}
	return nil
}

func identifyReadOnly(path string, busy time.Duration) error {
	r, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&_pragma="+url.QueryEscape(fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds())))
	if err != nil {
		return err
	}
	defer r.Close()
	r.SetMaxOpenConns(1)
	var id int64
	var tables []string
	err = r.QueryRow(`PRAGMA application_id`).Scan(&id)
	if err == nil {
		tables, err = queryStrings(r, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	}
	switch sqliteCode(err) {
	case sqliteReadOnlyRecovery, sqliteReadOnlyRollback, sqliteReadOnlyCantInit:
		return fmt.Errorf("%s: %w (%v)", path, errNeedsRecovery, err)
	}
	if err != nil {
		return unreadable(r, path, err)
	}
	// Without the mark: a file of an earlier boxoffice (its own tables), or
	// one another boxoffice process is creating this moment (its first
	// table only, the first migration not yet committed).
	unmarked := slices.Contains(tables, "schema_migrations") && (len(tables) == 1 || slices.Contains(tables, "meta"))
	ours := id == applicationID || (id == 0 && unmarked)
	switch {
	case id == 0 && len(tables) == 0:
		return nil // an empty SQLite file: a new cinema
	case !ours:
		return foreign(path, id, tables)
	}
	var newest sql.NullInt64
	if err := r.QueryRow(`SELECT max(version) FROM schema_migrations`).Scan(&newest); err != nil {
		return unreadable(r, path, err)
	}
	if v := SchemaVersion(); newest.Int64 > int64(v) {
		return booking.Errorf(booking.EInvalid, "%s was written by a newer boxoffice (schema %d > %d): upgrade boxoffice.", cleanPath(path), newest.Int64, v)
	}
	return nil
}

// writable refuses a file, or the directory a new file would go in, that
// this process cannot write, naming it.
func writable(probe string) error {
	var err error
	if info, serr := os.Stat(probe); serr == nil && info.IsDir() {
		var f *os.File
		if f, err = os.CreateTemp(probe, ".boxoffice-probe-*"); err == nil {
			f.Close()
			os.Remove(f.Name())
		}
	} else {
		var f *os.File
		if f, err = os.OpenFile(probe, os.O_RDWR, 0); err == nil {
			f.Close()
		}
	}
	switch {
	case err == nil || errors.Is(err, fs.ErrNotExist):
		return nil
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS):
		return booking.Errorf(booking.EInvalid, "Cannot write %s: it is read-only (%s).", cleanPath(probe), errText(err))
	}
	return booking.Errorf(booking.EInvalid, "Cannot open %s: %s.", cleanPath(probe), errText(err))
}

// unreadable says why SQLite could not read path: not a database at
// all, or damaged (with what the integrity check says, where it can say
// anything: r is nil when no connection could be opened).
func unreadable(r *sql.DB, path string, err error) error {
	switch sqliteCode(err) & 0xff {
	case sqliteNotADB:
		return booking.Errorf(booking.EInvalid, "%s is not a database: SQLite says %q. Point --data at the cinema's directory, or restore a backup.", cleanPath(path), errText(err))
	case sqliteCorrupt:
		words := errText(err)
		if r == nil {
			return damaged(path, words)
		}
		if lines, cerr := queryStrings(r, `PRAGMA integrity_check(5)`); cerr == nil && len(lines) > 0 {
			words = strings.Join(lines, "; ")
		}
		return damaged(path, words)
	case sqliteCantOpen, sqliteReadOnly:
		return booking.Errorf(booking.EInvalid, "Cannot open %s: %s.", cleanPath(path), errText(err))
	}
	return fmt.Errorf("inspect %s: %w", path, err)
}

// damaged says path is damaged, in SQLite's words.
func damaged(path, words string) error {
	return booking.Errorf(booking.EDamaged, "%s is damaged: %s. Restore a backup (boxoffice restore FILE).", cleanPath(path), booking.CleanLine(words, 400))
}

// foreign refuses a SQLite file that is some other program's.
func foreign(path string, id int64, tables []string) error {
	what := "tables " + strings.Join(tables[:min(len(tables), 5)], ", ")
	if len(tables) > 5 {
		what += ", …"
	}
	if id != 0 {
		what = fmt.Sprintf("application id %#x, %s", id, what)
	}
	return booking.Errorf(booking.EInvalid, "%s is a SQLite database of another program (%s): boxoffice leaves it untouched. Point --data at an empty directory for a new cinema.",
		cleanPath(path), booking.CleanLine(what, 200))
}

func queryStrings(r *sql.DB, q string) ([]string, error) {
	rows, err := r.Query(q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// cleanPath is a path fit to print: a file name is outside input too.
func cleanPath(p string) string { return booking.CleanLine(p, 300) }

// errText is an error's words, fit to print.
func errText(err error) string { return booking.CleanLine(err.Error(), 300) }
