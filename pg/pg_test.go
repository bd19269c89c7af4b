package pg_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/internal/pgtest"
	"boxoffice/pg"
)

// testURL is a database of the test's own on the server
// BOXOFFICE_TEST_PG names, copied from one migrated once (migrated).
func testURL(t testing.TB) string { t.Helper(); return migrated.URL(t) }

// migrated is the template testURL copies: the database as Open leaves
// it. A test of the migrations themselves takes an empty schema
// (pgtest.URL) instead.
var migrated = pgtest.NewTemplate(func(ctx context.Context, url string) error {
	s, err := pg.Open(ctx, url, pg.Options{SealInterval: -1})
	if err != nil {
		return err
	}
	return s.Close()
})

// clock is a test's time, moved by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// MustOpen opens a store on url with clk and closes it at the end.
func MustOpen(t testing.TB, url string, clk *clock) *pg.Store {
	t.Helper()
	s, err := pg.Open(context.Background(), url, pg.Options{Clock: clk.Now, TicketKey: booking.TicketKey{ID: 1, Secret: []byte("test-secret-0123456789abcdef0123")}, MaxConns: 60})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// smallSeed is one 2x10 hall, one film, two ticket types, one show
// tomorrow.
func smallSeed(now time.Time) booking.Seed {
	h := booking.Hall{Name: "One", Width: 10, Rows: []string{"A", "B"}}
	for r, tag := range h.Rows {
		for i := 0; i < 10; i++ {
			h.Seats = append(h.Seats, booking.Seat{Label: fmt.Sprintf("%s%d", tag, i+1), RowTag: tag, Number: i + 1, Row: r, Col: i})
		}
	}
	return booking.Seed{
		Halls:       []booking.Hall{h},
		Films:       []booking.Film{{Title: "Test Film", Minutes: 100}},
		TicketTypes: []booking.TicketType{{Code: "adult", Name: "Adult", Price: 1250}, {Code: "child", Name: "Child", Price: 800}},
		Shows:       []booking.SeedShow{{Film: 0, Hall: 0, Starts: now.Add(24 * time.Hour)}},
	}
}

// seeded opens a store on a database of the test's own (testURL)
// seeded with smallSeed.
func seeded(t *testing.T) (*pg.Store, string, *clock) {
	t.Helper()
	return seededAt(t, testURL(t))
}

// seededAt is seeded on the database at u.
func seededAt(t *testing.T, u string) (*pg.Store, string, *clock) {
	t.Helper()
	clk := &clock{now: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)}
	s := MustOpen(t, u, clk)
	if err := s.Seed(context.Background(), smallSeed(clk.Now()), false); err != nil {
		t.Fatal(err)
	}
	return s, u, clk
}

var clerk = booking.Actor{Name: "ann", Role: booking.RoleClerk, Terminal: "t1"}

func TestOpen_MigratesOnceWhenServersStartTogether(t *testing.T) {
	t.Parallel()
	u := pgtest.URL(t) // empty: the servers migrate it
	clk := &clock{now: time.Now()}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s, err := pg.Open(context.Background(), u, pg.Options{Clock: clk.Now})
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("open: %v", err)
		}
	}
	s := MustOpen(t, u, clk)
	v, err := s.SchemaVersion(context.Background())
	if want := newestMigration(t); err != nil || v != want {
		t.Fatalf("schema version %d, %v; want %d", v, err, want)
	}
}

