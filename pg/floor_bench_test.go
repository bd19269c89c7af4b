package pg_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"boxoffice/internal/floorbench"
	"boxoffice/internal/pgtest"
	"boxoffice/pg"
)

// Run with BOXOFFICE_TEST_PG set (.ci/pg starts a server):
// go test ./pg -run '^$' -bench SaleFloor -benchtime 8000x -count 3.

// BenchmarkSaleFloor is the leanest sale the rules allow on PostgreSQL,
// beside the seeds' shape (pg.SeedShape: the show's row locked FOR
// UPDATE) and the server's raw commit limit, all in the same run and
// schema: what the sale's redesign (one row a seat for its whole life,
// the hold as columns of its claims, no tickets row) could reach at best,
// with none of the store's own work around it (docs/performance.md).
//
// Kept, each by the database as the store keeps it: one live claim a
// seat (a partial unique index), a seat kept out of sale refused (a
// trigger), the sale a compare-and-set on the claims, the number and key
// unique, payments append-only with cash needing its clerk's open shift
// (the shift's row locked FOR SHARE by a trigger), an audit row for the
// hold and one for the sale. Written the way the store writes: each
// transaction one round trip (BEGIN, one statement of data-modifying
// CTEs, COMMIT in one batch), the hold without waiting for the disk, the
// sale with synchronous commit, 64 connections. Left out: the store's own
// work, races, the audit seal, the customer's name words.
func BenchmarkSaleFloor(b *testing.B) {
	ctx := context.Background()
	url := pgtest.URL(b)
	raw, err := pg.RawCommitRate(ctx, url, 2*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	shows := 1 + b.N/250
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, pgFloorSchema); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO shows SELECT g, 1, 4000000000, 'standard' FROM generate_series(1, $1) g`, shows); err != nil {
		b.Fatal(err)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = floorbench.Clients
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	seeds, err := pg.OpenSeedShape(ctx, url, shows, 500, floorbench.Clients, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer seeds.Close()

	b.ResetTimer()
	floorSecs, took := floorbench.Run(b, func(k int64) error { return floorSell(ctx, pool, k) })
	b.StopTimer()
	var sold, bookings int64
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM claims WHERE status = 'sold'), (SELECT count(*) FROM bookings)`).Scan(&sold, &bookings); err != nil {
		b.Fatal(err)
	}
	if bookings != int64(b.N) || sold != 2*bookings {
		b.Fatalf("%d bookings with %d seats sold, want %d with %d", bookings, sold, b.N, 2*b.N)
	}
	seedSecs, _ := floorbench.Run(b, func(k int64) error {
		bk := floorbench.Of(k)
		ok, err := seeds.Book(ctx, bk.Show, []string{fmt.Sprint("s", bk.First), fmt.Sprint("s", bk.First+1)})
		if err == nil && !ok {
			err = fmt.Errorf("seeds: seats of booking %d taken", k)
		}
		return err
	})
	floor, seed := floorbench.Report(b, floorSecs, took), float64(b.N)/seedSecs
	b.ReportMetric(seed, "seeds_bookings/s")
	b.ReportMetric(floor/seed, "x_seeds")
	b.ReportMetric(raw, "raw_tx/s")
}

