// Package db implements booking.Store on one SQLite file with
// modernc.org/sqlite (pure Go, so the binary stays static).
//
// Every write is one BEGIN IMMEDIATE transaction run by a single writer
// goroutine on a single connection; reads use a separate read-only pool.
// The writer commits the writes queued behind it together (group commit),
// each inside its own SAVEPOINT, so one fsync serves many counters.
package db

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"boxoffice/booking"
	"boxoffice/internal/drain"
	"boxoffice/store"

	"golang.org/x/crypto/bcrypt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Options tune how the store opens its database.
type Options struct {
	// Sync is "full" (default: a sold seat survives power loss) or "normal".
	Sync string
	// Clock is the time source, read once per transaction; time.Now when nil.
	Clock func() time.Time
	// TicketKey signs ticket codes.
	TicketKey booking.TicketKey
	// OldTicketKeys still verify codes signed before a key rotation.
	OldTicketKeys []booking.TicketKey
	// Logger receives internal errors; discarded when nil.
	Logger *slog.Logger
	// PollInterval is how often PRAGMA data_version is polled for writes by
	// other processes; 50ms when zero, negative to disable.
	PollInterval time.Duration
	// SweepInterval is how often expired holds are swept; 1s when zero,
	// negative to disable.
	SweepInterval time.Duration
	// PINCost is the bcrypt cost for new PINs; bcrypt.DefaultCost when
	// zero. Tests lower it: the race detector makes each hash slow.
	PINCost int
	// BusyTimeout is how long SQLite waits for another process's write
	// lock before the writer retries (5s when zero).
	BusyTimeout time.Duration
	// MaxBatch caps how many queued writes share one commit; 128 when zero,
	// 1 disables group commit (for the benchmark's comparison).
	MaxBatch int

	// ReserveCutoff is how long before its show a reservation lapses
	// unpaid; booking.DefaultReserveCutoff when zero.
	ReserveCutoff time.Duration
	// PhoneCountry is the country code a phone number typed with a trunk
	// 0 is in, for booking.NormalPhone; booking.DefaultPhoneCountry when
	// empty.
	PhoneCountry string
}

// Store implements booking.Store on SQLite. Close, Path and Stats are
// its own, not the domain's: the SQLite file's life and the writer's
// figures.
type Store struct {
	path   string
	opts   Options
	log    *slog.Logger
	write  *sql.DB // exactly one connection, used only by the writer goroutine
	ckpt   *sql.DB // one connection that checkpoints the WAL in the background
	read   *sql.DB // read-only pool
	broker *booking.Broker

	jobs       chan *job
	quiesce    drain.Drain   // every write but giveBack enters; Quiesce shuts it
	giveUp     chan struct{} // closed by GiveUpWaiting
	giveUpOnce sync.Once
	stop       chan struct{}
	writerDone chan struct{} // closed when the writer goroutine has returned
	walSync    *syncer       // answers the writer's batches once on disk; nil at synchronous=NORMAL
	stopped    sync.WaitGroup

	// The rules written once (package store), with the programme's facts
	// they and this driver read (store.ProgrammeOf: halls, seats, shows'
	// films and starts).
	*store.Store

	// The price table as last read (see priceTable).
	hallsMu   sync.Mutex
	prices    *booking.PriceTable
	typesGen  uint64   // bumped when prices may have changed (forgetTicketTypes)
	readStmts sync.Map // query -> *sql.Stmt on the read pool

	// Seat-map snapshots per show, and the versions that say whether a
	// snapshot is still current (see invalidate).
	snapMu      sync.Mutex
	snaps       map[int64]*seatSnap
	snapVersion map[int64]uint64
	snapEpoch   uint64

	ownMu   sync.Mutex
	ownSeqs map[int64]struct{} // change rows this process wrote and published itself

	commits, jobsDone, retries atomic.Int64
	statements                 atomic.Int64 // every statement the writer ran (WriteCosts)
	reads                      atomic.Int64 // statements run on the read pool (Collect's equal-work test counts them)
	pinChecks                  atomic.Int64
	house                      houseStats // the figures metrics read (db/metrics.go)

	closeOnce sync.Once
}

var _ booking.Store = (*Store)(nil)

