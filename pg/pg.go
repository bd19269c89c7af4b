// Package pg is the booking core on PostgreSQL, for a cinema with several
// servers or a chain: the same contract as package db (booking's
// interfaces, error codes and invariants), enforced by PostgreSQL itself.
//
// *Store satisfies booking.Store: the sale path, bookings, cancels,
// refunds and exchanges, shifts, the roster and the door, the programme
// and prices, blocked seats, reservations and the kiosk, sites, the
// waiting list, upkeep and every report, and booking.Changes fed by
// LISTEN/NOTIFY, so a sale on one server repaints the maps on every
// other. Backup alone refuses (backup.go): PostgreSQL has pg_dump.
//
// No row that every sale of a show must lock: a seat is won by the partial
// unique index on live claims (the loser's INSERT finds the conflict and
// is offered the seats next to it), and a show's counts are counted from
// its claims. Each transaction states its isolation level and why; a
// serialization failure or a deadlock is retried a bounded number of
// times and never shown.
//
// Import direction: pg -> booking only, like db.
package pg

import (
	"cmp"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"boxoffice/booking"
	"boxoffice/store"
)

// Options configure a Store.
type Options struct {
	// Clock is the time source, read once per transaction, corrected by
	// how far this machine's clock is from the database's (clock.go);
	// time.Now when nil. A test's clock keeps its own time on a machine
	// in step with the database.
	Clock func() time.Time
	// wall is the machine's own clock, measured against the database's;
	// time.Now but in tests of a machine whose clock is off.
	wall func() time.Time
	// TicketKey signs ticket codes.
	TicketKey booking.TicketKey
	// Logger receives internal errors; discarded when nil.
	Logger *slog.Logger
	// MaxConns caps the connection pool; 16 when zero, unless the URL
	// says pool_max_conns.
	MaxConns int32
	// SyncHolds commits holds and releases with synchronous commit as
	// well (see holdTx); off by default.
	SyncHolds bool

	// OldTicketKeys still verify codes signed before a key rotation (the
	// door, as db's Options.OldTicketKeys).
	OldTicketKeys []booking.TicketKey

	// ReserveCutoff is how long before its show a reservation lapses
	// unpaid; booking.DefaultReserveCutoff when zero (db's Options.ReserveCutoff).
	ReserveCutoff time.Duration
	// PhoneCountry is db's Options.PhoneCountry.
	PhoneCountry string
	// SealInterval is how often the audit rows written since the last
	// seal are chained (tx_auditchain.go); 5s when zero, never when
	// negative (check still seals first).
	SealInterval time.Duration
	// Tracer sees every statement the store's connections send (bench
	// counts them with a StatementCounter, the plan guard's tests record
	// them); none when nil.
	Tracer pgx.QueryTracer
}

// Store is the booking core on one PostgreSQL database (one schema: the
// URL's search_path, else public).
type Store struct {
	pool    *pgxpool.Pool
	opts    Options
	log     *slog.Logger
	broker  *booking.Broker
	id      string // this store's mark on its notifications
	channel string // the LISTEN channel of this schema

	faults *faults // the server going away (errors.go, fault.go)

	// The rules written once (package store), with the programme's facts
	// they and this driver read (store.ProgrammeOf: halls, seats, shows'
	// films and starts),
	// which every server drops on a programme notification.
	*store.Store

	// The price table last read, and the price generation it was read at
	// (txPriceTable).
	pricesMu  sync.Mutex
	prices    *booking.PriceTable
	pricesGen string

	stop         context.CancelFunc
	stopped      sync.WaitGroup
	listening    chan struct{} // closed once the listener first listens
	listenOnceOK sync.Once

	// The notifier's queue: shows committed by synchronous transactions,
	// to announce after their COMMIT (notify.go).
	pendingMu sync.Mutex
	pending   map[int64]bool
	kick      chan struct{}

	// A bounded stop (quiesce.go).
	down *shutdown

	pinChecks atomic.Int64 // PINChecks

	// The database's clock less this machine's (clock.go): applied to
	// every transaction's time, and as last measured.
	skew, measured atomic.Int64
}

// Open connects to the database at url (postgres://…), applies the
// migrations it has not seen, and starts listening for other servers'
// changes.
func Open(ctx context.Context, url string, opts Options) (*Store, error) {
	if err := booking.ValidPhoneCountry(opts.PhoneCountry); err != nil {
		return nil, err
	}
	cfg, err := poolConfig(url, opts)
	if err != nil {
		return nil, err
	}
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.wall == nil {
		opts.wall = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	// The pool reconnects by itself: a connection that failed is closed
	// and dropped on release, and Acquire dials a new one. A dead one is
	// weeded out by a ping before it is handed out (shouldPing).
	f := &faults{}
	cfg.ShouldPing = func(_ context.Context, p pgxpool.ShouldPingParams) bool { return f.shouldPing(p.IdleDuration) }
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, openError(url, err)
	}
	s := &Store{
		pool: pool, opts: opts, log: log, broker: booking.NewBroker(), faults: f,
		id:        strconv.FormatUint(rand.Uint64(), 36),
		listening: make(chan struct{}), pending: map[int64]bool{}, kick: make(chan struct{}, 1),
		down: newShutdown(),
	}
	s.Store = store.New(driver{s}, store.Options{
		TicketKeys:    append([]booking.TicketKey{opts.TicketKey}, opts.OldTicketKeys...),
		ReserveCutoff: opts.ReserveCutoff,
		PhoneCountry:  opts.PhoneCountry,
		Logger:        log,
		PINCost:       pinCost,
		PINChecks:     &s.pinChecks,
	})
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	var schema string
	if err := pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		pool.Close()
		return nil, s.translate("open", err)
	}
	s.channel = "boxoffice_changes:" + schema
	if err := s.measureClock(ctx); err != nil {
		pool.Close()
		return nil, s.translate("open", err)
	}
	lctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	s.stopped.Add(4)
	go s.clockLoop(lctx)
	go s.listen(lctx)
	go s.notifier(lctx)
	go s.listenProgramme(lctx)
	if opts.SealInterval >= 0 {
		s.stopped.Add(1)
		go s.sealLoop(lctx, cmp.Or(opts.SealInterval, 5*time.Second))
	}
	return s, nil
}

