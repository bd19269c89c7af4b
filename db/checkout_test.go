package db_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// setAdult changes the adult price as a manager would with `price set`.
func setAdult(tb testing.TB, s *db.Store, price booking.Money) {
	tb.Helper()
	if err := s.SetPrice(context.Background(), booking.System, booking.TicketType{Code: "adult", Name: "Adult", Price: price}); err != nil {
		tb.Fatal(err)
	}
}

func adultPrice(tb testing.TB, s *db.Store) booking.Money {
	tb.Helper()
	types, err := s.TicketTypes(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	for _, t := range types {
		if t.Code == "adult" {
			return t.Price
		}
	}
	tb.Fatal("no adult ticket type")
	return 0
}

// The clerk saw 25.00 for two adults; the price went up before the sale.
// The store refuses with the new total and sells nothing; confirming the
// new total sells at it, tendered included.
func TestStore_Checkout_PriceChanged(t *testing.T) {
	t.Parallel()
	s, _ := dbtest.MustOpen(t, db.Options{})
	show := firstShow(t, s)
	ctx := context.Background()
	h := mustHold(t, s, show.ID, "a", "C5", "C6")
	seen := 2 * adultPrice(t, s) // 25.00 on screen
	setAdult(t, s, 1300)

	req := booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "price-1", Method: booking.Cash, ExpectedTotal: seen, CheckTotal: true}
	_, err := s.Checkout(ctx, clerk, req)
	var changed *booking.PriceChangedError
	if !errors.As(err, &changed) || changed.Total != 2600 || changed.Expected != 2500 {
		t.Fatalf("checkout at the old total: %v", err)
	}
	if booking.ErrorCode(err) != booking.EConflict || booking.ErrorMessage(err) != "Prices changed: the total is now 26.00." {
		t.Fatalf("code %s, message %q", booking.ErrorCode(err), booking.ErrorMessage(err))
	}
	assertBookings(t, s, show.ID, 0, 0)
	if sm, _ := s.SeatMap(ctx, clerk, show.ID, "a"); len(sm.HoldID) != 2 {
		t.Fatalf("the refused sale let go of the hold: %d seats held", len(sm.HoldID))
	}

	req.ExpectedTotal = changed.Total
	b, err := s.Checkout(ctx, clerk, req)
	if err != nil {
		t.Fatal(err)
	}
	if b.Total != 2600 || b.Payments[0].Tendered != 2600 || b.Change() != 0 {
		t.Fatalf("sold at %d, tendered %d, change %d", b.Total, b.Payments[0].Tendered, b.Change())
	}
}

