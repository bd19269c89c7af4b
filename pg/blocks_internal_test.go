package pg

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/internal/pgtest"
	"boxoffice/internal/storetest"
)

// TestClashOutOfSale: the clash a hold meets on a seat kept out of sale
// says so and never suggests such a seat; one on a seat another hold has
// names that seat as taken, not the blocked one beside it. (holds.go's
// clash is to call clashOutOfSale; the contract's Blocks/HoldRefused
// case checks it through Hold.)
func TestClashOutOfSale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := storetest.FixedClock()
	s, err := Open(ctx, pgtest.URL(t), Options{Clock: clk.Now, TicketKey: storetest.TicketKey})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Seed(ctx, storetest.Seed(clk.Now()), false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BlockSeats(ctx, storetest.Manager, booking.BlockRequest{ShowID: 1, Seats: []string{"G6", "G7"}, Kind: booking.BlockBlocked}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Hold(ctx, storetest.Clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"G9"}, Owner: "other", TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	hall, err := s.hallOfShow(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	seat := func(l string) booking.Seat { x, _ := hall.SeatByLabel(l); return x }
	clash := func(labels ...string) *booking.SeatsTakenError {
		var taken []booking.Seat
		for _, l := range labels {
			taken = append(taken, seat(l))
		}
		_, err := inTx(s, ctx, "test", txMode{}, func(t *tx) (struct{}, error) {
			return struct{}{}, s.clashOutOfSale(t, hall, 1, 0, nil, taken, len(taken))
		})
		var e *booking.SeatsTakenError
		if !errors.As(err, &e) {
			t.Fatalf("clash of %v: %v", labels, err)
		}
		return e
	}
	e := clash("G7")
	if !e.OutOfSale || booking.ErrorMessage(e) != "G7 is not for sale (blocked or a house seat) — G8 is free next to it" {
		t.Fatalf("clash on a blocked seat: %q (out of sale %v)", booking.ErrorMessage(e), e.OutOfSale)
	}
	for _, sug := range e.Suggestions {
		if labels := booking.Labels(sug); slices.Contains(labels, "G6") || slices.Contains(labels, "G7") || slices.Contains(labels, "G9") {
			t.Fatalf("suggested %v", labels)
		}
	}
	e = clash("G7", "G9")
	if e.OutOfSale || !slices.Equal(booking.Labels(e.Taken), []string{"G9"}) {
		t.Fatalf("clash on a blocked and a held seat: %+v", e)
	}
}
