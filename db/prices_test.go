package db_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// premiumShow adds a hall like storetest.Hall whose row E is premium, and
// a show in it tomorrow, and returns the show's id.
func premiumShow(tb testing.TB, s *db.Store) int64 {
	tb.Helper()
	ctx := context.Background()
	h := storetest.Hall()
	h.Name = "Premium Hall"
	for i := range h.Seats {
		if h.Seats[i].RowTag == "E" {
			h.Seats[i].Kind = booking.Premium
		}
	}
	hall, err := s.AddHall(ctx, storetest.Manager, h)
	if err != nil {
		tb.Fatal(err)
	}
	film, err := s.AddFilm(ctx, storetest.Manager, booking.Film{Title: "Premium Film", Minutes: 90})
	if err != nil {
		tb.Fatal(err)
	}
	show, err := s.AddShow(ctx, storetest.Manager, film, hall, time.Now().Add(24*time.Hour))
	if err != nil {
		tb.Fatal(err)
	}
	return show
}

func setEntry(tb testing.TB, s *db.Store, list, typ string, kind booking.SeatKind, amount booking.Money) {
	tb.Helper()
	e := booking.PriceEntry{PriceKey: booking.PriceKey{List: list, Type: typ, Kind: kind}, Amount: amount}
	if err := s.SetPriceEntry(context.Background(), storetest.Manager, e); err != nil {
		tb.Fatal(err)
	}
}

// sellQuoted quotes the held seats, sells them at the quoted total and
// returns both.
func sellQuoted(tb testing.TB, s *db.Store, show int64, owner string, types map[string]string, seats ...string) (*booking.Quote, *booking.Booking) {
	tb.Helper()
	ctx := context.Background()
	h := mustHold(tb, s, show, owner, seats...)
	ids := make([]int64, len(h.Seats))
	for i, seat := range h.Seats {
		ids[i] = seat.ID
	}
	q, err := s.Quote(ctx, clerk, booking.QuoteRequest{ShowID: show, SeatIDs: ids, Types: types})
	if err != nil {
		tb.Fatal(err)
	}
	b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: "q-" + owner, Types: types,
		Method: booking.Card, ExpectedTotal: q.Total, CheckTotal: true})
	if err != nil {
		tb.Fatal(err)
	}
	return q, b
}

// ticketPrices reads a booking's tickets straight from the file.
func ticketPrices(tb testing.TB, s *db.Store, number string) (map[string]booking.Priced, booking.Money) {
	tb.Helper()
	raw := openRaw(tb, s.Path())
	rows, err := raw.Query(`SELECT s.label, t.price, t.price_source FROM tickets t JOIN seats s ON s.id = t.seat_id
		JOIN bookings b ON b.id = t.booking_id WHERE b.number = ?`, number)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	out := map[string]booking.Priced{}
	for rows.Next() {
		var label string
		var p booking.Priced
		if err := rows.Scan(&label, &p.Amount, &p.Source); err != nil {
			tb.Fatal(err)
		}
		out[label] = p
	}
	var total booking.Money
	if err := raw.QueryRow(`SELECT total FROM bookings WHERE number = ?`, number).Scan(&total); err != nil {
		tb.Fatal(err)
	}
	return out, total
}

