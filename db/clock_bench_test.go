package db_test

import (
	"context"
	"fmt"
	"testing"

	"boxoffice/booking"
)

// Run with go test ./db -run '^$' -bench Clock -benchtime 2000x -count 4.
//
// What the clock rule (a hold made later than the clock has lapsed) costs
// the paths that look for lapsed holds: best available on a show with 300
// live holds of other counters ("busy") against a show with none
// ("quiet"), and an idle sweep pass over those 300 holds.

// BenchmarkClock_HoldBest is best available of 2 seats then their release
// on show 1, where 300 single seats are held for as long as a hold may
// live, each by an owner of its own ("busy"), and on show 2, where none
// are ("quiet"); "sweep" is the sweeper's idle pass over those holds.
func BenchmarkClock_HoldBest(b *testing.B) {
	s, _ := blockBench(b)
	ctx := context.Background()
	for i := 0; i < 300; i++ {
		row, col := i/20, i%20
		label := fmt.Sprintf("%c%d", 'A'+row, col+1)
		if _, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{label}, Owner: fmt.Sprint("other-", i), TTL: booking.MaxHoldLifetime}); err != nil {
			b.Fatal(err)
		}
	}
	for _, kind := range []string{"quiet", "busy"} {
		show := map[string]int64{"quiet": 2, "busy": 1}[kind]
		b.Run(kind, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				h, err := s.HoldBest(ctx, clerk, booking.HoldBestRequest{ShowID: show, N: 2, Owner: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				if err := s.Release(ctx, clerk, h.ID, "bench"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("sweep", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if n, err := s.ExpireHolds(ctx); err != nil || n != 0 {
				b.Fatal(n, err)
			}
		}
	})
}
