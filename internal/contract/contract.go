// Package contract is the one test suite of booking's contract, run
// against every backend: db's tests on a SQLite file and pg's on a
// PostgreSQL schema call Run with a function that opens a fresh store, and
// every case asserts the same outcomes, error codes and clerk-facing
// messages on both.
//
// It lives in a non-test file so that both backends' tests can import it,
// like internal/storetest. A case that needs a capability a backend lacks
// asks for it by a type assertion and skips, naming it, when the store
// does not have it: a backend gains cases as it grows, with no edit here.
package contract

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/internal/storetest"
)

// Store is what every backend implements and the suite needs in every
// case: selling, the counter's reads, change events, the seed, finding a
// sale by its key and opening a shift. The rest a case asks for by type
// assertion (need).
type Store interface {
	booking.Sales
	booking.Changes
	Shows(ctx context.Context, actor booking.Actor, day time.Time) ([]booking.Show, error)
	Show(ctx context.Context, actor booking.Actor, showID int64) (*booking.Show, error)
	SeatMap(ctx context.Context, actor booking.Actor, showID int64, owner string) (*booking.SeatMap, error)
	Seed(ctx context.Context, seed booking.Seed, demo bool) error
	BookingByKey(ctx context.Context, actor booking.Actor, key string) (*booking.Booking, error)
	OpenShift(ctx context.Context, actor booking.Actor, req booking.OpenShiftRequest) (*booking.Shift, error)
}

// Options is what a backend's open function builds its store from.
type Options struct {
	// Clock is the store's time: pass Clock.Now as the backend's clock.
	// It stands at midday today (storetest.FixedClock); cases move it.
	Clock *storetest.Clock
	// Seed is the cinema to seed the new store with: storetest.Seed at
	// the clock (one hall of 140 seats, three shows, staff of every role
	// with PIN 1234). The first show starts two hours after the clock.
	Seed booking.Seed
	// TicketKey is the key the store must sign tickets with, so a case
	// can verify their codes.
	TicketKey booking.TicketKey
}

// Opener opens a fresh store of its own (a new file, a new schema) on
// opts.Clock, signing with opts.TicketKey and seeded with opts.Seed, and
// closes it when the test ends. Nothing else may be in it.
type Opener func(t *testing.T, opts Options) Store

// Run runs every case of the suite against the stores open makes, each a
// named subtest on a store of its own.
func Run(t *testing.T, open Opener) { RunConfig(t, open, Config{}) }

// Differences are the cases a backend is known to fail, by their path
// under the suite ("Clock/BackHoldLapses"), each with the difference from
// the other backend in a clerk's or a reader's words. Every one is a bug
// of that backend to fix; the suite skips the case there saying why.
type Differences map[string]string

// Config is what a backend tells the suite about itself.
type Config struct {
	// Known are the cases it is known to fail.
	Known Differences
	// NotYet recognises its refusal of a method it has not built yet (a
	// stub that says so, so a store can implement booking.Store whole
	// while it grows). A case whose capability answers that skips,
	// naming it, as when the store lacks the method.
	NotYet func(error) bool
}

// RunConfig is Run for a backend with a Config. A name in cfg.Known
// that is no case of the suite fails the test, so the list cannot go
// stale by a rename.
func RunConfig(t *testing.T, open Opener, cfg Config) {
	seen := map[string]bool{}
	for _, g := range groups {
		for _, c := range g.cases {
			seen[g.name+"/"+c.name] = true
		}
	}
	for path := range cfg.Known {
		if !seen[path] {
			t.Errorf("known difference %q names no case of the suite", path)
		}
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, c := range g.cases {
				path := g.name + "/" + c.name
				t.Run(c.name, func(t *testing.T) {
					if why, ok := cfg.Known[path]; ok {
						t.Skipf("a known difference of this backend: %s", why)
					}
					e := newEnv(t, open)
					e.notYet = cfg.NotYet
					c.run(t, e)
				})
			}
		})
	}
}

// group is a set of cases about one method or rule.
type group struct {
	name  string
	cases []testCase
}

type testCase struct {
	name string
	run  func(t *testing.T, e *env)
}

// groups is the whole suite, by what it is about.
var groups = []group{
	{"Hold", holdCases},
	{"HoldBest", holdBestCases},
	{"Checkout", checkoutCases},
	{"Prices", priceCases},
	{"Expiry", expiryCases},
	{"Clock", clockCases},
	{"Release", releaseCases},
	{"ShowLife", showLifeCases},
	{"Withdrawn", withdrawnCases},
	{"Roster", rosterCases},
	{"Setup", setupCases},
	{"Cancel", cancelCases},
	{"Refund", refundCases},
	{"Shift", shiftCases},
	{"Audit", auditCases},
	{"Door", doorCases},
	{"Changes", changeCases},
	// issue 14
	{"Sites", siteCases},
	{"Find", findCases},
	{"Waitlist", waitlistCases},
	{"AuditRead", auditReadCases},
	// Concessions (items.go).
	{"Items", itemCases},
	// Vouchers, and items on a ticket sale (vouchers.go).
	{"Vouchers", voucherCases},
}

