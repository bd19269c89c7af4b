package db_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

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
			t.Errorf("find %q after the migration: %v %v", q, got, err)
		}
	}
	var rev string
	if err := raw.QueryRow(`SELECT phone_rev FROM waitlist WHERE id = 1`).Scan(&rev); err != nil || rev != "99990105551" {
		t.Errorf("waitlist phone_rev %q %v", rev, err)
	}
}
