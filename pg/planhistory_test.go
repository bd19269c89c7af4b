package pg_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/pg"
)

// The history the plan guard plans on: the demo cinema's programme for
// historyWeeks weeks ahead (some 800 shows), sold through this store's
// own sale path, historySales bookings of two to four seats by card with
// a name and a phone spread across every show, one in ten cancelled, one
// in ten held at the kiosk instead (half reserved, half let go), then
// ANALYZEd. So every table a sale writes has thousands of rows and a
// show's share of them is small, as in a year: a plan that reads a
// show's claims or bookings through an index there does so on a year.
// Not a year itself, which takes minutes to build: the plans checked are
// generic (genericPlan), whose estimates do not hang on the values a
// test passed, and a table the history leaves empty is planned as one
// of unknown size, not as empty (analyzeSchema).
const (
	historyWeeks = 8
	historySales = 2000
)

// planHistory is the URL of a schema holding the history, built
// once per test binary and dropped by TestMain.
var planHistory = sync.OnceValues(func() (string, error) {
	base := os.Getenv("BOXOFFICE_TEST_PG")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	historySchema = fmt.Sprintf("plan_history_%d_%d", time.Now().UnixNano(), rand.IntN(1e6))
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+historySchema); err != nil {
		return "", err
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("search_path", historySchema)
	u.RawQuery = q.Encode()
	return u.String(), playHistory(ctx, u.String(), historySales)
})

// historySchema is planHistory's schema, once made.
var historySchema string

// historyEarly says buildPlanHistoryEarly started planHistory.
var historyEarly atomic.Bool

// buildPlanHistoryEarly starts building the plan guard's history while
// TestContract's cases run, rather than after them all, when the guard
// will plan on it: the whole suite runs (not -run TestContract/Group)
// and BOXOFFICE_PLAN_HISTORY names no database of the caller's.
func buildPlanHistoryEarly() {
	if _, partial := runFlag(); partial || os.Getenv("BOXOFFICE_PLAN_HISTORY") != "" {
		return
	}
	historyEarly.Store(true)
	go planHistory()
}

// playHistory seeds the demo cinema's historyWeeks at into and sells n
// bookings across its shows from eight counters at once, cancelling one
// in ten, then refreshes the planner's statistics of the schema.
func playHistory(ctx context.Context, into string, n int) error {
	now := time.Now()
	s, err := pg.Open(ctx, into, pg.Options{Clock: func() time.Time { return now }, TicketKey: booking.TicketKey{ID: 1, Secret: []byte("plan-guard-secret-0123456789abcd")}, SealInterval: -1})
	if err != nil {
		return err
	}
	defer s.Close()
	demo, err := assets.Demo(now)
	if err != nil {
		return err
	}
	for week := 1; week < historyWeeks; week++ {
		more, err := assets.Demo(now.AddDate(0, 0, 7*week))
		if err != nil {
			return err
		}
		demo.Shows = append(demo.Shows, more.Shows...)
	}
	if err := s.Seed(ctx, demo, true); err != nil {
		return err
	}
	var shows []int64
	for day := range 7 * historyWeeks {
		list, err := s.Shows(ctx, booking.System, now.AddDate(0, 0, day))
		if err != nil {
			return err
		}
		for _, sh := range list {
			if booking.SalesOpen(sh, now) == nil {
				shows = append(shows, sh.ID)
			}
		}
	}
	mgr := booking.Actor{Name: assets.DemoUser, Role: booking.RoleManager, Terminal: "history"}
	const counters = 8
	errs := make(chan error, counters)
	for c := range counters {
		go func() { errs <- sellHistory(ctx, s, mgr, shows, c, counters, n) }()
	}
	for range counters {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	if err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, into)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, analyzeSchema)
	return err
}

