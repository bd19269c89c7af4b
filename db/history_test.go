package db_test

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// The generator leaves what real sales leave, through the store's own
// write paths: every invariant holds, and the history has sales, refunds,
// released and lapsed holds and waiting lists, and a shift a day cashed
// up (checkHistoryShifts).
func TestGenerateHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path, opts, stats := generatedHistory(t, 2, 3)
	if stats.Bookings < 500 || stats.Cancelled == 0 || stats.Abandoned == 0 {
		t.Fatalf("stats %+v", stats)
	}
	s := dbtest.Open(t, path, db.Options{SweepInterval: -1})
	problems, err := s.CheckInvariants(ctx)
	if err != nil || len(problems) != 0 {
		t.Fatalf("invariants: %v %v", problems, err)
	}
	raw := openRaw(t, path)
	counts := map[string]int{}
	rows, err := raw.Query(`SELECT 'claim ' || status, count(*) FROM seat_claims GROUP BY status
		UNION ALL SELECT 'payment ' || kind, count(*) FROM payments GROUP BY kind
		UNION ALL SELECT 'booking ' || status, count(*) FROM bookings GROUP BY status
		UNION ALL SELECT 'named', count(*) FROM bookings WHERE customer <> '' AND phone_rev <> ''
		UNION ALL SELECT 'held', count(*) FROM holds WHERE status = 'held'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		var n int
		rows.Scan(&k, &n)
		counts[k] = n
	}
	rows.Close()
	for _, k := range []string{"claim sold", "claim released", "claim expired", "claim cancelled", "payment sale", "payment refund", "booking cancelled", "named"} {
		if counts[k] == 0 {
			t.Errorf("no %s in %v", k, counts)
		}
	}
	if counts["held"] != 0 || counts["booking confirmed"]+counts["booking cancelled"] != stats.Bookings {
		t.Errorf("counts %v for %+v", counts, stats)
	}
	// Found by name like any sale.
	if got, err := s.FindBookings(ctx, clerk, booking.BookingQuery{Text: "lee"}); err != nil || len(got) == 0 {
		t.Errorf("find by name in the history: %d %v", len(got), err)
	}
	s.Close()
	if _, err := db.GenerateHistory(ctx, path, opts); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("a second history over sales: %v", err)
	}
	checkHistoryShifts(t, path)
}

// CheckInvariants notices a sold count, a payment and a claim that do not
// agree with the rest.
func TestStore_CheckInvariants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	a := mustSell(t, s, show.ID, "a", "A1", "A2")
	b := mustSell(t, s, show.ID, "b", "B1")
	if _, err := s.Cancel(ctx, supervisor, booking.CancelRequest{Number: b.Number}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.CheckInvariants(ctx); err != nil || len(got) != 0 {
		t.Fatalf("a clean database: %v %v", got, err)
	}
	raw := openRaw(t, path)
	for _, q := range []string{
		`UPDATE shows SET sold = sold + 1 WHERE id = 1`,
		// Payments cannot be changed (a trigger refuses): a stray second
		// sale payment breaks the booking's money instead.
		`INSERT INTO payments (booking_id, kind, method, amount, at, staff) VALUES (` + itoa(a.ID) + `, 'sale', 'card', 100, 0, 'x')`,
		`DROP INDEX seat_claims_one_live`,
		`INSERT INTO seat_claims (show_id, seat_id, hold_id, status) SELECT show_id, seat_id, hold_id, 'held' FROM seat_claims WHERE booking_id = ` + itoa(a.ID) + ` LIMIT 1`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	got, err := s.CheckInvariants(ctx)
	if err != nil || len(got) != 3 {
		t.Fatalf("problems %q %v; want the sold count, the payment and the claim", got, err)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// generatedHistory seeds the demo cinema days ago in a new file and
// generates days of history on it with the generator's seed; it returns
// the file, the options the history was made with and what it made.
func generatedHistory(t *testing.T, days int, seed uint64) (string, db.HistoryOptions, db.HistoryStats) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "boxoffice.db")
	today := time.Now()
	s := dbtest.Open(t, path, db.Options{SweepInterval: -1})
	demo, err := assets.Demo(today.AddDate(0, 0, -days))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Seed(ctx, demo, true); err != nil {
		t.Fatal(err)
	}
	s.Close()
	opts := db.HistoryOptions{Days: days, Today: today, Seed: seed, TicketKey: storetest.TicketKey,
		Actor: booking.Actor{Name: assets.DemoUser, Role: booking.RoleManager, Terminal: "history"}}
	stats, err := db.GenerateHistory(ctx, path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return path, opts, stats
}