func TestHold_FiftyRacersOneWinner(t *testing.T) {
	t.Parallel()
	s, _, _ := seeded(t)
	ctx := context.Background()
	const racers = 50
	var wins atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, racers)
	for i := 0; i < racers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			_, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A5", "A6"}, Owner: fmt.Sprintf("counter-%d", i)})
			if err == nil {
				wins.Add(1)
			}
			errs[i] = err
		}(i)
	}
	close(start)
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d winners, want 1", wins.Load())
	}
	for _, err := range errs {
		if err == nil {
			continue
		}
		var taken *booking.SeatsTakenError
		if !errors.As(err, &taken) || booking.ErrorCode(err) != booking.EConflict {
			t.Fatalf("loser got %v (%T), want *SeatsTakenError", err, err)
		}
		if len(taken.Taken) == 0 || (taken.Taken[0].Label != "A5" && taken.Taken[0].Label != "A6") {
			t.Fatalf("taken %v", taken.Taken)
		}
		if len(taken.Suggestions) == 0 {
			t.Fatalf("no seats offered next to the lost one: %v", err)
		}
		for _, block := range taken.Suggestions {
			if len(block) != 2 {
				t.Fatalf("offered a block of %d for a party of 2", len(block))
			}
			for _, seat := range block {
				if seat.Label == "A5" || seat.Label == "A6" {
					t.Fatalf("offered the lost seat %s", seat.Label)
				}
			}
		}
	}
	m, err := s.SeatMap(ctx, clerk, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Show.Held != 2 {
		t.Fatalf("held %d, want 2", m.Show.Held)
	}
}

func TestHold_DuplicateLiveClaimRefusedByPostgres(t *testing.T) {
	t.Parallel()
	s, u, _ := seeded(t)
	ctx := context.Background()
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"B1"}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `INSERT INTO seat_claims (show_id, seat_id, hold_id, status) VALUES (1, $1, $2, 'held')`, h.Seats[0].ID, h.ID)
	if err == nil {
		t.Fatal("a second live claim on B1 inserted straight into the database was accepted")
	}
	_, err = conn.Exec(ctx, `UPDATE audit SET detail = 'x'`)
	if err == nil {
		t.Fatal("the audit trail accepted an UPDATE")
	}
}

func TestHold_ExpiredHoldNeverBlocks(t *testing.T) {
	t.Parallel()
	s, _, clk := seeded(t)
	ctx := context.Background()
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A1", "A2"}, Owner: "a", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A2"}, Owner: "b"}); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("a live hold's seat held again: %v", err)
	}
	clk.Add(time.Minute + time.Millisecond)
	m, err := s.SeatMap(ctx, clerk, 1, "b")
	if err != nil {
		t.Fatal(err)
	}
	if m.State(h.Seats[0].ID) != booking.SeatFree || m.Show.Held != 0 {
		t.Fatalf("a lapsed hold reads %v, held %d", m.State(h.Seats[0].ID), m.Show.Held)
	}
	h2, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A2"}, Owner: "b"})
	if err != nil {
		t.Fatalf("the seat of a lapsed hold: %v", err)
	}
	_, err = s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k-a", Method: booking.Card})
	if booking.ErrorCode(err) != booking.EExpired {
		t.Fatalf("checkout of a lapsed hold: %v, want EExpired", err)
	}
	b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h2.ID, Owner: "b", IdempotencyKey: "k-b", Method: booking.Card})
	if err != nil || len(b.Tickets) != 1 || b.Tickets[0].Seat.Label != "A2" {
		t.Fatalf("checkout: %+v, %v", b, err)
	}
}

func TestCheckout_Idempotent(t *testing.T) {
	t.Parallel()
	s, _, _ := seeded(t)
	ctx := context.Background()
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A3", "A4"}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	req := booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "key-1", Method: booking.Card}
	// A double Enter: two checkouts of one hold with one key at once.
	var wg sync.WaitGroup
	got := make([]*booking.Booking, 8)
	errs := make([]error, len(got))
	for i := range got {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			got[i], errs[i] = s.Checkout(ctx, clerk, req)
		}(i)
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil {
			t.Fatalf("checkout %d: %v", i, errs[i])
		}
		if got[i].Number != got[0].Number || len(got[i].Tickets) != 2 {
			t.Fatalf("checkout %d made %s (%d tickets), the first %s", i, got[i].Number, len(got[i].Tickets), got[0].Number)
		}
	}
	// The same key on another hold lands on the first booking too, and
	// leaves the other hold unsold.
	h2, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"B9"}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h2.ID, Owner: "a", IdempotencyKey: "key-1", Method: booking.Card})
	if err != nil || again.Number != got[0].Number {
		t.Fatalf("the key again: %v, %v", again, err)
	}
	sh, err := s.Show(ctx, clerk, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Sold != 2 || sh.Held != 1 {
		t.Fatalf("sold %d held %d, want 2 and 1", sh.Sold, sh.Held)
	}
	byKey, err := s.BookingByKey(ctx, clerk, "key-1")
	if err != nil || byKey.Number != got[0].Number || len(byKey.Payments) != 1 || byKey.Total != 2500 {
		t.Fatalf("by key: %+v, %v", byKey, err)
	}
}

