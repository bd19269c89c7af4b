package contract

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
)

// kioskActor is a kiosk session's actor: no staff, the kiosk role.
var kioskActor = booking.Actor{Name: "kiosk", Role: booking.RoleKiosk, Terminal: "kiosk-1"}

// reservationCases: a reservation holds its seats until its cut-off for
// nobody else, is paid once under its own number, and lapses unpaid.
var reservationCases = []testCase{
	{"ReserveAndPay", reservationReserveAndPay},
	{"Lapses", reservationLapses},
	{"ErrLimits", reservationErrLimits},
	{"PayRace", reservationPayRace},
	{"CheckoutRefused", reservationCheckoutRefused},
	{"Collect", reservationCollect},
	{"CollectPaused", reservationCollectPaused},
	{"CollectParallelGuesses", reservationCollectParallel},
	{"CollectByAddress", reservationCollectByAddress},
	{"PhoneOneForm", reservationPhoneOneForm},
	{"PerAddressHour", reservationPerAddressHour},
	{"AtTheCounter", reservationAtTheCounter},
	{"ErrHostile", reservationErrHostile},
	{"FindByLastDigits", reservationFindByLastDigits},
}

// kioskCases: a kiosk session holds one block at a time, for the kiosk's
// short time, and two kiosks after one seat have one winner.
var kioskCases = []testCase{
	{"HoldMoveRelease", kioskHoldMoveRelease},
	{"ErrLimits", kioskErrLimits},
	{"RaceSeat", kioskRaceSeat},
	{"ShareOfShow", kioskShareOfShow},
	{"LetGoSlows", kioskLetGoSlows},
	{"ChordApart", kioskChordApart},
	{"RoleForbidden", kioskRoleForbidden},
}

func init() {
	groups = append(groups, group{"Reservations", reservationCases}, group{"Kiosk", kioskCases})
}

// reserver is what a reservation case needs: the kiosk's and the
// counter's sides.
type reserver interface {
	booking.Kiosk
	booking.Reservations
}

func (e *env) reserver(t *testing.T) reserver {
	t.Helper()
	return need[reserver](t, e, "reservations (booking.Kiosk, booking.Reservations)")
}

// reserve holds n best seats of the first show for kiosk session owner
// and reserves them for phone.
func (e *env) reserve(t *testing.T, r reserver, owner string, n int, phone string) *booking.Reservation {
	t.Helper()
	h, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: owner, N: n})
	if err != nil {
		t.Fatalf("kiosk hold: %v", err)
	}
	res, err := r.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: owner, Name: "Ann Lee", Phone: phone})
	if err != nil {
		t.Fatalf("reserve: %v", err)
	}
	return res
}

