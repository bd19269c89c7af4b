package pg

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"boxoffice/store"
)

// The benchmark's own SQL (boxoffice bench --db): a throwaway schema to
// run in, the seeds' shape to compare with, and what the schema holds
// afterwards, read with connections of their own.

// BenchSchema makes a new schema in the database at dbURL and returns the
// URL that works in it (search_path) and a function that drops it, so a
// benchmark never touches a cinema's own tables. The URL names its
// connections after the schema (application_name), so ServerCosts can
// wait for them to end.
func BenchSchema(ctx context.Context, dbURL string) (string, func(), error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", nil, openError(dbURL, err)
	}
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return "", nil, openError(dbURL, err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("boxoffice_bench_%d_%d", time.Now().Unix(), rand.IntN(1e6))
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		return "", nil, err
	}
	drop := func() {
		c, err := pgx.Connect(context.Background(), dbURL)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		c.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("application_name", schema)
	u.RawQuery = q.Encode()
	return u.String(), drop, nil
}

// SeedShape is the seeds' way to sell a seat, on the same server: one
// transaction that locks the show's row FOR UPDATE, checks the seats,
// inserts the booking and bumps the show's sold counter. Every sale of a
// show waits for that one row: the hot row this package does without.
type SeedShape struct {
	pool *pgxpool.Pool
}

// OpenSeedShape makes the seeds' two tables in the schema of schemaURL,
// with shows of capacity seats each, on a connection of its own, and then
// a pool of conns connections whose statements tracer sees (none: nil).
func OpenSeedShape(ctx context.Context, schemaURL string, shows, capacity int, conns int32, tracer pgx.QueryTracer) (*SeedShape, error) {
	cfg, err := pgxpool.ParseConfig(schemaURL)
	if err != nil {
		return nil, openError(schemaURL, err)
	}
	conn, err := pgx.Connect(ctx, schemaURL)
	if err != nil {
		return nil, openError(schemaURL, err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE TABLE seed_shows (id bigint PRIMARY KEY, capacity integer NOT NULL, sold integer NOT NULL DEFAULT 0);
		CREATE TABLE seed_bookings (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, show_id bigint NOT NULL REFERENCES seed_shows(id), seat text NOT NULL);
		CREATE INDEX seed_bookings_seat ON seed_bookings(show_id, seat)`)
	if err == nil {
		_, err = conn.Exec(ctx, `INSERT INTO seed_shows (id, capacity) SELECT g, $1 FROM generate_series(1, $2) g`, capacity, shows)
	}
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = conns
	cfg.ConnConfig.Tracer = tracer
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, openError(schemaURL, err)
	}
	return &SeedShape{pool: pool}, nil
}

// Close closes the pool.
func (s *SeedShape) Close() { s.pool.Close() }

// Book sells seats of show the seeds' way and says whether it did (false:
// a seat was taken). READ COMMITTED, as the seeds ran: the FOR UPDATE
// lock is what makes the check safe.
func (s *SeedShape) Book(ctx context.Context, show int64, seats []string) (bool, error) {
	ok := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var sold, capacity int
		if err := tx.QueryRow(ctx, `SELECT sold, capacity FROM seed_shows WHERE id = $1 FOR UPDATE`, show).Scan(&sold, &capacity); err != nil {
			return err
		}
		var taken int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM seed_bookings WHERE show_id = $1 AND seat = ANY($2)`, show, seats).Scan(&taken); err != nil {
			return err
		}
		if taken > 0 || sold+len(seats) > capacity {
			return nil
		}
		if _, err := tx.Exec(ctx, `INSERT INTO seed_bookings (show_id, seat) SELECT $1, unnest($2::text[])`, show, seats); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE seed_shows SET sold = sold + $1 WHERE id = $2`, len(seats), show); err != nil {
			return err
		}
		ok = true
		return nil
	})
	return ok && err == nil, err
}

// SeedDoubleSold counts the seats the seeds' shape sold more than once.
func (s *SeedShape) SeedDoubleSold(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT show_id, seat FROM seed_bookings GROUP BY 1, 2 HAVING count(*) > 1) x`).Scan(&n)
	return n, err
}

