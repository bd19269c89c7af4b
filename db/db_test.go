package db_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// The fixture cinema's clerk and supervisor, by the names the tests use.
var clerk, supervisor = storetest.Clerk, storetest.Supervisor

func firstShow(tb testing.TB, s *db.Store) booking.Show {
	tb.Helper()
	// Seed inserts shows in order, so the first one has id 1.
	show, err := s.Show(context.Background(), clerk, 1)
	if err != nil {
		tb.Fatal(err)
	}
	return *show
}

func mustHold(tb testing.TB, s *db.Store, show int64, owner string, seats ...string) *booking.Hold {
	tb.Helper()
	h, err := s.Hold(context.Background(), clerk, booking.HoldRequest{ShowID: show, Seats: seats, Owner: owner})
	if err != nil {
		tb.Fatalf("hold %v: %v", seats, err)
	}
	return h
}

func mustSell(tb testing.TB, s *db.Store, show int64, owner string, seats ...string) *booking.Booking {
	tb.Helper()
	h := mustHold(tb, s, show, owner, seats...)
	b, err := s.Checkout(context.Background(), clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: "k-" + owner + fmt.Sprint(h.ID), Method: booking.Card})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestStore_Hold(t *testing.T) {
	t.Parallel()
	t.Run("OK", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		show := firstShow(t, s)
		h := mustHold(t, s, show.ID, "a", "E7", "E8")
		if len(h.Seats) != 2 || h.Seats[0].Label != "E7" || h.Seats[1].Label != "E8" {
			t.Fatalf("held %+v", h.Seats)
		}
		m, err := s.SeatMap(context.Background(), clerk, show.ID, "a")
		if err != nil {
			t.Fatal(err)
		}
		seat, _ := m.Hall.SeatByLabel("E7")
		if m.State(seat.ID) != booking.SeatHeldByMe {
			t.Fatalf("E7 state %v for its owner", m.State(seat.ID))
		}
		m, _ = s.SeatMap(context.Background(), clerk, show.ID, "b")
		if m.State(seat.ID) != booking.SeatHeldByOther {
			t.Fatalf("E7 state %v for another counter", m.State(seat.ID))
		}
	})
	t.Run("AddToAndRelease", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		show := firstShow(t, s)
		h := mustHold(t, s, show.ID, "a", "E7")
		h2, err := s.Hold(context.Background(), clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"E8"}, Owner: "a", AddTo: h.ID})
		if err != nil || h2.ID != h.ID || len(h2.Seats) != 2 {
			t.Fatalf("add to hold: %+v %v", h2, err)
		}
		if err := s.Release(context.Background(), clerk, h.ID, "a", "E7"); err != nil {
			t.Fatal(err)
		}
		mustHold(t, s, show.ID, "b", "E7") // free again for another counter
		if _, err := s.Hold(context.Background(), clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"E8"}, Owner: "b"}); booking.ErrorCode(err) != booking.EConflict {
			t.Fatalf("E8 still held by a, got %v", err)
		}
	})
	t.Run("ErrAllOrNothing", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		show := firstShow(t, s)
		mustHold(t, s, show.ID, "a", "E7")
		_, err := s.Hold(context.Background(), clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"E6", "E7"}, Owner: "b"})
		var taken *booking.SeatsTakenError
		if !errors.As(err, &taken) || len(taken.Taken) != 1 || taken.Taken[0].Label != "E7" {
			t.Fatalf("want E7 taken, got %v", err)
		}
		m, _ := s.SeatMap(context.Background(), clerk, show.ID, "b")
		e6, _ := m.Hall.SeatByLabel("E6")
		if m.State(e6.ID) != booking.SeatFree {
			t.Fatal("E6 was held although E7 clashed")
		}
	})
	t.Run("ErrUnknownSeat", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		show := firstShow(t, s)
		_, err := s.Hold(context.Background(), clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"Z99"}, Owner: "a"})
		if booking.ErrorCode(err) != booking.EInvalid {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("ErrForbidden", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		show := firstShow(t, s)
		door := booking.Actor{Name: "dora", Role: booking.RoleDoor}
		_, err := s.Hold(context.Background(), door, booking.HoldRequest{ShowID: show.ID, Seats: []string{"E7"}, Owner: "a"})
		if booking.ErrorCode(err) != booking.EForbidden {
			t.Fatalf("got %v", err)
		}
	})
}

