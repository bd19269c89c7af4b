package contract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
)

// expiryCases: a hold lapses on the store's clock, never blocks anyone
// after, and lives at most MaxHoldLifetime however it is extended.
var expiryCases = []testCase{
	{"LapsedHoldNeverBlocks", expiryNeverBlocks},
	{"Extend", expiryExtend},
	{"ExtendLimit", expiryExtendLimit},
	{"ExpireHoldsPublishes", expirySweepPublishes},
}

func expiryNeverBlocks(t *testing.T, e *env) {
	h, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"H4"}, Owner: "a", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"H4"}, Owner: "b"})
	wantCode(t, "a live hold's seat held again", err, booking.EConflict)
	e.clock.Add(61 * time.Second)
	if st := e.state(t, "b", "H4"); st != booking.SeatFree {
		t.Fatalf("a lapsed hold's seat reads %v", st)
	}
	e.counts(t, 0, 0)
	_, err = e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Card})
	wantCode(t, "checkout of a lapsed hold", err, booking.EExpired)
	wantMessage(t, "checkout of a lapsed hold", err, "The hold on H4 ran out 1s ago; hold the seats again.")
	// Not swept, and still another counter gets the seat at once.
	b := e.sell(t, "b", "H4")
	if b.Tickets[0].Seat.Label != "H4" {
		t.Fatal("H4 not sold")
	}
	e.noSale(t, "k")
	e.counts(t, 1, 0)
}

func expiryExtend(t *testing.T, e *env) {
	h, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"B3"}, Owner: "a", TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Add(50 * time.Second)
	h2, err := e.s.Extend(e.ctx, clerk, h.ID, "a", 5*time.Minute)
	if err != nil || !h2.ExpiresAt.Equal(e.clock.Now().Add(5*time.Minute)) {
		t.Fatalf("extend: %+v %v", h2, err)
	}
	_, err = e.s.Extend(e.ctx, clerk, h.ID, "someone-else", time.Minute)
	wantCode(t, "extending another owner's hold", err, booking.ENotFound)
	e.clock.Add(6 * time.Minute)
	_, err = e.s.Extend(e.ctx, clerk, h.ID, "a", time.Minute)
	wantCode(t, "extending a lapsed hold", err, booking.EExpired)
}

// expiryExtendLimit: a hold lives at most MaxHoldLifetime from when it
// was made, however it is extended or grown.
func expiryExtendLimit(t *testing.T, e *env) {
	made := e.clock.Now()
	h := e.hold(t, "a", "E1")
	limit := made.Add(booking.MaxHoldLifetime)
	extend := func(at string, want time.Time) {
		t.Helper()
		e.clock.Add(4 * time.Minute)
		got, err := e.s.Extend(e.ctx, clerk, h.ID, "a", booking.DefaultHoldTTL)
		if err != nil || !got.ExpiresAt.Equal(want) {
			t.Fatalf("extend at %s: %+v, %v; want until %v", at, got, err, want)
		}
	}
	extend("4 min", made.Add(9*time.Minute))
	extend("8 min", made.Add(13*time.Minute))
	extend("12 min", limit) // +5 would pass the limit
	e.clock.Add(time.Minute)
	_, err := e.s.Extend(e.ctx, clerk, h.ID, "a", booking.DefaultHoldTTL)
	wantCode(t, "extend at the limit", err, booking.EInvalid)
	wantMessage(t, "extend at the limit", err, "This hold has reached its 15-minute limit: sell the seats or let them go.")
	// Growing the hold does not renew it past the limit either.
	grown, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"E2"}, Owner: "a", AddTo: h.ID})
	if err != nil || !grown.ExpiresAt.Equal(limit) || len(grown.Seats) != 2 {
		t.Fatalf("grown hold: %+v, %v; want 2 seats until %v", grown, err, limit)
	}
	// Asking for a long TTL at the start is capped too.
	long, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"F1"}, Owner: "b", TTL: time.Hour})
	if err != nil || !long.ExpiresAt.Equal(e.clock.Now().Add(booking.MaxHoldLifetime)) {
		t.Fatalf("hour-long hold: %+v, %v", long, err)
	}
	e.clock.Add(2*time.Minute + time.Second)
	_, err = e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "late", Method: booking.Card})
	wantCode(t, "checkout after the limit", err, booking.EExpired)
	_, err = e.s.Extend(e.ctx, clerk, h.ID, "a", booking.DefaultHoldTTL)
	wantCode(t, "extend after the limit", err, booking.EExpired)
}

