package pgtest

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Template is a database migrated once per test binary, whose copies
// (CREATE DATABASE … TEMPLATE) the binary's tests take instead of each
// migrating a schema of its own, which cost the server a second or two
// of work a test. A copy is not dropped when its test ends (dropping a
// database waits on a checkpoint, which on a busy disk took seconds) but
// put back as the template left it (reset.sql) for the next test; one
// whose tables, indexes, triggers or functions the test changed is
// dropped instead, behind the tests. Make one with NewTemplate; the
// binary's TestMain calls Drop. It needs PostgreSQL 14 or later (DROP
// DATABASE … WITH (FORCE), pg_terminate_backend's wait) and a user with
// CREATEDB; unless a superuser, as .ci/pg's is, every test has a new
// copy.
type Template struct {
	migrate func(ctx context.Context, url string) error

	once  sync.Once
	base  *url.URL      // BOXOFFICE_TEST_PG
	admin *pgxpool.Pool // on base: CREATE and DROP DATABASE run outside the database they name
	name  string        // the template database, once made
	reuse bool          // copies are put back: the user is a superuser (reset.sql)
	err   error

	mu   sync.Mutex
	idle []string // copies put back, waiting for a test

	// Copies being dropped (dropLater), and the drops that failed.
	drops   sync.WaitGroup
	dropMu  sync.Mutex
	dropErr error
}

// NewTemplate is a template that migrate brings up to date, on the
// first test that asks for a copy. migrate must leave no connection to
// url open: PostgreSQL copies only a database nobody is connected to.
func NewTemplate(migrate func(ctx context.Context, url string) error) *Template {
	return &Template{migrate: migrate}
}

// URL is a database of the test's own, as the template left it: a copy
// no other test uses until this one ends, so tests never see each
// other's rows. The test skips, saying why, when BOXOFFICE_TEST_PG is
// empty.
func (tp *Template) URL(t testing.TB) string {
	t.Helper()
	tp.ready(t)
	if !tp.reuse {
		return tp.FreshURL(t)
	}
	name, err := tp.take()
	if err != nil {
		t.Fatalf("copy the template database: %v", err)
	}
	// Registered before the test opens a store: cleanups run last
	// first, so its stores are closed by then.
	t.Cleanup(func() {
		if err := tp.putBack(name); err != nil {
			t.Errorf("put the test's database back: %v", err)
		}
	})
	return tp.url(name)
}

// ready makes the template for the first test that asks, and fails the
// test if it could not be made.
func (tp *Template) ready(t testing.TB) {
	t.Helper()
	if os.Getenv("BOXOFFICE_TEST_PG") == "" {
		t.Skip("BOXOFFICE_TEST_PG is empty: no PostgreSQL to test against (.ci/pg starts one)")
	}
	tp.once.Do(tp.make)
	if tp.err != nil {
		t.Fatalf("the migrated template database: %v", tp.err)
	}
}

// FreshURL is, as URL, a database of the test's own, but a copy no
// test used before, dropped once the test ends: for a test of the
// planner's choices, which a reused copy's files, grown by the tests
// before, can sway (reset.sql).
func (tp *Template) FreshURL(t testing.TB) string {
	t.Helper()
	tp.ready(t)
	name, err := tp.copy()
	if err != nil {
		t.Fatalf("copy the template database: %v", err)
	}
	t.Cleanup(func() { tp.dropLater(name) })
	return tp.url(name)
}

// Drop drops every copy and the template, if it was made: TestMain calls
// it once every test is done, and fails the run on its error (a drop
// behind a test that had ended failed, or one now).
func (tp *Template) Drop() error {
	if tp.admin == nil {
		return nil
	}
	defer tp.admin.Close()
	// Drops running together share the checkpoint each waits on.
	for _, name := range tp.idle {
		tp.dropLater(name)
	}
	tp.idle = nil
	tp.drops.Wait()
	err := tp.dropErr
	if tp.name != "" {
		err = errors.Join(err,
			tp.exec(`ALTER DATABASE `+tp.name+` IS_TEMPLATE false`),
			tp.exec(`DROP DATABASE `+tp.name+` WITH (FORCE)`))
	}
	return err
}

