package pg

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// CarrySource is a cinema to carry into PostgreSQL table by table
// (`boxoffice migrate --to`): SQLite's file, read at one moment.
type CarrySource interface {
	// Tables lists the source's tables.
	Tables(ctx context.Context) ([]string, error)
	// Columns lists a table's columns.
	Columns(ctx context.Context, table string) ([]string, error)
	// Count is how many rows a table has.
	Count(ctx context.Context, table string) (int64, error)
	// Rows calls each with every row of table, its values in cols' order
	// (int64, float64, string, []byte or nil).
	Rows(ctx context.Context, table string, cols []string, each func([]any) error) error
}

// CarriedTable is one table carried: its rows on either side.
type CarriedTable struct {
	Name       string
	Source     int64
	PostgreSQL int64
}

// CarryReport is what Carry did.
type CarryReport struct {
	Tables []CarriedTable
	// LeftBehind names what was not carried and why (what PostgreSQL
	// derives or keeps another way).
	LeftBehind []string
	// Problems is PostgreSQL's invariant check of what it received, run
	// before the commit: empty, or nothing was committed.
	Problems []string
}

// carryOrder is the order tables are copied in: each after the tables its
// foreign keys name. A table not listed goes after them, by name.
var carryOrder = []string{
	"meta", "halls", "seats", "films", "ticket_types", "price_lists", "prices", "shows",
	"staff", "terminals", "holds", "shifts", "shift_events", "shift_money", "customers", "customer_words", "bookings", "booking_words", "seat_claims",
	"exchanges", "tickets", "payments", "reservations", "waitlist", "seat_blocks", "audit",
	"signin_failures", "approval_failures",
	// Concessions.
	"items", "item_orders", "item_lines", "item_payments",
	// Vouchers: each before its redemptions.
	"vouchers", "voucher_redemptions", "reservation_vouchers",
	// Gift cards: a card before its moves.
	"giftcards", "giftcard_moves",
}

// notCarried are the source's tables and columns PostgreSQL keeps another
// way, with why: never copied, even where PostgreSQL has a table of the
// name (its lockout tables start afresh). booking_words is copied: both
// stores fold names with booking.NameWords.
var notCarried = map[string]string{
	"schema_migrations":    "each database keeps its own schema version",
	"changes":              "SQLite's change log: PostgreSQL servers tell each other by NOTIFY",
	"shift_money":          "a shift's running totals: PostgreSQL sums the shift's payments",
	"signin_failures":      "wrong-PIN counts: lockouts start afresh",
	"approval_failures":    "wrong-PIN counts: lockouts start afresh",
	"shows.sold":           "PostgreSQL counts a show's sold seats from its claims",
	"seat_claims.id":       "a SQLite row number: PostgreSQL finds a claim by its hold or show",
	"bookings.phone_rev":   "SQLite's phone search key, derived from the phone",
	"payments_new":         "a table a SQLite migration left empty",
	"tickets_new":          "a table a SQLite migration left empty",
	"meta.price_gen":       "PostgreSQL keeps its own price generation",
	"meta.schema_versions": "each database keeps its own",
}

// pgColumn is a column of a PostgreSQL table as Carry needs it.
type pgColumn struct {
	name, dataType string
	required       bool // NOT NULL without a default
}

