package pg_test

import (
	"os"
	"testing"

	"boxoffice/internal/contract"
)

// pgDifferences are the contract's cases pg is known to fail: each is a
// bug of pg's, to fix, not a second contract. None today.
var pgDifferences = contract.Differences{}

// TestContract runs booking's contract suite (internal/contract) on
// PostgreSQL, each case on a database of its own (testURL) on the server
// BOXOFFICE_TEST_PG names, so the cases of a group run in parallel; db's
// tests run the same suite on SQLite.
// Without the variable it skips, saying so.
func TestContract(t *testing.T) {
	t.Parallel()
	if os.Getenv("BOXOFFICE_TEST_PG") == "" {
		t.Skip("BOXOFFICE_TEST_PG is empty: no PostgreSQL to test against (.ci/pg starts one)")
	}
	buildPlanHistoryEarly()
	contract.RunConfig(t, func(t *testing.T, opts contract.Options) contract.Store {
		t.Parallel()
		return recordingStore(t, opts)
	}, contract.Config{Known: pgDifferences})
	// Every case is over (each group waits for its cases): the plan
	// guard (planguard_test.go) plans what they ran.
	t.Run("PlanGuard", func(t *testing.T) { planGuard(t, recordedWorkload(t)) })
	t.Run("PlanGuard_DroppedIndex", func(t *testing.T) { planGuardDroppedIndex(t, recordedWorkload(t)) })
}
