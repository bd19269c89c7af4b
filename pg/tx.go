package pg

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// tx is one write transaction on a connection of the pool: its time,
// fixed when it began, and the shows it changed.
//
// Its BEGIN is not sent on its own: it goes with the transaction's first
// statement or batch, in the same round trip (a hold's whole work is one
// batch and a COMMIT). Every statement goes through the methods below,
// which send the BEGIN first when it is still pending.
type tx struct {
	s       *Store // whose transaction it is: the typed queries of package store read its caches
	conn    *pgxpool.Conn
	ctx     context.Context
	now     time.Time
	begin   []string // BEGIN and SET LOCAL, until sent
	touched map[int64]bool
	async   bool // commits without waiting for the disk
	// committed says the transaction's last batch carried its COMMIT.
	committed bool
	// commitSent says a COMMIT went out: a connection that breaks after
	// it leaves the outcome unknown (commitUnknownError).
	commitSent bool
}

func (t *tx) nowMS() int64 { return t.now.UnixMilli() }

// touch records that the transaction changed show id.
func (t *tx) touch(id int64) {
	if t.touched == nil {
		t.touched = map[int64]bool{}
	}
	t.touched[id] = true
}

// started reports whether the BEGIN went out (so a ROLLBACK is due).
func (t *tx) started() bool { return t.begin == nil }

func (t *tx) flushBegin(ctx context.Context) error {
	if t.begin == nil {
		return nil
	}
	b := &pgx.Batch{}
	for _, q := range t.begin {
		b.Queue(q)
	}
	t.begin = nil
	return t.conn.SendBatch(ctx, b).Close()
}

// Exec runs one statement in the transaction.
func (t *tx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if err := t.flushBegin(ctx); err != nil {
		return pgconn.CommandTag{}, err
	}
	return t.conn.Exec(ctx, sql, args...)
}

// Query runs one query in the transaction.
func (t *tx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if err := t.flushBegin(ctx); err != nil {
		return nil, err
	}
	return t.conn.Query(ctx, sql, args...)
}

// QueryRow runs one query of one row in the transaction.
func (t *tx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if err := t.flushBegin(ctx); err != nil {
		return errRow{err}
	}
	return t.conn.QueryRow(ctx, sql, args...)
}

// SendBatch sends b in one round trip, the pending BEGIN ahead of it;
// the caller reads b's results only.
func (t *tx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if n := len(b.QueuedQueries); n > 0 && strings.EqualFold(strings.TrimSpace(b.QueuedQueries[n-1].SQL), "COMMIT") {
		t.commitSent = true
	}
	if t.begin == nil {
		return t.conn.SendBatch(ctx, b)
	}
	nb := &pgx.Batch{}
	for _, q := range t.begin {
		nb.Queue(q)
	}
	nb.QueuedQueries = append(nb.QueuedQueries, b.QueuedQueries...)
	n := len(t.begin)
	t.begin = nil
	br := t.conn.SendBatch(ctx, nb)
	for i := 0; i < n; i++ {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return errBatch{err}
		}
	}
	return br
}

// errRow and errBatch carry a failed BEGIN to the caller's Scan or Exec.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

type errBatch struct{ err error }

func (b errBatch) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, b.err }
func (b errBatch) Query() (pgx.Rows, error)         { return nil, b.err }
func (b errBatch) QueryRow() pgx.Row                { return errRow(b) }
func (b errBatch) Close() error                     { return b.err }
func (b errBatch) Tx() pgx.Tx                       { return nil }

// maxAttempts bounds the retries of a transaction that met a
// serialization failure or a deadlock: both mean "run me again", never a
// message for a clerk.
const maxAttempts = 8

// retryable reports a failure PostgreSQL asks the client to retry.
func retryable(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
}

// txMode is how a write transaction runs: its isolation level, whether
// it only holds or frees seats, and whether its commit waits for the WAL
// to reach the disk.
type txMode struct {
	iso pgx.TxIsoLevel
	// hold marks a write that only holds or frees seats (store.Write.Hold).
	// Its statements run on their generic plans: they find rows by keys
	// whose values never change the plan, and PostgreSQL otherwise kept
	// planning the hold's statements afresh at most calls (its check of
	// the show at every one, its claims at about three in five:
	// pg_stat_statements' plans at 4 clients), which cost a hold more
	// than running them.
	hold  bool
	async bool // synchronous_commit off: a hold, unless Options.SyncHolds
	// release marks a shutdown's own releases (ReleaseOwner,
	// ReleasePrefix), which go on after Quiesce and GiveUpWaiting.
	release bool
}

func (m txMode) begin() []string {
	iso := map[pgx.TxIsoLevel]string{pgx.Serializable: "SERIALIZABLE", pgx.RepeatableRead: "REPEATABLE READ"}[m.iso]
	if iso == "" {
		iso = "READ COMMITTED"
	}
	out := []string{"BEGIN ISOLATION LEVEL " + iso}
	switch {
	case m.hold && m.async:
		out = append(out, `SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('synchronous_commit', 'off', true)`)
	case m.hold:
		out = append(out, "SET LOCAL plan_cache_mode = force_generic_plan")
	case m.async:
		out = append(out, "SET LOCAL synchronous_commit = off")
	}
	return out
}

// inTx runs fn in one transaction of mode, retrying it on a
// serialization failure or a deadlock, and publishes the shows it
// changed once it committed, here and (the notifier) to the other
// servers.
func inTx[T any](s *Store, ctx context.Context, what string, mode txMode, fn func(t *tx) (T, error)) (T, error) {
	var zero T
	ctx, leave, err := s.enter(ctx, mode)
	if err != nil {
		return zero, err
	}
	defer leave()
	for attempt := 1; ; attempt++ {
		t, out, err := runTx(s, ctx, mode, fn)
		if err == nil {
			for id := range t.touched {
				s.broker.Publish(id)
			}
			s.queueNotify(t.touched)
			return out, nil
		}
		if retryable(err) && attempt < maxAttempts && ctx.Err() == nil {
			s.log.Debug("retrying", "op", what, "attempt", attempt, "err", err)
			time.Sleep(time.Duration(rand.IntN(1<<attempt)) * time.Millisecond)
			continue
		}
		if ctx.Err() != nil && s.down.givenUp.Err() != nil && !mode.release {
			return zero, errShuttingDown // GiveUpWaiting ended it
		}
		return zero, s.translateWrite(what, err)
	}
}

// runTx is one attempt of inTx: BEGIN (with the first statement), fn,
// the notification, COMMIT; ROLLBACK when anything failed.
func runTx[T any](s *Store, ctx context.Context, mode txMode, fn func(t *tx) (T, error)) (*tx, T, error) {
	var zero T
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, zero, err
	}
	// A connection left inside a transaction (a ROLLBACK that failed) is
	// closed by the pool on release, never reused.
	defer conn.Release()
	t := &tx{s: s, conn: conn, ctx: ctx, now: s.now(), begin: mode.begin(), async: mode.async}
	out, err := fn(t)
	if err == nil {
		if !t.started() || t.committed {
			return t, out, nil // nothing was sent
		}
		t.commitSent = true
		if _, err = conn.Exec(ctx, "COMMIT"); err == nil {
			return t, out, nil
		}
	}
	if t.started() && !t.committed {
		if _, rerr := conn.Exec(context.Background(), "ROLLBACK"); rerr != nil {
			conn.Conn().Close(context.Background())
		}
	}
	if t.commitSent && unreachable(err) {
		err = &commitUnknownError{err}
	}
	return t, zero, err
}