func reservationReserveAndPay(t *testing.T, e *env) {
	r := e.reserver(t)
	h, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k1", N: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Seats) != 2 || !h.ExpiresAt.Equal(e.clock.Now().Add(booking.KioskHoldTTL)) {
		t.Fatalf("kiosk hold %+v: want 2 seats for %s", h, booking.KioskHoldTTL)
	}
	res, err := r.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "k1", Name: " Ann Lee ", Phone: "020 7946 0018",
		Types: map[string]string{h.Seats[1].Label: "child"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != booking.ReservationReserved || res.Source != booking.SourceKiosk || res.Name != "Ann Lee" || len(res.Seats) != 2 ||
		!res.CutOff.Equal(e.show.Starts.Add(-booking.DefaultReserveCutoff)) || !strings.HasPrefix(res.Number, "BO-") || res.Types[h.Seats[1].Label] != "child" {
		t.Fatalf("reservation %+v", res)
	}
	// The seats stay held past the kiosk's five minutes, for the
	// reservation and nobody else.
	e.clock.Add(time.Hour)
	_, err = e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{h.Seats[0].Label}, Owner: "c"})
	wantCode(t, "a counter holds a reserved seat", err, booking.EConflict)
	if n, err := r.KioskRelease(e.ctx, kioskActor, "k1"); err != nil || n != 0 {
		t.Fatalf("kiosk release after reserving: %d, %v", n, err)
	}
	found, err := r.FindReservations(e.ctx, clerk, "020-7946-0018")
	if err != nil || len(found) != 1 || found[0].Number != res.Number {
		t.Fatalf("find by phone: %+v, %v", found, err)
	}
	if found, err = r.FindReservations(e.ctx, clerk, strings.ToLower(res.Number)); err != nil || len(found) != 1 || found[0].ID != res.ID {
		t.Fatalf("find by number: %+v, %v", found, err)
	}
	b, err := r.PayReservation(e.ctx, clerk, booking.PayReservationRequest{Number: res.Number, Method: booking.Cash, Tendered: 5000, IdempotencyKey: "pay-1"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Number != res.Number || b.Status != booking.BookingConfirmed || len(b.Tickets) != 2 || b.Total != 1250+850 || b.Customer != "Ann Lee" || b.Tickets[0].Code == "" {
		t.Fatalf("paid booking %+v", b)
	}
	again, err := r.PayReservation(e.ctx, clerk, booking.PayReservationRequest{Number: res.Number, Method: booking.Cash, Tendered: 5000, IdempotencyKey: "pay-1"})
	if err != nil || again.ID != b.ID {
		t.Fatalf("retried payment: %+v, %v", again, err)
	}
	var stale *booking.StaleError
	if _, err := r.PayReservation(e.ctx, clerk, booking.PayReservationRequest{Number: res.Number, Method: booking.Card, IdempotencyKey: "pay-2"}); !errors.As(err, &stale) {
		t.Fatalf("a second payment: %v, want a stale error", err)
	}
	got, err := r.Reservation(e.ctx, clerk, res.Number)
	if err != nil || got.Status != booking.ReservationPaid || got.BookingID != b.ID {
		t.Fatalf("paid reservation %+v, %v", got, err)
	}
	if f, ok := e.s.(finder); ok {
		if viaNumber, err := f.Booking(e.ctx, clerk, res.Number); err != nil || viaNumber.ID != b.ID {
			t.Fatalf("the booking by the reservation's number: %+v, %v", viaNumber, err)
		}
	}
	rep, err := r.ReportReservations(e.ctx, manager, booking.ReportRange{From: e.clock.Now(), To: e.clock.Now().AddDate(0, 0, 1)})
	if err != nil || rep.Total.Taken != 1 || rep.Total.Paid != 1 || rep.Rows[0].Taken != 1 || rep.Rows[1].Taken != 0 {
		t.Fatalf("report %+v, %v", rep, err)
	}
	e.counts(t, 2, 0)
}

// reservationLapses: at its cut-off a reservation lapses; it cannot be
// paid, its seats are free, and the report counts it lapsed.
func reservationLapses(t *testing.T, e *env) {
	r := e.reserver(t)
	res := e.reserve(t, r, "k1", 2, "0123456789")
	e.clock.Set(res.CutOff)
	got, err := r.Reservation(e.ctx, clerk, res.Number)
	if err != nil || got.Status != booking.ReservationLapsed {
		t.Fatalf("a reservation at its cut-off: %+v, %v", got, err)
	}
	_, err = r.PayReservation(e.ctx, clerk, booking.PayReservationRequest{Number: res.Number, Method: booking.Card, IdempotencyKey: "late"})
	wantCode(t, "payment at the cut-off", err, booking.EExpired)
	wantMessage(t, "payment at the cut-off", err, fmt.Sprintf("Reservation %s lapsed at %s; its seats went back on sale.", res.Number, res.CutOff.In(e.clock.Now().Location()).Format("15:04")))
	if x, ok := e.s.(holdExpirer); ok {
		if _, err := x.ExpireHolds(e.ctx); err != nil {
			t.Fatal(err)
		}
	}
	e.sell(t, "till", booking.Labels(res.Seats)...)
	rep, err := r.ReportReservations(e.ctx, manager, booking.ReportRange{From: e.clock.Now(), To: e.clock.Now()})
	if err != nil || rep.Total.Taken != 1 || rep.Total.Lapsed != 1 || rep.Rows[0].Lapsed != 1 {
		t.Fatalf("report %+v, %v", rep, err)
	}
	e.counts(t, 2, 0)
}

func reservationErrLimits(t *testing.T, e *env) {
	r := e.reserver(t)
	for i := range booking.MaxUnpaidPerPhone {
		e.reserve(t, r, fmt.Sprint("k", i), 1, "0123 456789")
	}
	h, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k-last", N: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "k-last", Name: "Ann", Phone: "0123456789"})
	wantCode(t, "a fourth unpaid reservation", err, booking.EInvalid)
	wantMessage(t, "a fourth unpaid reservation", err, fmt.Sprintf("This phone number has %d unpaid reservations for this show already: pay for them at the counter first.", booking.MaxUnpaidPerPhone))
	_, err = r.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "someone", Name: "Ann", Phone: "0999999999"})
	wantCode(t, "another session's hold", err, booking.ENotFound)
	e.clock.Set(e.show.Starts.Add(-booking.DefaultReserveCutoff))
	_, err = r.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "k-last", Name: "Ann", Phone: "0999999999"})
	wantCode(t, "a reservation after the cut-off", err, booking.EExpired) // the kiosk's hold ran out first
	h, err = r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k-later", N: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "k-later", Name: "Ann", Phone: "0999999999"})
	cut := e.show.Starts.Add(-booking.DefaultReserveCutoff).In(e.clock.Now().Location()).Format("15:04")
	wantMessage(t, "a reservation after the cut-off", err, "Reservations for this show closed at "+cut+"; buy tickets at the counter.")
	// A counter's hold of more seats than a reservation may have (a
	// sale's) cannot be reserved.
	big := make([]string, booking.MaxSeatsPerReservation+1)
	for i := range big {
		big[i] = fmt.Sprint("C", i+1)
	}
	bh, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID + 1, Seats: big, Owner: "till"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Reserve(e.ctx, clerk, booking.ReserveRequest{HoldID: bh.ID, Owner: "till", Name: "Ann", Phone: "0999999999"})
	wantMessage(t, "reserving a sale's hold", err, fmt.Sprintf("A reservation is for 1 to %d seats.", booking.MaxSeatsPerReservation))
}

