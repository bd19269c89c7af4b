package store

import "testing"

// TestHoldLive: a hold is live while its expiry is ahead; a clock set back
// past the slack lapses a counter's or a kiosk's hold at once, but not a
// reservation's, whose expiry is its cut-off.
func TestHoldLive(t *testing.T) {
	const now = 1_000_000_000
	reservation := ReservationOwner("BO-ABCDEFGH")
	for _, c := range []struct {
		name, owner      string
		created, expires int64
		want             bool
	}{
		{"counter, made now", "till-1", now, now + 300_000, true},
		{"counter, expired", "till-1", now - 600_000, now, false},
		{"counter, made within the slack ahead", "till-1", now + HoldSlackMS, now + 300_000, true},
		{"counter, made before a clock set back", "till-1", now + HoldSlackMS + 1, now + 300_000, false},
		{"reservation, made before a clock set back", reservation, now + 3_600_000, now + 7_200_000, true},
		{"reservation, at its cut-off", reservation, now - 3_600_000, now, false},
		{"a session named like a reservation's, without the colon", "reservation", now + 3_600_000, now + 7_200_000, false},
	} {
		if got := HoldLive(c.owner, c.created, c.expires, now); got != c.want {
			t.Errorf("%s: HoldLive = %v, want %v", c.name, got, c.want)
		}
	}
}
