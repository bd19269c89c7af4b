package db_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// kioskActor is a kiosk session's actor: no staff, the kiosk role.
var kioskActor = booking.Actor{Name: "kiosk", Role: booking.RoleKiosk, Terminal: "kiosk-1"}

// newKioskStore is a seeded store on a fixed clock with no sweeper.
func newKioskStore(t testing.TB) (*db.Store, string, *storetest.Clock) {
	t.Helper()
	clock := storetest.FixedClock()
	s, path := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	return s, path, clock
}

// mustReserve holds n best seats of show for a kiosk session owner and
// reserves them for phone.
func mustReserve(t testing.TB, s *db.Store, show int64, owner string, n int, phone string) *booking.Reservation {
	t.Helper()
	ctx := context.Background()
	h, err := s.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: show, Owner: owner, N: n})
	if err != nil {
		t.Fatalf("kiosk hold: %v", err)
	}
	r, err := s.Reserve(ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: owner, Name: "Ann Lee", Phone: phone})
	if err != nil {
		t.Fatalf("reserve: %v", err)
	}
	return r
}

// TestStore_ReserveCutoffConfigured: the store's ReserveCutoff option
// reaches the rule (the contract runs on the default).
func TestStore_ReserveCutoffConfigured(t *testing.T) {
	t.Parallel()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1, ReserveCutoff: time.Hour})
	r := mustReserve(t, s, 1, "k1", 1, "0123456789")
	if want := firstShow(t, s).Starts.Add(-time.Hour); !r.CutOff.Equal(want) {
		t.Fatalf("cut-off %s, want %s", r.CutOff, want)
	}
}

// TestStore_ReservationLapsesOnce is must-show 3: at its cut-off a
// reservation lapses exactly once though two stores sweep the same file;
// no counter can take payment for it; its seats are free at every
// counter.
func TestStore_ReservationLapsesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := storetest.FixedClock()
	a, path := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	b := dbtest.Open(t, path, db.Options{Clock: clock.Now, SweepInterval: -1})
	r := mustReserve(t, a, 1, "k1", 2, "0123456789")
	for range 2 {
		mustReserve(t, a, 2, fmt.Sprint("other", clock.Now().UnixNano()), 1, "0999999999") // a later show's: not due
		clock.Add(time.Millisecond)
	}
	clock.Set(r.CutOff)
	var wg sync.WaitGroup
	expired := make([]int, 8)
	errs := make([]error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := a
			if i%2 == 1 {
				s = b
			}
			expired[i], errs[i] = s.ExpireHolds(ctx)
		}()
	}
	wg.Wait()
	total := 0
	for i := range 8 {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		total += expired[i]
	}
	if total != 1 {
		t.Fatalf("%d holds expired by 8 sweeps of two stores, want exactly 1", total)
	}
	raw := openRaw(t, path)
	var lapsed, stillReserved int
	if err := raw.QueryRow(`SELECT count(*) FILTER (WHERE status = 'lapsed' AND lapsed_at IS NOT NULL), count(*) FILTER (WHERE status = 'reserved') FROM reservations`).Scan(&lapsed, &stillReserved); err != nil {
		t.Fatal(err)
	}
	if lapsed != 1 || stillReserved != 2 {
		t.Fatalf("%d lapsed, %d reserved: want the due one lapsed, the later show's two reserved", lapsed, stillReserved)
	}
	for _, s := range []*db.Store{a, b} {
		if _, err := s.PayReservation(ctx, clerk, booking.PayReservationRequest{Number: r.Number, Method: booking.Card, IdempotencyKey: "late"}); booking.ErrorCode(err) != booking.EExpired {
			t.Fatalf("payment for a lapsed reservation: %v", err)
		}
	}
	labels := []string{r.Seats[0].Label, r.Seats[1].Label}
	h := mustHold(t, b, 1, "till-b", labels...)
	if err := b.Release(ctx, clerk, h.ID, "till-b"); err != nil {
		t.Fatal(err)
	}
	mustSell(t, a, 1, "till-a", labels...)
	rep, err := a.ReportReservations(ctx, storetest.Manager, booking.ReportRange{From: clock.Now(), To: clock.Now()})
	if err != nil || rep.Total.Taken != 3 || rep.Total.Lapsed != 1 || rep.Total.Reserved != 2 || rep.Rows[0].Lapsed != 1 {
		t.Fatalf("report %+v, %v", rep, err)
	}
	dbtest.MustBeWhole(t, a)
}