// dsn builds the connection string. The pragmas are in the DSN so every
// connection the pool opens gets them, not just the first.
func dsn(path, sync string, readOnly bool, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous("+sync+")")
	if readOnly {
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
		// Checkpoints run on their own connection (see checkpointer),
		// so a commit never stalls behind a checkpoint's fsyncs.
		q.Add("_pragma", "wal_autocheckpoint(0)")
		// Every job runs in a SAVEPOINT; keep its sub-journal in memory
		// instead of writing it to a temp file page by page.
		q.Add("_pragma", "temp_store(MEMORY)")
		// A sale touches a few pages of each of a dozen indexes; after a
		// year those indexes are tens of megabytes, and SQLite's default
		// 2 MB page cache would read most of them back from the OS on
		// every commit. The writer keeps up to 32 MB.
		q.Add("_pragma", "cache_size(-32000)")
		// BEGIN IMMEDIATE takes the write lock up front. A deferred
		// transaction that reads and then writes would fail at once
		// with SQLITE_BUSY (the snapshot trap) when another writer got
		// in between.
		q.Set("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// pageSize is the page size of a database this package creates.
const pageSize = 1024

// smallPages gives a file not yet written (none, or empty) pages of
// pageSize, in WAL mode; a written one keeps its own (SQLite changes it
// only by a VACUUM out of WAL mode). A commit writes every page it
// changed whole to the WAL and syncs it, and a sale changes a leaf of
// each index it touches, most of them far apart (a random booking number,
// each counter's keys): bench's WAL bytes per booking fell by half from
// 4 KiB pages to 1 KiB (docs/performance.md). It runs before the DSN's
// pragmas, which the driver sorts, journal_mode (which writes the first
// page) before page_size. Several processes may create one file at once:
// the first one's size stands, the others wait their turn. SQLite does
// not call the busy handler for every lock that turning a new file to WAL
// meets (one of eight counters started together on a new file was told
// "database is locked" about once in ten starts), so a busy answer is
// tried again here, for as long as busy allows.
func smallPages(path string, busy time.Duration) error {
	deadline := time.Now().Add(busy)
	for try := 0; ; try++ {
		err := toWAL(path, busy)
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Duration(5+rand.IntN(10*min(try+1, 5))) * time.Millisecond)
	}
}

// toWAL is one try of smallPages.
func toWAL(path string, busy time.Duration) error {
	if info, err := os.Stat(path); err == nil && info.Size() > 0 {
		return nil
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", fmt.Sprintf("page_size(%d)", pageSize))
	c, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Exec(`PRAGMA journal_mode = WAL`)
	return err
}

// Open opens (creating and migrating if needed) the database at path.
func Open(path string, opts Options) (*Store, error) {
	sync, err := opts.fill()
	if err != nil {
		return nil, err
	}
	if RestorePending(path) {
		// Half a restore: the old database or the new one, RecoverRestore
		// decides which; until then neither is opened.
		return nil, booking.Errorf(booking.EConflict, "A restore into %s was interrupted and is not finished or rolled back yet; any boxoffice command run on its data dir does that first.", booking.CleanLine(path, 200))
	}
	if err := inspect(path, opts.BusyTimeout); err != nil {
		return nil, err
	}
	if err := smallPages(path, opts.BusyTimeout); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	w, err := sql.Open("sqlite", dsn(path, sync, false, opts.BusyTimeout))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// One writer connection: SQLite allows one writer at a time anyway, and
	// queueing in Go is fairer and faster than contending in the busy
	// handler.
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	s := newStore(path, opts, w)
	if err := s.migrateWaiting(); err != nil {
		w.Close()
		return nil, err
	}
	if err := s.start(sync); err != nil {
		return nil, err
	}
	return s, nil
}

// fill sets the defaults of the options left zero and returns the
// synchronous pragma's value.
func (opts *Options) fill() (string, error) {
	if err := booking.ValidPhoneCountry(opts.PhoneCountry); err != nil {
		return "", err
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = 50 * time.Millisecond
	}
	if opts.SweepInterval == 0 {
		opts.SweepInterval = time.Second
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = 5 * time.Second
	}
	if opts.PINCost == 0 {
		opts.PINCost = bcrypt.DefaultCost
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 128
	}
	switch strings.ToLower(opts.Sync) {
	case "", "full":
		return "FULL", nil
	case "normal":
		return "NORMAL", nil
	}
	return "", booking.Errorf(booking.EInvalid, "unknown sync mode %q (full or normal)", opts.Sync)
}

func newStore(path string, opts Options, w *sql.DB) *Store {
	s := &Store{
		path:       path,
		opts:       opts,
		log:        opts.Logger,
		write:      w,
		broker:     booking.NewBroker(),
		jobs:       make(chan *job, 1024),
		stop:       make(chan struct{}),
		giveUp:     make(chan struct{}),
		writerDone: make(chan struct{}),

		snaps:       make(map[int64]*seatSnap),
		snapVersion: make(map[int64]uint64),
		ownSeqs:     make(map[int64]struct{}),
	}
	s.Store = store.New(driver{s}, store.Options{
		TicketKeys:    append([]booking.TicketKey{opts.TicketKey}, opts.OldTicketKeys...),
		ReserveCutoff: opts.ReserveCutoff,
		PhoneCountry:  opts.PhoneCountry,
		Logger:        opts.Logger,
		PINCost:       opts.PINCost,
		PINChecks:     &s.pinChecks,
	})
	return s
}

// start opens the read pool and starts the writer, the poller, the
// sweeper and the checkpointer. On an error everything is closed.
func (s *Store) start(sync string) error {
	r, err := sql.Open("sqlite", dsn(s.path, sync, true, s.opts.BusyTimeout))
	if err != nil {
		s.write.Close()
		return fmt.Errorf("open %s: %w", s.path, err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	s.read = r

	conn, err := s.write.Conn(context.Background())
	if err != nil {
		r.Close()
		s.write.Close()
		return err
	}
	var y *syncer
	if sync == "FULL" {
		// The writer commits without waiting for the disk and the
		// syncer answers once the WAL is (db/walsync.go).
		if _, err := conn.ExecContext(context.Background(), "PRAGMA synchronous = NORMAL"); err != nil {
			conn.Close()
			r.Close()
			s.write.Close()
			return err
		}
		y = newSyncer(s, s.path)
		s.walSync = y
	}
	s.stopped.Add(1)
	go s.writer(&wconn{conn: conn, stmts: make(map[string]*sql.Stmt), statements: &s.statements}, y)
	if err := s.startPoller(); err != nil {
		s.Close()
		return err
	}
	if s.opts.SweepInterval > 0 {
		s.stopped.Add(1)
		go s.sweeper()
	}
	if s.ckpt, err = sql.Open("sqlite", dsn(s.path, sync, false, s.opts.BusyTimeout)); err != nil {
		s.Close()
		return err
	}
	s.ckpt.SetMaxOpenConns(1)
	s.stopped.Add(1)
	go s.checkpointer()
	return nil
}

// closeCheckpointWait bounds Close's last checkpoint.
const closeCheckpointWait = time.Second

// closingCheckpoint copies what it can of the WAL into the database file
// and truncates the WAL when nobody else needs it, without waiting for
// anyone. TRUNCATE calls the busy handler until every other process's
// reader has left the WAL: with busy_timeout at 0 it does as much as
// PASSIVE would and returns at once instead, so a CLI command exits when
// it has answered even while a backup or a check holds a read for
// seconds. Nothing committed is lost: it is in the WAL already, and the
// server's checkpointer or the next close copies it back.
func (s *Store) closingCheckpoint() {
	ctx, cancel := context.WithTimeout(context.Background(), closeCheckpointWait)
	defer cancel()
	conn, err := s.ckpt.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		return
	}
	conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
}

// Close stops the writer, poller and sweeper and closes the database.
// Writes already queued finish first.
func (s *Store) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.stop)
		s.stopped.Wait()
		s.readStmts.Range(func(_, st any) bool {
			st.(*sql.Stmt).Close()
			return true
		})
		err = errors.Join(s.read.Close(), s.write.Close())
		if s.ckpt != nil {
			s.closingCheckpoint()
			err = errors.Join(err, s.ckpt.Close())
		}
	})
	return err
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Changes returns the broker that publishes committed show changes.
func (s *Store) Changes() *booking.Broker { return s.broker }

// migrate applies each embedded migration not yet applied, each in its own
// transaction, in file-name order. Another process migrating at the same
// time waits on the write lock and then finds nothing left to do. The
// versions already applied are read first, without the write lock, so
// opening an up-to-date file (every CLI command) never waits for a busy
// server's writer.
// migrateWaiting is migrate, tried again while another process holds the
// file: several processes opening a brand-new file at once meet
// SQLITE_BUSY where SQLite calls no busy handler (switching the new file
// to WAL, reading a schema another connection is writing), so the wait
// is here, bounded by BusyTimeout.
func (s *Store) migrateWaiting() error {
	deadline := time.Now().Add(s.opts.BusyTimeout)
	for attempt := 1; ; attempt++ {
		err := s.migrate()
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Duration(min(attempt, 10)) * 5 * time.Millisecond)
	}
}