// reservationPayRace: two counters pay one reservation at once with
// their own keys: one sale, the other told it is paid already.
func reservationPayRace(t *testing.T, e *env) {
	r := e.reserver(t)
	for round := range 5 {
		res := e.reserve(t, r, fmt.Sprint("k", round), 2, fmt.Sprintf("012345678%d", round))
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, 2)
		paid := make([]*booking.Booking, 2)
		for i := range 2 {
			wg.Go(func() {
				<-start
				paid[i], errs[i] = r.PayReservation(e.ctx, clerk, booking.PayReservationRequest{Number: res.Number, Method: booking.Card, IdempotencyKey: fmt.Sprintf("pay-%d-%d", round, i)})
			})
		}
		close(start)
		wg.Wait()
		won := 0
		var stale *booking.StaleError
		for i, err := range errs {
			switch {
			case err == nil:
				won++
				if paid[i].Number != res.Number {
					t.Fatalf("paid as %s, want %s", paid[i].Number, res.Number)
				}
			case !errors.As(err, &stale):
				t.Fatalf("round %d: the payment that lost: %v, want a stale error", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d payments won", round, won)
		}
	}
	e.counts(t, 10, 0)
}

// reservationCheckoutRefused: a reservation is paid through
// PayReservation only; a checkout naming its hold's owner is refused
// before it writes.
func reservationCheckoutRefused(t *testing.T, e *env) {
	r := e.reserver(t)
	res := e.reserve(t, r, "k1", 2, "0123456789")
	_, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: res.HoldID, Owner: "reservation:" + res.Number, IdempotencyKey: "bypass", Method: booking.Card})
	wantMessage(t, "checkout of a reservation's hold", err, "That is a reservation: take its payment from the reservations screen (ctrl+y) or boxoffice reservation pay.")
	if _, err := r.PayReservation(e.ctx, clerk, booking.PayReservationRequest{Number: res.Number, Method: booking.Card, IdempotencyKey: "pay"}); err != nil {
		t.Fatal(err)
	}
}