// env is one case's store and its fixture.
type env struct {
	s     Store
	clock *storetest.Clock
	seed  booking.Seed
	show  booking.Show // the seed's first show
	ctx   context.Context
	// notYet is Config.NotYet, or nil.
	notYet func(error) bool
}

// Actors of the fixture cinema, as storetest names them.
var (
	clerk      = storetest.Clerk
	supervisor = storetest.Supervisor
	manager    = storetest.Manager
	door       = storetest.Door
)

// Float is the float of the shifts newEnv opens.
const Float = storetest.Float

func newEnv(t *testing.T, open Opener) *env {
	t.Helper()
	clock := storetest.FixedClock()
	seed := storetest.Seed(clock.Now())
	s := open(t, Options{Clock: clock, Seed: seed, TicketKey: storetest.TicketKey})
	e := &env{s: s, clock: clock, seed: seed, ctx: context.Background()}
	// A drawer for System and every member of staff who takes money, as
	// a counter has after its clerk counted the float in.
	for _, a := range []booking.Actor{booking.System, manager, supervisor, clerk} {
		if _, err := s.OpenShift(e.ctx, a, booking.OpenShiftRequest{Float: Float}); err != nil {
			t.Fatalf("open %s's shift: %v", a.Name, err)
		}
	}
	sh, err := s.Show(e.ctx, clerk, 1) // the seed's shows in order: the first is 1
	if err != nil {
		t.Fatal(err)
	}
	e.show = *sh
	return e
}

// need returns the store as the capability T, or skips the case naming
// what, the method or interface the backend does not have yet: when the
// store lacks it, or when T's probe (probes) answers the backend's
// not-built-yet refusal.
func need[T any](t *testing.T, e *env, what string) T {
	t.Helper()
	c, ok := e.s.(T)
	if !ok {
		t.Skipf("the backend has no %s yet", what)
	}
	if probe, ok := probes[reflect.TypeFor[T]()]; ok && e.notYet != nil && e.isNotYet(probe(e, c)) {
		t.Skipf("the backend has not built %s yet", what)
	}
	return c
}

// isNotYet reports whether err is the backend's not-built-yet refusal.
func (e *env) isNotYet(err error) bool { return err != nil && e.notYet != nil && e.notYet(err) }

// probes make, for each capability a case may need, one call that
// changes nothing (a read, or a write refused for a name or number that
// does not exist), so need can tell a method built from a stub.
var probes = map[reflect.Type]func(e *env, c any) error{
	reflect.TypeFor[priceSetter](): func(e *env, c any) error {
		return c.(priceSetter).SetPrice(e.ctx, booking.Actor{Name: "probe", Role: booking.RoleClerk}, booking.TicketType{Code: "adult"})
	},
	reflect.TypeFor[holdExpirer](): func(e *env, c any) error { _, err := c.(holdExpirer).ExpireHolds(e.ctx); return err },
	reflect.TypeFor[showCanceller](): func(e *env, c any) error {
		_, err := c.(showCanceller).CancelShow(e.ctx, manager, 1<<40, "probe")
		return err
	},
	reflect.TypeFor[salesCloser](): func(e *env, c any) error { return c.(salesCloser).SetSalesClose(e.ctx, manager, 1<<40, nil) },
	reflect.TypeFor[roster]():      func(e *env, c any) error { return rosterProbe(e, c.(roster)) },
	reflect.TypeFor[staffAdmin](): func(e *env, c any) error {
		a := c.(staffAdmin)
		if err := rosterProbe(e, a); err != nil {
			return err
		}
		_, err := a.PINUnchanged(e.ctx, "nobody")
		return e.firstErr(err, a.UnlockStaff(e.ctx, booking.System, "nobody"), a.SetPIN(e.ctx, booking.System, "nobody", "8642"),
			a.SetRole(e.ctx, booking.System, "nobody", booking.RoleClerk))
	},
	reflect.TypeFor[setupReader](): func(e *env, c any) error {
		_, err := c.(setupReader).Empty(e.ctx)
		_, err2 := c.(setupReader).IsDemo(e.ctx)
		return e.firstErr(err, err2)
	},
	reflect.TypeFor[canceller](): func(e *env, c any) error { return cancellerProbe(e, c.(canceller)) },
	reflect.TypeFor[refunder](): func(e *env, c any) error {
		_, err := c.(refunder).RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: "BO-ZZZZZZZZ", Seats: []string{"A1"}})
		return e.firstErr(cancellerProbe(e, c.(canceller)), err)
	},
	reflect.TypeFor[booking.Shifts](): func(e *env, c any) error {
		sh := c.(booking.Shifts)
		_, err := sh.CurrentShift(e.ctx, clerk)
		_, err2 := sh.ListShifts(e.ctx, supervisor, booking.ShiftQuery{})
		_, err3 := sh.ShiftReport(e.ctx, supervisor, 1<<40)
		return e.firstErr(err, err2, err3)
	},
	reflect.TypeFor[auditor](): func(e *env, c any) error {
		_, err := c.(auditor).Audit(e.ctx, manager, booking.AuditQuery{Limit: 1})
		return err
	},
	reflect.TypeFor[admitter](): func(e *env, c any) error { _, err := c.(admitter).Admit(e.ctx, door, "probe"); return err },
}

