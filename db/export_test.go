package db

import "sync"

// Test-only access to the store's internals for the plan guard.

// CapturePrepared records every statement any store prepares from now on
// until the returned stop is called; stop returns them, each once, in the
// order first seen.
func CapturePrepared() (stop func() []string) {
	var mu sync.Mutex
	seen := map[string]bool{}
	var order []string
	hook := func(q string) {
		mu.Lock()
		defer mu.Unlock()
		if !seen[q] {
			seen[q] = true
			order = append(order, q)
		}
	}
	preparedHook.Store(&hook)
	return func() []string {
		preparedHook.Store(nil)
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), order...)
	}
}

// OtherStatements are the statements the store runs without preparing
// them through the writer or the read pool (the poller's connection).
func OtherStatements() []string { return []string{qLastChange, qChangesAfter} }

// WritesUnderWay is how many writes have passed Quiesce's drain and not
// yet answered.
func WritesUnderWay(s *Store) int { return s.quiesce.Len() }

// Reads is how many statements s has run on its read pool: Collect's
// test counts them to show every wrong answer does the same work.
func Reads(s *Store) int64 { return s.reads.Load() }

// SyncWALWith makes s's syncer put the WAL on disk with sync (nil: the
// real fsync), so a test can stall or fail the disk.
func SyncWALWith(s *Store, sync func(path string) error) {
	if sync == nil {
		sync = syncFile
	}
	s.walSync.mu.Lock()
	s.walSync.syncFile = sync
	s.walSync.mu.Unlock()
}