// Must show 1 in the store: sellers price each sale from the ticket types
// they read (the screen) while a manager keeps changing the adult price.
// Every sale is recorded at the total its seller saw, or refused with the
// total at the price of that moment: never a third figure.
func TestStore_Checkout_PriceRace(t *testing.T) {
	t.Parallel()
	s, _ := dbtest.MustOpen(t, db.Options{})
	show := firstShow(t, s)
	ctx := context.Background()
	stop := make(chan struct{})
	var changer sync.WaitGroup
	changer.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			setAdult(t, s, []booking.Money{1250, 1300}[i%2])
		}
	})
	var wg sync.WaitGroup
	var mu sync.Mutex
	sold, refused := 0, 0
	for g := 0; g < 4; g++ {
		wg.Go(func() {
			for i := 0; i < 15; i++ {
				seat := fmt.Sprintf("%c%d", 'A'+g, i%14+1)
				seen := adultPrice(t, s)
				h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{seat}, Owner: fmt.Sprint("g", g, "-", i)})
				if err != nil {
					continue // sold in an earlier round
				}
				b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: h.Owner, IdempotencyKey: h.Owner,
					Method: booking.Cash, ExpectedTotal: seen, CheckTotal: true})
				var changed *booking.PriceChangedError
				mu.Lock()
				switch {
				case err == nil && b.Total == seen && b.Payments[0].Tendered == seen:
					sold++
				case errors.As(err, &changed) && changed.Expected == seen && changed.Total != seen && (changed.Total == 1250 || changed.Total == 1300):
					refused++
				default:
					t.Errorf("saw %d: booking %+v, err %v", seen, b, err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(stop)
	changer.Wait()
	if sold == 0 {
		t.Fatalf("no sale went through (%d refused)", refused)
	}
	t.Logf("%d sold at the total seen, %d refused with the new total", sold, refused)
}

// A price changed by another store on the same file (another process, as
// far as SQLite is concerned) reaches this one: its broker says anything
// may have changed and its ticket types are read afresh.
func TestStore_SetPrice_ReachesOtherProcess(t *testing.T) {
	t.Parallel()
	s, path := dbtest.MustOpen(t, db.Options{PollInterval: 10 * time.Millisecond})
	if adultPrice(t, s) != 1250 {
		t.Fatal("seed price")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := s.Changes().Subscribe(ctx)
	other := dbtest.Open(t, path, db.Options{PollInterval: -1})
	setAdult(t, other, 1300)
	deadline := time.After(5 * time.Second)
	for {
		select {
		case c := <-changes:
			if c.ShowID != 0 {
				continue
			}
			if got := adultPrice(t, s); got != 1300 {
				t.Fatalf("after the change the adult price reads %d", got)
			}
			return
		case <-deadline:
			t.Fatalf("no change heard; the adult price reads %d", adultPrice(t, s))
		}
	}
}

// The same process: the change is published after the cached prices are
// dropped, so a counter reloading on the news reads the new price.
func TestStore_SetPrice_Publishes(t *testing.T) {
	t.Parallel()
	s, _ := dbtest.MustOpen(t, db.Options{PollInterval: -1})
	adultPrice(t, s) // cache it
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changes := s.Changes().Subscribe(ctx)
	setAdult(t, s, 1400)
	select {
	case c := <-changes:
		if c.ShowID != 0 {
			t.Fatalf("price change published as show %d", c.ShowID)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a price change was not published")
	}
	if got := adultPrice(t, s); got != 1400 {
		t.Fatalf("adult price reads %d", got)
	}
}

func TestStore_Checkout_ErrInvalidBeforeWriting(t *testing.T) {
	t.Parallel()
	s, _ := dbtest.MustOpen(t, db.Options{})
	show := firstShow(t, s)
	h := mustHold(t, s, show.ID, "a", "D1")
	for name, req := range map[string]booking.CheckoutRequest{
		"LongKey":     {HoldID: h.ID, Owner: "a", IdempotencyKey: strings.Repeat("k", 129), Method: booking.Card},
		"NoKey":       {HoldID: h.ID, Owner: "a", IdempotencyKey: " ", Method: booking.Card},
		"Method":      {HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: "cheque"},
		"Negative":    {HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Cash, Tendered: -50},
		"CardTender":  {HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Card, Tendered: 2000},
		"UnknownType": {HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Card, Types: map[string]string{"D1": "vip"}},
		"Short":       {HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Cash, Tendered: 500},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := s.Checkout(context.Background(), clerk, req); booking.ErrorCode(err) != booking.EInvalid {
				t.Fatalf("got %v", err)
			}
			assertBookings(t, s, show.ID, 0, 0)
		})
	}
}

// A hold lives at most MaxHoldLifetime from when it was made, however it
// is extended or grown.
func TestStore_Extend_Limit(t *testing.T) {
	t.Parallel()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	show := firstShow(t, s)
	ctx := context.Background()
	made := clock.Now()
	h := mustHold(t, s, show.ID, "a", "E1")
	limit := made.Add(booking.MaxHoldLifetime)

	clock.Add(4 * time.Minute)
	got, err := s.Extend(ctx, clerk, h.ID, "a", booking.DefaultHoldTTL)
	if err != nil || !got.ExpiresAt.Equal(made.Add(9*time.Minute)) {
		t.Fatalf("extend at 4 min: %v, %v", got, err)
	}
	clock.Add(4 * time.Minute)
	if got, err = s.Extend(ctx, clerk, h.ID, "a", booking.DefaultHoldTTL); err != nil || !got.ExpiresAt.Equal(made.Add(13*time.Minute)) {
		t.Fatalf("extend at 8 min: %v, %v", got, err)
	}
	clock.Add(4 * time.Minute) // 12 min: +5 would pass the limit
	got, err = s.Extend(ctx, clerk, h.ID, "a", booking.DefaultHoldTTL)
	if err != nil || !got.ExpiresAt.Equal(limit) {
		t.Fatalf("extend at 12 min: %+v (%v), want the limit %v", got, err, limit)
	}
	clock.Add(time.Minute)
	_, err = s.Extend(ctx, clerk, h.ID, "a", booking.DefaultHoldTTL)
	if booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(booking.ErrorMessage(err), "15-minute limit") {
		t.Fatalf("extend at the limit: %v", err)
	}
	// Growing the hold does not renew it past the limit either.
	grown, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"E2"}, Owner: "a", AddTo: h.ID})
	if err != nil || !grown.ExpiresAt.Equal(limit) || len(grown.Seats) != 2 {
		t.Fatalf("grown hold ends at %v with %d seats (%v)", grown.ExpiresAt, len(grown.Seats), err)
	}
	// Asking for a long TTL at the start is capped too.
	long, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: show.ID, Seats: []string{"F1"}, Owner: "b", TTL: time.Hour})
	if err != nil || !long.ExpiresAt.Equal(clock.Now().Add(booking.MaxHoldLifetime)) {
		t.Fatalf("hour-long hold ends at %v (%v)", long.ExpiresAt, err)
	}
	clock.Add(2*time.Minute + time.Second)
	_, err = s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "late", Method: booking.Card})
	if booking.ErrorCode(err) != booking.EExpired {
		t.Fatalf("checkout after the limit: %v", err)
	}
	if _, err := s.Extend(ctx, clerk, h.ID, "a", booking.DefaultHoldTTL); booking.ErrorCode(err) != booking.EExpired {
		t.Fatalf("extend after the limit: %v", err)
	}
}

