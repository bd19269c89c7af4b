package db_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"

	"golang.org/x/crypto/bcrypt"
)

func sellTo(t *testing.T, s *db.Store, show int64, seat, customer, phone string) *booking.Booking {
	t.Helper()
	owner := "find-" + seat
	h := mustHold(t, s, show, owner, seat)
	b, err := s.Checkout(context.Background(), clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner,
		Method: booking.Card, Customer: customer, Phone: phone})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func numbers(bs []booking.Booking) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Number)
	}
	return out
}

func digitsOf(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// Issue 8, item 3 (issue 7, must show 4): a full booking number finds
// that booking alone, even when a newer booking's phone holds its digits.
func TestStore_FindBookings_ExactNumber(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	var a *booking.Booking
	for i := 1; a == nil; i++ {
		if i > 60 {
			t.Fatal("no booking number with three digits in 60 sales")
		}
		b := sellTo(t, s, show.ID, fmt.Sprintf("%c%d", 'A'+(i-1)/12, (i-1)%12+1), "Ann Lee", "")
		if len(digitsOf(b.Number)) >= 3 {
			a = b
		}
	}
	other := sellTo(t, s, show.ID, "J10", "Bob Digits", "0"+digitsOf(a.Number)+"1")
	for _, q := range []string{a.Number, strings.ToLower(a.Number), a.Number[3:], " " + a.Number[3:7] + " " + a.Number[7:]} {
		got, err := s.FindBookings(ctx, clerk, booking.BookingQuery{Text: q})
		if err != nil || len(got) != 1 || got[0].Number != a.Number {
			t.Errorf("find %q: %v %v; want %s alone", q, numbers(got), err, a.Number)
		}
	}
	// The phone still finds the other booking by its digits.
	if got, _ := s.FindBookings(ctx, clerk, booking.BookingQuery{Text: digitsOf(a.Number) + "1"}); len(got) != 1 || got[0].Number != other.Number {
		t.Errorf("phone search: %v", numbers(got))
	}
}

func TestStore_FindBookings_PhoneAndName(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := dbtest.MustOpen(t, db.Options{SweepInterval: -1})
	show := firstShow(t, s)
	ann := sellTo(t, s, show.ID, "A1", "Ann Lee", "+44 20 7946 0018")
	muller := sellTo(t, s, show.ID, "A2", "Jürgen Müller-Lüdenscheidt", "(030) 555-1234")
	obrien := sellTo(t, s, show.ID, "A3", "Siobhán O'Brien", "087 123 4567")
	ann2 := sellTo(t, s, show.ID, "A4", "Annabel Smith", "020 7946 9999")
	for q, want := range map[string][]string{
		"0018":             {ann.Number},
		"7946 0018":        {ann.Number},
		"020 7946 0018":    {ann.Number}, // typed without the country code
		"+44 20 7946 0018": {ann.Number},
		"555 1234":         {muller.Number},
		"7946":             nil, // the middle of a number is not its end
		"ann":              {ann2.Number, ann.Number},
		"ANN L":            {ann.Number},
		"lee ann":          {ann.Number},
		"muller":           {muller.Number},
		"lüdensch":         {muller.Number},
		"jurgen mul":       {muller.Number},
		"obrien":           {obrien.Number},
		"o'brien":          {obrien.Number},
		"siobhan":          {obrien.Number},
		"smi":              {ann2.Number},
		"ee":               nil, // a name is found by the start of a word
		"%":                nil,
		"_":                nil,
		"zzz":              nil,
	} {
		got, err := s.FindBookings(ctx, clerk, booking.BookingQuery{Text: q})
		if err != nil || strings.Join(numbers(got), " ") != strings.Join(want, " ") {
			t.Errorf("find %q: %v %v; want %v", q, numbers(got), err, want)
		}
	}
	// Whole bookings come back, with tickets and payments.
	got, _ := s.FindBookings(ctx, clerk, booking.BookingQuery{Text: "ann"})
	for _, b := range got {
		if len(b.Tickets) != 1 || len(b.Payments) != 1 || b.Show.ID != show.ID || b.Tickets[0].Seat.Label == "" || b.Tickets[0].Code == "" {
			t.Errorf("booking %s loaded as %+v", b.Number, b)
		}
	}
	if _, err := s.FindBookings(ctx, clerk, booking.BookingQuery{Text: "BO-22222222"}); err != nil {
		t.Errorf("a number-shaped search that is no booking: %v", err)
	}
}

// Bookings made before migration 3 are found by phone and name after it:
// the migration back-fills the search columns.
func TestMigration_BackfillsSearch(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "boxoffice.db")
	raw := openRaw(t, path)
	for _, name := range []string{"0001_init.sql", "0002_waitlist_calls.sql"} {
		body, err := os.ReadFile(filepath.Join("migrations", name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec(string(body)); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`,
		`INSERT INTO schema_migrations VALUES (1, 0), (2, 0)`,
		`INSERT INTO halls (id, name, rows, width) VALUES (1, 'Old', 'A', 1)`,
		`INSERT INTO seats (id, hall_id, label, row_tag, number, row_idx, col, kind) VALUES (1, 1, 'A1', 'A', 1, 0, 0, 'standard')`,
		`INSERT INTO films (id, title, minutes) VALUES (1, 'Old Film', 90)`,
		`INSERT INTO shows (id, film_id, hall_id, starts_at, capacity, sold) VALUES (1, 1, 1, 4000000000, 1, 1)`,
		`INSERT INTO holds (id, show_id, owner, status, created_at, expires_at) VALUES (1, 1, 'o', 'confirmed', 0, 0)`,
		`INSERT INTO bookings (id, number, show_id, hold_id, status, idem_key, customer, phone, total, sold_by, created_at)
			VALUES (1, 'BO-23456789', 1, 1, 'confirmed', 'k', 'Zoë Old', '0161 496 0000', 1250, 'carl', 0)`,
		`INSERT INTO waitlist (id, show_id, name, phone, seats, created_at) VALUES (1, 1, 'Wait', '+1 (555) 010-9999', 1, 0)`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s := dbtest.Open(t, path, db.Options{SweepInterval: -1})
	for _, q := range []string{"zoe", "old", "496 0000", "0000"} {
		got, err := s.FindBookings(context.Background(), clerk, booking.BookingQuery{Text: q})
		if err != nil || len(got) != 1 || got[0].Number != "BO-23456789" {
			t.Errorf("find %q after the migration: %v %v", q, numbers(got), err)
		}
	}
	var rev string
	if err := raw.QueryRow(`SELECT phone_rev FROM waitlist WHERE id = 1`).Scan(&rev); err != nil || rev != "99990105551" {
		t.Errorf("waitlist phone_rev %q %v", rev, err)
	}
}

// The built-in dummy hash is a real bcrypt hash at the default cost, so an
// unknown name costs what a wrong PIN costs.
func TestDummyHashCost(t *testing.T) {
	t.Parallel()
	cost, err := bcrypt.Cost([]byte(db.DefaultDummyHash))
	if err != nil || cost != bcrypt.DefaultCost {
		t.Fatalf("cost %d %v", cost, err)
	}
}