// reservationCollect: the number and the phone's last four digits show
// the customer their booking or reservation; every wrong pair reads the
// same.
func reservationCollect(t *testing.T, e *env) {
	r := e.reserver(t)
	res := e.reserve(t, r, "k1", 2, "0123 456789")
	h := e.hold(t, "till", "J1")
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "till", IdempotencyKey: "till", Method: booking.Card, Customer: "Bo", Phone: "07700 900123"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := r.Collect(e.ctx, kioskActor, booking.CollectRequest{Number: strings.ToLower(b.Number), Digits: "0123", Addr: "192.0.2.1"})
	if err != nil || c.Booking == nil || c.Booking.ID != b.ID || c.Booking.Tickets[0].Code == "" || c.Reservation != nil {
		t.Fatalf("collect a booking: %+v, %v", c, err)
	}
	typed := " " + strings.TrimPrefix(res.Number, "BO-") + " " // as a customer types it
	if c, err = r.Collect(e.ctx, kioskActor, booking.CollectRequest{Number: typed, Digits: "6789", Addr: "192.0.2.1"}); err != nil || c.Reservation == nil || c.Reservation.ID != res.ID {
		t.Fatalf("collect a reservation: %+v, %v", c, err)
	}
	for _, k := range [][2]string{{b.Number, "0124"}, {res.Number, "0123"}, {"BO-ZZZZZZZZ", "0123"}} {
		_, err := r.Collect(e.ctx, kioskActor, booking.CollectRequest{Number: k[0], Digits: k[1], Addr: "192.0.2.1"})
		if err != booking.ErrNoBookingFound {
			t.Fatalf("collect %v: %v, want no booking found", k, err)
		}
	}
	_, err = r.Collect(e.ctx, kioskActor, booking.CollectRequest{Number: b.Number, Digits: "12a4", Addr: "192.0.2.1"})
	wantCode(t, "collect with letters", err, booking.EInvalid)
}

func kioskHoldMoveRelease(t *testing.T, e *env) {
	r := e.reserver(t)
	h, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k1", N: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Seats) != 3 || !h.Together {
		t.Fatalf("kiosk hold %+v", h)
	}
	_, err = r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k1", N: 1})
	wantCode(t, "a second hold in one session", err, booking.EConflict)
	wantMessage(t, "a second hold in one session", err, "You have seats held already: reserve them or start again.")
	_, err = r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k2", N: 1, MoveFrom: h.ID})
	wantMessage(t, "a move from another session's hold", err, "That hold is gone.")
	moved, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k1", Seats: []string{"A1", "A2", "A3"}, MoveFrom: h.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got := booking.Labels(moved.Seats); strings.Join(got, " ") != "A1 A2 A3" {
		t.Fatalf("moved to %v", got)
	}
	if st := e.state(t, "", h.Seats[0].Label); st != booking.SeatFree {
		t.Fatalf("the block moved from is %v, want free", st)
	}
	e.counts(t, 0, 3)
	n, err := r.KioskRelease(e.ctx, kioskActor, "k1")
	if err != nil || n != 1 {
		t.Fatalf("kiosk release: %d, %v", n, err)
	}
	e.counts(t, 0, 0)
}

func kioskErrLimits(t *testing.T, e *env) {
	r := e.reserver(t)
	_, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k1", N: booking.MaxSeatsPerReservation + 1})
	wantCode(t, "too many seats", err, booking.EInvalid)
	wantMessage(t, "too many seats", err, fmt.Sprintf("Choose between 1 and %d seats.", booking.MaxSeatsPerReservation))
	_, err = r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "reservation:BO-AAAAAAAA", N: 1})
	wantCode(t, "a reservation's owner", err, booking.EInvalid)
	_, err = e.s.Hold(e.ctx, kioskActor, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"A1"}, Owner: "k1"})
	wantCode(t, "a kiosk's counter hold", err, booking.EForbidden)
	e.clock.Set(e.show.Starts.Add(booking.DefaultSalesClose))
	_, err = r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k1", N: 1})
	wantCode(t, "a kiosk hold after sales closed", err, booking.EInvalid)
	e.counts(t, 0, 0)
}

