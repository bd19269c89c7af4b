// Package dbtest is the SQLite half of the stores' test kit: stores on
// files in a test's temp dir with test defaults, seeded with
// internal/storetest's cinemas, shifts opened for their staff, and the
// reports fixture. Tests of db, tui, tui/server, cli and paper share it
// instead of keeping copies; the contract suite and pg's tests must not
// import it (they would link SQLite).
package dbtest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/storetest"
)

// Options is opts with the test defaults where it leaves them zero: the
// cheapest bcrypt cost (the race detector makes each hash slow) and
// TicketKey.
func Options(opts db.Options) db.Options {
	if opts.PINCost == 0 {
		opts.PINCost = bcrypt.MinCost
	}
	if opts.TicketKey.Secret == nil {
		opts.TicketKey = storetest.TicketKey
	}
	return opts
}

// Open opens the store at path with the test defaults; it is closed when
// the test ends. Where path names no file yet, the new file is a copy of
// the migrated template (Migrated) rather than migrated afresh.
func Open(tb testing.TB, path string, opts db.Options) *db.Store {
	tb.Helper()
	place(tb, path, Migrated(tb))
	s, err := db.Open(path, Options(opts))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// MustOpenEmpty opens a store on a new file in a temp dir, unseeded, and
// returns it with the file's path.
func MustOpenEmpty(tb testing.TB, opts db.Options) (*db.Store, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "boxoffice.db")
	return Open(tb, path, opts), path
}

// MustOpen opens a store on a new file in a temp dir seeded with
// storetest.Seed at the store's clock (now when opts has none), and
// returns it with the file's path.
func MustOpen(tb testing.TB, opts db.Options) (*db.Store, string) {
	tb.Helper()
	return openSeeded(tb, opts, storetest.Seed(now(opts)), false, true)
}

// MustOpenDemo opens a store on a new file in a temp dir seeded with the
// demo cinema at the store's clock.
func MustOpenDemo(tb testing.TB, opts db.Options) (*db.Store, string) {
	tb.Helper()
	seed, err := assets.Demo(now(opts))
	if err != nil {
		tb.Fatal(err)
	}
	return openSeeded(tb, opts, seed, true, true)
}

// OpenSeeded opens a store on a new file in a temp dir seeded with seed
// and nothing else (no shifts: MustSeed's are the kit's, and a suite
// with drawers of its own opens them itself), and returns it with the
// file's path.
func OpenSeeded(tb testing.TB, opts db.Options, seed booking.Seed) (*db.Store, string) {
	tb.Helper()
	return openSeeded(tb, opts, seed, false, false)
}

// MustSeed seeds s or fails the test, then opens a shift with Float for
// System and each member of the seed's staff, so tests that sell or refund
// cash find a drawer as a counter would after its clerk counted the float
// in. A test of the no-shift path closes one (MustCloseShift) or uses a
// person of its own.
func MustSeed(tb testing.TB, s *db.Store, seed booking.Seed, demo bool) {
	tb.Helper()
	if err := s.Seed(context.Background(), seed, demo); err != nil {
		tb.Fatal(err)
	}
	MustOpenShift(tb, s, booking.System)
	for _, st := range seed.Staff {
		MustStaffShift(tb, s, st.Name, st.Role)
	}
}

// MustStaffShift opens a shift with Float for a member of staff a test
// added, when their role takes money.
func MustStaffShift(tb testing.TB, s *db.Store, name string, role booking.Role) {
	tb.Helper()
	if role >= booking.MinRole(booking.ActionShift) {
		MustOpenShift(tb, s, booking.Actor{Name: name, Role: role})
	}
}

// MustOpenShift opens actor's shift with Float or fails the test.
func MustOpenShift(tb testing.TB, s *db.Store, actor booking.Actor) *booking.Shift {
	tb.Helper()
	sh, err := s.OpenShift(context.Background(), actor, booking.OpenShiftRequest{Float: storetest.Float})
	if err != nil {
		tb.Fatalf("open %s's shift: %v", actor.Name, err)
	}
	return sh
}

// MustCloseShift closes actor's shift with a count of what it expects, or
// fails the test.
func MustCloseShift(tb testing.TB, s *db.Store, actor booking.Actor) *booking.ShiftReport {
	tb.Helper()
	ctx := context.Background()
	sh, err := s.CurrentShift(ctx, actor)
	if err != nil {
		tb.Fatalf("%s's shift: %v", actor.Name, err)
	}
	x, err := s.ShiftReport(ctx, actor, sh.ID)
	if err != nil {
		tb.Fatal(err)
	}
	z, err := s.CloseShift(ctx, actor, booking.CloseShiftRequest{Counted: x.Expected})
	if err != nil {
		tb.Fatal(err)
	}
	return z
}

func now(opts db.Options) time.Time {
	if opts.Clock != nil {
		return opts.Clock()
	}
	return time.Now()
}

// MustBeWhole fails the test when s.CheckInvariants names a broken
// invariant: a seat with two live claims, a count or a booking's money
// out of step.
func MustBeWhole(tb testing.TB, s *db.Store) {
	tb.Helper()
	problems, err := s.CheckInvariants(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	for _, p := range problems {
		tb.Errorf("broken invariant: %s", p)
	}
}
