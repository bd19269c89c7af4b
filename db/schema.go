package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"boxoffice/booking"
	"boxoffice/store"
)

// The schema check (invariant 17): a file that is checked or restored
// must hold exactly the tables, indexes, triggers and views that this
// binary's embedded migrations make, the ones it records as applied. A
// backup with an append-only trigger dropped, or with a table and a
// trigger of someone else's added (one that copies every customer's phone
// number, or resets PINs), is as unsound as one with a seat sold twice,
// and the data checks cannot see it. What the migrations make is not
// written down a second time: it is read back from an empty database
// the same migrations were applied to, once per process and set of
// versions, so it cannot drift from them.

// Bounds on what is read of a file's schema: no statement of boxoffice's
// comes near either, and a hostile file must not make the check allocate
// whatever it holds.
const (
	maxSchemaObjects = 10000
	maxSchemaSQL     = 64 << 10
	maxSchemaName    = 200
)

// schemaObject is one row of sqlite_master, its SQL normalised.
type schemaObject struct {
	kind, name, sql string
}

func (o schemaObject) key() string { return o.kind + " " + o.name }

// isRelation reports whether the object holds or yields rows a check
// reads (a table or a view): one that is missing, foreign or different
// makes reading the data unsafe or meaningless.
func (o schemaObject) isRelation() bool { return o.kind == "table" || o.kind == "view" }

// schemaWant is what one set of migrations makes: the objects every
// file of that set holds, and the ones it may hold besides (the
// statistics tables ANALYZE adds, exactly as SQLite makes them).
type schemaWant struct {
	objects  map[string]schemaObject
	optional map[string]schemaObject
}

type wantEntry struct {
	once sync.Once
	want *schemaWant
	err  error
}

// wantCache holds one *wantEntry per set of versions (wantKey).
var wantCache sync.Map

func wantKey(versions []int) string {
	var b strings.Builder
	for _, v := range versions {
		b.WriteString(strconv.Itoa(v))
		b.WriteByte(',')
	}
	return b.String()
}

// wantSchema is the schema the embedded migrations of versions (sorted,
// each one this binary has) make on an empty database, built once per
// process and set. It is built without the caller's context: one
// caller's cancelled check must not leave its error for every later one.
func wantSchema(versions []int) (*schemaWant, error) {
	e, _ := wantCache.LoadOrStore(wantKey(versions), &wantEntry{})
	entry := e.(*wantEntry)
	entry.once.Do(func() { entry.want, entry.err = buildWant(context.Background(), versions) })
	return entry.want, entry.err
}

// errNoSchemaRecord says a file has no readable record of its migrations
// or no readable schema: it is not a boxoffice database.
var errNoSchemaRecord = errors.New("no record of the migrations applied")

// buildWant applies the migrations of versions to an empty in-memory
// database the way Open applies them (same statements, same Go steps,
// foreign keys on) and reads its schema back; then runs ANALYZE and
// counts what that added as optional.
func buildWant(ctx context.Context, versions []int) (*schemaWant, error) {
	w, err := sql.Open("sqlite", "file::memory:?_pragma=foreign_keys(1)")
	if err != nil {
		return nil, err
	}
	defer w.Close()
	// One connection: each new connection to :memory: is a new database.
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	s := &Store{write: w}
	if _, err := s.appliedMigrations(ctx); err != nil {
		return nil, err
	}
	files, err := migrationFiles()
	if err != nil {
		return nil, err
	}
	want := map[int]bool{}
	for _, v := range versions {
		want[v] = true
	}
	for _, m := range files {
		if want[m.Version] {
			if err := s.applyMigration(ctx, m.Version, m.SQL); err != nil {
				return nil, fmt.Errorf("migration %s: %w", m.Name, err)
			}
		}
	}
	objects, _, err := readSchema(ctx, w)
	if err != nil {
		return nil, err
	}
	if _, err := w.ExecContext(ctx, `ANALYZE`); err != nil {
		return nil, err
	}
	analysed, _, err := readSchema(ctx, w)
	if err != nil {
		return nil, err
	}
	optional := map[string]schemaObject{}
	for k, o := range analysed {
		if _, ok := objects[k]; !ok {
			optional[k] = o
		}
	}
	return &schemaWant{objects: objects, optional: optional}, nil
}

