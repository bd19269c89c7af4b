// Package pgtest gives a test a PostgreSQL database of its own on the
// server BOXOFFICE_TEST_PG names (.ci/pg starts a throwaway one), dropped
// when the test ends, so tests never see each other's rows: an empty
// schema (URL), or a copy of a database migrated once (Template).
package pgtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// URL is the database BOXOFFICE_TEST_PG names with search_path set to a
// fresh schema of the test's own. The test skips, saying why, when the
// variable is empty.
func URL(t testing.TB) string {
	t.Helper()
	base := os.Getenv("BOXOFFICE_TEST_PG")
	if base == "" {
		t.Skip("BOXOFFICE_TEST_PG is empty: no PostgreSQL to test against (.ci/pg starts one)")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect %s: %v", base, err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("t_%d_%d", time.Now().UnixNano(), rand.IntN(1e6))
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			t.Errorf("drop schema: %v", err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
