package db_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// The seed: film 1 (100 min) at +2h and +26h, film 2 (120 min) at +5h,
// all in hall 1.

func TestStore_EditFilm(t *testing.T) {
	ctx := context.Background()
	mgr := storetest.Manager
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})

	// 190 minutes would run the +2h show into the +5h one.
	err := s.EditFilm(ctx, mgr, booking.Film{ID: 1, Title: "First Film", Minutes: 190, Rating: "PG"})
	if booking.ErrorCode(err) != booking.EConflict || !strings.Contains(booking.ErrorMessage(err), "Second Film") {
		t.Fatalf("a running time into the next show: %v, want EConflict naming Second Film", err)
	}
	if f := filmByID(t, s, 1); f.Minutes != 100 {
		t.Fatalf("a refused edit changed the film: %+v", f)
	}
	// 160 fits (2h + 160 + 15 = 4h55 before 5h); the title shows on the show.
	if err := s.EditFilm(ctx, mgr, booking.Film{ID: 1, Title: "First Film \x1b[31m(restored)", Minutes: 160, Rating: "12A"}); err != nil {
		t.Fatal(err)
	}
	if f := filmByID(t, s, 1); f.Minutes != 160 || f.Title != "First Film [31m(restored)" || f.Rating != "12A" {
		t.Fatalf("after the edit: %+v", f)
	}
	sh, err := s.Show(ctx, clerk, 1)
	if err != nil || sh.Film.Minutes != 160 {
		t.Fatalf("show 1 after the edit: %+v %v", sh, err)
	}
	// A show that is over does not count: once the +2h show is long gone,
	// a running time it would have clashed with is fine.
	clock.Add(4 * time.Hour)
	if err := s.EditFilm(ctx, mgr, booking.Film{ID: 1, Title: "First Film", Minutes: 200, Rating: "12A"}); err != nil {
		t.Fatalf("a clash only with a finished show: %v", err)
	}
	for _, c := range []struct {
		f    booking.Film
		code string
	}{
		{booking.Film{ID: 99, Title: "Nobody", Minutes: 90}, booking.ENotFound},
		{booking.Film{ID: 1, Title: "", Minutes: 90}, booking.EInvalid},
		{booking.Film{ID: 1, Title: "First Film", Minutes: 0}, booking.EInvalid},
		{booking.Film{ID: 1, Title: "First Film", Minutes: 200, Rating: "12A"}, booking.EInvalid}, // no change
	} {
		if err := s.EditFilm(ctx, mgr, c.f); booking.ErrorCode(err) != c.code {
			t.Errorf("EditFilm(%+v): %v, want %s", c.f, err, c.code)
		}
	}
	if err := s.EditFilm(ctx, supervisor, booking.Film{ID: 1, Title: "X", Minutes: 90}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a supervisor edited a film: %v", err)
	}
}

func TestStore_RetireFilm(t *testing.T) {
	ctx := context.Background()
	mgr := storetest.Manager
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	if err := s.RetireFilm(ctx, clerk, 2); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a clerk retired a film: %v", err)
	}
	if err := s.RetireFilm(ctx, mgr, 2); err != nil {
		t.Fatal(err)
	}
	if f := filmByID(t, s, 2); !f.Retired {
		t.Fatalf("film 2 after retiring: %+v", f)
	}
	if err := s.RetireFilm(ctx, mgr, 2); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("retired twice: %v", err)
	}
	if err := s.RetireFilm(ctx, mgr, 99); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("an unknown film: %v", err)
	}
	_, err := s.AddShow(ctx, mgr, 2, 1, clock.Now().Add(72*time.Hour))
	if booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(booking.ErrorMessage(err), "retired") {
		t.Fatalf("a show of a retired film: %v", err)
	}
	// Its show stays on sale.
	mustSell(t, s, 2, "a", "A1")
}

