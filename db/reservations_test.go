package db_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

func TestStore_Reserve(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		s, _, clock := newKioskStore(t)
		h, err := s.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: 1, Owner: "k1", N: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Seats) != 2 || !h.ExpiresAt.Equal(clock.Now().Add(booking.KioskHoldTTL)) {
			t.Fatalf("kiosk hold %+v: want 2 seats for %s", h, booking.KioskHoldTTL)
		}
		r, err := s.Reserve(ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "k1", Name: " Ann Lee ", Phone: "+44 (020) 7946-0018",
			Types: map[string]string{h.Seats[0].Label: "child"}})
		if err != nil {
			t.Fatal(err)
		}
		show := firstShow(t, s)
		if r.Status != booking.ReservationReserved || r.Source != booking.SourceKiosk || r.Name != "Ann Lee" || len(r.Seats) != 2 ||
			!r.CutOff.Equal(show.Starts.Add(-booking.DefaultReserveCutoff)) || !strings.HasPrefix(r.Number, "BO-") || r.Types[h.Seats[0].Label] != "child" {
			t.Fatalf("reservation %+v", r)
		}
		// The seats stay held past the kiosk's five minutes, for the
		// reservation and nobody else.
		clock.Add(time.Hour)
		if _, err := s.ExpireHolds(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{h.Seats[0].Label}, Owner: "c"}); booking.ErrorCode(err) != booking.EConflict {
			t.Fatalf("a counter holds a reserved seat: %v", err)
		}
		got, err := s.Reservation(ctx, clerk, strings.ToLower(r.Number))
		if err != nil || got.Status != booking.ReservationReserved {
			t.Fatalf("reservation after an hour: %+v, %v", got, err)
		}
		// The session's hold is the reservation's now: the kiosk cannot
		// let it go by its session name.
		if n, err := s.KioskRelease(ctx, kioskActor, "k1"); err != nil || n != 0 {
			t.Fatalf("kiosk release after reserving: %d, %v", n, err)
		}
	})
	t.Run("ErrCutoffPassed", func(t *testing.T) {
		s, _, clock := newKioskStore(t)
		clock.Add(90*time.Minute + time.Second) // show 1 starts at +2h
		h, err := s.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: 1, Owner: "k1", N: 2})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Reserve(ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "k1", Name: "Ann", Phone: "0123456789"})
		if booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(err.Error(), "closed") {
			t.Fatalf("reserve after the cut-off: %v", err)
		}
	})
	t.Run("CutoffConfigured", func(t *testing.T) {
		clock := storetest.FixedClock()
		s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1, ReserveCutoff: time.Hour})
		r := mustReserve(t, s, 1, "k1", 1, "0123456789")
		if want := firstShow(t, s).Starts.Add(-time.Hour); !r.CutOff.Equal(want) {
			t.Fatalf("cut-off %s, want %s", r.CutOff, want)
		}
	})
	t.Run("Counter", func(t *testing.T) {
		s, _, _ := newKioskStore(t)
		h := mustHold(t, s, 1, "till-1", "E5", "E6")
		r, err := s.Reserve(ctx, clerk, booking.ReserveRequest{HoldID: h.ID, Owner: "till-1", Name: "Bo Phone", Phone: "07700 900123"})
		if err != nil || r.Source != booking.SourceCounter || r.CreatedBy != "carl" {
			t.Fatalf("counter reservation %+v, %v", r, err)
		}
	})
}