// pgFloorSchema is the floor's tables: the project's rules on the fewest
// rows (see BenchmarkSaleFloor).
const pgFloorSchema = `
CREATE TABLE shows (id bigint PRIMARY KEY, hall_id bigint NOT NULL, starts_at bigint NOT NULL, price_list text NOT NULL);
CREATE TABLE seat_blocks (show_id bigint, hall_id bigint, seat_id bigint NOT NULL, at bigint NOT NULL);
CREATE INDEX seat_blocks_by_show ON seat_blocks(show_id, seat_id) WHERE show_id IS NOT NULL;
CREATE INDEX seat_blocks_by_hall ON seat_blocks(hall_id, seat_id) WHERE show_id IS NULL;
CREATE TABLE staff (id bigint PRIMARY KEY, name text NOT NULL, role text NOT NULL, disabled boolean NOT NULL DEFAULT false);
CREATE TABLE shifts (id bigint PRIMARY KEY, staff text NOT NULL, status text NOT NULL);
CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
CREATE SEQUENCE hold_ids;
CREATE TABLE bookings (
	id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, number text NOT NULL UNIQUE, show_id bigint NOT NULL REFERENCES shows(id),
	status text NOT NULL, idem_key text NOT NULL UNIQUE, customer text NOT NULL DEFAULT '', phone text NOT NULL DEFAULT '',
	total bigint NOT NULL CHECK (total >= 0), sold_by text NOT NULL, created_at bigint NOT NULL);
CREATE INDEX bookings_by_show ON bookings(show_id);
CREATE TABLE claims (
	id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, show_id bigint NOT NULL REFERENCES shows(id), seat_id bigint NOT NULL,
	hold_id bigint NOT NULL, owner text NOT NULL, status text NOT NULL CHECK (status IN ('held', 'sold', 'released', 'expired', 'cancelled')),
	created_at bigint NOT NULL, expires_at bigint NOT NULL, booking_id bigint REFERENCES bookings(id), type_code text, price bigint CHECK (price >= 0),
	CHECK ((status = 'sold') = (booking_id IS NOT NULL) OR status = 'cancelled'));
CREATE UNIQUE INDEX claims_one_live ON claims(show_id, seat_id) WHERE status IN ('held', 'sold');
CREATE INDEX claims_by_hold ON claims(hold_id, status);
CREATE FUNCTION claim_not_blocked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF EXISTS (SELECT 1 FROM seat_blocks b WHERE b.show_id = NEW.show_id AND b.seat_id = NEW.seat_id)
		OR EXISTS (SELECT 1 FROM shows s JOIN seat_blocks b ON b.hall_id = s.hall_id AND b.seat_id = NEW.seat_id AND b.show_id IS NULL
			WHERE s.id = NEW.show_id AND b.at < s.starts_at * 1000) THEN
		RAISE EXCEPTION 'seat out of sale' USING ERRCODE = 'check_violation';
	END IF;
	RETURN NEW;
END;
$$;
CREATE TRIGGER claims_not_blocked BEFORE INSERT ON claims FOR EACH ROW WHEN (NEW.status IN ('held', 'sold')) EXECUTE FUNCTION claim_not_blocked();
CREATE TABLE payments (
	id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, booking_id bigint NOT NULL REFERENCES bookings(id),
	kind text NOT NULL CHECK (kind IN ('sale', 'refund')), method text NOT NULL CHECK (method IN ('cash', 'card')),
	amount bigint NOT NULL CHECK (amount >= 0), at bigint NOT NULL, staff text NOT NULL, shift_id bigint REFERENCES shifts(id),
	CHECK (method <> 'cash' OR amount = 0 OR shift_id IS NOT NULL));
CREATE INDEX payments_by_booking ON payments(booking_id);
CREATE INDEX payments_by_at ON payments(at);
CREATE INDEX payments_by_shift ON payments(shift_id);
CREATE FUNCTION payment_shift_open() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	st text;
BEGIN
	SELECT status INTO st FROM shifts WHERE id = NEW.shift_id FOR SHARE;
	IF st IS DISTINCT FROM 'open' THEN
		IF NEW.method = 'cash' THEN
			RAISE EXCEPTION 'shift % is closed', NEW.shift_id USING ERRCODE = 'check_violation';
		END IF;
		NEW.shift_id := NULL;
	END IF;
	RETURN NEW;
END;
$$;
CREATE TRIGGER payments_shift_open BEFORE INSERT ON payments FOR EACH ROW WHEN (NEW.shift_id IS NOT NULL) EXECUTE FUNCTION payment_shift_open();
CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION '% rows are never changed or removed', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$;
CREATE TRIGGER payments_append_only BEFORE UPDATE OR DELETE ON payments FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TABLE audit (
	id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, at bigint NOT NULL, actor text NOT NULL, action text NOT NULL,
	show_id bigint, booking_id bigint, amount bigint, detail text NOT NULL);
CREATE INDEX audit_by_at ON audit(at);
CREATE INDEX audit_by_booking ON audit(booking_id) WHERE booking_id IS NOT NULL;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit FOR EACH ROW EXECUTE FUNCTION refuse_change();
INSERT INTO staff VALUES (1, 'bench', 'clerk');
INSERT INTO shifts VALUES (1, 'bench', 'open');
INSERT INTO meta VALUES ('price_gen', '1');
`