// Must show 1: 64 goroutines race for one seat.
func TestStore_Hold_RaceOneSeat(t *testing.T) {
	t.Parallel()
	s, _ := dbtest.MustOpen(t, db.Options{})
	show := firstShow(t, s)
	const racers = 64
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, racers)
	for i := 0; i < racers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			_, errs[i] = s.Hold(context.Background(), clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"G7"}, Owner: fmt.Sprintf("counter-%d", i)})
		}(i)
	}
	close(start)
	wg.Wait()
	m, err := s.SeatMap(context.Background(), clerk, show.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	winners := 0
	for i, err := range errs {
		if err == nil {
			winners++
			continue
		}
		var taken *booking.SeatsTakenError
		if !errors.As(err, &taken) {
			t.Fatalf("racer %d: want seats-taken error, got %v", i, err)
		}
		if len(taken.Suggestions) == 0 {
			t.Fatalf("racer %d: no suggestions", i)
		}
		for _, sug := range taken.Suggestions {
			if len(sug) != 1 {
				t.Fatalf("suggestion %v is not one seat", sug)
			}
			if m.State(sug[0].ID) != booking.SeatFree {
				t.Fatalf("suggested %s is not free", sug[0].Label)
			}
		}
		if got := taken.Suggestions[0][0].Label; got != "G6" && got != "G8" {
			t.Fatalf("first suggestion %s is not next to G7", got)
		}
	}
	if winners != 1 {
		t.Fatalf("%d winners, want exactly 1", winners)
	}
}

// Must show 3: SQLite itself refuses a second live claim.
func TestSchema_OneLiveClaim(t *testing.T) {
	t.Parallel()
	s, path := dbtest.MustOpen(t, db.Options{})
	show := firstShow(t, s)
	b := mustSell(t, s, show.ID, "a", "C3")
	raw := openRaw(t, path)
	var seatID, holdID int64
	if err := raw.QueryRow(`SELECT seat_id, hold_id FROM seat_claims WHERE booking_id = ?`, b.ID).Scan(&seatID, &holdID); err != nil {
		t.Fatal(err)
	}
	_, err := raw.Exec(`INSERT INTO seat_claims (show_id, seat_id, hold_id, status) VALUES (?, ?, ?, 'held')`, show.ID, seatID, holdID)
	if err == nil {
		t.Fatal("a duplicate live claim was accepted by the database")
	}
	// A cancelled claim is history: the seat sells again.
	if _, err := s.Cancel(context.Background(), supervisor, booking.CancelRequest{Number: b.Number}); err != nil {
		t.Fatal(err)
	}
	b2 := mustSell(t, s, show.ID, "b", "C3")
	if b2.Tickets[0].Seat.Label != "C3" {
		t.Fatal("C3 did not sell again after the cancel")
	}
	var claims int
	raw.QueryRow(`SELECT count(*) FROM seat_claims WHERE seat_id = ? AND show_id = ?`, seatID, show.ID).Scan(&claims)
	if claims != 2 {
		t.Fatalf("%d claims on C3, want the cancelled one kept plus the new sale", claims)
	}
}

func TestStore_Checkout(t *testing.T) {
	t.Parallel()
	t.Run("OKCash", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		show := firstShow(t, s)
		h := mustHold(t, s, show.ID, "a", "F5", "F6")
		b, err := s.Checkout(context.Background(), clerk, booking.CheckoutRequest{
			HoldID: h.ID, Owner: "a", IdempotencyKey: "k1", Types: map[string]string{"F6": "child"},
			Customer: "Ann \x1b[31mLee\u202e", Phone: "0123 456", Method: booking.Cash, Tendered: 3000,
		})
		if err != nil {
			t.Fatal(err)
		}
		if b.Total != 1250+850 || b.Change() != 3000-2100 || len(b.Tickets) != 2 {
			t.Fatalf("total %d change %d tickets %d", b.Total, b.Change(), len(b.Tickets))
		}
		if b.Customer != "Ann [31mLee" {
			t.Fatalf("customer stored as %q", b.Customer)
		}
		if len(b.Number) != 11 || b.Number[:3] != "BO-" {
			t.Fatalf("number %q", b.Number)
		}
		for _, tk := range b.Tickets {
			id, err := booking.VerifyTicket([]booking.TicketKey{storetest.TicketKey}, tk.Code)
			if err != nil || id != tk.ID {
				t.Fatalf("ticket code %q does not verify: %v", tk.Code, err)
			}
		}
		got, err := s.Booking(context.Background(), clerk, b.Number)
		if err != nil || got.Status != booking.BookingConfirmed || got.Show.Sold != 2 {
			t.Fatalf("lookup: %+v %v", got, err)
		}
	})
	t.Run("ErrShortCash", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		show := firstShow(t, s)
		h := mustHold(t, s, show.ID, "a", "F5")
		_, err := s.Checkout(context.Background(), clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Cash, Tendered: 1000})
		if booking.ErrorCode(err) != booking.EInvalid {
			t.Fatalf("got %v", err)
		}
		// The failed checkout left the hold live: paying properly works.
		if _, err := s.Checkout(context.Background(), clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Cash, Tendered: 2000}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("ErrOtherOwner", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		show := firstShow(t, s)
		h := mustHold(t, s, show.ID, "a", "F5")
		_, err := s.Checkout(context.Background(), clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "b", IdempotencyKey: "k", Method: booking.Card})
		if booking.ErrorCode(err) != booking.ENotFound {
			t.Fatalf("got %v", err)
		}
	})
}

