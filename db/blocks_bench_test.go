package db_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// Run with go test ./db -run '^$' -bench Blocks -benchtime 2000x -count 4.
//
// Each benchmark has a twin in the same run without what it measures, so
// a busy machine slows both alike and the ratio is the figure.

// blockBench is a store with one 500-seat hall and 2000 shows, and its
// file's path.
func blockBench(b *testing.B) (*db.Store, string) {
	s, path := dbtest.MustOpenEmpty(b, db.Options{Sync: "normal", SweepInterval: -1, PollInterval: -1})
	h := booking.Hall{Name: "Bench", Width: 20}
	for r := 0; r < 25; r++ {
		tag := string(rune('A' + r))
		h.Rows = append(h.Rows, tag)
		for c := 0; c < 20; c++ {
			h.Seats = append(h.Seats, booking.Seat{Label: fmt.Sprintf("%s%d", tag, c+1), RowTag: tag, Number: c + 1, Row: r, Col: c})
		}
	}
	seed := booking.Seed{Halls: []booking.Hall{h}, Films: []booking.Film{{Title: "Bench", Minutes: 90}},
		TicketTypes: []booking.TicketType{{Code: "adult", Name: "Adult", Price: 1250}}}
	start := time.Now().Add(24 * time.Hour)
	for i := 0; i < 2000; i++ {
		seed.Shows = append(seed.Shows, booking.SeedShow{Film: 0, Hall: 0, Starts: start.Add(time.Duration(i) * time.Minute)})
	}
	dbtest.MustSeed(b, s, seed, false)
	return s, path
}

// BenchmarkBlocks_HoldBest is best available of 2 seats then their
// release, on shows 1-1000 of a store with no blocks ("none"), with a
// year's worth on the other shows ("others": four house seats on each of
// shows 1001-2000, 4 000 rows), and with the same four house seats and
// two hall-wide blocks on the shows held ("own"). "others" against
// "none" is what history costs: it must be nothing. "own" is what a
// show's own blocks cost best available.
func BenchmarkBlocks_HoldBest(b *testing.B) {
	for _, kind := range []string{"none", "others", "own"} {
		b.Run(kind, func(b *testing.B) {
			s, path := blockBench(b)
			raw := openRaw(b, path)
			shows := map[string]string{"others": "sh.id > 1000", "own": "sh.id <= 1000"}[kind]
			if shows != "" {
				if _, err := raw.Exec(`INSERT INTO seat_blocks (show_id, hall_id, seat_id, kind, reason, blocked_by, at)
					SELECT sh.id, 1, se.id, 'house', 'press', 'mgr', 0 FROM shows sh JOIN seats se ON se.label IN ('A1', 'A20', 'Y1', 'Y20') WHERE ` + shows); err != nil {
					b.Fatal(err)
				}
			}
			if kind == "own" {
				if _, err := raw.Exec(`INSERT INTO seat_blocks (show_id, hall_id, seat_id, kind, reason, blocked_by, at)
					SELECT NULL, 1, id, 'blocked', 'broken', 'mgr', 0 FROM seats WHERE label IN ('B1', 'B20')`); err != nil {
					b.Fatal(err)
				}
			}
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				show := int64(1 + i%1000)
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
}

// BenchmarkBlocks_SellTrigger is a sale of 2 named seats (Hold +
// Checkout) with the database's guard against claims of blocked seats
// (the trigger seat_claims_not_blocked) and with it dropped: what the
// guard costs the sale path.
func BenchmarkBlocks_SellTrigger(b *testing.B) {
	for _, kind := range []string{"trigger", "dropped"} {
		b.Run(kind, func(b *testing.B) {
			s, path := blockBench(b)
			if kind == "dropped" {
				if _, err := openRaw(b, path).Exec(`DROP TRIGGER seat_claims_not_blocked`); err != nil {
					b.Fatal(err)
				}
			}
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				show, pair := int64(1+i/250), i%250
				owner := fmt.Sprint("b", i)
				seats := []string{fmt.Sprintf("%c%d", 'A'+pair/10, 2*(pair%10)+1), fmt.Sprintf("%c%d", 'A'+pair/10, 2*(pair%10)+2)}
				h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show, Seats: seats, Owner: owner})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