func (s *Store) migrate() error {
	ctx := context.Background()
	applied, err := s.appliedMigrations(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	files, err := migrationFiles()
	if err != nil {
		return err
	}
	for _, m := range files {
		if applied[m.Version] {
			continue
		}
		if err := s.applyMigration(ctx, m.Version, m.SQL); err != nil {
			return fmt.Errorf("migration %s: %w", m.Name, err)
		}
	}
	return nil
}

// migrationFiles are the embedded migrations in number order.
func migrationFiles() ([]store.Migration, error) { return store.Migrations(migrations, "migrations") }

// appliedMigrations reads which versions are applied, creating the table
// that records them on a new file.
func (s *Store) appliedMigrations(ctx context.Context) (map[int]bool, error) {
	var n int
	if err := s.write.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&n); err != nil {
		return nil, err
	}
	if n == 0 {
		if _, err := s.write.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
			return nil, err
		}
	}
	rows, err := s.write.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out[v] = true
	}
	return out, rows.Err()
}

// SchemaVersion is the highest migration this binary applies: data made
// by an older generator is rebuilt when it changes (see bench --scale).
func SchemaVersion() int {
	entries, _ := migrations.ReadDir("migrations")
	v := 0
	for _, e := range entries {
		if n, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0]); err == nil && n > v {
			v = n
		}
	}
	return v
}