func TestCheckout_PricedInsideTheTransaction(t *testing.T) {
	t.Parallel()
	s, u, _ := seeded(t)
	ctx := context.Background()
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A7", "A8"}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	// A sale at today's prices first, so the store holds a copy of them.
	warm, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"B10"}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: warm.ID, Owner: "a", IdempotencyKey: "warm", Method: booking.Card}); err != nil || b.Total != 1250 {
		t.Fatalf("first sale: %+v, %v", b, err)
	}
	// Another server changes the adult price after the counter priced
	// the sale at 2 x 12.50.
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE ticket_types SET price = 1300 WHERE code = 'adult'`); err != nil {
		t.Fatal(err)
	}
	req := booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Card, CheckTotal: true, ExpectedTotal: 2500,
		Types: map[string]string{"A8": "child"}}
	_, err = s.Checkout(ctx, clerk, req)
	var changed *booking.PriceChangedError
	if !errors.As(err, &changed) || changed.Total != 1300+800 {
		t.Fatalf("checkout at the old total: %v, want PriceChangedError with 21.00", err)
	}
	req.ExpectedTotal = 2100
	b, err := s.Checkout(ctx, clerk, req)
	if err != nil || b.Total != 2100 || b.Payments[0].Amount != 2100 {
		t.Fatalf("checkout at the new total: %+v, %v", b, err)
	}
	var stored int64
	if err := conn.QueryRow(ctx, `SELECT sum(price) FROM tickets WHERE booking_id = $1`, b.ID).Scan(&stored); err != nil || stored != 2100 {
		t.Fatalf("tickets stored at %d, %v", stored, err)
	}
	// Cash needs a shift.
	h2, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"B3"}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h2.ID, Owner: "a", IdempotencyKey: "cash", Method: booking.Cash})
	if !errors.Is(err, booking.ErrNoShift) {
		t.Fatalf("cash without a shift: %v", err)
	}
	float := booking.Money(5000)
	b, err = s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h2.ID, Owner: "a", IdempotencyKey: "cash", Method: booking.Cash, Tendered: 2000, OpenFloat: &float})
	if err != nil || b.Payments[0].Change != 700 || b.Payments[0].ShiftID == 0 {
		t.Fatalf("cash with a float: %+v, %v", b, err)
	}
}

func TestRelease_FreesTheSeats(t *testing.T) {
	t.Parallel()
	s, _, _ := seeded(t)
	ctx := context.Background()
	h, err := s.HoldBest(ctx, clerk, booking.HoldBestRequest{ShowID: 1, N: 3, Owner: "a"})
	if err != nil || len(h.Seats) != 3 || !h.Together {
		t.Fatalf("hold best: %+v, %v", h, err)
	}
	if err := s.Release(ctx, clerk, h.ID, "a", h.Seats[0].Label); err != nil {
		t.Fatal(err)
	}
	sh, _ := s.Show(ctx, clerk, 1)
	if sh.Held != 2 {
		t.Fatalf("held %d after releasing one of 3", sh.Held)
	}
	if err := s.Release(ctx, clerk, h.ID, "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, clerk, h.ID, "someone else"); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("another owner's release: %v", err)
	}
	if _, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{h.Seats[1].Label}, Owner: "b"}); err != nil {
		t.Fatalf("a released seat: %v", err)
	}
	shows, err := s.Shows(ctx, clerk, time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC))
	if err != nil || len(shows) != 1 || shows[0].Held != 1 || shows[0].Free() != 19 {
		t.Fatalf("shows: %+v, %v", shows, err)
	}
}

func TestHold_WithdrawnStaffRefused(t *testing.T) {
	t.Parallel()
	s, u, _ := seeded(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var id int64
	if err := conn.QueryRow(ctx, `INSERT INTO staff (name, role, pin_hash, created_at) VALUES ('bea', 'clerk', 'x', 0) RETURNING id`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	bea := booking.Actor{StaffID: id, Name: "bea", Role: booking.RoleClerk}
	h, err := s.Hold(ctx, bea, booking.HoldRequest{ShowID: 1, Seats: []string{"A9"}, Owner: "bea"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `UPDATE staff SET disabled = true WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Hold(ctx, bea, booking.HoldRequest{ShowID: 1, Seats: []string{"A10"}, Owner: "bea"}); !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("a disabled clerk's hold: %v", err)
	}
	if _, err := s.Checkout(ctx, bea, booking.CheckoutRequest{HoldID: h.ID, Owner: "bea", IdempotencyKey: "w", Method: booking.Card}); !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("a disabled clerk's checkout: %v", err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM bookings`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d bookings, %v", n, err)
	}
}

func TestHold_ClosedShowRefused(t *testing.T) {
	t.Parallel()
	s, u, clk := seeded(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE shows SET status = 'cancelled', cancel_reason = 'projector' WHERE id = 1`); err != nil {
		t.Fatal(err)
	}
	_, err = s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A1"}, Owner: "a"})
	if booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("hold on a cancelled show: %v", err)
	}
	if _, err := conn.Exec(ctx, `UPDATE shows SET status = 'scheduled'`); err != nil {
		t.Fatal(err)
	}
	clk.Add(24*time.Hour + 31*time.Minute) // 31 minutes after the start
	_, err = s.HoldBest(ctx, clerk, booking.HoldBestRequest{ShowID: 1, N: 2, Owner: "a"})
	if booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("hold best after sales closed: %v", err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM seat_claims`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d claims left behind, %v", n, err)
	}
}

func TestHoldBest_RacersNeverShareASeat(t *testing.T) {
	t.Parallel()
	s, _, _ := seeded(t)
	ctx := context.Background()
	const racers = 30 // for 10 pairs of a 20-seat hall
	var wg sync.WaitGroup
	holds := make([]*booking.Hold, racers)
	errs := make([]error, racers)
	start := make(chan struct{})
	for i := 0; i < racers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			holds[i], errs[i] = s.HoldBest(ctx, clerk, booking.HoldBestRequest{ShowID: 1, N: 2, Owner: fmt.Sprintf("c%d", i)})
		}(i)
	}
	close(start)
	wg.Wait()
	seen := map[string]string{}
	won := 0
	for i, h := range holds {
		if errs[i] != nil {
			if booking.ErrorCode(errs[i]) != booking.EConflict {
				t.Fatalf("racer %d: %v", i, errs[i])
			}
			continue
		}
		won++
		if len(h.Seats) != 2 {
			t.Fatalf("racer %d held %d seats", i, len(h.Seats))
		}
		for _, seat := range h.Seats {
			if other, ok := seen[seat.Label]; ok {
				t.Fatalf("%s held by %s and c%d", seat.Label, other, i)
			}
			seen[seat.Label] = fmt.Sprintf("c%d", i)
		}
	}
	sh, err := s.Show(ctx, clerk, 1)
	if err != nil {
		t.Fatal(err)
	}
	if won == 0 || won > 10 || sh.Held != 2*won {
		t.Fatalf("%d winners, %d seats held", won, sh.Held)
	}
}

func TestAudit_OneRowPerWriteThatHappened(t *testing.T) {
	t.Parallel()
	s, u, _ := seeded(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows := func(action string) int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM audit WHERE action = $1`, action).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A1", "A2"}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"A2", "A3"}, Owner: "b"}); err == nil {
		t.Fatal("A2 held twice")
	}
	if n := rows("hold"); n != 1 {
		t.Fatalf("%d hold rows after one hold and one clash, want 1", n)
	}
	m, err := s.SeatMap(ctx, clerk, 1, "a")
	if err != nil || m.State(h.Seats[0].ID) != booking.SeatHeldByMe || m.HoldID[h.Seats[0].ID] != h.ID {
		t.Fatalf("a's map: %v, %v", m.State(h.Seats[0].ID), err)
	}
	if m, _ := s.SeatMap(ctx, clerk, 1, "b"); m.State(h.Seats[1].ID) != booking.SeatHeldByOther {
		t.Fatalf("b's map: %v", m.State(h.Seats[1].ID))
	}
	req := booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "once", Method: booking.Card}
	for i := 0; i < 2; i++ {
		if _, err := s.Checkout(ctx, clerk, req); err != nil {
			t.Fatal(err)
		}
	}
	if n := rows("sale"); n != 1 {
		t.Fatalf("%d sale rows after a checkout and its retry, want 1", n)
	}
	var actor, role, detail string
	var amount int64
	if err := conn.QueryRow(ctx, `SELECT actor, role, detail, amount FROM audit WHERE action = 'sale'`).Scan(&actor, &role, &detail, &amount); err != nil {
		t.Fatal(err)
	}
	if actor != "ann" || role != "clerk" || detail != "card: A1 A2" || amount != 2500 {
		t.Fatalf("sale row: %s %s %q %d", actor, role, detail, amount)
	}
	if m, _ := s.SeatMap(ctx, clerk, 1, ""); m.State(h.Seats[0].ID) != booking.SeatSold || m.Show.Sold != 2 {
		t.Fatalf("map after the sale: %v, sold %d", m.State(h.Seats[0].ID), m.Show.Sold)
	}
	h2, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"B4"}, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, clerk, h2.ID, "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.Release(ctx, clerk, h2.ID, "a"); err != nil {
		t.Fatal(err)
	}
	if n := rows("release"); n != 1 {
		t.Fatalf("%d release rows after one release and one of an ended hold, want 1", n)
	}
}