// Must show 4: one idempotency key, one booking.
func TestStore_Checkout_Idempotent(t *testing.T) {
	t.Parallel()
	t.Run("Sequential", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		show := firstShow(t, s)
		h := mustHold(t, s, show.ID, "a", "B1", "B2")
		req := booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "same", Method: booking.Card}
		b1, err1 := s.Checkout(context.Background(), clerk, req)
		b2, err2 := s.Checkout(context.Background(), clerk, req)
		if err1 != nil || err2 != nil || b1.Number != b2.Number {
			t.Fatalf("%v %v %v %v", b1, b2, err1, err2)
		}
		assertBookings(t, s, show.ID, 1, 2)
	})
	t.Run("Concurrent", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		show := firstShow(t, s)
		h := mustHold(t, s, show.ID, "a", "B1", "B2")
		req := booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "same", Method: booking.Cash, Tendered: 5000}
		const n = 16
		numbers := make([]string, n)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				b, err := s.Checkout(context.Background(), clerk, req)
				if err != nil {
					t.Error(err)
					return
				}
				numbers[i] = b.Number
			}(i)
		}
		wg.Wait()
		for _, n := range numbers {
			if n != numbers[0] {
				t.Fatalf("callers got different bookings: %v", numbers)
			}
		}
		assertBookings(t, s, show.ID, 1, 2)
	})
}

// assertBookings checks the committed state through raw SQL: bookings,
// sold claims and the show's sold counter all agree.
func assertBookings(t *testing.T, s *db.Store, showID int64, bookings, sold int) {
	t.Helper()
	raw := openRaw(t, s.Path())
	var nb, nc, counter, payments int
	raw.QueryRow(`SELECT count(*) FROM bookings WHERE show_id = ? AND status = 'confirmed'`, showID).Scan(&nb)
	raw.QueryRow(`SELECT count(*) FROM seat_claims WHERE show_id = ? AND status = 'sold'`, showID).Scan(&nc)
	raw.QueryRow(`SELECT sold FROM shows WHERE id = ?`, showID).Scan(&counter)
	raw.QueryRow(`SELECT count(*) FROM payments p JOIN bookings b ON b.id = p.booking_id WHERE b.show_id = ? AND kind = 'sale'`, showID).Scan(&payments)
	if nb != bookings || nc != sold || counter != sold || payments != nb {
		t.Fatalf("bookings %d (want %d), sold claims %d, counter %d (want %d), sale payments %d", nb, bookings, nc, counter, sold, payments)
	}
}

// Must show 6: a lapsed hold cannot be sold and never blocks anyone.
func TestStore_HoldExpiry(t *testing.T) {
	t.Parallel()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	show := firstShow(t, s)
	h, err := s.Hold(context.Background(), clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"H4"}, Owner: "a", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	clock.Add(61 * time.Second)
	_, err = s.Checkout(context.Background(), clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Card})
	if booking.ErrorCode(err) != booking.EExpired {
		t.Fatalf("checkout of a lapsed hold: %v", err)
	}
	want := "The hold on H4 ran out 1s ago; hold the seats again."
	if booking.ErrorMessage(err) != want {
		t.Fatalf("message %q, want %q", booking.ErrorMessage(err), want)
	}
	// Not swept yet, and still another counter gets the seat at once.
	b := mustSell(t, s, show.ID, "b", "H4")
	if b.Tickets[0].Seat.Label != "H4" {
		t.Fatal("H4 not sold")
	}
	assertBookings(t, s, show.ID, 1, 1)
}

func TestStore_ExpireHolds(t *testing.T) {
	t.Parallel()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	show := firstShow(t, s)
	s.Hold(context.Background(), clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"H4"}, Owner: "a", TTL: time.Minute})
	sub := s.Changes().Subscribe(t.Context())
	clock.Add(2 * time.Minute)
	n, err := s.ExpireHolds(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("expired %d, %v", n, err)
	}
	select {
	case c := <-sub:
		if c.ShowID != show.ID {
			t.Fatalf("published show %d", c.ShowID)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("sweep was not published")
	}
}

