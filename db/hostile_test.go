package db_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/hostile"
	"boxoffice/internal/storetest"
)

// hostileInputs are the store's stored text inputs, each fed one hostile
// string (i keeps names that must be unique apart). An input may refuse a
// string with EInvalid (a phone with no digits, a name that is empty once
// cleaned); nothing else may go wrong.
var hostileInputs = []struct {
	name string
	feed func(t *testing.T, ctx context.Context, s *db.Store, fx *hostileStore, i int, h string) error
}{
	{"film title and rating", func(t *testing.T, ctx context.Context, s *db.Store, _ *hostileStore, i int, h string) error {
		id, err := s.AddFilm(ctx, manager, booking.Film{Title: h, Minutes: 90, Rating: h})
		if err != nil {
			return err
		}
		return s.EditFilm(ctx, manager, booking.Film{ID: id, Title: h + " 2", Minutes: 91, Rating: h})
	}},
	{"hall name and row labels (layout file)", func(t *testing.T, ctx context.Context, s *db.Store, _ *hostileStore, i int, h string) error {
		src := "hall: " + h + fmt.Sprint(" ", i) + "\n" + h + " | ssss\nZ | ss\n"
		hall, err := booking.ParseLayout(h+".hall", []byte(src))
		if err != nil {
			return err
		}
		_, err = s.AddHall(ctx, manager, *hall)
		return err
	}},
	{"customer name and phone", func(t *testing.T, ctx context.Context, s *db.Store, fx *hostileStore, i int, h string) error {
		_, err := fx.sell(ctx, s, i, h, h)
		return err
	}},
	{"cancel reason", func(t *testing.T, ctx context.Context, s *db.Store, fx *hostileStore, i int, h string) error {
		b, err := fx.sell(ctx, s, i, "Cancel Me", "0123 456")
		if err != nil {
			return err
		}
		_, err = s.Cancel(ctx, supervisor, booking.CancelRequest{Number: b.Number, Reason: h})
		return err
	}},
	{"refund reason", func(t *testing.T, ctx context.Context, s *db.Store, fx *hostileStore, i int, h string) error {
		b, err := fx.sell(ctx, s, i, "Refund Me", "0123 456")
		if err != nil {
			return err
		}
		_, err = s.RefundTickets(ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{b.Tickets[0].Seat.Label}, Reason: h})
		return err
	}},
	{"show cancel reason", func(t *testing.T, ctx context.Context, s *db.Store, fx *hostileStore, i int, h string) error {
		id, err := s.AddShow(ctx, manager, fx.film, fx.hall, fx.start.Add(48*time.Hour+time.Duration(i)*4*time.Hour))
		if err != nil {
			return err
		}
		_, err = s.CancelShow(ctx, manager, id, h)
		return err
	}},
	{"block reason", func(t *testing.T, ctx context.Context, s *db.Store, fx *hostileStore, i int, h string) error {
		_, err := s.BlockSeats(ctx, manager, booking.BlockRequest{ShowID: fx.shows[2], Seats: []string{fx.seat(i)}, Kind: booking.BlockBlocked, Reason: h})
		return err
	}},
	{"staff name", func(t *testing.T, ctx context.Context, s *db.Store, _ *hostileStore, i int, h string) error {
		_, err := s.AddStaff(ctx, manager, fmt.Sprint(h, " ", i), booking.RoleClerk, "5678", nil)
		return err
	}},
	{"terminal name and printer", func(t *testing.T, ctx context.Context, s *db.Store, _ *hostileStore, i int, h string) error {
		name := fmt.Sprint(h, " ", i)
		key, _ := newAuthorizedKey(t)
		if _, err := s.AddTerminal(ctx, manager, name, key); err != nil {
			return err
		}
		_, err := s.SetTerminalPrinter(ctx, manager, booking.Clean(name), h)
		return err
	}},
	{"waiting-list name and phone", func(t *testing.T, ctx context.Context, s *db.Store, fx *hostileStore, i int, h string) error {
		_, err := s.AddWaitlist(ctx, clerk, fx.soldOut, h, h, 1)
		return err
	}},
	{"shift reopen reason", func(t *testing.T, ctx context.Context, s *db.Store, _ *hostileStore, i int, h string) error {
		z, err := s.CloseShift(ctx, manager, booking.CloseShiftRequest{Counted: 10000})
		if err != nil {
			return err
		}
		_, err = s.ReopenShift(ctx, manager, booking.ReopenShiftRequest{ID: z.Shift.ID, Reason: h})
		return err
	}},
	{"reservation name", func(t *testing.T, ctx context.Context, s *db.Store, fx *hostileStore, i int, h string) error {
		fx.sold++
		owner := fmt.Sprint("reserve-", fx.sold)
		hold, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: fx.shows[2], Seats: []string{fx.seat(i + 60)}, Owner: owner})
		if err != nil {
			return err
		}
		_, err = s.Reserve(ctx, clerk, booking.ReserveRequest{HoldID: hold.ID, Owner: owner, Name: h, Phone: fmt.Sprintf("020 7946 %04d", i)})
		return err
	}},
	{"ticket type name", func(t *testing.T, ctx context.Context, s *db.Store, _ *hostileStore, i int, h string) error {
		return s.SetPrice(ctx, manager, booking.TicketType{Code: fmt.Sprint("t", i), Name: h, Price: 500})
	}},
}