// analyzeSchema gathers the planner's statistics of the cinema's own
// tables, those of the schema it is in, and no others: a bare ANALYZE
// reads every table of every schema of the database, which may be
// anyone's (a shared server, another cinema's schema).
func analyzeSchema(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`)
	if err != nil {
		return err
	}
	tables, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var name string
		err := r.Scan(&name)
		return pgx.Identifier{name}.Sanitize(), err
	})
	if err != nil || len(tables) == 0 {
		return err
	}
	_, err = tx.Exec(ctx, `ANALYZE `+strings.Join(tables, ", "))
	return err
}

// carryPlan is one table to copy: the columns both sides have.
type carryPlan struct {
	table string
	cols  []string
	types []string
	rows  int64
}

// Carry copies every row of src into this database in one transaction
// and, before committing, counts each table on both sides and runs the
// invariant check on what arrived: a mismatch or a problem rolls all of
// it back. It refuses, before writing anything, a database that already
// holds a cinema, and any table or column of src it could not carry that
// is not one PostgreSQL keeps another way (notCarried).
func (s *Store) Carry(ctx context.Context, src CarrySource) (*CarryReport, error) {
	var held int64
	if err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM halls) + (SELECT count(*) FROM staff) + (SELECT count(*) FROM bookings)`).Scan(&held); err != nil {
		return nil, s.translate("carry", err)
	}
	if held > 0 {
		return nil, booking.Errorf(booking.EConflict, "This PostgreSQL database already holds a cinema (halls, staff or bookings): nothing was copied. Give migrate --to an empty database.")
	}
	plans, report, err := s.planCarry(ctx, src)
	if err != nil {
		return nil, err
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return nil, s.translate("carry", err)
	}
	defer tx.Rollback(context.Background())
	for _, p := range plans {
		n, err := copyTable(ctx, tx, src, p)
		if err != nil {
			return nil, booking.Errorf(booking.EInvalid, "Copying %s into PostgreSQL failed: %s. Nothing was copied.", p.table, booking.CleanLine(err.Error(), 300))
		}
		report.Tables = append(report.Tables, CarriedTable{Name: p.table, Source: p.rows, PostgreSQL: n})
		if n != p.rows {
			return nil, booking.Errorf(booking.EInternal, "%s: %d rows in SQLite, %d in PostgreSQL. Nothing was copied.", p.table, p.rows, n)
		}
	}
	// The planner knows nothing of rows copied by this transaction: without
	// statistics it planned the check's per-booking reads of a year's
	// cinema as scans (hours). ANALYZE inside the transaction sees them.
	if err := analyzeSchema(ctx, tx); err != nil {
		return nil, s.translate("carry", err)
	}
	if report.Problems, err = checkAll(ctx, tx); err != nil {
		return nil, s.translate("carry check", err)
	}
	if len(report.Problems) > 0 {
		return report, nil // rolled back by the defer
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, s.translate("carry", err)
	}
	s.forgetCaches()
	return report, nil
}

// planCarry matches src's tables and columns with this database's.
func (s *Store) planCarry(ctx context.Context, src CarrySource) ([]carryPlan, *CarryReport, error) {
	tables, err := src.Tables(ctx)
	if err != nil {
		return nil, nil, err
	}
	slices.SortFunc(tables, func(a, b string) int {
		ia, ib := slices.Index(carryOrder, a), slices.Index(carryOrder, b)
		if ia < 0 {
			ia = len(carryOrder)
		}
		if ib < 0 {
			ib = len(carryOrder)
		}
		if ia != ib {
			return ia - ib
		}
		return strings.Compare(a, b)
	})
	report := &CarryReport{}
	var plans []carryPlan
	for _, table := range tables {
		rows, err := src.Count(ctx, table)
		if err != nil {
			return nil, nil, err
		}
		if why, known := notCarried[table]; known {
			report.LeftBehind = append(report.LeftBehind, fmt.Sprintf("%s (%d rows): %s", table, rows, why))
			continue
		}
		dest, err := s.pgColumns(ctx, table)
		if err != nil {
			return nil, nil, err
		}
		if len(dest) == 0 {
			if rows == 0 {
				continue
			}
			return nil, nil, booking.Errorf(booking.EInvalid, "PostgreSQL cannot hold %s yet (%d rows): nothing was copied.", table, rows)
		}
		p, err := matchColumns(ctx, src, table, dest, report)
		if err != nil {
			return nil, nil, err
		}
		p.rows = rows
		plans = append(plans, p)
	}
	return plans, report, nil
}

func matchColumns(ctx context.Context, src CarrySource, table string, dest []pgColumn, report *CarryReport) (carryPlan, error) {
	cols, err := src.Columns(ctx, table)
	if err != nil {
		return carryPlan{}, err
	}
	p := carryPlan{table: table}
	for _, c := range cols {
		i := slices.IndexFunc(dest, func(d pgColumn) bool { return d.name == c })
		if i < 0 {
			why, known := notCarried[table+"."+c]
			if !known {
				return carryPlan{}, booking.Errorf(booking.EInvalid, "PostgreSQL has no column for %s.%s: nothing was copied.", table, c)
			}
			report.LeftBehind = append(report.LeftBehind, table+"."+c+": "+why)
			continue
		}
		p.cols = append(p.cols, c)
		p.types = append(p.types, dest[i].dataType)
	}
	for _, d := range dest {
		if d.required && !slices.Contains(p.cols, d.name) {
			return carryPlan{}, booking.Errorf(booking.EInvalid, "SQLite's %s has no %s, which PostgreSQL needs: nothing was copied.", table, d.name)
		}
	}
	return p, nil
}