// Must show 2 in the store: a premium seat sells at the premium price, a
// show on the evening list at the evening price, each ticket says where
// its price came from, and the booking's total is the sum of its tickets.
func TestStore_Prices_Checkout(t *testing.T) {
	t.Parallel()
	s, _ := dbtest.MustOpen(t, db.Options{})
	show := premiumShow(t, s)
	setEntry(t, s, "", "adult", booking.Premium, 1500)
	setEntry(t, s, "", "child", booking.Premium, 1100)

	t.Run("PremiumSeat", func(t *testing.T) {
		q, b := sellQuoted(t, s, show, "a", map[string]string{"E6": "child"}, "E5", "E6", "D5")
		got, total := ticketPrices(t, s, b.Number)
		want := map[string]booking.Priced{"E5": {Amount: 1500, Source: "premium seat"}, "E6": {Amount: 1100, Source: "premium seat"}, "D5": {Amount: 1250}}
		for label, p := range want {
			if got[label] != p {
				t.Errorf("%s stored at %+v, want %+v", label, got[label], p)
			}
		}
		if total != 3850 || b.Total != total || q.Total != total {
			t.Fatalf("booking total %s, returned %s, quoted %s; want 38.50", total, b.Total, q.Total)
		}
		loaded, err := s.Booking(context.Background(), clerk, b.Number)
		if err != nil {
			t.Fatal(err)
		}
		var sum booking.Money
		for _, tk := range loaded.Tickets {
			sum += tk.Price
			if tk.PriceSource != want[tk.Seat.Label].Source {
				t.Errorf("loaded %s source %q", tk.Seat.Label, tk.PriceSource)
			}
		}
		if sum != loaded.Total {
			t.Fatalf("tickets add to %s, total %s", sum, loaded.Total)
		}
	})

	t.Run("EveningList", func(t *testing.T) {
		setEntry(t, s, "evening", "adult", booking.Standard, 1400)
		setEntry(t, s, "evening", "adult", booking.Premium, 1650)
		if err := s.SetShowPriceList(context.Background(), storetest.Manager, show, "Evening"); err != nil {
			t.Fatal(err)
		}
		_, b := sellQuoted(t, s, show, "b", map[string]string{"C2": "child"}, "C1", "C2")
		_, b2 := sellQuoted(t, s, show, "c", nil, "E9")
		got, total := ticketPrices(t, s, b.Number)
		got2, _ := ticketPrices(t, s, b2.Number)
		if got["C1"] != (booking.Priced{Amount: 1400, Source: "evening list"}) || got["C2"] != (booking.Priced{Amount: 850}) || total != 2250 {
			t.Fatalf("evening sale stored %+v, total %s", got, total)
		}
		if got2["E9"] != (booking.Priced{Amount: 1650, Source: "evening list · premium seat"}) {
			t.Fatalf("evening premium stored %+v", got2)
		}
		// The other shows stay on the standing list.
		_, b3 := sellQuoted(t, s, 1, "d", nil, "C1")
		if b3.Total != 1250 {
			t.Fatalf("a show on the standing list sold at %s", b3.Total)
		}
	})
	dbtest.MustBeWhole(t, s)
}