func TestStore_AddShowInThePast(t *testing.T) {
	ctx := context.Background()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	before := showCount(t, s, clock)
	for _, at := range []time.Time{clock.Now().Add(-time.Hour), clock.Now()} {
		if _, err := s.AddShow(ctx, storetest.Manager, 1, 1, at.Add(-72*time.Hour)); booking.ErrorCode(err) != booking.EInvalid {
			t.Fatalf("a show at %v: %v, want EInvalid", at, err)
		}
	}
	if n := showCount(t, s, clock); n != before {
		t.Fatalf("%d shows after refusals, want %d", n, before)
	}
}

func TestStore_MoveShow(t *testing.T) {
	ctx := context.Background()
	mgr := storetest.Manager
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	annex := storetest.Hall()
	annex.Name = "Annex"
	annex.Seats = annex.Seats[:10]
	annexID, err := s.AddHall(ctx, mgr, annex)
	if err != nil {
		t.Fatal(err)
	}
	sold := mustSell(t, s, 3, "a", "A1", "A2")
	if _, err := s.SeatMap(ctx, clerk, 1, "x"); err != nil { // caches show 1
		t.Fatal(err)
	}

	// In its hall, with its bookings.
	to := clock.Now().Add(30 * time.Hour).Truncate(time.Minute)
	if err := s.MoveShow(ctx, mgr, 3, to, 0); err != nil {
		t.Fatal(err)
	}
	sh, err := s.Show(ctx, clerk, 3)
	if err != nil || !sh.Starts.Equal(to) || sh.Sold != 2 {
		t.Fatalf("show 3 after the move: %+v %v", sh, err)
	}
	b, err := s.Booking(ctx, clerk, sold.Number)
	if err != nil || b.Status != booking.BookingConfirmed || len(b.Tickets) != 2 {
		t.Fatalf("the booking after the move: %+v %v", b, err)
	}

	// Refusals, each changing nothing.
	show1 := firstShow(t, s)
	for _, c := range []struct {
		name  string
		show  int64
		at    time.Time
		hall  int64
		code  string
		words string
	}{
		{"into show 2's time", 1, show1.Starts.Add(3 * time.Hour), 0, booking.EConflict, "Second Film"},
		{"during cleaning", 1, to.Add(110 * time.Minute), 0, booking.EConflict, "cleaning"},
		{"to the past", 1, clock.Now().Add(-time.Hour), 0, booking.EInvalid, "past"},
		{"booked to another hall", 3, to, annexID, booking.EConflict, "another hall"},
		{"to no hall", 1, show1.Starts, 99, booking.ENotFound, "hall"},
		{"no show", 99, to, 0, booking.ENotFound, "show"},
		{"nowhere new", 1, show1.Starts, 0, booking.EInvalid, "already"},
	} {
		err := s.MoveShow(ctx, mgr, c.show, c.at, c.hall)
		if booking.ErrorCode(err) != c.code || !strings.Contains(booking.ErrorMessage(err), c.words) {
			t.Errorf("%s: %v, want %s saying %q", c.name, err, c.code, c.words)
		}
	}
	if err := s.MoveShow(ctx, clerk, 1, to.Add(24*time.Hour), 0); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a clerk moved a show: %v", err)
	}
	if sh := firstShow(t, s); !sh.Starts.Equal(show1.Starts) || sh.HallID != show1.HallID {
		t.Fatalf("refused moves moved show 1: %+v", sh)
	}

	// An unbooked show changes hall: its map is the new hall's at once,
	// though the old one was cached.
	if err := s.MoveShow(ctx, mgr, 1, show1.Starts, annexID); err != nil {
		t.Fatal(err)
	}
	sm, err := s.SeatMap(ctx, clerk, 1, "x")
	if err != nil || sm.Hall.ID != annexID || len(sm.Hall.Seats) != 10 {
		t.Fatalf("show 1's map after the move: hall %d, %d seats, %v", sm.Hall.ID, len(sm.Hall.Seats), err)
	}
	if sh, _ := s.Show(ctx, clerk, 1); sh.Capacity != 10 || sh.HallName != "Annex" {
		t.Fatalf("show 1 after changing hall: %+v", sh)
	}

	// Started, or admitted before the start (the doors open two hours
	// before): it stays.
	tk := mustSell(t, s, 2, "b", "C1").Tickets[0]
	clock.Add(3*time.Hour + 30*time.Minute)
	if _, err := s.Admit(ctx, storetest.Door, tk.Code); err != nil {
		t.Fatal(err)
	}
	if err := s.MoveShow(ctx, mgr, 2, to.Add(48*time.Hour), 0); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("a show with a ticket admitted: %v", err)
	}
	if err := s.MoveShow(ctx, mgr, 1, to.Add(48*time.Hour), 0); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("a started show: %v", err)
	}
}

