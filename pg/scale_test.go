package pg_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/pg"
)

// TestScale_WeekAndYear is the week against the year on PostgreSQL, by
// hand: BOXOFFICE_SCALE_PG_WEEK and BOXOFFICE_SCALE_PG_YEAR name two
// databases (or schemas, by search_path) each carried from `init
// --demo-history` by `migrate --to` (docs/performance.md), and the counter's
// lookups run on both, alternately, n calls of each; the figures are
// logged (-v), and a booking view whose year p50 is over twice the week's
// fails, as does a find whose p50 per booking found is.
// BOXOFFICE_SCALE_OP picks the lookups whose name contains it. Without
// the variables it skips: it is a measurement, not a CI test.
func TestScale_WeekAndYear(t *testing.T) {
	week, year := os.Getenv("BOXOFFICE_SCALE_PG_WEEK"), os.Getenv("BOXOFFICE_SCALE_PG_YEAR")
	if week == "" || year == "" {
		t.Skip("BOXOFFICE_SCALE_PG_WEEK and BOXOFFICE_SCALE_PG_YEAR are empty: nothing to measure")
	}
	ctx := context.Background()
	actor := booking.Actor{Name: assets.DemoUser, Role: booking.RoleManager, Terminal: "bench"}
	sides := []*scaleSide{openScaleSide(t, week), openScaleSide(t, year)}
	const n = 200
	found := map[*pg.Store]int{} // the bookings the finds returned: their answer, which they cost in proportion to
	find := func(s *pg.Store, text string) error {
		got, err := s.FindBookings(ctx, actor, booking.BookingQuery{Text: text, Limit: 20})
		found[s] += len(got)
		return err
	}
	ops := []struct {
		name string
		// bound: within 2x of the week, or the test fails; for a find,
		// per booking found, as its answer grows with the history.
		bound bool
		run   func(s *pg.Store, b scaleBooking) error
	}{
		{"Booking(number)", true, func(s *pg.Store, b scaleBooking) error {
			_, err := s.Booking(ctx, actor, b.number)
			return err
		}},
		{"FindBookings: last 4 phone digits", true, func(s *pg.Store, b scaleBooking) error {
			return find(s, b.phone[len(b.phone)-4:])
		}},
		{"FindBookings: last 6 phone digits", true, func(s *pg.Store, b scaleBooking) error {
			return find(s, b.phone[len(b.phone)-6:])
		}},
		{"FindBookings: booking number", false, func(s *pg.Store, b scaleBooking) error {
			return find(s, b.number)
		}},
		{"ReportTakings: 30 days by day", false, func(s *pg.Store, b scaleBooking) error {
			now := time.Now()
			_, err := s.ReportTakings(ctx, actor, booking.TakingsQuery{ReportRange: booking.ReportRange{From: now.AddDate(0, 0, -30), To: now}, By: booking.TakingsBys()[0]})
			return err
		}},
	}
	t.Logf("%-36s %9s %9s %9s %9s %7s %s", "operation (ms)", "week p50", "week p99", "year p50", "year p99", "x p50", "found (week / year)")
	only := os.Getenv("BOXOFFICE_SCALE_OP")
	for _, op := range ops {
		if !strings.Contains(op.name, only) {
			continue
		}
		lat := [2][]time.Duration{}
		clear(found)
		for i := -1; i < n; i++ {
			for k, side := range sides {
				t0 := time.Now()
				if err := op.run(side.store, side.sample[max(i, 0)%len(side.sample)]); err != nil {
					t.Fatalf("%s: %v", op.name, err)
				}
				if i >= 0 {
					lat[k] = append(lat[k], time.Since(t0))
				}
			}
		}
		w50, w99 := scalePercentiles(lat[0])
		y50, y99 := scalePercentiles(lat[1])
		wf, yf := float64(found[sides[0].store])/(n+1), float64(found[sides[1].store])/(n+1)
		t.Logf("%-36s %9.3f %9.3f %9.3f %9.3f %7.2f %.1f / %.1f", op.name, w50, w99, y50, y99, y50/w50, wf, yf)
		if wf > 0 && yf > wf {
			w50, y50 = w50/wf, y50/yf // the cost of each booking found
		}
		if op.bound && y50 > 2*w50 {
			t.Errorf("%s: %.3f ms on the year, over twice the week's %.3f ms", op.name, y50, w50)
		}
	}
}

// scaleSide is one database under measurement with bookings to look up.
type scaleSide struct {
	store  *pg.Store
	sample []scaleBooking
}

type scaleBooking struct{ number, phone string }

func openScaleSide(t *testing.T, url string) *scaleSide {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// Bookings with a phone from the whole history (a one-off read, not
	// measured).
	rows, err := conn.Query(ctx, `SELECT number, phone FROM bookings WHERE length(phone) >= 4 ORDER BY md5(number) LIMIT 500`)
	if err != nil {
		t.Fatal(err)
	}
	side := &scaleSide{}
	for rows.Next() {
		var b scaleBooking
		if err := rows.Scan(&b.number, &b.phone); err != nil {
			t.Fatal(err)
		}
		side.sample = append(side.sample, b)
	}
	if rows.Err() != nil || len(side.sample) == 0 {
		t.Fatalf("%s: no bookings to look up (%v)", url, rows.Err())
	}
	s, err := pg.Open(ctx, url, pg.Options{TicketKey: booking.TicketKey{ID: 1, Secret: []byte(fmt.Sprintf("%032d", 0))}, SealInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	side.store = s
	return side
}

func scalePercentiles(d []time.Duration) (p50, p99 float64) {
	slices.Sort(d)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return ms(d[len(d)/2]), ms(d[(len(d)*99+99)/100-1])
}