// A wheelchair or companion place never costs more than a standard seat,
// whatever prices were set for it.
func TestStore_Prices_AccessibleCapped(t *testing.T) {
	t.Parallel()
	s, _ := dbtest.MustOpen(t, db.Options{})
	setEntry(t, s, "", "adult", booking.Wheelchair, 2000)
	setEntry(t, s, "", "adult", booking.Companion, 900)
	ctx := context.Background()
	h, err := s.HoldBest(ctx, clerk, booking.HoldBestRequest{ShowID: 1, N: 2, Wheelchair: 1, Owner: "w"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "w", IdempotencyKey: "w", Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range b.Tickets {
		switch tk.Seat.Kind {
		case booking.Wheelchair:
			if tk.Price != 1250 {
				t.Errorf("wheelchair place %s sold at %s, above standard 12.50", tk.Seat.Label, tk.Price)
			}
		case booking.Companion:
			if tk.Price != 900 || tk.PriceSource != "companion seat" {
				t.Errorf("companion place %s sold at %s (%q)", tk.Seat.Label, tk.Price, tk.PriceSource)
			}
		default:
			t.Errorf("%s is a %s seat", tk.Seat.Label, tk.Seat.Kind)
		}
	}
}

// A price set while the clerk looks at a quote: the sale at the old
// total is refused with the new one, which is what a new quote says.
func TestStore_Prices_ChangedMidCheckout(t *testing.T) {
	t.Parallel()
	s, _ := dbtest.MustOpen(t, db.Options{})
	show := premiumShow(t, s)
	setEntry(t, s, "", "adult", booking.Premium, 1500)
	ctx := context.Background()
	h := mustHold(t, s, show, "a", "E5", "E6")
	ids := []int64{h.Seats[0].ID, h.Seats[1].ID}
	q, err := s.Quote(ctx, clerk, booking.QuoteRequest{ShowID: show, SeatIDs: ids})
	if err != nil || q.Total != 3000 {
		t.Fatalf("quote %v, %v", q, err)
	}
	setEntry(t, s, "", "adult", booking.Premium, 1600)
	req := booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "mid", Method: booking.Card, ExpectedTotal: q.Total, CheckTotal: true}
	_, err = s.Checkout(ctx, clerk, req)
	var changed *booking.PriceChangedError
	if !errors.As(err, &changed) || changed.Total != 3200 {
		t.Fatalf("checkout at the old total: %v", err)
	}
	again, err := s.Quote(ctx, clerk, booking.QuoteRequest{ShowID: show, SeatIDs: ids})
	if err != nil || again.Total != changed.Total {
		t.Fatalf("a new quote says %v (%v), the refusal %s", again, err, changed.Total)
	}
	req.ExpectedTotal = again.Total
	if b, err := s.Checkout(ctx, clerk, req); err != nil || b.Total != 3200 {
		t.Fatalf("checkout at the new total: %v", err)
	}
}

// A premium price set by another store on the same file (another process,
// as far as SQLite is concerned) reaches this one's quotes.
func TestStore_SetPriceEntry_ReachesOtherProcess(t *testing.T) {
	s, path := dbtest.MustOpen(t, db.Options{PollInterval: 10 * time.Millisecond})
	show := premiumShow(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m, err := s.SeatMap(ctx, clerk, show, "")
	if err != nil {
		t.Fatal(err)
	}
	seat, _ := m.Hall.SeatByLabel("E5")
	quote := func() booking.Money {
		t.Helper()
		q, err := s.Quote(ctx, clerk, booking.QuoteRequest{ShowID: show, SeatIDs: []int64{seat.ID}})
		if err != nil {
			t.Fatal(err)
		}
		return q.Total
	}
	if got := quote(); got != 1250 { // cached
		t.Fatalf("quote before %s", got)
	}
	changes := s.Changes().Subscribe(ctx)
	other := dbtest.Open(t, path, db.Options{PollInterval: -1})
	setEntry(t, other, "", "adult", booking.Premium, 1500)
	deadline := time.After(5 * time.Second)
	for {
		select {
		case c := <-changes:
			if c.ShowID != 0 {
				continue
			}
			if got := quote(); got != 1500 {
				t.Fatalf("after the change the premium seat quotes %s", got)
			}
			return
		case <-deadline:
			t.Fatalf("no change heard; the premium seat quotes %s", quote())
		}
	}
}

// The writer keeps the price table between sales; a price written by
// anything else — here a bare SQL connection, as the sqlite3 shell would —
// moves the price generation, and the very next sale is priced from the
// new row although this store heard of no change (it polls never).
func TestStore_Checkout_PriceWrittenBehindTheStore(t *testing.T) {
	t.Parallel()
	s, path := dbtest.MustOpen(t, db.Options{PollInterval: -1})
	show := firstShow(t, s)
	ctx := context.Background()
	sell := func(key string, seat string) booking.Money {
		t.Helper()
		h := mustHold(t, s, show.ID, key, seat)
		b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: key, IdempotencyKey: key, Method: booking.Card})
		if err != nil {
			t.Fatal(err)
		}
		return b.Total
	}
	if got := sell("first", "C5"); got != 1250 {
		t.Fatalf("first sale at %s", got)
	}
	raw := openRaw(t, path)
	for i, stmt := range []string{
		`UPDATE ticket_types SET price = 1400 WHERE code = 'adult'`,
		`INSERT INTO prices (list, type_code, seat_kind, amount) VALUES ('', 'adult', 'standard', 1450)`,
		`DELETE FROM prices WHERE list = '' AND type_code = 'adult' AND seat_kind = 'standard'`,
	} {
		if _, err := raw.Exec(stmt); err != nil {
			t.Fatal(err)
		}
		want := []booking.Money{1400, 1450, 1400}[i]
		if got := sell(fmt.Sprint("after-", i), fmt.Sprint("D", 5+i)); got != want {
			t.Fatalf("after %q the sale is at %s, want %s", stmt, got, want)
		}
	}
}
