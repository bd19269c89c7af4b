package db_test

import (
	"path/filepath"
	"sync"
	"testing"

	"boxoffice/db"
)

// Several processes starting on a brand-new file at once (two counters
// and a server started together) all open it: the one that loses the race
// to create the schema waits, never fails with "database is locked".
// (newFileRounds: fewer rounds under the race detector, ten in CI's slow
// step.)
func TestOpen_ManyAtOnceOnANewFile(t *testing.T) {
	t.Parallel()
	rounds := newFileRounds
	if testing.Short() {
		rounds = 3
	}
	for round := 0; round < rounds; round++ {
		path := filepath.Join(t.TempDir(), "boxoffice.db")
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := db.Open(path, db.Options{SweepInterval: -1, PollInterval: -1, PINCost: 4})
				if err != nil {
					errs <- err
					return
				}
				errs <- s.Close()
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}