// TestHostile_StoreInputs feeds every hostile string through every text
// input of the store, on one file, and then reads every text column of
// every table straight from the file: none holds a control character, a
// C1, a bidi control or a byte that is not UTF-8.
func TestHostile_StoreInputs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// A morning, so the seed's shows (two hours, five hours and a day on)
	// fall today and tomorrow whenever the test runs.
	clock := storetest.NewClock(time.Date(2026, 3, 13, 10, 0, 0, 0, time.Local))
	s, path := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1, Sync: "normal"})
	fx := newHostileStore(t, s, clock.Now())
	var tried, refused int
	for i, h := range hostile.Strings {
		for _, in := range hostileInputs {
			tried++
			err := in.feed(t, ctx, s, fx, i, h.S)
			if err != nil && booking.ErrorCode(err) != booking.EInvalid {
				t.Errorf("%s through %s: %v (%s)", h.Name, in.name, err, booking.ErrorCode(err))
			}
			if err != nil {
				refused++
				if testing.Verbose() {
					t.Logf("%s refused by %s: %v", h.Name, in.name, err)
				}
			}
		}
	}
	t.Logf("%d strings × %d inputs = %d tries, %d refused as invalid", len(hostile.Strings), len(hostileInputs), tried, refused)
	if refused > tried/2 {
		t.Errorf("%d of %d refused: too few reach the store to prove anything", refused, tried)
	}
	if problems, err := s.CheckInvariants(ctx); err != nil || len(problems) > 0 {
		t.Fatalf("invariants: %v %v", problems, err)
	}
	for _, l := range storedLeaks(t, path) {
		t.Error(l)
	}
	// The scan itself sees a value written past the store.
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE films SET rating = ? WHERE id = 1`, "PG\u009b2J"); err != nil {
		t.Fatal(err)
	}
	if got := storedLeaks(t, path); len(got) != 1 || !strings.Contains(got[0], "films.rating") {
		t.Errorf("a C1 CSI written past the store: the scan says %q", got)
	}
}

// storedLeaks reads every text value of every table of the file at path
// and lists those hostile.Leaks finds anything in.
func storedLeaks(t *testing.T, path string) []string {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	tables := queryStrings(t, raw, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
	var out []string
	values := 0
	for _, tb := range tables {
		for _, col := range queryStrings(t, raw, `SELECT name FROM pragma_table_info(?)`, tb) {
			rows := queryStrings(t, raw, fmt.Sprintf(`SELECT CAST(%q AS BLOB) FROM %q WHERE typeof(%q) = 'text'`, col, tb, col))
			for _, v := range rows {
				values++
				if l := hostile.Leaks(v, false); len(l) > 0 {
					out = append(out, fmt.Sprintf("%s.%s holds %s", tb, col, l[0]))
				}
			}
		}
	}
	if values < 1000 {
		out = append(out, fmt.Sprintf("only %d text values read: the scan missed the tables", values))
	}
	return out
}

func queryStrings(t *testing.T, raw *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := raw.Query(q, args...)
	if err != nil {
		t.Fatal(q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// hostileStore is what the inputs need: shows to sell on, a film and hall
// to add shows with, and a sold-out show for the waiting list.
type hostileStore struct {
	shows      []int64
	film, hall int64
	soldOut    int64
	start      time.Time
	sold       int
}

func newHostileStore(t *testing.T, s *db.Store, now time.Time) *hostileStore {
	t.Helper()
	ctx := context.Background()
	shows, err := s.Shows(ctx, booking.System, now)
	if err != nil || len(shows) == 0 {
		t.Fatal("shows", err)
	}
	fx := &hostileStore{film: shows[0].Film.ID, hall: shows[0].HallID, start: now}
	for _, sh := range shows {
		fx.shows = append(fx.shows, sh.ID)
	}
	tomorrow, _ := s.Shows(ctx, booking.System, now.Add(24*time.Hour))
	for _, sh := range tomorrow {
		fx.shows = append(fx.shows, sh.ID)
	}
	if len(fx.shows) < 3 {
		t.Fatal("the seed has fewer than three shows")
	}
	small, err := booking.ParseLayout("small.hall", []byte("hall: Tiny\nA | ss\n"))
	if err != nil {
		t.Fatal(err)
	}
	hall, err := s.AddHall(ctx, manager, *small)
	if err != nil {
		t.Fatal(err)
	}
	if fx.soldOut, err = s.AddShow(ctx, manager, fx.film, hall, now.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	mustSell(t, s, fx.soldOut, "sell-out", "A1", "A2")
	return fx
}

// seat is the i-th seat of the seed's hall (rows A-I, 14 seats a row).
func (fx *hostileStore) seat(i int) string { return fmt.Sprintf("%c%d", 'A'+i/14, i%14+1) }

// sell sells one seat by card on the first two shows in turn.
func (fx *hostileStore) sell(ctx context.Context, s *db.Store, i int, customer, phone string) (*booking.Booking, error) {
	fx.sold++
	n := fx.sold
	owner := fmt.Sprint("hostile-", n)
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: fx.shows[n%2], Seats: []string{fx.seat(n / 2)}, Owner: owner})
	if err != nil {
		return nil, errors.Join(errors.New("hold"), err)
	}
	return s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card, Customer: customer, Phone: phone})
}