// holdExpirer is booking.Upkeep's ExpireHolds.
type holdExpirer interface {
	ExpireHolds(ctx context.Context) (int, error)
}

func expirySweepPublishes(t *testing.T, e *env) {
	x := need[holdExpirer](t, e, "ExpireHolds (booking.Upkeep)")
	if _, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"H4"}, Owner: "a", TTL: time.Minute}); err != nil {
		t.Fatal(err)
	}
	sub := e.s.Changes().Subscribe(t.Context())
	e.clock.Add(2 * time.Minute)
	n, err := x.ExpireHolds(e.ctx)
	if err != nil || n != 1 {
		t.Fatalf("expired %d, %v", n, err)
	}
	heard(t, sub, e.show.ID, "the sweep")
}

// releaseCases: letting go of seats, by hold, owner and owner prefix,
// and a release racing the checkout of the same hold.
var releaseCases = []testCase{
	{"FreesTheSeats", releaseFrees},
	{"OwnerAndPrefix", releaseOwnerAndPrefix},
	{"RacingCheckout", releaseRacingCheckout},
}

func releaseFrees(t *testing.T, e *env) {
	h, err := e.s.HoldBest(e.ctx, clerk, booking.HoldBestRequest{ShowID: e.show.ID, N: 3, Owner: "a"})
	if err != nil || len(h.Seats) != 3 || !h.Together {
		t.Fatalf("hold best: %+v, %v", h, err)
	}
	if err := e.s.Release(e.ctx, clerk, h.ID, "a", h.Seats[0].Label); err != nil {
		t.Fatal(err)
	}
	e.counts(t, 0, 2)
	err = e.s.Release(e.ctx, clerk, h.ID, "a", "Z99")
	wantCode(t, "release of an unknown seat", err, booking.EInvalid)
	if err := e.s.Release(e.ctx, clerk, h.ID, "a"); err != nil {
		t.Fatal(err)
	}
	if err := e.s.Release(e.ctx, clerk, h.ID, "a"); err != nil {
		t.Fatalf("releasing an ended hold: %v", err)
	}
	err = e.s.Release(e.ctx, clerk, h.ID, "someone else")
	wantCode(t, "another owner's release", err, booking.ENotFound)
	e.hold(t, "b", h.Seats[1].Label)
	_, err = e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "rel", Method: booking.Card})
	wantCode(t, "checkout of a released hold", err, booking.EExpired)
	shows, err := e.s.Shows(e.ctx, clerk, e.show.Starts)
	if err != nil || len(shows) == 0 || shows[0].ID != e.show.ID || shows[0].Held != 1 || shows[0].Free() != shows[0].Capacity-1 {
		t.Fatalf("shows: %+v, %v", shows, err)
	}
}

func releaseOwnerAndPrefix(t *testing.T, e *env) {
	e.hold(t, "srv1:a", "C1")
	e.hold(t, "srv1:b", "C2")
	e.hold(t, "srv2:c", "C3")
	if n, err := e.s.ReleaseOwner(e.ctx, "srv1:a"); err != nil || n != 1 {
		t.Fatalf("release owner: %d %v", n, err)
	}
	if n, err := e.s.ReleasePrefix(e.ctx, "srv1:"); err != nil || n != 1 {
		t.Fatalf("release prefix: %d %v", n, err)
	}
	for label, want := range map[string]booking.SeatState{"C1": booking.SeatFree, "C2": booking.SeatFree, "C3": booking.SeatHeldByOther} {
		if st := e.state(t, "", label); st != want {
			t.Errorf("%s is %v, want %v", label, st, want)
		}
	}
	_, err := e.s.ReleasePrefix(e.ctx, "")
	wantCode(t, "an empty prefix would release every hold", err, booking.EInvalid)
	e.counts(t, 0, 1)
}

// releaseRacingCheckout: ten rounds of one pair each; each round a
// partial release of the pair races its checkout. Both answer, and every
// ticket sold is a sold seat.
func releaseRacingCheckout(t *testing.T, e *env) {
	sold := 0
	for i := range 10 {
		seats := []string{fmt.Sprintf("A%d", i+1), fmt.Sprintf("B%d", i+1)}
		h := e.hold(t, "a", seats...)
		var wg sync.WaitGroup
		var b *booking.Booking
		var relErr, outErr error
		wg.Go(func() { relErr = e.s.Release(e.ctx, clerk, h.ID, "a", seats[1]) })
		wg.Go(func() {
			b, outErr = e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: fmt.Sprintf("r%d", i), Method: booking.Card})
		})
		wg.Wait()
		if relErr != nil || outErr != nil {
			t.Fatalf("round %d: release %v, checkout %v", i, relErr, outErr)
		}
		if n := len(b.Tickets); n != 1 && n != 2 {
			t.Fatalf("round %d: %d tickets", i, n)
		}
		m := e.seatMap(t, "")
		for _, tk := range b.Tickets {
			if m.State(tk.Seat.ID) != booking.SeatSold {
				t.Fatalf("round %d: ticket for %s, seat reads %v", i, tk.Seat.Label, m.State(tk.Seat.ID))
			}
		}
		sold += len(b.Tickets)
	}
	e.counts(t, sold, 0)
}