// AuditSales reads the schema of schemaURL back with a connection of its
// own.
func AuditSales(ctx context.Context, schemaURL string) (store.SalesAudit, error) {
	var a store.SalesAudit
	conn, err := pgx.Connect(ctx, schemaURL)
	if err != nil {
		return a, openError(schemaURL, err)
	}
	defer conn.Close(ctx)
	err = conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM bookings),
		(SELECT count(*) FROM (SELECT show_id, seat_id FROM seat_claims WHERE status IN ('held', 'sold') GROUP BY 1, 2 HAVING count(*) > 1) x)
		+ (SELECT count(*) FROM (SELECT b.show_id, t.seat_id FROM tickets t JOIN bookings b ON b.id = t.booking_id
			WHERE t.status <> 'void' GROUP BY 1, 2 HAVING count(*) > 1) y),
		(SELECT count(*) FROM audit WHERE action = 'sale')`).Scan(&a.Bookings, &a.DoubleSold, &a.AuditSales)
	return a, err
}

// RawCommitRate is the server's limit for durable single-row
// transactions on one connection, in transactions a second, over dur:
// BEGIN; INSERT one row; COMMIT, with synchronous commit as the server
// has it. It makes a table of its own in the schema of schemaURL.
func RawCommitRate(ctx context.Context, schemaURL string, dur time.Duration) (float64, error) {
	conn, err := pgx.Connect(ctx, schemaURL)
	if err != nil {
		return 0, openError(schemaURL, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TABLE raw_commits (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text)`); err != nil {
		return 0, err
	}
	n := 0
	start := time.Now()
	for time.Since(start) < dur {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, `INSERT INTO raw_commits (v) VALUES ('x')`)
			return err
		})
		if err != nil {
			return 0, err
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// StatementCounter counts the statements its connections send, each
// statement of a batch one, BEGIN and COMMIT too: a pgx tracer
// (Options.Tracer, OpenSeedShape).
type StatementCounter struct{ n atomic.Int64 }

// Count is the statements sent so far.
func (c *StatementCounter) Count() int64 { return c.n.Load() }

// TraceQueryStart counts one statement.
func (c *StatementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

// TraceQueryEnd does nothing.
func (c *StatementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart counts every statement of the batch.
func (c *StatementCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchStartData) context.Context {
	c.n.Add(int64(data.Batch.Len()))
	return ctx
}

// TraceBatchQuery does nothing.
func (c *StatementCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

// TraceBatchEnd does nothing.
func (c *StatementCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// ServerCosts is what the server counted in a benchmark's schema: rows
// inserted, updated or deleted in its tables (pg_stat_user_tables,
// triggers' rows too), and the WAL position (pg_current_wal_lsn(), in
// bytes), read as differences between two calls.
type ServerCosts struct {
	Rows, WALBytes int64
}

// Sub is c − before.
func (c ServerCosts) Sub(before ServerCosts) ServerCosts {
	return ServerCosts{Rows: c.Rows - before.Rows, WALBytes: c.WALBytes - before.WALBytes}
}

// ReadServerCosts reads the costs of the schema of schemaURL once the
// other connections BenchSchema's URL made have ended: a server
// publishes a connection's row counts at the latest when it ends, so
// call it with every pool of the run closed.
func ReadServerCosts(ctx context.Context, schemaURL string) (ServerCosts, error) {
	var c ServerCosts
	conn, err := pgx.Connect(ctx, schemaURL)
	if err != nil {
		return c, openError(schemaURL, err)
	}
	defer conn.Close(ctx)
	for deadline := time.Now().Add(5 * time.Second); ; {
		var others int
		err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = current_setting('application_name')
			AND pid <> pg_backend_pid() AND datname = current_database()`).Scan(&others)
		if err != nil {
			return c, err
		}
		if others == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	err = conn.QueryRow(ctx, `SELECT (SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint FROM pg_stat_user_tables
		WHERE schemaname = current_schema()), (pg_current_wal_lsn() - '0/0')::bigint`).Scan(&c.Rows, &c.WALBytes)
	return c, err
}