func TestRelease_RacingCheckoutOfTheSameHold(t *testing.T) {
	t.Parallel()
	s, _, _ := seeded(t)
	ctx := context.Background()
	// Ten rounds, one pair each: A1-A2 … A9-A10, B1-B2 … B9-B10. Each
	// round a partial release of the pair races its checkout.
	for i := 0; i < 10; i++ {
		row := []string{"A", "B"}[i/5]
		seats := []string{fmt.Sprintf("%s%d", row, 2*(i%5)+1), fmt.Sprintf("%s%d", row, 2*(i%5)+2)}
		h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: seats, Owner: "a"})
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		var wg sync.WaitGroup
		var b *booking.Booking
		var relErr, outErr error
		wg.Add(2)
		go func() { defer wg.Done(); relErr = s.Release(ctx, clerk, h.ID, "a", seats[1]) }()
		go func() {
			defer wg.Done()
			b, outErr = s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: fmt.Sprintf("r%d", i), Method: booking.Card})
		}()
		wg.Wait()
		if relErr != nil || outErr != nil {
			t.Fatalf("round %d: release %v, checkout %v", i, relErr, outErr)
		}
		if n := len(b.Tickets); n != 1 && n != 2 {
			t.Fatalf("round %d: %d tickets", i, n)
		}
		m, err := s.SeatMap(ctx, clerk, 1, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range b.Tickets {
			if m.State(tk.Seat.ID) != booking.SeatSold {
				t.Fatalf("round %d: ticket for %s, seat reads %v", i, tk.Seat.Label, m.State(tk.Seat.ID))
			}
		}
	}
}

// newestMigration is the number of the newest file in migrations/, the
// version a fresh database is migrated to.
func newestMigration(t *testing.T) int {
	t.Helper()
	files, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	newest := 0
	for _, f := range files {
		num, _, _ := strings.Cut(f.Name(), "_")
		if n, err := strconv.Atoi(num); err == nil && n > newest {
			newest = n
		}
	}
	return newest
}