// pgColumns lists table's columns in this database's schema; none when
// it has no such table.
func (s *Store) pgColumns(ctx context.Context, table string) ([]pgColumn, error) {
	rows, err := s.pool.Query(ctx, `SELECT column_name, data_type, is_nullable = 'NO' AND column_default IS NULL AND is_identity = 'NO'
		FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`, table)
	if err != nil {
		return nil, s.translate("carry", err)
	}
	defer rows.Close()
	var out []pgColumn
	for rows.Next() {
		var c pgColumn
		if err := rows.Scan(&c.name, &c.dataType, &c.required); err != nil {
			return nil, s.translate("carry", err)
		}
		out = append(out, c)
	}
	return out, s.translate("carry", rows.Err())
}

// copyTable copies one table with COPY (meta, which PostgreSQL's own
// migrations already wrote to, by upsert) and sets its identity to go on
// after the highest id copied. It returns the table's rows afterwards.
func copyTable(ctx context.Context, tx pgx.Tx, src CarrySource, p carryPlan) (int64, error) {
	var rows [][]any
	err := src.Rows(ctx, p.table, p.cols, func(r []any) error {
		row := make([]any, len(r))
		for i, v := range r {
			row[i] = pgValue(v, p.types[i])
			if lowerCased[p.table+"."+p.cols[i]] {
				if str, ok := row[i].(string); ok {
					row[i] = strings.ToLower(str)
				}
			}
		}
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		return 0, err
	}
	if p.table == "meta" {
		for _, r := range rows {
			if _, skip := notCarried["meta."+fmt.Sprint(r[0])]; skip {
				continue
			}
			if _, err := tx.Exec(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, r[0], r[1]); err != nil {
				return 0, err
			}
		}
	} else if err := copyRows(ctx, tx, p, rows); err != nil {
		return 0, err
	}
	if slices.Contains(p.cols, "id") {
		if _, err := tx.Exec(ctx, fmt.Sprintf(`SELECT setval(pg_get_serial_sequence(%s, 'id'), max(id)) FROM %s HAVING max(id) IS NOT NULL AND pg_get_serial_sequence(%s, 'id') IS NOT NULL`,
			quoteLiteral(p.table), pgx.Identifier{p.table}.Sanitize(), quoteLiteral(p.table))); err != nil {
			return 0, err
		}
	}
	var n int64
	if p.table == "meta" {
		return int64(len(rows)), nil // PostgreSQL's own keys beside them
	}
	err = tx.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{p.table}.Sanitize()).Scan(&n)
	return n, err
}

// lowerCased are the columns PostgreSQL keeps lower case (SQLite compared
// them without case, COLLATE NOCASE, and kept them as typed).
var lowerCased = map[string]bool{"price_lists.name": true, "prices.list": true, "shows.price_list": true}

// guardsOfMoves are the tables whose own triggers guard the sale path's
// moves as they happen (cash only into an open shift, no refund beyond
// the sale): a copy of a cinema's history is none of those moves, and a
// week's closed shifts hold cash that a trigger wanting an open shift
// would refuse (or a card payment it would move out of its shift). What
// they guard is checked on the whole copy before it commits (checkAll).
// Every other table keeps its triggers.
var guardsOfMoves = map[string]bool{"payments": true, "item_payments": true}

// copyRows COPYs rows into p's table, its own triggers off for the
// guardsOfMoves; foreign keys and CHECKs, PostgreSQL's own, stay on.
func copyRows(ctx context.Context, tx pgx.Tx, p carryPlan, rows [][]any) error {
	table := pgx.Identifier{p.table}.Sanitize()
	if guardsOfMoves[p.table] {
		if _, err := tx.Exec(ctx, `ALTER TABLE `+table+` DISABLE TRIGGER USER`); err != nil {
			return err
		}
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{p.table}, p.cols, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	if !guardsOfMoves[p.table] {
		return nil
	}
	_, err := tx.Exec(ctx, `ALTER TABLE `+table+` ENABLE TRIGGER USER`)
	return err
}

// pgValue converts a SQLite value for a PostgreSQL column of dataType:
// SQLite keeps booleans as integers and may hand text back as bytes.
func pgValue(v any, dataType string) any {
	switch dataType {
	case "boolean":
		if n, ok := v.(int64); ok {
			return n != 0
		}
	case "text":
		if b, ok := v.([]byte); ok {
			return string(b)
		}
	}
	return v
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// forgetCaches drops what the store cached of the programme and prices:
// Carry wrote them under it.
func (s *Store) forgetCaches() {
	store.ProgrammeOf(s.Store).Reset()
	s.pricesMu.Lock()
	s.prices, s.pricesGen = nil, ""
	s.pricesMu.Unlock()
}