func filmByID(t *testing.T, s *db.Store, id int64) booking.Film {
	t.Helper()
	films, err := s.Films(context.Background(), clerk)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range films {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no film %d", id)
	return booking.Film{}
}

func showCount(t *testing.T, s *db.Store, clock *storetest.Clock) int {
	t.Helper()
	n := 0
	for d := -4; d <= 2; d++ {
		shows, err := s.Shows(context.Background(), clerk, clock.Now().AddDate(0, 0, d))
		if err != nil {
			t.Fatal(err)
		}
		n += len(shows)
	}
	return n
}

func TestStore_ListStaffLocked(t *testing.T) {
	ctx := context.Background()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	locked := func() bool {
		t.Helper()
		staff, err := s.ListStaff(ctx, storetest.Manager)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range staff {
			if st.Name == "carl" {
				return st.Locked
			}
		}
		t.Fatal("no carl")
		return false
	}
	if locked() {
		t.Fatal("carl locked before any wrong PIN")
	}
	for range 5 {
		if _, err := s.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "0000", Terminal: "till-1"}); booking.ErrorCode(err) != booking.EForbidden {
			t.Fatalf("a wrong PIN: %v", err)
		}
	}
	if !locked() {
		t.Fatal("carl not locked after five wrong PINs")
	}
	if err := s.UnlockStaff(ctx, storetest.Manager, "carl"); err != nil {
		t.Fatal(err)
	}
	if locked() {
		t.Fatal("carl still locked after an unlock")
	}
}

// A show moved by another store on the same file (another process, as
// far as SQLite is concerned) reaches this one's cached programme: its
// seat map is the new hall's once the change is heard.
func TestStore_MoveShow_ReachesOtherProcess(t *testing.T) {
	s, path := dbtest.MustOpen(t, db.Options{PollInterval: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Let the poll hear the seeding first, so the read below is the one
	// the cache keeps (a read racing a drop is not kept).
	time.Sleep(100 * time.Millisecond)
	if _, err := s.SeatMap(ctx, clerk, 1, "x"); err != nil { // caches show 1
		t.Fatal(err)
	}
	changes := s.Changes().Subscribe(ctx)
	other := dbtest.Open(t, path, db.Options{PollInterval: -1})
	annex := storetest.Hall()
	annex.Name = "Annex"
	annex.Seats = annex.Seats[:10]
	annexID, err := other.AddHall(ctx, storetest.Manager, annex)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := other.Show(ctx, clerk, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.MoveShow(ctx, storetest.Manager, 1, sh.Starts.Add(time.Hour), annexID); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(5 * time.Second)
	for {
		select {
		case c := <-changes:
			if c.ShowID != 1 && c.ShowID != 0 {
				continue
			}
			sm, err := s.SeatMap(ctx, clerk, 1, "x")
			if err != nil {
				t.Fatal(err)
			}
			if sm.Hall.ID == annexID && len(sm.Hall.Seats) == 10 && sm.Show.Starts.Equal(sh.Starts.Add(time.Hour)) {
				return
			}
		case <-deadline:
			t.Fatal("the move was never heard: show 1 still reads as it was")
		}
	}
}
