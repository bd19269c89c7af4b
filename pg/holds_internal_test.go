package pg

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/internal/pgtest"
	"boxoffice/store"
)

// TestLiveHold_IsHoldLive: liveHold, the condition every statement that
// asks whether a hold is live is built from (expireStale its negation),
// says of every hold what store.HoldLive says, PostgreSQL evaluating it:
// a counter's hold and a reservation's, made and expiring around now, at
// the edges of the clock's slack.
func TestLiveHold_IsHoldLive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	now := time.Now().UnixMilli()
	q := `SELECT ` + liveHold("h", "$1") + ` FROM (SELECT $2::text AS owner, $3::bigint AS created_at, $4::bigint AS expires_at) h`
	for _, owner := range []string{"till-1", store.ReservationOwner("BO-ABCDEFGH")} {
		for _, made := range []int64{-3_600_000, -1, 0, 1, store.HoldSlackMS, store.HoldSlackMS + 1, 3_600_000} {
			for _, expires := range []int64{-1, 0, 1, 3_600_000, 7_200_000} {
				var live bool
				if err := conn.QueryRow(ctx, q, now, owner, now+made, now+expires).Scan(&live); err != nil {
					t.Fatal(err)
				}
				if want := store.HoldLive(owner, now+made, now+expires, now); live != want {
					t.Errorf("%s made %+dms expiring %+dms: the SQL says live %v, store.HoldLive %v", owner, made, expires, live, want)
				}
			}
		}
	}
}
