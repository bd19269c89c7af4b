package db

import (
	"strconv"
	"strings"
	"testing"
)

// The show list's held count spells out the live-hold rule as a constant:
// it must say what liveHoldSQL says.
func TestHeldCount_IsTheLiveHoldRule(t *testing.T) {
	want := strings.ReplaceAll(liveHoldSQL("ho"), "?", "?1")
	if !strings.Contains(heldCount, want) {
		t.Fatalf("heldCount has drifted from liveHoldSQL:\n%s\nwant it to contain\n%s", heldCount, want)
	}
}

// The staff list's lock test spells out lockLive as a constant.
func TestLockLiveSQL_IsLockLive(t *testing.T) {
	want := " BETWEEN ?1 + 1 AND ?1 + " + strconv.FormatInt(lockoutMS+clockSlackMS, 10)
	if lockLiveSQL != want {
		t.Fatalf("lockLiveSQL = %q, want %q", lockLiveSQL, want)
	}
}