// resetSQL keeps, in the template's schema pgtest, what a copy is put
// back to: the rows the migrations left, the sequences' values and a
// digest of the catalog (pgtest.reset).
//
//go:embed reset.sql
var resetSQL string

// make creates the template database, migrates it, adds pgtest.reset,
// and marks it a template nobody may connect to, so no later connection
// can hold up a copy or change what every copy starts from.
func (tp *Template) make() {
	ctx := context.Background()
	base := os.Getenv("BOXOFFICE_TEST_PG")
	if tp.base, tp.err = url.Parse(base); tp.err != nil {
		return
	}
	if tp.admin, tp.err = pgxpool.New(ctx, base); tp.err != nil {
		return
	}
	if tp.err = tp.admin.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&tp.reuse); tp.err != nil {
		return
	}
	name := uniqueName("tmpl")
	if tp.err = tp.exec(`CREATE DATABASE ` + name); tp.err != nil {
		return
	}
	tp.name = name
	u := tp.url(name)
	if err := tp.migrate(ctx, u); err != nil {
		tp.err = fmt.Errorf("migrate: %w", err)
		return
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		tp.err = err
		return
	}
	_, err = conn.Exec(ctx, resetSQL)
	conn.Close(ctx)
	if err != nil {
		tp.err = fmt.Errorf("pgtest.reset: %w", err)
		return
	}
	tp.err = tp.exec(`ALTER DATABASE ` + name + ` WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`)
}

// take is a copy put back by an earlier test, or a new one.
func (tp *Template) take() (string, error) {
	tp.mu.Lock()
	if n := len(tp.idle); n > 0 {
		name := tp.idle[n-1]
		tp.idle = tp.idle[:n-1]
		tp.mu.Unlock()
		return name, nil
	}
	tp.mu.Unlock()
	return tp.copy()
}

// copy is a new copy of the template.
func (tp *Template) copy() (string, error) {
	name := uniqueName("t")
	return name, tp.exec(`CREATE DATABASE ` + name + ` TEMPLATE ` + tp.name)
}

// putBack ends every session left on a test's copy and puts its rows and
// sequences back as the template had them, for the next test; a copy it
// cannot put back (its catalog changed) it drops.
func (tp *Template) putBack(name string) error {
	ok, err := reset(tp.url(name))
	if err == nil && ok {
		tp.mu.Lock()
		tp.idle = append(tp.idle, name)
		tp.mu.Unlock()
		return nil
	}
	tp.dropLater(name)
	return err
}

// dropLater drops a copy without the test that had it waiting (Drop
// waits, and says if it failed); WITH FORCE, as the test's sessions may
// still be closing on the server.
func (tp *Template) dropLater(name string) {
	tp.drops.Add(1)
	go func() {
		defer tp.drops.Done()
		if err := tp.exec(`DROP DATABASE ` + name + ` WITH (FORCE)`); err != nil {
			tp.dropMu.Lock()
			tp.dropErr = errors.Join(tp.dropErr, fmt.Errorf("drop %s: %w", name, err))
			tp.dropMu.Unlock()
		}
	}()
}

// reset runs pgtest.reset on the database at u, alone on it: a store's
// connections may still be closing on the server when its test ends.
func reset(u string) (bool, error) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return false, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`); err != nil {
		return false, err
	}
	var ok bool
	err = conn.QueryRow(ctx, `SELECT pgtest.reset()`).Scan(&ok)
	return ok, err
}

// exec runs one statement on the admin pool.
func (tp *Template) exec(sql string) error {
	_, err := tp.admin.Exec(context.Background(), sql)
	return err
}

// uniqueName is a database name no other test binary on the same server
// takes.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s_%d_%d", prefix, time.Now().UnixNano(), rand.IntN(1e6))
}

// url is BOXOFFICE_TEST_PG naming the database name instead of its own.
func (tp *Template) url(name string) string {
	u := *tp.base
	u.Path = "/" + name
	return u.String()
}
