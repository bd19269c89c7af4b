//go:build !race

// The race gauntlet runs without the race detector, in CI's step of its
// own (.ci/run, docs/testing.md): its 2,400 clients cost minutes under
// the detector, and the data races it could find the contract suite's
// concurrent cases look for under it.

package db_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// gauntletSize is how many clients race in each round and how many rounds
// run: a short version by default, the long one (5,000 × 100) with
// BOXOFFICE_GAUNTLET=long, or "CLIENTSxROUNDS".
func gauntletSize(t *testing.T) (clients, rounds int) {
	switch v := os.Getenv("BOXOFFICE_GAUNTLET"); v {
	case "":
		return 400, 6
	case "long":
		return 5000, 100
	default:
		var c, r int
		if _, err := fmt.Sscanf(v, "%dx%d", &c, &r); err != nil || c < 2 || r < 1 {
			t.Fatalf("BOXOFFICE_GAUNTLET=%q: want long or CLIENTSxROUNDS", v)
		}
		return c, r
	}
}

// heardBack is what one client of a round heard back.
type heardBack struct {
	won         bool
	booking     string
	taken       []string
	suggestions [][]string
	err         error
}

// The race gauntlet: in every round all clients press Confirm on the same
// seat at once, through the store. Exactly one wins and sells it; every
// other is told that seat went and offered seats next to it, none of them
// taken; and afterwards the database holds exactly what the clients were
// told: one sale of each round's seat, to its winner.
func TestStore_RaceGauntlet(t *testing.T) {
	clients, rounds := gauntletSize(t)
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	ctx := context.Background()
	shows, err := s.Shows(ctx, clerk, firstShow(t, s).Starts)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.SeatMap(ctx, clerk, shows[0].ID, "")
	if err != nil {
		t.Fatal(err)
	}
	var seats []string
	for _, seat := range m.Hall.Seats {
		if seat.Kind == booking.Standard {
			seats = append(seats, seat.Label)
		}
	}
	winners := map[string]string{} // "show/seat" -> the winner's booking number
	for round := range rounds {
		show := shows[round/len(seats)%len(shows)].ID
		seat := seats[round%len(seats)]
		heard := raceRound(t, s, show, seat, round, clients)
		var won []heardBack
		for _, h := range heard {
			switch {
			case h.won:
				won = append(won, h)
			case h.err != nil:
				t.Fatalf("round %d: a client was told %v", round, h.err)
			case !slices.Equal(h.taken, []string{seat}) || len(h.suggestions) == 0:
				t.Fatalf("round %d: a loser was told taken %v, offered %v", round, h.taken, h.suggestions)
			}
			for _, sug := range h.suggestions {
				if slices.Contains(sug, seat) || slices.ContainsFunc(sug, func(l string) bool { return winners[fmt.Sprint(show, "/", l)] != "" }) {
					t.Fatalf("round %d: offered %v, which holds a seat already sold", round, sug)
				}
			}
		}
		if len(won) != 1 {
			t.Fatalf("round %d: %d winners of %s", round, len(won), seat)
		}
		winners[fmt.Sprint(show, "/", seat)] = won[0].booking
	}
	// What the clients were told is what the database says.
	sold := map[string]string{}
	for _, sh := range shows {
		m, err := s.SeatMap(ctx, clerk, sh.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, seat := range m.Hall.Seats {
			if m.States[seat.ID] == booking.SeatSold {
				sold[fmt.Sprint(sh.ID, "/", seat.Label)] = ""
			}
		}
	}
	if len(sold) != len(winners) {
		t.Fatalf("%d seats sold in the database, %d winners told", len(sold), len(winners))
	}
	for key, number := range winners {
		if _, ok := sold[key]; !ok {
			t.Fatalf("winner %s of %s: the seat is not sold", number, key)
		}
		b, err := s.Booking(ctx, clerk, number)
		if err != nil || len(b.Tickets) != 1 || fmt.Sprint(b.Show.ID, "/", b.Tickets[0].Seat.Label) != key {
			t.Fatalf("winner %s of %s: %+v %v", number, key, b, err)
		}
	}
	dbtest.MustBeWhole(t, s)
	t.Logf("%d rounds of %d clients: one winner each, %d losers told and offered seats", rounds, clients, rounds*(clients-1))
}

// raceRound starts clients goroutines that each hold seat and, when the
// hold is theirs, sell it; they start together and report what they heard.
func raceRound(t *testing.T, s *db.Store, show int64, seat string, round, clients int) []heardBack {
	t.Helper()
	ctx := context.Background()
	heard := make([]heardBack, clients)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner := "r" + strconv.Itoa(round) + "c" + strconv.Itoa(i)
			<-start
			h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show, Seats: []string{seat}, Owner: owner})
			var taken *booking.SeatsTakenError
			switch {
			case err == nil:
				b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card})
				heard[i] = heardBack{won: err == nil, err: err}
				if err == nil {
					heard[i].booking = b.Number
				}
			case errors.As(err, &taken):
				heard[i] = heardBack{taken: taken.TakenLabels(), suggestions: taken.SuggestionLabels()}
			default:
				heard[i] = heardBack{err: err}
			}
		}()
	}
	close(start)
	wg.Wait()
	return heard
}
