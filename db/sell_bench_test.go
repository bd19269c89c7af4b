package db_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// Run with go test ./db -run '^$' -bench Store_Sell -benchtime 3000x -cpu 1,8.

// BenchmarkStore_Sell is one counter's sale, hold then checkout, at
// synchronous=NORMAL so the figure is the store's own work and not the
// disk's fsync; RunParallel shows group commit at work.
func BenchmarkStore_Sell(b *testing.B) {
	s, _ := dbtest.MustOpenEmpty(b, db.Options{Sync: "normal", SweepInterval: -1, PollInterval: -1})
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
	for i := 0; i < 4000; i++ {
		seed.Shows = append(seed.Shows, booking.SeedShow{Film: 0, Hall: 0, Starts: start.Add(time.Duration(i) * time.Minute)})
	}
	dbtest.MustSeed(b, s, seed, false)
	actor := booking.Actor{Name: "bench", Role: booking.RoleClerk, Terminal: "bench"}
	var next atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			k := next.Add(1) - 1
			show, pair := 1+k/250, k%250
			owner := fmt.Sprint("b", k)
			seats := []string{h.Seats[2*pair].Label, h.Seats[2*pair+1].Label}
			hold, err := s.Hold(ctx, actor, booking.HoldRequest{ShowID: show, Seats: seats, Owner: owner})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Checkout(ctx, actor, booking.CheckoutRequest{HoldID: hold.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