// Best available explains itself when it cannot: not "fewer than 1 seats"
// when only accessible places are left, and sold out when nothing is.
func TestStore_HoldBest_Explains(t *testing.T) {
	t.Parallel()
	s, _ := dbtest.MustOpen(t, db.Options{})
	show := firstShow(t, s)
	ctx := context.Background()
	sm, _ := s.SeatMap(ctx, clerk, show.ID, "")
	var standard, accessible []string
	for _, seat := range sm.Hall.Seats {
		if seat.Kind.Accessible() {
			accessible = append(accessible, seat.Label)
		} else {
			standard = append(standard, seat.Label)
		}
	}
	hold := func(labels []string) {
		for len(labels) > 0 {
			n := min(20, len(labels))
			mustHold(t, s, show.ID, "filler", labels[:n]...)
			labels = labels[n:]
		}
	}
	hold(standard[:len(standard)-3])
	best := func(n int) string {
		_, err := s.HoldBest(ctx, clerk, booking.HoldBestRequest{ShowID: show.ID, N: n, Owner: "a"})
		if booking.ErrorCode(err) != booking.EConflict {
			t.Fatalf("best %d: %v", n, err)
		}
		return booking.ErrorMessage(err)
	}
	if got := best(4); got != "Only 3 seats are free for this show, not 4 (and 4 wheelchair or companion places)." {
		t.Fatalf("best 4 of 3: %q", got)
	}
	hold(standard[len(standard)-3:])
	if got := best(1); got != "Only wheelchair and companion places are free (4); hold one by hand for a customer who needs it." {
		t.Fatalf("best 1 with only accessible places: %q", got)
	}
	hold(accessible)
	if got := best(2); got != "This show is sold out." {
		t.Fatalf("best 2 when sold out: %q", got)
	}
}
