package db

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

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
	want := "owner NOT GLOB '" + reservationOwnerPrefix + "*' AND created_at > ? + " + strconv.Itoa(clockSlackMS)
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