// heard waits for a change of show on sub.
func heard(t *testing.T, sub <-chan booking.ShowChanged, show int64, what string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case c := <-sub:
			if c.ShowID == show {
				return
			}
		case <-deadline:
			t.Fatalf("%s was not published for show %d", what, show)
		}
	}
}

// changeCases: every committed write publishes its show.
var changeCases = []testCase{
	{"HoldSellRelease", changesHoldSellRelease},
}

func changesHoldSellRelease(t *testing.T, e *env) {
	sub := e.s.Changes().Subscribe(t.Context())
	h := e.hold(t, "a", "A1", "A2")
	heard(t, sub, e.show.ID, "a hold")
	if _, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "c", Method: booking.Card}); err != nil {
		t.Fatal(err)
	}
	heard(t, sub, e.show.ID, "a sale")
	h2 := e.hold(t, "a", "A5")
	heard(t, sub, e.show.ID, "a second hold")
	if err := e.s.Release(e.ctx, clerk, h2.ID, "a"); err != nil {
		t.Fatal(err)
	}
	heard(t, sub, e.show.ID, "a release")
}

// showCanceller and salesCloser are booking.Programme's CancelShow and
// SetSalesClose.
type showCanceller interface {
	CancelShow(ctx context.Context, actor booking.Actor, showID int64, reason string) (*booking.ShowCancellation, error)
}

type salesCloser interface {
	SetSalesClose(ctx context.Context, actor booking.Actor, showID int64, close *time.Duration) error
}

// showLifeCases: nothing is held or sold of a show whose sales closed or
// that was cancelled, decided on the transaction's clock.
var showLifeCases = []testCase{
	{"SalesClosed", showSalesClosed},
	{"Cancelled", showCancelled},
	{"SalesCloseMoved", showSalesCloseMoved},
	{"SalesCloseDefault", showSalesCloseDefault},
	{"Settle", showSettle},
	{"SettleRace", showSettleRace},
}

func showSalesClosed(t *testing.T, e *env) {
	e.clock.Set(e.show.Starts.Add(booking.DefaultSalesClose))
	want := booking.ErrorMessage(booking.SalesOpen(e.show, e.clock.Now()))
	_, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"E5"}, Owner: "a"})
	wantCode(t, "hold after sales closed", err, booking.EInvalid)
	wantMessage(t, "hold after sales closed", err, want)
	_, err = e.s.HoldBest(e.ctx, clerk, booking.HoldBestRequest{ShowID: e.show.ID, N: 2, Owner: "a"})
	wantCode(t, "best hold after sales closed", err, booking.EInvalid)
	wantMessage(t, "best hold after sales closed", err, want)
	e.clock.Add(-time.Second)
	e.hold(t, "a", "E5") // a second before, still on sale
	e.counts(t, 0, 1)
}

func showCancelled(t *testing.T, e *env) {
	c := need[showCanceller](t, e, "CancelShow (booking.Programme)")
	held := e.hold(t, "held", "D1")
	if _, err := c.CancelShow(e.ctx, manager, e.show.ID, "Projector\x1b[2J broken"); err != nil {
		t.Fatal(err)
	}
	const reason = "was cancelled: Projector[2J broken."
	_, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"E1"}, Owner: "late"})
	if booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(booking.ErrorMessage(err), reason) {
		t.Errorf("hold on a cancelled show: %v", err)
	}
	_, err = e.s.HoldBest(e.ctx, clerk, booking.HoldBestRequest{ShowID: e.show.ID, N: 2, Owner: "late"})
	wantCode(t, "best hold on a cancelled show", err, booking.EInvalid)
	_, err = e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: held.ID, Owner: "held", IdempotencyKey: "held", Method: booking.Card})
	if booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(booking.ErrorMessage(err), reason) {
		t.Errorf("checkout of a hold of the cancelled show: %v", err)
	}
	m := e.seatMap(t, "held")
	if m.Show.Sold != 0 || m.Show.Held != 0 || !m.Show.Cancelled() || m.Show.CancelReason != "Projector[2J broken" {
		t.Errorf("map after cancel: %+v", m.Show)
	}
}

