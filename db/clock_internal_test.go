package db

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"boxoffice/store"
)

// TestLiveHoldSQL_IsHoldLive: liveHoldSQL, and the sweep's two ways of
// finding lapsed holds (qExpiredBy, qMadeAhead), say of every hold what
// store.HoldLive says, SQLite evaluating them: a counter's hold and a
// reservation's, made and expiring around now, at the edges of the
// clock's slack.
func TestLiveHoldSQL_IsHoldLive(t *testing.T) {
	t.Parallel()
	s := openBare(t)
	ctx := context.Background()
	now := time.Now().UnixMilli()
	q := `SELECT ` + liveHoldSQL("h") + `, (` + qExpiredBy + `) OR (` + qMadeAhead + `)
		FROM (SELECT 'held' AS status, ? AS owner, ? AS created_at, ? AS expires_at) h`
	for _, owner := range []string{"till-1", store.ReservationOwner("BO-ABCDEFGH")} {
		for _, made := range []int64{-3_600_000, -1, 0, 1, store.HoldSlackMS, store.HoldSlackMS + 1, 3_600_000} {
			for _, expires := range []int64{-1, 0, 1, 3_600_000, 7_200_000} {
				var live, lapsed bool
				if err := s.readRow(ctx, q, now, now, now, now, owner, now+made, now+expires).Scan(&live, &lapsed); err != nil {
					t.Fatal(err)
				}
				want := store.HoldLive(owner, now+made, now+expires, now)
				if live != want || lapsed == want {
					t.Errorf("%s made %+dms expiring %+dms: the SQL says live %v, the sweep lapsed %v; store.HoldLive says %v",
						owner, made, expires, live, lapsed, want)
				}
			}
		}
	}
}

// The show list's held count spells out the live-hold rule as a constant:
// it must say what liveHoldSQL says.
func TestHeldCount_IsTheLiveHoldRule(t *testing.T) {
	t.Parallel()
	want := strings.ReplaceAll(liveHoldSQL("ho"), "?", "?1")
	if !strings.Contains(heldCount, want) {
		t.Fatalf("heldCount has drifted from liveHoldSQL:\n%s\nwant it to contain\n%s", heldCount, want)
	}
}

// qMadeAhead repeats the condition of the index holds_made_ahead, so
// SQLite may use it, and says what liveHoldSQL says of a hold made ahead.
func TestMadeAhead_IsTheIndexAndTheRule(t *testing.T) {
	t.Parallel()
	mig, err := os.ReadFile("migrations/0028_holds_made_ahead.sql")
	if err != nil {
		t.Fatal(err)
	}
	index, _, _ := strings.Cut(qMadeAhead, " AND created_at")
	if !strings.Contains(string(mig), "ON holds(created_at) WHERE "+index+";") {
		t.Fatalf("holds_made_ahead's condition is not qMadeAhead's %q:\n%s", index, mig)
	}
	want := "owner NOT GLOB '" + store.ReservationOwnerPrefix + "*' AND created_at > ? + " + strconv.Itoa(store.HoldSlackMS)
	if !strings.HasSuffix(qMadeAhead, want) {
		t.Fatalf("qMadeAhead = %q, want it to end %q", qMadeAhead, want)
	}
}

// expireStale's statements say what qExpiredBy and qMadeAhead say.
func TestExpireStale_IsTheRule(t *testing.T) {
	t.Parallel()
	if !strings.Contains(qExpireStale, qExpiredBy) || !strings.Contains(qExpireMadeAhead, "(SELECT id FROM holds WHERE "+qMadeAhead+")") {
		t.Fatalf("expireStale's statements have drifted:\n%s\n%s", qExpireStale, qExpireMadeAhead)
	}
}
