//go:build !race

// TestStore_CollectTimes runs without the race detector, in CI's step of
// its own (.ci/run, docs/testing.md): the detector's cost is no part of
// the timing it compares, and it would drown it.

package db_test

import (
	"slices"
	"testing"
	"time"
)

// TestStore_CollectTimes is must-show 2's timing: over 300 tries of each
// wrong pair, interleaved so the machine's load falls on all three alike,
// the medians are within 5% of each other. A round can meet a burst of
// another process's work; the claim fails only when three rounds in a
// row do, which a real difference in work would.
func TestStore_CollectTimes(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	s, wrong, _, _, clock := collectFixture(t)
	var last []time.Duration
	for round := 0; round < 3; round++ {
		times := make([][]time.Duration, len(wrong))
		for i := 0; i < 300; i++ {
			// Each pass starts with every counter forgotten, and with
			// another of the three first, as the first also clears the
			// counters the clock has outlived.
			forgetGuesses(clock)
			for k := range wrong {
				j := (i + k) % len(wrong)
				start := time.Now()
				_, _ = collect(s, wrong[j].number, wrong[j].digits)
				times[j] = append(times[j], time.Since(start))
			}
		}
		last = last[:0]
		for _, ts := range times {
			slices.Sort(ts)
			last = append(last, ts[len(ts)/2])
		}
		lo, hi := slices.Min(last), slices.Max(last)
		t.Logf("round %d medians %v (spread %.1f%%)", round, last, 100*float64(hi-lo)/float64(lo))
		if float64(hi-lo) <= 0.05*float64(lo) {
			return
		}
	}
	t.Fatalf("median times %v differ by more than 5%% in three rounds", last)
}
