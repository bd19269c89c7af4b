package pg_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
)

var manager = booking.Actor{Name: "mia", Role: booking.RoleManager, Terminal: "office"}

// Building the programme on PostgreSQL: a hall, a film and a show; a hall
// never double-booked, even by two managers (on two servers) scheduling
// it at the same moment; a new price for the next sale; and the demo's
// rolling week topped up once by two servers opening together.
func TestProgramme_BuildOnPostgres(t *testing.T) {
	s, u, clk := seeded(t)
	other := MustOpen(t, u, clk)
	ctx := context.Background()
	h := booking.Hall{Name: "Two", Width: 4, Rows: []string{"A"}}
	for i := range 4 {
		h.Seats = append(h.Seats, booking.Seat{Label: "A" + string(rune('1'+i)), RowTag: "A", Number: i + 1, Col: i})
	}
	hallID, err := s.AddHall(ctx, manager, h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.AddHall(ctx, manager, h); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("the same hall again: %v", err)
	}
	if _, err := s.AddHall(ctx, clerk, h); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a clerk adding a hall: %v", err)
	}
	filmID, err := s.AddFilm(ctx, manager, booking.Film{Title: "Long Film", Minutes: 150, Rating: "12"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddFilm(ctx, manager, booking.Film{Title: "", Minutes: 90}); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("a film without a title: %v", err)
	}
	at := clk.Now().Add(48 * time.Hour).Truncate(time.Hour)
	if _, err := s.AddShow(ctx, manager, filmID, hallID, clk.Now().Add(-time.Hour)); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("a show in the past: %v", err)
	}
	// Two managers, one on each server, schedule the hall at once, an hour
	// apart: the film runs 150 minutes, so only one of them fits.
	ids := make([]int64, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, st := range []interface {
		AddShow(context.Context, booking.Actor, int64, int64, time.Time) (int64, error)
	}{s, other} {
		wg.Go(func() { ids[i], errs[i] = st.AddShow(ctx, manager, filmID, hallID, at.Add(time.Duration(i)*time.Hour)) })
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case booking.ErrorCode(err) != booking.EConflict:
			t.Fatalf("show %d: %v", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d of two overlapping shows were scheduled: %v", won, errs)
	}
	shows, err := s.Shows(ctx, clerk, at)
	if err != nil || len(shows) != 1 || shows[0].Capacity != 4 {
		t.Fatalf("the day's shows: %+v, %v", shows, err)
	}

	if err := s.SetPrice(ctx, manager, booking.TicketType{Code: "adult", Name: "Adult", Price: 1400}); err != nil {
		t.Fatal(err)
	}
	hold, err := other.Hold(ctx, clerk, booking.HoldRequest{ShowID: shows[0].ID, Seats: []string{"A1"}, Owner: "o"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := other.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: hold.ID, Owner: "o", IdempotencyKey: "p1", Method: booking.Card})
	if err != nil || b.Total != 1400 {
		t.Fatalf("a sale after the price change on the other server: %+v, %v", b, err)
	}

	// A retired film gets no new shows; retiring it again says so.
	if err := other.RetireFilm(ctx, manager, filmID); err != nil {
		t.Fatal(err)
	}
	if err := s.RetireFilm(ctx, manager, filmID); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("retired twice: %v", err)
	}
	if _, err := s.AddShow(ctx, manager, filmID, hallID, at.AddDate(0, 0, 1)); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("a show of a retired film: %v", err)
	}

	// The demo's week: a day without shows gets the seed's, once.
	day := clk.Now().AddDate(0, 0, 5)
	seed := booking.Seed{Halls: []booking.Hall{{Name: "One", Seats: make([]booking.Seat, 20)}}, Films: []booking.Film{{Title: "Test Film"}},
		Shows: []booking.SeedShow{{Film: 0, Hall: 0, Starts: day}, {Film: 0, Hall: 0, Starts: day.Add(3 * time.Hour)}}}
	added := make([]int, 2)
	for i, st := range []interface {
		TopUpDemo(context.Context, booking.Seed) (int, error)
	}{s, other} {
		wg.Go(func() {
			var err error
			if added[i], err = st.TopUpDemo(ctx, seed); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if added[0]+added[1] != 2 {
		t.Fatalf("topped up %v shows, want 2 in all", added)
	}
	if n, err := s.TopUpDemo(ctx, seed); err != nil || n != 0 {
		t.Fatalf("a planned week topped up again: %d, %v", n, err)
	}
}