// showSalesCloseMoved: a manager closes the second show's sales ten
// minutes before its start; a hold five minutes before is refused.
func showSalesCloseMoved(t *testing.T, e *env) {
	c := need[salesCloser](t, e, "SetSalesClose (booking.Programme)")
	sh, err := e.s.Show(e.ctx, clerk, 2)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Set(sh.Starts.Add(-5 * time.Minute))
	closes := -10 * time.Minute
	if err := c.SetSalesClose(e.ctx, manager, 2, &closes); err != nil {
		t.Fatal(err)
	}
	_, err = e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: 2, Seats: []string{"A1"}, Owner: "a"})
	wantCode(t, "hold after the sales close moved", err, booking.EInvalid)
}

// showSalesCloseDefault: the cinema's sales close applies to every show
// without one of its own; a show's own overrides it until it is set
// back to the default. A default needs a time; a show must exist.
func showSalesCloseDefault(t *testing.T, e *env) {
	c := need[salesCloser](t, e, "SetSalesClose (booking.Programme)")
	err := c.SetSalesClose(e.ctx, manager, 0, nil)
	wantCode(t, "a default without a time", err, booking.EInvalid)
	wantMessage(t, "a default without a time", err, "The cinema's sales close needs a time, like 30m.")
	late := 2 * time.Hour
	wantMessage(t, "a close out of bounds", c.SetSalesClose(e.ctx, manager, 0, &late), booking.ErrorMessage(booking.ValidateSalesClose(late)))
	closes := -3 * time.Hour // the first show's closed an hour ago
	wantMessage(t, "a close for no show", c.SetSalesClose(e.ctx, manager, 999, &closes), "There is no show 999.")
	wantCode(t, "a clerk's close", c.SetSalesClose(e.ctx, clerk, 0, &closes), booking.EForbidden)
	if err := c.SetSalesClose(e.ctx, manager, 0, &closes); err != nil {
		t.Fatal(err)
	}
	hold := func(show int64, seat string) error {
		_, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: show, Seats: []string{seat}, Owner: "a"})
		return err
	}
	wantCode(t, "a hold after the cinema's close", hold(e.show.ID, "A1"), booking.EInvalid)
	if err := hold(3, "A1"); err != nil {
		t.Fatalf("a hold of tomorrow's show: %v", err)
	}
	own := 10 * time.Minute
	if err := c.SetSalesClose(e.ctx, manager, e.show.ID, &own); err != nil {
		t.Fatal(err)
	}
	if err := hold(e.show.ID, "A2"); err != nil {
		t.Fatalf("a hold under the show's own close: %v", err)
	}
	if sh := mustShow(t, e, e.show.ID); sh.SalesClose != own {
		t.Fatalf("the show's close reads %v, want %v", sh.SalesClose, own)
	}
	if err := c.SetSalesClose(e.ctx, manager, e.show.ID, nil); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "a hold back under the cinema's close", hold(e.show.ID, "A3"), booking.EInvalid)
}

// settler is booking.Upkeep's SettleShows.
type settler interface {
	SettleShows(ctx context.Context) (int, error)
}

