package contract

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"boxoffice/booking"
)

// The public kiosk's guards: collect's guess counters, one form of a
// phone, the kiosks' share of a show, slowing who lets holds go, and the
// staff chord's own lockout.

// collect is one try at collecting from a kiosk at addr.
func (e *env) collect(r reserver, number, digits, addr string) (*booking.Collection, error) {
	return r.Collect(e.ctx, kioskActor, booking.CollectRequest{Number: number, Digits: digits, Addr: addr})
}

// collectFailures counts the audit trail's collect_failed rows: all, and
// those whose digits were compared (wrong digits, not refused unseen).
func (e *env) collectFailures(t *testing.T) (all, compared int) {
	t.Helper()
	rows, err := need[auditor](t, e, "the audit trail").Audit(e.ctx, manager, booking.AuditQuery{Limit: booking.MaxAuditLimit})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.Action != booking.AuditCollectFailed {
			continue
		}
		all++
		if strings.Contains(r.Detail, "wrong digits") {
			compared++
		}
	}
	return all, compared
}

// pausedForNumber is what a kiosk says to a try at a paused number (a
// minute's pause, the first): the same for a number nobody has.
const pausedForNumber = "Too many wrong tries for that booking number: try again in 1 minute, or ask at the counter."

// reservationCollectPaused is must-show 2's store half: five wrong
// digits for a number, then a pause in which the right digits are
// refused unseen, from any address; each try is in the audit trail; after
// the pause the right digits work and clear the count. A made-up number
// pauses in the same words.
func reservationCollectPaused(t *testing.T, e *env) {
	r := e.reserver(t)
	res := e.reserve(t, r, "k1", 2, "0123 456789")
	for i := range booking.CollectByNumber.Free {
		if _, err := e.collect(r, res.Number, fmt.Sprintf("%04d", i), "192.0.2.1"); err != booking.ErrNoBookingFound {
			t.Fatalf("wrong try %d: %v", i+1, err)
		}
	}
	for _, addr := range []string{"192.0.2.1", "192.0.2.2"} {
		_, err := e.collect(r, res.Number, "6789", addr)
		wantCode(t, "the right digits in the pause from "+addr, err, booking.EForbidden)
		wantMessage(t, "the right digits in the pause from "+addr, err, pausedForNumber)
	}
	if all, compared := e.collectFailures(t); all != 7 || compared != 5 {
		t.Fatalf("audit: %d collect_failed rows, %d compared; want 7 and 5", all, compared)
	}
	e.clock.Add(booking.CollectByNumber.FirstPause)
	if c, err := e.collect(r, res.Number, "6789", "192.0.2.2"); err != nil || c.Reservation == nil || c.Reservation.ID != res.ID {
		t.Fatalf("the right digits after the pause: %+v, %v", c, err)
	}
	// The right digits cleared the number's count: four wrong tries and
	// the right one still find it.
	for i := range booking.CollectByNumber.Free - 1 {
		e.collect(r, res.Number, fmt.Sprintf("%04d", i), fmt.Sprint("198.51.100.", i))
	}
	if _, err := e.collect(r, res.Number, "6789", "198.51.100.9"); err != nil {
		t.Fatalf("the fifth try, right, after the count was cleared: %v", err)
	}
	for i := range booking.CollectByNumber.Free {
		e.collect(r, "BO-ZZZZZZZZ", fmt.Sprintf("%04d", i), fmt.Sprint("203.0.113.", i))
	}
	_, err := e.collect(r, "BO-ZZZZZZZZ", "6789", "203.0.113.9")
	wantMessage(t, "a made-up number paused", err, pausedForNumber)
}

// reservationCollectParallel: forty wrong tries at one number at once,
// each from an address of its own: each is counted before its digits are
// compared, so at most five are compared, the rest are refused unseen,
// and every one leaves an audit row.
func reservationCollectParallel(t *testing.T, e *env) {
	r := e.reserver(t)
	res := e.reserve(t, r, "k1", 1, "0123 456789")
	const tries = 40
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, tries)
	for i := range errs {
		wg.Go(func() {
			<-start
			_, errs[i] = e.collect(r, res.Number, fmt.Sprintf("%04d", i), fmt.Sprint("192.0.2.", i+1))
		})
	}
	close(start)
	wg.Wait()
	wrong, paused := 0, 0
	for _, err := range errs {
		switch {
		case err == booking.ErrNoBookingFound:
			wrong++
		case booking.ErrorMessage(err) == pausedForNumber:
			paused++
		default:
			t.Fatalf("a try: %v", err)
		}
	}
	if wrong != booking.CollectByNumber.Free || paused != tries-wrong {
		t.Fatalf("%d compared, %d paused: want %d compared", wrong, paused, booking.CollectByNumber.Free)
	}
	if all, compared := e.collectFailures(t); all != tries || compared != wrong {
		t.Fatalf("audit: %d rows, %d compared; want %d and %d", all, compared, tries, wrong)
	}
	_, err := e.collect(r, res.Number, "6789", "192.0.2.200")
	wantCode(t, "the right digits during the pause", err, booking.EForbidden)
}