// TestStore_ReserveLimits is must-show 4's store half: a second hold in
// one session, the eleventh seat and the fourth unpaid reservation for a
// phone are refused, and a kiosk address's hourly limit holds.
func TestStore_ReserveLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, clock := newKioskStore(t)
	if _, err := s.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: 1, Owner: "k1", N: 11}); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("eleven seats: %v", err)
	}
	labels := []string{"A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "A10", "A11"}
	if _, err := s.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: 1, Owner: "k1", Seats: labels}); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("eleven seats by label: %v", err)
	}
	// A counter hold of eleven is a sale's, not a reservation's.
	big := mustHold(t, s, 2, "till-1", labels...)
	if _, err := s.Reserve(ctx, clerk, booking.ReserveRequest{HoldID: big.ID, Owner: "till-1", Name: "Ann", Phone: "0123456789"}); booking.ErrorCode(err) != booking.EInvalid {
		t.Fatalf("reserving eleven seats: %v", err)
	}
	first, err := s.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: 1, Owner: "k1", N: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: 3, Owner: "k1", N: 1}); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("a second hold in one session: %v", err)
	}
	// Moving the block is the one hold, moved.
	moved, err := s.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: 1, Owner: "k1", Seats: []string{"H1", "H2"}, MoveFrom: first.ID})
	if err != nil || len(moved.Seats) != 2 {
		t.Fatalf("move: %+v, %v", moved, err)
	}
	if n, err := s.KioskRelease(ctx, kioskActor, "k1"); err != nil || n != 1 {
		t.Fatalf("release after the move: %d holds, %v", n, err)
	}
	for i := range 3 {
		mustReserve(t, s, 1, fmt.Sprint("p", i), 1, "0123 456 789")
	}
	h, err := s.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: 1, Owner: "p4", N: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Reserve(ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "p4", Name: "Ann", Phone: "0123456789"})
	if booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(err.Error(), "3 unpaid") {
		t.Fatalf("fourth unpaid reservation for one phone: %v", err)
	}
	// Another phone may; the address limit counts a kiosk's hour.
	for i := range booking.KioskReservationsPerHour {
		h, err := s.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: 2, Owner: fmt.Sprint("a", i), N: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Reserve(ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: fmt.Sprint("a", i), Name: "Bot", Phone: fmt.Sprint("07700 9", 10000+i), Addr: "192.0.2.7"})
		if i < booking.KioskReservationsPerHour && err != nil {
			t.Fatalf("reservation %d from one address: %v", i, err)
		}
	}
	h, _ = s.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: 2, Owner: "a-last", N: 1})
	_, err = s.Reserve(ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "a-last", Name: "Bot", Phone: "07700 955555", Addr: "192.0.2.7"})
	if booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(err.Error(), "last hour") {
		t.Fatalf("one reservation too many from one address: %v", err)
	}
	clock.Add(time.Hour + time.Second)
	if _, err := s.Reserve(ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "a-last", Name: "Bot", Phone: "07700 955555", Addr: "192.0.2.7"}); booking.ErrorCode(err) != booking.EExpired {
		t.Fatalf("the kiosk's five-minute hold after an hour: %v", err)
	}
	dbtest.MustBeWhole(t, s)
}

// TestStore_ReserveHostile is must-show 5's store half: every field a
// customer types, at its worst, gets a clear refusal and writes nothing.
func TestStore_ReserveHostile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, path, _ := newKioskStore(t)
	h, err := s.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: 1, Owner: "k1", N: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, phone, want string }{
		{strings.Repeat("A", 10000), "0123456789", "at most 60"},
		{"Ann\x1b[2J\x1b]0;pwned\x07", "0123456789", "cannot be printed"},
		{"\x1b[31m\x1b[0m", "0123456789", "cannot be printed"},
		{"Ann\u202eeL", "0123456789", "cannot be printed"},
		{"   ", "0123456789", "Type your name"},
		{"1234", "0123456789", "in letters"},
		{"Ann", "", "phone number"},
		{"Ann", "0123\x00456789", "in digits"},
		{"Ann", strings.Repeat("9", 5000), "6 to 15 digits"},
		{"Ann", "12345", "6 to 15 digits"},
		{"Ann", "'; DROP TABLE reservations; --", "in digits"},
	} {
		_, err := s.Reserve(ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "k1", Name: c.name, Phone: c.phone})
		if booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("name %q phone %q: %v, want EInvalid saying %q", c.name, c.phone, err, c.want)
		}
	}
	if _, err := s.Reserve(ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "k1", Name: "Ann", Phone: "0123456789", Types: map[string]string{"A1": "free\x1b"}}); booking.ErrorCode(err) != booking.EInvalid {
		t.Errorf("a made-up ticket type: %v", err)
	}
	var n int
	if err := openRaw(t, path).QueryRow(`SELECT count(*) FROM reservations`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d reservations written by hostile input (%v)", n, err)
	}
}

