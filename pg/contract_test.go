package pg_test

import (
	"context"
	"os"
	"testing"

	"boxoffice/internal/contract"
	"boxoffice/pg"
)

// pgDifferences are the contract's cases pg is known to fail: each is a
// bug of pg's, to fix, not a second contract. None today.
var pgDifferences = contract.Differences{}

// TestContract runs booking's contract suite (internal/contract) on
// PostgreSQL, each case on a fresh schema of the database
// BOXOFFICE_TEST_PG names, so the cases of a group run in parallel; db's
// tests run the same suite on SQLite.
// Without the variable it skips, saying so.
func TestContract(t *testing.T) {
	t.Parallel()
	if os.Getenv("BOXOFFICE_TEST_PG") == "" {
		t.Skip("BOXOFFICE_TEST_PG is empty: no PostgreSQL to test against (.ci/pg starts one)")
	}
	contract.RunConfig(t, func(t *testing.T, opts contract.Options) contract.Store {
		t.Parallel()
		s, err := pg.Open(context.Background(), testURL(t), pg.Options{Clock: opts.Clock.Now, TicketKey: opts.TicketKey, MaxConns: 60})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if err := s.Seed(context.Background(), opts.Seed, false); err != nil {
			t.Fatal(err)
		}
		return s
	}, contract.Config{Known: pgDifferences})
}
