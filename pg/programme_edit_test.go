package pg_test

import (
	"context"
	"testing"
	"time"

	"boxoffice/booking"
)

var manager = booking.Actor{Name: "mia", Role: booking.RoleManager, Terminal: "office"}

// TestProgramme_TwoStoresForget: two stores (two servers) on one
// database; each caches a show's programme facts. A move, and then a
// film's edit, on one are seen by the other's reads, its seat map and
// its holds' sales close, without a restart: the other store dropped its
// cached facts on the notification. Without it the other would read the
// old start for ever.
func TestProgramme_TwoStoresForget(t *testing.T) {
	a, u, clk := seeded(t)
	b := MustOpen(t, u, clk)
	ctx := context.Background()
	startsOn := func(s interface {
		SeatMap(context.Context, booking.Actor, int64, string) (*booking.SeatMap, error)
	}) booking.Show {
		m, err := s.SeatMap(ctx, clerk, 1, "")
		if err != nil {
			t.Fatal(err)
		}
		return m.Show
	}
	seen := func(what string, ok func(booking.Show) bool) {
		t.Helper()
		for deadline := time.Now().Add(2 * time.Second); !ok(startsOn(b)); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the other store still reads the show as before %s: %+v", what, startsOn(b))
			}
		}
	}
	before := startsOn(b) // b caches the show
	first := before.Starts.Add(time.Hour)
	if err := a.MoveShow(ctx, manager, 1, first, 0); err != nil {
		t.Fatal(err)
	}
	seen("the first move", func(sh booking.Show) bool { return sh.Starts.Equal(first) })
	// By now b's programme listener listens (it drops the whole cache
	// once it does), so this second move reaches b by its notification.
	second := first.Add(time.Hour)
	if err := a.MoveShow(ctx, manager, 1, second, 0); err != nil {
		t.Fatal(err)
	}
	seen("the second move", func(sh booking.Show) bool { return sh.Starts.Equal(second) })
	// b's hold decides its sales close on the new start.
	clk.Add(first.Add(booking.DefaultSalesClose).Sub(clk.Now()))
	if _, err := b.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A1"}, Owner: "b"}); err != nil {
		t.Fatalf("a hold between the old and the new sales close: %v", err)
	}
	f := before.Film
	f.Minutes += 5
	if err := a.EditFilm(ctx, manager, f); err != nil {
		t.Fatal(err)
	}
	seen("the film's edit", func(sh booking.Show) bool { return sh.Film.Minutes == f.Minutes })
}