// showSettle: once a show ended SettleGrace ago, its confirmed bookings
// become completed (a ticket was admitted) or no_show (none was), and a
// cancelled one stays so; before that nothing moves, and a second sweep
// moves nothing.
func showSettle(t *testing.T, e *env) {
	s := need[settler](t, e, "SettleShows (booking.Upkeep)")
	came := e.sell(t, "came", "A1", "A2")
	stayed := e.sell(t, "stayed", "B1")
	var gone *booking.Booking
	if c, ok := e.s.(canceller); ok {
		gone = e.sell(t, "gone", "C1")
		if _, err := c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: gone.Number}); err != nil {
			t.Fatal(err)
		}
	}
	if d, ok := e.s.(admitter); ok {
		e.clock.Set(e.show.Starts.Add(-5 * time.Minute))
		if _, err := d.Admit(e.ctx, door, came.Tickets[0].Code); err != nil {
			t.Fatal(err)
		}
	}
	for _, at := range []time.Time{e.show.Starts.Add(time.Minute), e.show.Ends().Add(booking.SettleGrace - time.Second)} {
		e.clock.Set(at)
		if n, err := s.SettleShows(e.ctx); err != nil || n != 0 {
			t.Fatalf("%v after the start: settled %d, %v", at.Sub(e.show.Starts), n, err)
		}
	}
	e.clock.Set(e.show.Ends().Add(booking.SettleGrace))
	if n, err := s.SettleShows(e.ctx); err != nil || n != 2 {
		t.Fatalf("settled %d, %v; want 2", n, err)
	}
	if n, err := s.SettleShows(e.ctx); err != nil || n != 0 {
		t.Fatalf("a second sweep settled %d, %v", n, err)
	}
	c, ok := e.s.(canceller)
	if !ok {
		return
	}
	want := []struct {
		b      *booking.Booking
		status booking.BookingStatus
	}{{came, booking.BookingCompleted}, {stayed, booking.BookingNoShow}, {gone, booking.BookingCancelled}}
	if _, ok := e.s.(admitter); !ok {
		want[0].status = booking.BookingNoShow
	}
	for _, w := range want {
		got, err := c.Booking(e.ctx, clerk, w.b.Number)
		if err != nil || got.Status != w.status {
			t.Errorf("%s: %v, %v; want %s", w.b.Number, got.Status, err, w.status)
		}
	}
}

// showSettleRace: sweepers settling at the same moment (on one server or
// several) move each booking once between them, with one audit row.
func showSettleRace(t *testing.T, e *env) {
	s := need[settler](t, e, "SettleShows (booking.Upkeep)")
	for i := range 5 {
		e.sell(t, fmt.Sprint("b", i), fmt.Sprint("D", i+1))
	}
	e.clock.Set(e.show.Ends().Add(booking.SettleGrace))
	moved := make([]int, 6)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range moved {
		wg.Go(func() {
			<-start
			n, err := s.SettleShows(e.ctx)
			if err != nil {
				t.Error(err)
			}
			moved[i] = n
		})
	}
	close(start)
	wg.Wait()
	total := 0
	for _, n := range moved {
		total += n
	}
	if total != 5 {
		t.Fatalf("the sweepers moved %v bookings, want 5 in all", moved)
	}
	if a, ok := e.s.(auditor); ok {
		rows, err := a.Audit(e.ctx, manager, booking.AuditQuery{Day: e.clock.Now()})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range rows {
			if r.Action == booking.AuditSettle {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d settle audit rows, want 1", n)
		}
	}
}

// roster is what withdrawnCases need of booking.Roster.
type roster interface {
	SignIn(ctx context.Context, req booking.SignInRequest) (*booking.Staff, error)
	DisableStaff(ctx context.Context, actor booking.Actor, name string) error
	EnableStaff(ctx context.Context, actor booking.Actor, name string) error
}

// withdrawnCases: a person disabled can do nothing from their next
// write on; System skips the check.
var withdrawnCases = []testCase{
	{"Disabled", withdrawnDisabled},
	{"SystemSkipsChecks", withdrawnSystem},
}

func withdrawnDisabled(t *testing.T, e *env) {
	r := need[roster](t, e, "SignIn, DisableStaff and EnableStaff (booking.Roster)")
	st, err := r.SignIn(e.ctx, booking.SignInRequest{Name: "carl", PIN: "1234"})
	if err != nil {
		t.Fatal(err)
	}
	carl := booking.Actor{StaffID: st.ID, Name: st.Name, Role: st.Role, Terminal: "till-1"}
	h, err := e.s.Hold(e.ctx, carl, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"A1"}, Owner: "w"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.DisableStaff(e.ctx, booking.System, "carl"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Hold(e.ctx, carl, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"A2"}, Owner: "w"}); !booking.IsWithdrawn(err) {
		t.Fatalf("a disabled clerk's hold: %v", err)
	}
	_, err = e.s.Checkout(e.ctx, carl, booking.CheckoutRequest{HoldID: h.ID, Owner: "w", IdempotencyKey: "w", Method: booking.Card})
	if !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("a disabled clerk's checkout: %v", err)
	}
	e.noSale(t, "w")
	if err := r.EnableStaff(e.ctx, booking.System, "carl"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.Hold(e.ctx, carl, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"A2"}, Owner: "w"}); err != nil {
		t.Fatalf("enabled again: %v", err)
	}
}

func withdrawnSystem(t *testing.T, e *env) {
	if _, err := e.s.Hold(e.ctx, booking.System, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"D1"}, Owner: "sys"}); err != nil {
		t.Fatal(err)
	}
}
