package dbtest

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
)

// The files the kit opens stores on start as copies of files it made
// earlier in the same test process. Making a store file is the slow part
// of most store tests under the race detector: migrating a new file costs
// over a second there, seeding the demo cinema about as much again, and
// writing a copy a few milliseconds. A copy is what the store would have
// made: the same schema and rows, read by a store that opens it as it
// opens any existing file.

// template is an empty store file, migrated once per test process.
var template struct {
	once sync.Once
	file []byte
	err  error
}

// Migrated is the bytes of an empty SQLite store file with every
// migration applied, made once per test process. The file stands alone:
// its write-ahead log is checkpointed into it and removed, so a copy
// needs no -wal or -shm beside it.
func Migrated(tb testing.TB) []byte {
	tb.Helper()
	template.once.Do(func() { template.file, template.err = migrate() })
	if template.err != nil {
		tb.Fatalf("the migrated template: %v", template.err)
	}
	return template.file
}

// migrate opens a store on a new file in a directory of its own, so that
// db.Open migrates it, closes it, folds its log into the file and reads
// it; the directory is removed before it returns.
func migrate() ([]byte, error) {
	dir, err := os.MkdirTemp("", "dbtest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "boxoffice.db")
	s, err := db.Open(path, Options(db.Options{SweepInterval: -1, PollInterval: -1}))
	if err != nil {
		return nil, err
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	raw, err := sql.Open("sqlite", dsn(path, ""))
	if err != nil {
		return nil, err
	}
	_, err = raw.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
	if err = errors.Join(err, raw.Close()); err != nil {
		return nil, err
	}
	if err := standsAlone(path); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// dsn is the SQLite URI of the file at path with query.
func dsn(path, query string) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + query
}

// standsAlone fails when path has a -wal or -shm file beside it, whose
// rows a copy of path alone would lose.
func standsAlone(path string) error {
	for _, side := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(path + side); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s%s is beside it (%v)", path, side, err)
		}
	}
	return nil
}

// place writes file at path when nothing is there yet; where something
// is, or path cannot be created, it leaves it to db.Open to open or to
// refuse.
func place(tb testing.TB, path string, file []byte) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return
	}
	_, err = f.Write(file)
	if err = errors.Join(err, f.Close()); err != nil {
		tb.Fatal(err)
	}
}

// seededKey is what a seeded file follows from: the seed (its cinema,
// shows and staff, written out with %#v and hashed), whether it is the demo's and
// whether the kit's shifts were opened, the clock's reading with its
// zone (the staff's and shifts' times) and the cost the staff's PINs
// were hashed at.
type seededKey struct {
	seed         [sha256.Size]byte
	demo, shifts bool
	at           string
	cost         int
}

// seeded are the seeded files made so far and how often each key was
// asked for. A file is kept from a key's second asking on: a seed at a
// clock that reads the same twice is a fixed test clock's
// (storetest.FixedClock, a package's start time) and will be asked for
// again; one at the wall clock never is, and costs no copy.
var seeded struct {
	mu    sync.Mutex
	asked map[seededKey]int
	file  map[seededKey][]byte
}

// openSeeded opens a store on a new file in a temp dir seeded with seed,
// with the kit's shifts open (MustSeed) when shifts is set: a copy of
// the file an earlier test of the process seeded alike when there is
// one. A store with a logger of the test's seeds afresh: the logger would
// miss the seed's lines.
func openSeeded(tb testing.TB, opts db.Options, seed booking.Seed, demo, shifts bool) (*db.Store, string) {
	tb.Helper()
	at := now(opts)
	key := seededKey{seed: sha256.Sum256(fmt.Appendf(nil, "%#v", seed)), demo: demo, shifts: shifts,
		at: at.Format(time.RFC3339Nano) + " " + at.Location().String(), cost: Options(opts).PINCost}
	shared := opts.Logger == nil
	path := filepath.Join(tb.TempDir(), "boxoffice.db")
	seeded.mu.Lock()
	file, keep := seeded.file[key], false
	if shared && file == nil {
		if seeded.asked == nil {
			seeded.asked, seeded.file = map[seededKey]int{}, map[seededKey][]byte{}
		}
		seeded.asked[key]++
		keep = seeded.asked[key] == 2
	}
	seeded.mu.Unlock()
	if shared && file != nil {
		place(tb, path, file)
		return Open(tb, path, opts), path
	}
	s := Open(tb, path, opts)
	if shifts {
		MustSeed(tb, s, seed, demo)
	} else if err := s.Seed(context.Background(), seed, demo); err != nil {
		tb.Fatal(err)
	}
	if keep {
		file := snapshot(tb, path)
		seeded.mu.Lock()
		seeded.file[key] = file
		seeded.mu.Unlock()
	}
	return s, path
}

// snapshot is a standalone copy of the store file at path, taken while
// its store is open: VACUUM INTO, as the store's backup does, reads one
// consistent snapshot, log and all.
func snapshot(tb testing.TB, path string) []byte {
	tb.Helper()
	dir, err := os.MkdirTemp("", "dbtest-")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.RemoveAll(dir)
	raw, err := sql.Open("sqlite", dsn(path, "mode=ro&_pragma=busy_timeout(5000)"))
	if err != nil {
		tb.Fatal(err)
	}
	copyPath := filepath.Join(dir, "seeded.db")
	_, err = raw.ExecContext(context.Background(), `VACUUM INTO ?`, copyPath)
	if err = errors.Join(err, raw.Close()); err != nil {
		tb.Fatalf("snapshot %s: %v", path, err)
	}
	if err := standsAlone(copyPath); err != nil {
		tb.Fatal(err)
	}
	file, err := os.ReadFile(copyPath)
	if err != nil {
		tb.Fatal(err)
	}
	return file
}
