package db_test

import (
	"context"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

func TestStore_Programme(t *testing.T) {
	ctx := context.Background()
	mgr := booking.Actor{Name: "mgr", Role: booking.RoleManager}
	t.Run("OK", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		h := storetest.Hall()
		h.Name = "Annex"
		hallID, err := s.AddHall(ctx, mgr, h)
		if err != nil {
			t.Fatal(err)
		}
		filmID, err := s.AddFilm(ctx, mgr, booking.Film{Title: "Late Film", Minutes: 100, Rating: "15"})
		if err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(48 * time.Hour).Truncate(time.Hour)
		showID, err := s.AddShow(ctx, mgr, filmID, hallID, at)
		if err != nil {
			t.Fatal(err)
		}
		// Back to back after cleaning is fine.
		if _, err := s.AddShow(ctx, mgr, filmID, hallID, at.Add(115*time.Minute)); err != nil {
			t.Fatalf("next show after 100 min + 15 cleaning: %v", err)
		}
		mustSell(t, s, showID, "a", "A1")
		if err := s.SetPrice(ctx, mgr, booking.TicketType{Code: "adult", Name: "Adult", Price: 1400}); err != nil {
			t.Fatal(err)
		}
		b := mustSell(t, s, showID, "b", "A2")
		if b.Total != 1400 {
			t.Fatalf("sold at %d after the price change", b.Total)
		}
	})
	t.Run("ErrOverlap", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		show := firstShow(t, s) // 100-minute film in hall 1
		_, err := s.AddShow(ctx, mgr, show.Film.ID, show.HallID, show.Starts.Add(110*time.Minute))
		if booking.ErrorCode(err) != booking.EConflict {
			t.Fatalf("a show during cleaning: %v", err)
		}
		_, err = s.AddShow(ctx, mgr, show.Film.ID, show.HallID, show.Starts.Add(-30*time.Minute))
		if booking.ErrorCode(err) != booking.EConflict {
			t.Fatalf("a show running into the next: %v", err)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		if _, err := s.AddHall(ctx, mgr, storetest.Hall()); booking.ErrorCode(err) != booking.EConflict {
			t.Fatalf("a second hall of the same name: %v", err)
		}
		if _, err := s.AddFilm(ctx, mgr, booking.Film{Title: "\x1b\x07\u202e", Minutes: 90}); booking.ErrorCode(err) != booking.EInvalid {
			t.Fatalf("a title of control characters: %v", err)
		}
		if _, err := s.AddShow(ctx, mgr, 999, 1, time.Now()); booking.ErrorCode(err) != booking.ENotFound {
			t.Fatalf("unknown film: %v", err)
		}
		if err := s.SetPrice(ctx, mgr, booking.TicketType{Code: "Adult Ticket", Name: "x", Price: 1}); booking.ErrorCode(err) != booking.EInvalid {
			t.Fatalf("bad code: %v", err)
		}
		if err := s.SetPrice(ctx, clerk, booking.TicketType{Code: "adult", Name: "Adult", Price: 1}); booking.ErrorCode(err) != booking.EForbidden {
			t.Fatalf("a clerk changed a price: %v", err)
		}
	})
}

func TestStore_TopUpDemo(t *testing.T) {
	ctx := context.Background()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now})
	// The test seed has shows on its first two days; a week later the
	// same seed for "today" adds that day's shows once.
	later := storetest.Seed(clock.Now().AddDate(0, 0, 7))
	n, err := s.TopUpDemo(ctx, later)
	if err != nil || n != len(later.Shows) {
		t.Fatalf("added %d of %d: %v", n, len(later.Shows), err)
	}
	if n, _ := s.TopUpDemo(ctx, later); n != 0 {
		t.Fatalf("a second top-up added %d shows", n)
	}
	// Days that already have shows are left alone.
	if n, _ := s.TopUpDemo(ctx, storetest.Seed(clock.Now())); n != 0 {
		t.Fatalf("topped up days that had shows: %d", n)
	}
}
