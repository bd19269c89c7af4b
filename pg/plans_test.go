package pg_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// TestPlans_SaleNeverReadsEveryLiveClaim: the statements a checkout runs
// on a hold's claims find them by the hold alone. With only
// seat_claims_by_hold and the partial unique index of live claims, the
// planner, costing a young table, ANDed the two bitmaps, and the generic
// plan a pooled connection keeps then read every live claim of the
// database on every sale: a cost that grows with history. Since 0041
// one index on (hold_id, status) answers the whole condition.
func TestPlans_SaleNeverReadsEveryLiveClaim(t *testing.T) {
	t.Parallel()
	// A copy no test grew: the planner costs the young tables of a new
	// database.
	s, u, clk := seededAt(t, migrated.FreshURL(t))
	ctx := context.Background()
	shows, err := s.Shows(ctx, clerk, booking.DayStart(clk.Now().Add(24*time.Hour)))
	if err != nil || len(shows) == 0 {
		t.Fatalf("shows: %v, %v", shows, err)
	}
	for i := 1; i <= 4; i++ {
		owner := fmt.Sprintf("counter-%d", i)
		h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: shows[0].ID, Seats: []string{fmt.Sprintf("A%d", i)}, Owner: owner})
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if _, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card}); err != nil {
				t.Fatal(err)
			}
		}
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// A generic plan, as a pooled connection keeps, and no sequential
	// scan: what a table of a year is planned as (this one is one page).
	if _, err := conn.Exec(ctx, `SET plan_cache_mode = force_generic_plan; SET enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	for name, q := range map[string]string{
		"sell the claims":  `UPDATE seat_claims SET status = 'sold', booking_id = $2 WHERE hold_id = $1 AND status = 'held'`,
		"read the claims":  `SELECT coalesce(array_agg(seat_id), '{}') FROM seat_claims WHERE hold_id = $1 AND status = 'held'`,
		"held seats":       `SELECT seat_id FROM seat_claims WHERE hold_id = $1 AND status = 'held'`,
		"claims remaining": `SELECT count(*) FROM seat_claims WHERE hold_id = $1 AND status = 'held'`,
	} {
		plan := explain(t, conn, q)
		if strings.Contains(plan, "seat_claims_one_live") || !strings.Contains(plan, "seat_claims_by_hold_status") {
			t.Errorf("%s reads beyond the hold's claims:\n%s", name, plan)
		}
	}
}

// explain is the generic plan of q, whose parameters are bigints.
func explain(t *testing.T, conn *pgx.Conn, q string) string {
	t.Helper()
	n := strings.Count(q, "$")
	params := strings.TrimSuffix(strings.Repeat("bigint, ", n), ", ")
	args := strings.TrimSuffix(strings.Repeat("1, ", n), ", ")
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `DEALLOCATE ALL`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf(`PREPARE q(%s) AS %s`, params, q)); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, fmt.Sprintf(`EXPLAIN EXECUTE q(%s)`, args), pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}