// migrationSteps are Go steps that run right after a migration's SQL, in
// the same transaction, for back-fills SQL cannot express.
var migrationSteps = map[int]func(ctx context.Context, tx *sql.Tx) error{
	3: backfillSearch,
}

func (s *Store) applyMigration(ctx context.Context, version int, body string) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return err
	}
	if step := migrationSteps[version]; step != nil {
		if err := step(ctx, tx); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, version, time.Now().Unix()); err != nil {
		return err
	}
	return tx.Commit()
}

// sqliteCode returns the extended result code of a SQLite error, or 0.
func sqliteCode(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return 0
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// isBusy reports whether err is SQLite saying another connection holds the
// lock: retried by the writer, never shown to a clerk.
func isBusy(err error) bool {
	c := sqliteCode(err) & 0xff
	return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
}

func isConstraint(err error) bool {
	return sqliteCode(err)&0xff == sqlite3.SQLITE_CONSTRAINT
}

// translate turns a storage error into a domain error once, at the edge:
// domain errors pass through, no rows becomes not found, a constraint
// becomes a conflict, anything else is logged and becomes "Internal error.".
func (s *Store) translate(op string, err error) error {
	if err == nil {
		return nil
	}
	var de *booking.Error
	var taken *booking.SeatsTakenError
	var stale *booking.StaleError
	switch {
	case errors.As(err, &de), errors.As(err, &taken), errors.As(err, &stale):
		return err
	case errors.Is(err, sql.ErrNoRows):
		return booking.Errorf(booking.ENotFound, "Not found.")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return booking.Errorf(booking.EInternal, "The request was cancelled.")
	case isConstraint(err):
		s.log.Warn("constraint refused a write", "op", op, "err", err)
		return booking.Errorf(booking.EConflict, "That was changed at another counter; try again.")
	case sqliteCode(err)&0xff == sqliteFull:
		s.log.Error("disk full", "op", op, "path", s.path, "err", err)
		return errDiskFull()
	case sqliteCode(err)&0xff == sqliteCorrupt:
		s.log.Error("database damaged", "op", op, "path", s.path, "err", err)
		return booking.Errorf(booking.EDamaged, "The database file is damaged (%s): run boxoffice check, and restore a backup.", errText(err))
	}
	s.log.Error("internal error", "op", op, "err", err)
	return &booking.Error{Code: booking.EInternal, Message: "Internal error."}
}
