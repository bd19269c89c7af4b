package cli

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/pgtest"
	"boxoffice/internal/storetest"
	"boxoffice/pg"
)

// ReportTakings on PostgreSQL is SQLite's: the reports fixture (every
// kind of payment, refunds of tickets and of whole bookings, shifts)
// written into a SQLite file and carried into PostgreSQL gives the same
// report, row for row, by every key, over the fixture's range and a day.
// It lives here, beside the command line that links both engines, so
// that pg's own tests link no SQLite.
func TestReportTakings_AsSQLite(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	loc, err := time.LoadLocation("Europe/London")
	if err != nil {
		t.Skip("no time zone data:", err)
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "boxoffice.db")
	dbtest.ReportFixture(t, path, loc)
	// The fixture is written by SQL for the reports alone, and misses
	// what PostgreSQL's checks want of a cinema carried in: holds live a
	// moment (CHECK expires_at > created_at), each live ticket has a seat
	// of its own in its show and a sold claim on it. Takings read none of
	// these.
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE holds SET expires_at = created_at + 1`,
		`WITH n AS (SELECT t.id AS tid, sh.hall_id, row_number() OVER (PARTITION BY b.show_id ORDER BY t.id) AS k
			FROM tickets t JOIN bookings b ON b.id = t.booking_id JOIN shows sh ON sh.id = b.show_id),
		seat AS (SELECT id, hall_id, row_number() OVER (PARTITION BY hall_id ORDER BY id) AS k FROM seats)
		UPDATE tickets SET seat_id = (SELECT seat.id FROM n JOIN seat ON seat.hall_id = n.hall_id AND seat.k = n.k WHERE n.tid = tickets.id)`,
		`INSERT INTO seat_claims (show_id, seat_id, hold_id, booking_id, status)
			SELECT b.show_id, t.seat_id, b.hold_id, b.id, 'sold' FROM tickets t JOIN bookings b ON b.id = t.booking_id
			WHERE t.status IN ('issued', 'admitted')`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	raw.Close()
	now := func() time.Time { return storetest.ReportDay(loc, 4, 23, 0) }
	lite, err := db.Open(path, dbtest.Options(db.Options{Clock: now, SweepInterval: -1, PollInterval: -1}))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	src, err := db.OpenCarrySource(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	s, err := pg.Open(ctx, url, pg.Options{Clock: now, TicketKey: storetest.TicketKey})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if rep, err := s.Carry(ctx, src); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("carry: %+v, %v", rep, err)
	}
	mgr := booking.Actor{Name: "mgr", Role: booking.RoleManager}
	ranges := []booking.ReportRange{
		{From: storetest.ReportDay(loc, 1, 0, 0), To: storetest.ReportDay(loc, 3, 0, 0)},
		{From: storetest.ReportDay(loc, 0, 0, 0), To: storetest.ReportDay(loc, 4, 0, 0)},
		{From: storetest.ReportDay(loc, 2, 0, 0), To: storetest.ReportDay(loc, 2, 0, 0), Site: booking.MainSite},
	}
	for _, r := range ranges {
		for _, by := range booking.TakingsBys() {
			q := booking.TakingsQuery{ReportRange: r, By: by}
			want, err := lite.ReportTakings(ctx, mgr, q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.ReportTakings(ctx, mgr, q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s..%s by %s:\nPostgreSQL %+v\nSQLite     %+v", r.From.Format(time.DateOnly), r.To.Format(time.DateOnly), by, got, want)
			}
			if want.Total.Sales == 0 && r.Site == 0 {
				t.Errorf("by %s: the fixture took nothing: %+v", by, want.Total)
			}
		}
	}
	if _, err := s.ReportTakings(ctx, mgr, booking.TakingsQuery{ReportRange: ranges[0], By: "week"}); booking.ErrorMessage(err) != `Takings add up by day, film, show, method or clerk, not "week".` {
		t.Errorf("by week: %v", err)
	}
}