// reservationCollectByAddress: one address trying five numbers is paused
// whatever number it tries next, right digits or not, while another
// address is not; right answers use none of an address's allowance.
func reservationCollectByAddress(t *testing.T, e *env) {
	r := e.reserver(t)
	res := e.reserve(t, r, "k1", 1, "0123 456789")
	for i := range booking.CollectByAddr.Free {
		if _, err := e.collect(r, fmt.Sprintf("BO-ZZZZZZ%c%c", 'A'+i, 'A'+i), "6789", "192.0.2.66"); err != booking.ErrNoBookingFound {
			t.Fatalf("made-up number %d: %v", i, err)
		}
	}
	_, err := e.collect(r, res.Number, "6789", "192.0.2.66")
	wantMessage(t, "the paused address's right digits", err, "Too many wrong tries at this kiosk: try again in 1 minute, or ask at the counter.")
	for i := range 2 * booking.CollectByAddr.Free {
		if _, err := e.collect(r, res.Number, "6789", "192.0.2.77"); err != nil {
			t.Fatalf("right answer %d from a busy kiosk: %v", i+1, err)
		}
	}
}

// reservationPhoneOneForm: "+44 7700 900123", "0044 7700900123" and
// "07700 900123" are one phone to the per-phone cap, and the counter
// finds the reservations by any of its forms.
func reservationPhoneOneForm(t *testing.T, e *env) {
	r := e.reserver(t)
	for i, phone := range []string{"+44 7700 900123", "0044 7700900123", "07700 900123"} {
		e.reserve(t, r, fmt.Sprint("k", i), 1, phone)
	}
	h, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k-last", N: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "k-last", Name: "Ann", Phone: "+44 (0)7700-900-123"})
	wantMessage(t, "a fourth reservation in a fourth form", err, fmt.Sprintf("This phone number has %d unpaid reservations for this show already: pay for them at the counter first.", booking.MaxUnpaidPerPhone))
	for _, text := range []string{"07700900123", "+447700900123"} {
		if found, err := r.FindReservations(e.ctx, clerk, text); err != nil || len(found) != 3 {
			t.Fatalf("find by %s: %d found, %v", text, len(found), err)
		}
	}
}

// kioskShareOfShow is must-show 3's store half: 64 kiosk sessions from
// eight addresses hold ten seats each at once and reserve what they got;
// kiosks never take more than a third of the show, those refused are
// told so with the figure, and a customer at the counter still buys.
func kioskShareOfShow(t *testing.T, e *env) {
	r := e.reserver(t)
	limit := booking.KioskShowCap(e.show.Capacity)
	const sessions = 64
	var wg sync.WaitGroup
	start := make(chan struct{})
	held := make([]int, sessions)
	errs := make([]error, sessions)
	for i := range sessions {
		wg.Go(func() {
			<-start
			owner, addr := fmt.Sprint("bot-", i), fmt.Sprint("192.0.2.", i%8+1)
			h, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: owner, N: booking.MaxSeatsPerReservation, Addr: addr})
			if err != nil {
				errs[i] = err
				return
			}
			held[i] = len(h.Seats)
			_, errs[i] = r.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: owner, Name: "Bot", Phone: fmt.Sprintf("0770090%04d", i), Addr: addr})
		})
	}
	close(start)
	wg.Wait()
	total := 0
	for i, err := range errs {
		total += held[i]
		if err != nil && held[i] == 0 {
			if msg := booking.ErrorMessage(err); !strings.HasPrefix(msg, "The kiosks may hold at most a third of this show's seats at once ("+fmt.Sprint(limit)+")") {
				t.Fatalf("session %d refused: %v", i, err)
			}
		} else if err != nil {
			t.Fatalf("session %d held %d and could not reserve: %v", i, held[i], err)
		}
	}
	if total > limit || total < limit-booking.MaxSeatsPerReservation {
		t.Fatalf("kiosks hold %d seats of %d: want at most %d, and near it", total, e.show.Capacity, limit)
	}
	e.counts(t, 0, total)
	e.sell(t, "till", "J8", "J9")
	_, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "late", N: limit - total + 1, Addr: "192.0.2.99"})
	wantCode(t, "one seat past the share", err, booking.EConflict)
}