// TestStore_KioskRole: the kiosk role may view the programme, hold as a
// kiosk, reserve and collect; every other action of the permission table
// is refused by the store, whatever the screen sends.
func TestStore_KioskRole(t *testing.T) {
	t.Parallel()
	allowed := map[booking.Action]bool{booking.ActionViewShows: true, booking.ActionKiosk: true, booking.ActionReserve: true, booking.ActionCollect: true}
	for _, a := range booking.Actions() {
		if err := booking.Authorize(kioskActor, a); (err == nil) != allowed[a] {
			t.Errorf("kiosk %s: %v", a, err)
		}
	}
	ctx := context.Background()
	s, _, _ := newKioskStore(t)
	r := mustReserve(t, s, 1, "k1", 2, "0123456789")
	sold := mustSell(t, s, 1, "till", "J10")
	for name, err := range kioskRefusals(ctx, s, kioskActor, r, sold) {
		if booking.ErrorCode(err) != booking.EForbidden {
			t.Errorf("kiosk %s: %v, want EForbidden", name, err)
		}
	}
}

// kioskRefusals attempts every staff action of the store as actor and
// returns each one's error by name.
func kioskRefusals(ctx context.Context, s *db.Store, actor booking.Actor, r *booking.Reservation, sold *booking.Booking) map[string]error {
	out := map[string]error{}
	_, out["Hold"] = s.Hold(ctx, actor, booking.HoldRequest{ShowID: 1, Seats: []string{"C1"}, Owner: "x"})
	_, out["HoldBest"] = s.HoldBest(ctx, actor, booking.HoldBestRequest{ShowID: 1, N: 1, Owner: "x"})
	out["Release"] = s.Release(ctx, actor, r.HoldID, "reservation:"+r.Number)
	_, out["Checkout"] = s.Checkout(ctx, actor, booking.CheckoutRequest{HoldID: r.HoldID, Owner: "reservation:" + r.Number, IdempotencyKey: "x", Method: booking.Card})
	_, out["PayReservation"] = s.PayReservation(ctx, actor, booking.PayReservationRequest{Number: r.Number, Method: booking.Card, IdempotencyKey: "x"})
	_, out["Reservation"] = s.Reservation(ctx, actor, r.Number)
	_, out["FindReservations"] = s.FindReservations(ctx, actor, "0123456789")
	_, out["Booking"] = s.Booking(ctx, actor, sold.Number)
	_, out["FindBookings"] = s.FindBookings(ctx, actor, booking.BookingQuery{Text: "ann"})
	_, out["Cancel"] = s.Cancel(ctx, actor, booking.CancelRequest{Number: sold.Number})
	_, out["RefundTickets"] = s.RefundTickets(ctx, actor, booking.RefundRequest{Number: sold.Number, Seats: []string{"J10"}})
	_, out["Admit"] = s.Admit(ctx, actor, sold.Tickets[0].Code)
	_, out["AddWaitlist"] = s.AddWaitlist(ctx, actor, 1, "Ann", "0123", 1)
	_, out["AddStaff"] = s.AddStaff(ctx, actor, "eve", booking.RoleManager, "1234", nil)
	_, out["ListStaff"] = s.ListStaff(ctx, actor)
	out["SetPrice"] = s.SetPrice(ctx, actor, booking.TicketType{Code: "adult", Name: "Adult", Price: 1})
	_, out["OpenShift"] = s.OpenShift(ctx, actor, booking.OpenShiftRequest{Float: 100})
	_, out["Audit"] = s.Audit(ctx, actor, booking.AuditQuery{})
	_, out["ReportTakings"] = s.ReportTakings(ctx, actor, booking.TakingsQuery{})
	_, out["ReportReservations"] = s.ReportReservations(ctx, actor, booking.ReportRange{From: time.Now(), To: time.Now()})
	_, out["Quote"] = s.Quote(ctx, actor, booking.QuoteRequest{ShowID: 1, SeatIDs: []int64{1}})
	return out
}

