package pg_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/pg"
)

// TestAuditChain_ConcurrentWritersOneChain: counters writing audit rows
// side by side while seals run between them leave one chain, every row on
// it in id order (no fork, no row skipped by a seal that ran while an
// earlier id was still uncommitted); a row deleted with the trigger
// dropped is then named as the first broken link.
func TestAuditChain_ConcurrentWritersOneChain(t *testing.T) {
	t.Parallel()
	s, u, _ := seeded(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	sealed := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-stop:
				sealed <- n
				return
			default:
			}
			if _, err := pg.Seal(ctx, s); err == nil {
				n++
			}
		}
	}()
	for c := 0; c < 10; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			seats := []string{fmt.Sprintf("A%d", c+1), fmt.Sprintf("B%d", c+1)}
			owner := fmt.Sprintf("counter-%d", c)
			for range 5 {
				h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: seats, Owner: owner, AllowSingle: true})
				if err != nil {
					t.Error(err)
					return
				}
				if err := s.Release(ctx, clerk, h.ID, owner); err != nil {
					t.Error(err)
					return
				}
			}
		}(c)
	}
	wg.Wait()
	close(stop)
	t.Logf("%d seals while the counters wrote", <-sealed)
	problems, err := s.CheckInvariants(ctx)
	if err != nil || len(problems) != 0 {
		t.Fatalf("check after the writes: %q %v", problems, err)
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var rows, unchained, before, middle, after int64
	if err := conn.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE hash IS NULL), (array_agg(id ORDER BY id))[count(*) / 2 - 1],
		(array_agg(id ORDER BY id))[count(*) / 2], (array_agg(id ORDER BY id))[count(*) / 2 + 1] FROM audit`).Scan(&rows, &unchained, &before, &middle, &after); err != nil {
		t.Fatal(err)
	}
	if rows < 100 || unchained != 0 {
		t.Fatalf("%d audit rows, %d unchained after check sealed: want 100 or more, all chained", rows, unchained)
	}
	if _, err := conn.Exec(ctx, `DELETE FROM audit WHERE id = $1`, middle); err == nil {
		t.Fatal("an audit row deleted with the trigger in place")
	}
	if _, err := conn.Exec(ctx, `DROP TRIGGER audit_append_only ON audit`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `DELETE FROM audit WHERE id = $1`, middle); err != nil {
		t.Fatal(err)
	}
	problems, err = s.CheckInvariants(ctx)
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0], fmt.Sprintf("the audit chain is broken at row %d: it does not follow row %d", after, before)) {
		t.Fatalf("check after row %d was deleted: %q %v", middle, problems, err)
	}
}