// kioskRaceSeat: sixteen kiosks ask for the same seat at once: one holds
// it, every other is told it was taken.
func kioskRaceSeat(t *testing.T, e *env) {
	r := e.reserver(t)
	const kiosks = 16
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, kiosks)
	for i := range kiosks {
		wg.Go(func() {
			<-start
			_, errs[i] = r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: fmt.Sprint("kiosk-", i), Seats: []string{"G7"}})
		})
	}
	close(start)
	wg.Wait()
	won := 0
	for i, err := range errs {
		if err == nil {
			won++
			continue
		}
		seatsTaken(t, fmt.Sprint("kiosk ", i), err)
	}
	if won != 1 {
		t.Fatalf("%d kiosks won G7", won)
	}
	e.counts(t, 0, 1)
}

// reservationPerAddressHour: a network address may make
// KioskReservationsPerHour reservations an hour and a kiosk in the
// building (its device) KioskDeviceReservationsPerHour; one more is
// refused.
func reservationPerAddressHour(t *testing.T, e *env) {
	r := e.reserver(t)
	for _, c := range []struct {
		addr string
		show int64
		n    int
	}{{"192.0.2.7", e.show.ID, booking.KioskReservationsPerHour}, {booking.DeviceAddr("kiosk foyer"), e.show.ID + 1, booking.KioskDeviceReservationsPerHour}} {
		for i := range c.n + 1 {
			owner := fmt.Sprint(c.addr, "-", i)
			h, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: c.show, Owner: owner, N: 1, Addr: c.addr})
			if err != nil {
				t.Fatalf("%s: hold %d: %v", c.addr, i+1, err)
			}
			_, err = r.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: owner, Name: "Ann", Phone: fmt.Sprintf("07700 9%05d", i), Addr: c.addr})
			if i < c.n && err != nil {
				t.Fatalf("%s: reservation %d: %v", c.addr, i+1, err)
			}
			if i == c.n {
				wantMessage(t, c.addr+": one reservation too many", err, "Too many reservations from here in the last hour; please ask at the counter.")
			}
		}
	}
}

// reservationAtTheCounter: a clerk reserves a counter's hold for a
// customer on the phone; it is the counter's, in the clerk's name, and
// none of the kiosks' share.
func reservationAtTheCounter(t *testing.T, e *env) {
	r := e.reserver(t)
	h := e.hold(t, "till-1", "E5", "E6")
	res, err := r.Reserve(e.ctx, clerk, booking.ReserveRequest{HoldID: h.ID, Owner: "till-1", Name: "Bo Phone", Phone: "07700 900123"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Source != booking.SourceCounter || res.CreatedBy != clerk.Name || strings.Join(booking.Labels(res.Seats), " ") != "E5 E6" {
		t.Fatalf("counter reservation %+v", res)
	}
	rep, err := r.ReportReservations(e.ctx, manager, booking.ReportRange{From: e.clock.Now(), To: e.clock.Now()})
	if err != nil || rep.Rows[1].Taken != 1 || rep.Rows[0].Taken != 0 {
		t.Fatalf("report %+v, %v", rep, err)
	}
	limit := booking.KioskShowCap(e.show.Capacity)
	if h, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k1", N: min(limit, booking.MaxSeatsPerReservation)}); err != nil {
		t.Fatalf("a kiosk hold beside a counter's reservation: %+v, %v", h, err)
	}
	e.counts(t, 0, 2+min(limit, booking.MaxSeatsPerReservation))
}

// reservationErrHostile: every field a customer types, at its worst,
// gets a clear refusal, and nothing is written.
func reservationErrHostile(t *testing.T, e *env) {
	r := e.reserver(t)
	h, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k1", N: 2})
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
		_, err := r.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "k1", Name: c.name, Phone: c.phone})
		if booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(booking.ErrorMessage(err), c.want) {
			t.Errorf("name %.20q phone %.20q: %v, want EInvalid saying %q", c.name, c.phone, err, c.want)
		}
	}
	_, err = r.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "k1", Name: "Ann", Phone: "0123456789", Types: map[string]string{h.Seats[0].Label: "free\x1b"}})
	wantMessage(t, "a made-up ticket type", err, "Choose a ticket type for each seat.")
	rep, err := r.ReportReservations(e.ctx, manager, booking.ReportRange{From: e.clock.Now(), To: e.clock.Now()})
	if err != nil || rep.Total.Taken != 0 {
		t.Fatalf("hostile input wrote %d reservations (%v)", rep.Total.Taken, err)
	}
	e.counts(t, 0, 2)
}