// The floor's sale, each a statement of data-modifying CTEs: the hold
// (its claims under a new hold id, and its audit row), and the sale (the
// booking when every decision still holds, its claims held -> sold by
// compare-and-set, priced as they go, the payment, the audit row).
const (
	qPGFloorHold = `WITH c AS (
		INSERT INTO claims (show_id, seat_id, hold_id, owner, status, created_at, expires_at)
		SELECT $1, s, h.id, $2, 'held', $3::bigint, $3::bigint + 600000 FROM (SELECT nextval('hold_ids') AS id) h, unnest($4::bigint[]) s
		WHERE EXISTS (SELECT 1 FROM staff WHERE id = 1 AND NOT disabled) RETURNING hold_id
	), a AS (
		INSERT INTO audit (at, actor, action, show_id, detail) SELECT $3::bigint, 'bench', 'hold', $1, 'hold ' || max(hold_id) FROM c
	)
	SELECT max(hold_id) FROM c`
	qPGFloorSell = `WITH b AS (
		INSERT INTO bookings (number, show_id, status, idem_key, total, sold_by, created_at)
		SELECT $1, $2::bigint, 'confirmed', $3, 2500, 'bench', $4::bigint
		WHERE (SELECT value FROM meta WHERE key = 'price_gen') = '1' AND (SELECT price_list FROM shows WHERE id = $2) = 'standard'
		AND EXISTS (SELECT 1 FROM shifts WHERE id = 1 AND status = 'open' AND staff = 'bench')
		AND EXISTS (SELECT 1 FROM staff WHERE id = 1 AND NOT disabled) RETURNING id
	), c AS (
		UPDATE claims SET status = 'sold', booking_id = b.id, type_code = 'adult', price = 1250 FROM b
		WHERE hold_id = $5 AND owner = $6 AND status = 'held' AND expires_at > $4 RETURNING claims.id
	), p AS (
		INSERT INTO payments (booking_id, kind, method, amount, at, staff, shift_id) SELECT b.id, 'sale', 'cash', 2500, $4, 'bench', 1 FROM b
	), a AS (
		INSERT INTO audit (at, actor, action, show_id, booking_id, amount, detail) SELECT $4, 'bench', 'sale', $2, b.id, 2500, 'sale cash: 2 seats' FROM b
	)
	SELECT coalesce((SELECT id FROM b), 0), (SELECT count(*) FROM c)`
)

// floorSell is booking k (floorbench.Of), held in one transaction and
// sold in the next, each one round trip, as the store does.
func floorSell(ctx context.Context, pool *pgxpool.Pool, k int64) error {
	bk := floorbench.Of(k)
	hb := &pgx.Batch{}
	hb.Queue("BEGIN")
	hb.Queue("SET LOCAL synchronous_commit = off")
	var hold int64
	hb.Queue(qPGFloorHold, bk.Show, bk.Owner, time.Now().UnixMilli(), []int64{bk.First, bk.First + 1}).QueryRow(func(r pgx.Row) error { return r.Scan(&hold) })
	hb.Queue("COMMIT")
	if err := pool.SendBatch(ctx, hb).Close(); err != nil {
		return fmt.Errorf("hold %d: %w", k, err)
	}
	var id, sold int64
	sb := &pgx.Batch{}
	sb.Queue("BEGIN")
	sb.Queue(qPGFloorSell, bk.Number, bk.Show, bk.Key, time.Now().UnixMilli(), hold, bk.Owner).QueryRow(func(r pgx.Row) error { return r.Scan(&id, &sold) })
	sb.Queue("COMMIT")
	if err := pool.SendBatch(ctx, sb).Close(); err != nil {
		return fmt.Errorf("sale %d: %w", k, err)
	}
	if id == 0 || sold != 2 {
		return fmt.Errorf("sale %d: booking %d with %d claims sold", k, id, sold)
	}
	return nil
}
