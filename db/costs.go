package db

import (
	"cmp"
	"context"
	"slices"
	"time"

	"modernc.org/sqlite"

	"boxoffice/booking"
)

// WriteCosts is what the writer has written since the store opened: the
// figures a sale's cost is counted in (boxoffice bench prints them per
// booking), read as differences between two calls.
type WriteCosts struct {
	// Statements the writer ran, its own BEGIN, SAVEPOINT, RELEASE and
	// COMMIT included.
	Statements int64
	// Rows inserted, updated or deleted, by triggers too (SQLite's
	// total_changes()).
	Rows int64
	// WALBytes is the pages the writer's connection wrote to the WAL,
	// each with its frame header (SQLITE_DBSTATUS_CACHE_WRITE × frame).
	WALBytes int64
	// ByStatement is each prepared statement's runs and time on the
	// writer, the COMMIT's, and the syncer's fsyncs of the WAL beside it
	// (fsyncCost), the dearest first.
	ByStatement []StatementCost
}

// StatementCost is what one statement cost the writer: how often it ran
// and the time it took, to its first row.
type StatementCost struct {
	SQL  string
	Runs int64
	Time time.Duration
}

// Sub is c − before.
func (c WriteCosts) Sub(before WriteCosts) WriteCosts {
	was := make(map[string]StatementCost, len(before.ByStatement))
	for _, sc := range before.ByStatement {
		was[sc.SQL] = sc
	}
	var by []StatementCost
	for _, sc := range c.ByStatement {
		sc.Runs -= was[sc.SQL].Runs
		sc.Time -= was[sc.SQL].Time
		if sc.Runs > 0 {
			by = append(by, sc)
		}
	}
	sortCosts(by)
	return WriteCosts{Statements: c.Statements - before.Statements, Rows: c.Rows - before.Rows, WALBytes: c.WALBytes - before.WALBytes, ByStatement: by}
}

// sortCosts puts the dearest statement first.
func sortCosts(by []StatementCost) {
	slices.SortFunc(by, func(a, b StatementCost) int { return cmp.Compare(b.Time, a.Time) })
}

// walFrameHeader is the bytes a WAL frame adds to its page.
const walFrameHeader = 24

// WriteCosts reads the writer's counters, on the writer's own connection
// (a write job that writes nothing).
func (s *Store) WriteCosts(ctx context.Context) (WriteCosts, error) {
	return write(s, ctx, booking.System, "write costs", func(w *wtx) (WriteCosts, error) {
		var c WriteCosts
		var pageSize int64
		if err := w.queryRow(`SELECT total_changes(), (SELECT page_size FROM pragma_page_size())`).Scan(&c.Rows, &pageSize); err != nil {
			return c, err
		}
		err := w.c.conn.Raw(func(dc any) error {
			pages, _, err := dc.(sqlite.DBStatus).Status(sqlite.DBStatusCacheWrite, false)
			c.WALBytes = int64(pages) * (pageSize + walFrameHeader)
			return err
		})
		c.Statements = s.statements.Load()
		for _, sc := range w.c.spent {
			c.ByStatement = append(c.ByStatement, *sc)
		}
		if s.walSync != nil {
			c.ByStatement = append(c.ByStatement, s.walSync.cost())
		}
		sortCosts(c.ByStatement)
		return c, err
	})
}