// TestStore_PayReservation: paying turns the reservation into a sale in
// one step, under its own number; a retry lands on the same booking.
func TestStore_PayReservation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newKioskStore(t)
	h, err := s.KioskHold(ctx, kioskActor, booking.KioskHoldRequest{ShowID: 1, Owner: "k1", N: 2})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Reserve(ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "k1", Name: "Ann Lee", Phone: "020 7946 0018", Types: map[string]string{h.Seats[1].Label: "child"}})
	if err != nil {
		t.Fatal(err)
	}
	found, err := s.FindReservations(ctx, clerk, "020-7946-0018")
	if err != nil || len(found) != 1 || found[0].Number != r.Number {
		t.Fatalf("find by phone: %+v, %v", found, err)
	}
	b, err := s.PayReservation(ctx, clerk, booking.PayReservationRequest{Number: r.Number, Method: booking.Cash, Tendered: 5000, IdempotencyKey: "pay-1"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Number != r.Number || b.Status != booking.BookingConfirmed || len(b.Tickets) != 2 || b.Total != 1250+850 || b.Customer != "Ann Lee" || b.Tickets[0].Code == "" {
		t.Fatalf("paid booking %+v", b)
	}
	again, err := s.PayReservation(ctx, clerk, booking.PayReservationRequest{Number: r.Number, Method: booking.Cash, Tendered: 5000, IdempotencyKey: "pay-1"})
	if err != nil || again.ID != b.ID {
		t.Fatalf("retried payment: %+v, %v", again, err)
	}
	var stale *booking.StaleError
	if _, err := s.PayReservation(ctx, clerk, booking.PayReservationRequest{Number: r.Number, Method: booking.Card, IdempotencyKey: "pay-2"}); !errors.As(err, &stale) {
		t.Fatalf("a second payment: %v, want a stale error", err)
	}
	got, err := s.Reservation(ctx, clerk, r.Number)
	if err != nil || got.Status != booking.ReservationPaid || got.BookingID != b.ID {
		t.Fatalf("paid reservation %+v, %v", got, err)
	}
	if viaBooking, err := s.Booking(ctx, clerk, r.Number); err != nil || viaBooking.ID != b.ID {
		t.Fatalf("the booking by the reservation's number: %v", err)
	}
	rep, err := s.ReportReservations(ctx, storetest.Manager, booking.ReportRange{From: time.Now(), To: time.Now().AddDate(0, 0, 1)})
	if err != nil || rep.Total.Taken != 1 || rep.Total.Paid != 1 || rep.Rows[0].Taken != 1 || rep.Rows[1].Taken != 0 {
		t.Fatalf("report %+v, %v", rep, err)
	}
	dbtest.MustBeWhole(t, s)
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

// TestStore_ReservationLapseBeforeSweep: a reservation past its cut-off
// cannot be paid even before any sweep marks it.
func TestStore_ReservationLapseBeforeSweep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, clock := newKioskStore(t)
	r := mustReserve(t, s, 1, "k1", 2, "0123456789")
	clock.Set(r.CutOff.Add(time.Millisecond))
	if _, err := s.PayReservation(ctx, clerk, booking.PayReservationRequest{Number: r.Number, Method: booking.Card, IdempotencyKey: "late"}); booking.ErrorCode(err) != booking.EExpired {
		t.Fatalf("payment past the cut-off: %v", err)
	}
	got, err := s.Reservation(ctx, clerk, r.Number)
	if err != nil || got.Status != booking.ReservationLapsed {
		t.Fatalf("unswept reservation past its cut-off: %+v, %v", got, err)
	}
}

// A reservation is paid through PayReservation only: a checkout naming
// its hold's owner is refused before it writes, and the reservation is
// still there to pay.
func TestStore_CheckoutRefusesAReservation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _, _ := newKioskStore(t)
	r := mustReserve(t, s, 1, "k1", 2, "0123456789")
	_, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: r.HoldID, Owner: "reservation:" + r.Number, IdempotencyKey: "bypass", Method: booking.Card})
	if booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(booking.ErrorMessage(err), "That is a reservation") {
		t.Fatalf("checkout of a reservation's hold: %v", err)
	}
	if _, err := s.PayReservation(ctx, clerk, booking.PayReservationRequest{Number: r.Number, Method: booking.Card, IdempotencyKey: "pay"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Reservation(ctx, clerk, r.Number)
	if err != nil || got.Status != booking.ReservationPaid {
		t.Fatalf("after paying: %+v %v", got, err)
	}
}