// poolConfig is the pool's configuration for url: its size (16, or
// opts.MaxConns, unless the URL says pool_max_conns), the tracer, and no
// JIT compiling unless the URL asks for it: a booking's tickets are a
// range of ids whose size the planner cannot know, so it guesses
// thousands of rows and, past jit_above_cost, spent 20-40 ms compiling a
// read of three tickets on every booking view of a year's database.
func poolConfig(url string, opts Options) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, openError(url, err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = 16
		if opts.MaxConns > 0 {
			cfg.MaxConns = opts.MaxConns
		}
	}
	cfg.ConnConfig.Tracer = opts.Tracer
	if _, set := cfg.ConnConfig.RuntimeParams["jit"]; !set {
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
	return cfg, nil
}

// Close stops listening and closes the pool.
func (s *Store) Close() error {
	s.stop()
	s.stopped.Wait()
	s.pool.Close()
	return nil
}

// Changes returns the broker that publishes this server's committed
// changes and, through LISTEN, every other server's on the same database.
func (s *Store) Changes() *booking.Broker { return s.broker }

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations are the embedded migrations in number order.
func migrations() ([]store.Migration, error) { return store.Migrations(migrationFiles, "migrations") }

// migrate applies the migrations schema_version has not recorded, each
// in one transaction, holding an advisory lock of this schema so two
// servers starting at once on a new database migrate it once.
func (s *Store) migrate(ctx context.Context) error {
	list, err := migrations()
	if err != nil {
		return s.translate("migrate", err)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return s.translate("migrate", err)
	}
	defer conn.Release()
	const lock = `hashtextextended('boxoffice migrations ' || current_schema(), 0)`
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(`+lock+`)`); err != nil {
		return s.translate("migrate", err)
	}
	defer conn.Exec(context.Background(), `SELECT pg_advisory_unlock(`+lock+`)`)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return s.translate("migrate", err)
	}
	rows, err := conn.Query(ctx, `SELECT version FROM schema_version`)
	if err != nil {
		return s.translate("migrate", err)
	}
	applied, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return s.translate("migrate", err)
	}
	// Every migration not recorded runs, not only those above the newest:
	// branches built side by side land numbers out of order.
	for _, m := range list {
		if slices.Contains(applied, int32(m.Version)) {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
			_, err := tx.Exec(ctx, `INSERT INTO schema_version (version, name) VALUES ($1, $2)`, m.Version, m.Name)
			return err
		})
		if err != nil {
			return s.translate("migrate", err)
		}
	}
	return s.translate("migrate", reindexNames(ctx, conn.Conn()))
}

// SchemaVersion is the newest migration applied.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM schema_version`).Scan(&v)
	return v, s.translate("schema version", err)
}

// translate turns a storage error into a coded one once: a domain error
// passes through, a constraint becomes a conflict, a server that cannot
// be reached EUnavailable (errors.go), the rest is logged and reads
// "Internal error.".
func (s *Store) translate(op string, err error) error { return s.translateAs(op, err, false) }

// translateWrite is translate for a write transaction (inTx): a server
// that cannot be reached reads as a write's words (errors.go), also when
// a read the write made on the pool (the programme) found it away first.
func (s *Store) translateWrite(op string, err error) error {
	var de *booking.Error
	if errors.As(err, &de) && de.Code == booking.EUnavailable && de.Message == msgReadUnreachable {
		return booking.Errorf(booking.EUnavailable, msgUnreachable)
	}
	return s.translateAs(op, err, true)
}

func (s *Store) translateAs(op string, err error, wrote bool) error {
	if err == nil {
		return nil
	}
	var de *booking.Error
	var taken *booking.SeatsTakenError
	var stale *booking.StaleError
	var priced *booking.PriceChangedError
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &de), errors.As(err, &taken), errors.As(err, &stale), errors.As(err, &priced):
		return err
	case errors.Is(err, pgx.ErrNoRows):
		return booking.Errorf(booking.ENotFound, "Not found.")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return booking.Errorf(booking.EInternal, "The request was cancelled.")
	case errors.As(err, &pe) && strings.HasPrefix(pe.Code, "23"):
		s.log.Warn("constraint refused a write", "op", op, "err", err)
		return booking.Errorf(booking.EConflict, "That was changed at another counter; try again.")
	case unreachable(err):
		return s.unavailable(op, err, wrote)
	}
	s.log.Error("internal error", "op", op, "err", err)
	return &booking.Error{Code: booking.EInternal, Message: "Internal error."}
}

// nullID stores a zero id as NULL.
func nullID(id int64) *int64 {
	if id == 0 {
		return nil
	}
	return &id
}
