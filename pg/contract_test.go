package pg_test

import (
	"context"
	"testing"

	"boxoffice/internal/contract"
	"boxoffice/pg"
)

// TestContract runs booking's contract suite (internal/contract) on a
// fresh schema of the database BOXOFFICE_TEST_PG names, each case on a
// schema of its own; db's tests run the same suite on SQLite. Without the
// variable it skips, saying so.
func TestContract(t *testing.T) {
	testURL(t) // skips early without a database, rather than in every case
	contract.Run(t, func(t *testing.T, opts contract.Options) contract.Store {
		s, err := pg.Open(context.Background(), testURL(t), pg.Options{Clock: opts.Clock.Now, TicketKey: opts.TicketKey, MaxConns: 60})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if err := s.Seed(context.Background(), opts.Seed, false); err != nil {
			t.Fatal(err)
		}
		return s
	})
}