// sellHistory is counter c's share of playHistory's sales.
func sellHistory(ctx context.Context, s *pg.Store, actor booking.Actor, shows []int64, c, counters, n int) error {
	for i := c; i < n; i += counters {
		owner := fmt.Sprintf("history-%d", c)
		if i%10 == 5 {
			if err := reserveHistory(ctx, s, shows[i%len(shows)], i); err != nil {
				return err
			}
			continue
		}
		h, err := s.HoldBest(ctx, actor, booking.HoldBestRequest{ShowID: shows[i%len(shows)], N: 2 + i%3, Owner: owner})
		if booking.ErrorCode(err) == booking.EConflict {
			continue // sold out
		}
		if err != nil {
			return err
		}
		b, err := s.Checkout(ctx, actor, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: fmt.Sprintf("history-%d", i),
			Method:   booking.Card,
			Customer: fmt.Sprintf("Customer %d Lee", i), Phone: fmt.Sprintf("07700 9%05d", i*7919%100000)})
		if err != nil {
			return err
		}
		if i%10 == 0 {
			if _, err := s.Cancel(ctx, actor, booking.CancelRequest{Number: b.Number}); err != nil {
				return err
			}
		}
	}
	return nil
}

// mustPlanHistory is planHistory's schema, or the database
// BOXOFFICE_PLAN_HISTORY names, or the test skips without a PostgreSQL to
// build it on.
func mustPlanHistory(t *testing.T) string {
	t.Helper()
	if os.Getenv("BOXOFFICE_TEST_PG") == "" {
		t.Skip("BOXOFFICE_TEST_PG is empty: no PostgreSQL to test against (.ci/pg starts one)")
	}
	if u := os.Getenv("BOXOFFICE_PLAN_HISTORY"); u != "" {
		return u // a database of the caller's, a year carried by migrate --to (docs/performance.md)
	}
	u, err := planHistory()
	if err != nil {
		t.Fatalf("a history to plan on: %v", err)
	}
	return u
}

// dropPlanHistory drops planHistory's schema, if it was made, once
// every test is done (TestMain).
func dropPlanHistory() {
	if historyEarly.Load() {
		planHistory() // built, or failed, before its schema is dropped
	}
	if historySchema != "" {
		ctx := context.Background()
		if conn, err := pgx.Connect(ctx, os.Getenv("BOXOFFICE_TEST_PG")); err == nil {
			conn.Exec(ctx, `DROP SCHEMA `+historySchema+` CASCADE`)
			conn.Close(ctx)
		}
	}
}

// analyzeSchema gathers the planner's statistics of every table of the
// schema that has rows: other tests' schemas share the database. A table
// left empty keeps none, and PostgreSQL plans a table never analyzed as
// one of some pages (at least ten), not as the empty table it is here: a
// table of a year, not one of a test, whose rows the history did not
// write (customers, gift cards, concessions…).
const analyzeSchema = `DO $$ DECLARE r record; found boolean; BEGIN
	FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() LOOP
		EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I)', r.tablename) INTO found;
		IF found THEN
			EXECUTE format('ANALYZE %I', r.tablename);
		END IF;
	END LOOP; END $$`

// reserveHistory holds two seats of show at the kiosk, as customer i
// from an address of its own, and reserves them, or every other time lets
// them go: the kiosk's holds and reservations are history too.
func reserveHistory(ctx context.Context, s *pg.Store, show int64, i int) error {
	kiosk := booking.Actor{Name: "kiosk", Role: booking.RoleKiosk, Terminal: "kiosk"}
	owner, addr := fmt.Sprintf("kiosk-%d", i), fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)
	h, err := s.KioskHold(ctx, kiosk, booking.KioskHoldRequest{ShowID: show, Owner: owner, N: 2, Addr: addr})
	if err == nil && i%20 == 15 {
		_, err = s.KioskRelease(ctx, kiosk, owner) // the customer walked away
	} else if err == nil {
		_, err = s.Reserve(ctx, kiosk, booking.ReserveRequest{HoldID: h.ID, Owner: owner, Name: fmt.Sprintf("Kiosk %d Moreau", i),
			Phone: fmt.Sprintf("07700 8%05d", i*7919%100000), Addr: addr})
	}
	if booking.ErrorCode(err) == booking.EInternal {
		return err
	}
	return nil // sold out, or too close to its show: as a kiosk is told
}