// kioskLetGoSlows: an address that lets holds go unbooked again and
// again waits longer before each next hold; a move is not slowed, and a
// hold that lapsed counts as let go.
func kioskLetGoSlows(t *testing.T, e *env) {
	r := e.reserver(t)
	const addr = "192.0.2.5"
	hold := func(owner string) error {
		_, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: owner, N: 2, Addr: addr})
		return err
	}
	other, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k2", N: 2, Addr: addr})
	if err != nil {
		t.Fatal(err)
	}
	for i := range booking.KioskFreeLetGo {
		if err := hold("k1"); err != nil {
			t.Fatalf("hold %d: %v", i+1, err)
		}
		if _, err := r.KioskRelease(e.ctx, kioskActor, "k1"); err != nil {
			t.Fatal(err)
		}
	}
	err = hold("k1")
	wantMessage(t, "a hold after three let go", err, "Seats held at this kiosk were let go without booking several times: you can choose seats again in 30 seconds.")
	if _, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k2", Seats: []string{"A1", "A2"}, MoveFrom: other.ID, Addr: addr}); err != nil {
		t.Fatalf("a move from the slowed address: %v", err)
	}
	if err := hold("k3"); booking.ErrorCode(err) != booking.EConflict {
		t.Fatalf("another session at the address: %v, want slowed", err)
	}
	if err := hold("k1"); err == nil {
		t.Fatal("held again at once")
	}
	e.clock.Add(booking.KioskFirstWait)
	if err := hold("k1"); err != nil {
		t.Fatalf("after the wait: %v", err)
	}
	// It lapses, and so does k2's moved block (a move is not let go, but
	// the block it made is a hold like any other): five let go, so the
	// wait is twice twice the first.
	e.clock.Add(booking.KioskHoldTTL)
	err = hold("k1")
	wantMessage(t, "a hold after two more, lapsed", err, "Seats held at this kiosk were let go without booking several times: you can choose seats again in 2 minutes.")
	if _, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k9", N: 2, Addr: "192.0.2.6"}); err != nil {
		t.Fatalf("another address: %v", err)
	}
}

// kioskChordApart: wrong PINs after a kiosk's staff chord lock that name
// at the kiosk only; the counters still let the person in, wrong PINs at
// a counter do not lock the kiosk's chord, and unlocking the name lifts
// the kiosk's lock too.
func kioskChordApart(t *testing.T, e *env) {
	ro := need[staffAdmin](t, e, needRoster)
	chord := func(name, pin string) error {
		_, err := ro.SignIn(e.ctx, booking.SignInRequest{Name: name, PIN: pin, Terminal: "kiosk foyer", Kiosk: true})
		return err
	}
	for range booking.MaxPINFailures {
		wantMessage(t, "a wrong PIN at the kiosk", chord("mgr", "0000"), "Wrong name or PIN.")
	}
	wantCode(t, "the right PIN at the locked kiosk chord", chord("mgr", "1234"), booking.EForbidden)
	if _, err := ro.SignIn(e.ctx, booking.SignInRequest{Name: "mgr", PIN: "1234", Terminal: "till-1"}); err != nil {
		t.Fatalf("mgr at a counter after the kiosk's lock: %v", err)
	}
	for range booking.MaxPINFailures {
		ro.SignIn(e.ctx, booking.SignInRequest{Name: "sue", PIN: "0000", Terminal: "till-1"})
	}
	if err := chord("sue", "1234"); err != nil {
		t.Fatalf("sue at the kiosk after the counter's lock: %v", err)
	}
	if err := ro.UnlockStaff(e.ctx, booking.System, "mgr"); err != nil {
		t.Fatal(err)
	}
	if err := chord("mgr", "1234"); err != nil {
		t.Fatalf("mgr at the kiosk after an unlock: %v", err)
	}
}