// readSchema reads sqlite_master (at most maxSchemaObjects rows) and
// says whether there were more. A statement longer than maxSchemaSQL is
// kept as its length only: it is no statement of boxoffice's.
func readSchema(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) (map[string]schemaObject, bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT type, substr(name, 1, ?), CASE WHEN length(sql) > ? THEN 'too long: ' || length(sql) ELSE coalesce(sql, '') END
		FROM sqlite_master LIMIT ?`, maxSchemaName, maxSchemaSQL, maxSchemaObjects+1)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	out := map[string]schemaObject{}
	n := 0
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.kind, &o.name, &o.sql); err != nil {
			return nil, false, err
		}
		if n++; n > maxSchemaObjects {
			return out, true, rows.Err()
		}
		o.sql = normaliseSQL(o.sql)
		out[o.key()] = o
	}
	return out, false, rows.Err()
}

// normaliseSQL is a statement with every run of white space one space:
// the same statement indented or wrapped otherwise is the same statement.
func normaliseSQL(s string) string { return strings.Join(strings.Fields(s), " ") }

// appliedVersions reads which migrations the file records as applied
// (at most a few thousand: there are far fewer).
func appliedVersions(ctx context.Context, r *sql.DB) ([]int, error) {
	rows, err := r.QueryContext(ctx, `SELECT version FROM schema_migrations ORDER BY version LIMIT 5000`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// checkSchema compares the schema of the file r reads with what the
// migrations it records as applied make, and names every object that is
// missing, not boxoffice's, or not as boxoffice makes it (at most
// store.MaxProblems, then how many more). relationsOK is false when a table or
// a view is among them: its data is then not read at all. An error means
// the file has no readable record of its migrations (errNoSchemaRecord:
// not a boxoffice database), or that the expected schema could not be
// built.
func checkSchema(ctx context.Context, r *sql.DB) (problems []string, relationsOK bool, err error) {
	applied, err := appliedVersions(ctx, r)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", errNoSchemaRecord, err)
	}
	files, err := migrationFiles()
	if err != nil {
		return nil, false, err
	}
	known := map[int]bool{}
	for _, m := range files {
		known[m.Version] = true
	}
	var versions []int
	var found []string
	for _, v := range applied {
		if known[v] {
			versions = append(versions, v)
		} else {
			found = append(found, fmt.Sprintf("migration %d is recorded as applied, but boxoffice has no such migration", v))
		}
	}
	want, err := wantSchema(versions)
	if err != nil {
		return nil, false, fmt.Errorf("the schema of the migrations: %w", err)
	}
	got, more, err := readSchema(ctx, r)
	if err != nil {
		return nil, false, fmt.Errorf("%w: %w", errNoSchemaRecord, err)
	}
	relationsOK = !more
	for _, k := range sortedKeys(want.objects) {
		w := want.objects[k]
		g, ok := got[k]
		switch {
		case !ok:
			found = append(found, w.kind+" "+w.name+" is missing")
		case g.sql != w.sql:
			found = append(found, w.kind+" "+w.name+" is not as boxoffice makes it")
		default:
			continue
		}
		relationsOK = relationsOK && !w.isRelation()
	}
	for _, k := range sortedKeys(got) {
		g := got[k]
		if _, ok := want.objects[k]; ok {
			continue
		}
		if o, ok := want.optional[k]; ok && o.sql == g.sql {
			continue
		}
		found = append(found, booking.CleanLine(g.kind, 16)+" "+booking.CleanLine(g.name, 64)+" is not boxoffice's")
		relationsOK = relationsOK && !g.isRelation()
	}
	if more {
		found = append(found, fmt.Sprintf("more than %d schema objects: not boxoffice's", maxSchemaObjects))
	}
	if len(found) > store.MaxProblems {
		found = append(found[:store.MaxProblems], fmt.Sprintf("and %d more differences in the schema", len(found)-store.MaxProblems))
	}
	return found, relationsOK, nil
}

func sortedKeys(m map[string]schemaObject) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
