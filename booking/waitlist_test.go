package booking

import (
	"testing"
	"time"
)

func TestWaitlistEntry_State(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { x := t0.Add(d); return &x }
	for _, tc := range []struct {
		name string
		e    WaitlistEntry
		now  time.Duration
		want WaitState
	}{
		{"waiting", WaitlistEntry{}, time.Hour, Waiting},
		{"told", WaitlistEntry{NotifiedAt: at(0)}, WaitlistOffer - time.Second, ToCall},
		{"told, never called", WaitlistEntry{NotifiedAt: at(0)}, WaitlistOffer, Lapsed},
		{"called late: the call restarts the offer", WaitlistEntry{NotifiedAt: at(0), CalledAt: at(10 * time.Minute)}, 20 * time.Minute, Called},
		{"called, never came", WaitlistEntry{NotifiedAt: at(0), CalledAt: at(10 * time.Minute)}, 25 * time.Minute, Lapsed},
		{"bought", WaitlistEntry{NotifiedAt: at(0), Bought: true}, time.Hour, Bought},
	} {
		if got := tc.e.State(t0.Add(tc.now)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