func TestStore_HoldBest(t *testing.T) {
	t.Parallel()
	t.Run("OK", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		show := firstShow(t, s)
		h, err := s.HoldBest(context.Background(), clerk, booking.HoldBestRequest{ShowID: show.ID, N: 4, Owner: "a"})
		if err != nil {
			t.Fatal(err)
		}
		if !h.Together || len(h.Seats) != 4 {
			t.Fatalf("%+v", h)
		}
		for i := 1; i < 4; i++ {
			if h.Seats[i].Row != h.Seats[0].Row || h.Seats[i].Col != h.Seats[i-1].Col+1 {
				t.Fatalf("not side by side: %v", h.Seats)
			}
		}
		for _, seat := range h.Seats {
			if seat.Kind.Accessible() {
				t.Fatalf("offered accessible %s unasked", seat.Label)
			}
		}
	})
	t.Run("Wheelchair", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		show := firstShow(t, s)
		h, err := s.HoldBest(context.Background(), clerk, booking.HoldBestRequest{ShowID: show.ID, N: 2, Owner: "a", Wheelchair: 1})
		if err != nil {
			t.Fatal(err)
		}
		wheel := 0
		for _, seat := range h.Seats {
			if seat.Kind == booking.Wheelchair {
				wheel++
			}
		}
		if wheel < 1 {
			t.Fatalf("no wheelchair place in %v", h.Seats)
		}
	})
	t.Run("ErrTooFew", func(t *testing.T) {
		s, _ := dbtest.MustOpen(t, db.Options{})
		show := firstShow(t, s)
		_, err := s.HoldBest(context.Background(), clerk, booking.HoldBestRequest{ShowID: show.ID, N: 21, Owner: "a"})
		if booking.ErrorCode(err) != booking.EInvalid {
			t.Fatalf("got %v", err)
		}
	})
}

func TestStore_SignIn(t *testing.T) {
	t.Parallel()
	clock := storetest.FixedClock()
	s, path := dbtest.MustOpen(t, db.Options{Clock: clock.Now})
	ctx := context.Background()
	if st, err := s.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "1234"}); err != nil || st.Role != booking.RoleClerk {
		t.Fatalf("%+v %v", st, err)
	}
	for i := 0; i < 5; i++ {
		if _, err := s.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "0000"}); booking.ErrorMessage(err) != "Wrong name or PIN." {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	_, err := s.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "1234"})
	if booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("locked name signed in: %v", err)
	}
	// A restart does not reset the lock.
	s.Close()
	s2 := dbtest.Open(t, path, db.Options{Clock: clock.Now})
	if _, err := s2.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "1234"}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("lock lost on restart: %v", err)
	}
	clock.Add(5*time.Minute + time.Second)
	if _, err := s2.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "1234"}); err != nil {
		t.Fatalf("after the lockout: %v", err)
	}
	// Unknown names answer like wrong PINs.
	if _, err := s2.SignIn(ctx, booking.SignInRequest{Name: "nobody", PIN: "1234"}); booking.ErrorMessage(err) != "Wrong name or PIN." {
		t.Fatalf("unknown name: %v", err)
	}
}

// TestMain lets this test binary double as the racer process of
// TestStore_Hold_RaceProcesses.
func TestMain(m *testing.M) {
	if os.Getenv("BOXOFFICE_RACER") != "" {
		os.Exit(racerMain())
	}
	if os.Getenv("BOXOFFICE_SELLER") != "" {
		os.Exit(sellerMain())
	}
	if os.Getenv("BOXOFFICE_SETTLER") != "" {
		os.Exit(settlerMain())
	}
	os.Exit(m.Run())
}

// Close while writes are being submitted: every caller gets an answer
// (committed or "shutting down"), none hangs.
func TestStore_CloseUnderLoad(t *testing.T) {
	t.Parallel()
	s, _ := dbtest.MustOpen(t, db.Options{})
	show := firstShow(t, s)
	hall, _ := s.SeatMap(context.Background(), clerk, show.ID, "")
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for k := 0; k < 20; k++ {
				seat := hall.Hall.Seats[(i*20+k)%len(hall.Hall.Seats)]
				s.Hold(context.Background(), clerk, booking.HoldRequest{ShowID: show.ID, SeatIDs: []int64{seat.ID}, Owner: fmt.Sprint("c", i)})
			}
		}(i)
	}
	time.Sleep(5 * time.Millisecond)
	s.Close()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a writer call hung after Close")
	}
}