func rosterProbe(e *env, r roster) error {
	_, err := r.SignIn(e.ctx, booking.SignInRequest{Name: "nobody", PIN: "0000"})
	return e.firstErr(err, r.DisableStaff(e.ctx, booking.System, "nobody"), r.EnableStaff(e.ctx, booking.System, "nobody"))
}

func cancellerProbe(e *env, c canceller) error {
	_, err := c.Booking(e.ctx, clerk, "BO-ZZZZZZZZ")
	_, err2 := c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: "BO-ZZZZZZZZ"})
	return e.firstErr(err, err2)
}

// firstErr is the first of errs that is the backend's refusal of a
// method not built, else the first error, else nil: a probe of several
// methods reports a stub among them.
func (e *env) firstErr(errs ...error) error {
	for _, err := range errs {
		if e.isNotYet(err) {
			return err
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *env) hold(t *testing.T, owner string, seats ...string) *booking.Hold {
	t.Helper()
	h, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: seats, Owner: owner})
	if err != nil {
		t.Fatalf("hold %v: %v", seats, err)
	}
	return h
}

func (e *env) sell(t *testing.T, owner string, seats ...string) *booking.Booking {
	t.Helper()
	h := e.hold(t, owner, seats...)
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: "k-" + owner + fmt.Sprint(h.ID), Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// seatMap is the first show's map as owner sees it.
func (e *env) seatMap(t *testing.T, owner string) *booking.SeatMap {
	t.Helper()
	m, err := e.s.SeatMap(e.ctx, clerk, e.show.ID, owner)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// state is seat label's state on the first show's map as owner sees it.
func (e *env) state(t *testing.T, owner, label string) booking.SeatState {
	t.Helper()
	m := e.seatMap(t, owner)
	seat, ok := m.Hall.SeatByLabel(label)
	if !ok {
		t.Fatalf("no seat %s", label)
	}
	return m.State(seat.ID)
}

// counts checks the first show's sold and held seats, read back from
// the store, and that its invariants hold where the backend checks them.
func (e *env) counts(t *testing.T, sold, held int) {
	t.Helper()
	sh, err := e.s.Show(e.ctx, clerk, e.show.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sh.Sold != sold || sh.Held != held {
		t.Fatalf("sold %d held %d, want %d and %d", sh.Sold, sh.Held, sold, held)
	}
	e.whole(t)
}

// invariantChecker is booking.Upkeep's CheckInvariants.
type invariantChecker interface {
	CheckInvariants(ctx context.Context) ([]string, error)
}

// whole fails the case for every broken invariant the backend names, when
// it can check them.
func (e *env) whole(t *testing.T) {
	t.Helper()
	c, ok := e.s.(invariantChecker)
	if !ok {
		return
	}
	problems, err := c.CheckInvariants(e.ctx)
	if e.isNotYet(err) {
		return // not built on this backend yet: nothing to check with
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("broken invariant: %s", p)
	}
}

// noSale checks that key made no booking.
func (e *env) noSale(t *testing.T, key string) {
	t.Helper()
	if b, err := e.s.BookingByKey(e.ctx, clerk, key); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("key %q made %v (%v)", key, b, err)
	}
}

// wantCode fails unless err has code.
func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if booking.ErrorCode(err) != code {
		t.Fatalf("%s: %v (%s), want %s", what, err, booking.ErrorCode(err), code)
	}
}

// wantMessage fails unless err reads msg to a clerk, byte for byte.
func wantMessage(t *testing.T, what string, err error, msg string) {
	t.Helper()
	if got := booking.ErrorMessage(err); got != msg {
		t.Fatalf("%s: message %q, want %q (%v)", what, got, msg, err)
	}
}

// seatsTaken is err as the clash error, or fails.
func seatsTaken(t *testing.T, what string, err error) *booking.SeatsTakenError {
	t.Helper()
	var taken *booking.SeatsTakenError
	if !errors.As(err, &taken) {
		t.Fatalf("%s: %v, want the seats-taken error", what, err)
	}
	return taken
}
