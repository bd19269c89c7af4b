package db

import (
	"context"
	"database/sql"
	"os"
	"strings"

	"boxoffice/booking"
)

// A disk too full to open the database the usual way, and the quick
// check init runs on a file it finds.
//
// Open needs room on the disk even to read: SQLite sizes the WAL index
// (the -shm file, 32 KiB) when the first connection opens a WAL file, and
// on a full disk that fails with an I/O error before any page is read.
// OpenReadOnly reads anyway where SQLite allows it.

// errDiskFull is what every write says on a full disk: nothing was
// written, and the same action works once space is freed.
func errDiskFull() error {
	return booking.Errorf(booking.EDiskFull, "The disk is full: nothing was saved. Free space and try again.")
}

// walHeader is the size of a WAL file's header: a WAL no longer than it
// holds no frame, so the database file alone holds every commit.
const walHeader = 32

// openReader opens path for reading only: read-only as Verify does, and,
// where that fails (the -shm file cannot be made on a full disk) and
// neither a WAL with frames nor a rollback journal lies beside it,
// immutable: SQLite then reads the file as it is, without the WAL index
// or any lock. A WAL with frames cannot be read without its index, and a
// hot journal must be rolled back first, so those fail with the first
// error.
func openReader(ctx context.Context, path string) (*sql.DB, error) {
	r, err := probe(ctx, roDSN(path))
	if err == nil {
		return r, nil
	}
	if info, serr := os.Stat(path + "-wal"); serr == nil && info.Size() > walHeader {
		return nil, err
	}
	if info, serr := os.Stat(path + "-journal"); serr == nil && info.Size() > 0 {
		return nil, err
	}
	r, ierr := probe(ctx, roDSN(path)+"&immutable=1")
	if ierr != nil {
		return nil, err
	}
	return r, nil
}

// probe opens dsn and reads the schema's version, which reads the header
// and the schema: what fails on a file SQLite cannot read fails here.
func probe(ctx context.Context, dsn string) (*sql.DB, error) {
	r, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	var v int64
	if err := r.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&v); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// OpenReadOnly opens the database at path for reading only, for a disk
// too full for Open: every read works as on an open store, every write
// answers EDiskFull at once, nothing is migrated, polled or swept. What it
// reads is the file as last checkpointed when the WAL index could not be
// made (see openReader). EDiskFull when the file's schema is older than
// this binary's (its migrations need room); EInvalid when it is not a
// boxoffice database or a newer one's.
func OpenReadOnly(path string, opts Options) (*Store, error) {
	if _, err := opts.fill(); err != nil {
		return nil, err
	}
	ctx := context.Background()
	r, err := openReader(ctx, path)
	if err != nil {
		return nil, err
	}
	var newest sql.NullInt64
	if err := r.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&newest); err != nil {
		r.Close()
		return nil, booking.Errorf(booking.EInvalid, "%s is not a boxoffice database.", cleanPath(path))
	}
	switch v := int64(SchemaVersion()); {
	case newest.Int64 > v:
		r.Close()
		return nil, booking.Errorf(booking.EInvalid, "%s was written by a newer boxoffice (schema %d > %d): upgrade boxoffice.", cleanPath(path), newest.Int64, v)
	case newest.Int64 < v:
		r.Close()
		return nil, errDiskFull() // the upgrade's migrations cannot be written
	}
	r.SetMaxOpenConns(8)
	// The write pool is never connected: Close closes it with the rest.
	w, err := sql.Open("sqlite", roDSN(path))
	if err != nil {
		r.Close()
		return nil, err
	}
	s := newStore(path, opts, w)
	s.read = r
	s.stopped.Add(1)
	go s.refuseWrites()
	return s, nil
}

// refuseWrites stands in for the writer of a read-only store: every job
// is answered EDiskFull, untried.
func (s *Store) refuseWrites() {
	defer s.stopped.Done()
	defer close(s.writerDone)
	for {
		select {
		case j := <-s.jobs:
			j.done <- answer{err: errDiskFull()}
		case <-s.stop:
			for {
				select {
				case j := <-s.jobs:
					j.done <- answer{err: errDiskFull()}
				default:
					return
				}
			}
		}
	}
}

// QuickCheck runs SQLite's PRAGMA quick_check on the file at path, opened
// read-only (nothing is written, so it runs on a full disk where SQLite
// can read, and on a file another process has open): nil for a whole
// file, EDamaged naming what it found otherwise.
func QuickCheck(ctx context.Context, path string) error {
	r, err := openReader(ctx, path)
	if err != nil {
		return unreadable(nil, path, err)
	}
	defer r.Close()
	lines, err := queryStrings(r, `PRAGMA quick_check(5)`)
	if err != nil {
		return unreadable(r, path, err)
	}
	if len(lines) == 1 && lines[0] == "ok" {
		return nil
	}
	return damaged(path, strings.Join(lines, "; "))
}