// kioskRoleForbidden: the kiosk role may view the programme, hold as a
// kiosk, reserve, collect and pay its reservation with a gift card; the
// store refuses it every other action, whatever the kiosk's screen sends.
func kioskRoleForbidden(t *testing.T, e *env) {
	allowed := map[booking.Action]bool{booking.ActionViewShows: true, booking.ActionKiosk: true, booking.ActionReserve: true, booking.ActionCollect: true,
		booking.ActionKioskPay: true}
	for _, a := range booking.Actions() {
		if err := booking.Authorize(kioskActor, a); (err == nil) != allowed[a] {
			t.Errorf("kiosk %s: %v", a, err)
		}
	}
	s := need[booking.Store](t, e, "every capability (booking.Store)")
	res := e.reserve(t, e.reserver(t), "k1", 2, "0123456789")
	sold := e.sell(t, "till", "J10")
	a, ctx := kioskActor, e.ctx
	refused := map[string]error{}
	_, refused["Hold"] = s.Hold(ctx, a, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"C1"}, Owner: "x"})
	_, refused["HoldBest"] = s.HoldBest(ctx, a, booking.HoldBestRequest{ShowID: e.show.ID, N: 1, Owner: "x"})
	refused["Release"] = s.Release(ctx, a, res.HoldID, "reservation:"+res.Number)
	_, refused["Checkout"] = s.Checkout(ctx, a, booking.CheckoutRequest{HoldID: res.HoldID, Owner: "reservation:" + res.Number, IdempotencyKey: "x", Method: booking.Card})
	_, refused["PayReservation"] = s.PayReservation(ctx, a, booking.PayReservationRequest{Number: res.Number, Method: booking.Card, IdempotencyKey: "x"})
	_, refused["Reservation"] = s.Reservation(ctx, a, res.Number)
	_, refused["FindReservations"] = s.FindReservations(ctx, a, "0123456789")
	_, refused["Booking"] = s.Booking(ctx, a, sold.Number)
	_, refused["FindBookings"] = s.FindBookings(ctx, a, booking.BookingQuery{Text: "ann"})
	_, refused["Cancel"] = s.Cancel(ctx, a, booking.CancelRequest{Number: sold.Number})
	_, refused["RefundTickets"] = s.RefundTickets(ctx, a, booking.RefundRequest{Number: sold.Number, Seats: []string{"J10"}})
	_, refused["Admit"] = s.Admit(ctx, a, sold.Tickets[0].Code)
	_, refused["AddWaitlist"] = s.AddWaitlist(ctx, a, e.show.ID, "Ann", "0123", 1)
	_, refused["AddStaff"] = s.AddStaff(ctx, a, "eve", booking.RoleManager, "1234", nil)
	_, refused["ListStaff"] = s.ListStaff(ctx, a)
	refused["SetPrice"] = s.SetPrice(ctx, a, booking.TicketType{Code: "adult", Name: "Adult", Price: 1})
	_, refused["OpenShift"] = s.OpenShift(ctx, a, booking.OpenShiftRequest{Float: 100})
	_, refused["Audit"] = s.Audit(ctx, a, booking.AuditQuery{})
	_, refused["ReportTakings"] = s.ReportTakings(ctx, a, booking.TakingsQuery{})
	_, refused["ReportReservations"] = s.ReportReservations(ctx, a, booking.ReportRange{From: e.clock.Now(), To: e.clock.Now()})
	_, refused["Quote"] = s.Quote(ctx, a, booking.QuoteRequest{ShowID: e.show.ID, SeatIDs: []int64{1}})
	for name, err := range refused {
		if booking.ErrorCode(err) != booking.EForbidden {
			t.Errorf("kiosk %s: %v, want EForbidden", name, err)
		}
	}
	e.counts(t, 1, 2)
}
