package contract

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"boxoffice/booking"
)

// kioskPayCases: the kiosk takes vouchers and gift cards (invariant 16).
// A reservation takes its voucher's use once, however many kiosks offer
// a single-use code at once, and the use comes back once when it lapses,
// however many sweeps run, or passes to the booking when it is paid; a
// card that covers one of two reservations paid at two kiosks at once
// pays exactly one; every wrong try is counted.
var kioskPayCases = []testCase{
	{"VoucherTakenOnceReturnedOnce", kioskPayVoucherLapse},
	{"VoucherPassesToTheBooking", kioskPayVoucherPaid},
	{"VoucherBackWhenTheShowIsCancelled", kioskPayVoucherShowCancelled},
	{"GiftCardTwoKiosksOneCard", kioskPayTwoKiosks},
	{"Refusals", kioskPayRefusals},
	{"ErrHostile", kioskPayErrHostile},
}

func init() {
	groups = append(groups, group{"KioskPay", kioskPayCases})
}

// kioskReserve holds n best seats of the first show for kiosk session
// owner and reserves them for phone with voucher (none when "").
func (e *env) kioskReserve(t *testing.T, r reserver, owner string, n int, phone, voucher string) (*booking.Reservation, error) {
	t.Helper()
	h, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: owner, N: n})
	if err != nil {
		t.Fatalf("kiosk hold: %v", err)
	}
	return r.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: owner, Name: "Ann Lee", Phone: phone, Voucher: voucher})
}

// kioskPayVoucherLapse: a single-use voucher offered by 12 kiosks at
// once is reserved once, at its discount, and the rest are refused with
// their seats still theirs; two sweeps at once lapse the reservation and
// give the use back once.
func kioskPayVoucherLapse(t *testing.T, e *env) {
	r := e.reserver(t)
	vs := need[booking.Vouchers](t, e, needVouchers)
	x := need[holdExpirer](t, e, "ExpireHolds (booking.Upkeep)")
	addVoucher(t, e, vs, booking.Voucher{Code: "kiosk", Off: 2_00})
	res := make([]*booking.Reservation, 12)
	errs := make([]error, 12)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			res[i], errs[i] = e.kioskReserve(t, r, fmt.Sprint("k", i), 1, fmt.Sprintf("0123 4567%02d", i), "Kiosk")
		})
	}
	wg.Wait()
	var won *booking.Reservation
	for i, err := range errs {
		switch {
		case err == nil:
			if won != nil {
				t.Fatalf("two reservations took one use: %s and %s", won.Number, res[i].Number)
			}
			won = res[i]
		case booking.ErrorCode(err) == booking.EConflict:
			wantMessage(t, "a reservation too many", err, "Voucher KIOSK is used up.")
		default:
			t.Fatalf("reservation %d: %v", i, err)
		}
	}
	if won == nil || won.Voucher == nil || won.Voucher.Code != "KIOSK" || won.Voucher.Discount != 2_00 || won.Voucher.Returned {
		t.Fatalf("the one reserved: %+v", won)
	}
	if n := usesLeft(t, e, vs, "KIOSK"); n != 0 {
		t.Fatalf("%d uses left after the reservation", n)
	}
	// The refused keep their kiosk holds: 11 held, 1 reserved (held too).
	e.counts(t, 0, 12)
	e.clock.Set(won.CutOff)
	for i := range 2 {
		wg.Go(func() { _, errs[i] = x.ExpireHolds(e.ctx) })
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("sweeps: %v, %v", errs[0], errs[1])
	}
	if n := usesLeft(t, e, vs, "KIOSK"); n != 1 {
		t.Fatalf("%d uses left after two sweeps lapsed the reservation, want 1", n)
	}
	got, err := r.Reservation(e.ctx, clerk, won.Number)
	if err != nil || got.Status != booking.ReservationLapsed || got.Voucher == nil || !got.Voucher.Returned {
		t.Fatalf("lapsed: %+v, %v", got, err)
	}
	if _, err := x.ExpireHolds(e.ctx); err != nil || usesLeft(t, e, vs, "KIOSK") != 1 {
		t.Fatalf("a third sweep: %v, %d uses left", err, usesLeft(t, e, vs, "KIOSK"))
	}
	e.whole(t)
}

// kioskPayVoucherPaid: a reservation with a voucher paid at the counter
// is sold at its discount without a second use; two cancels of the
// booking at once give the one use back once.
func kioskPayVoucherPaid(t *testing.T, e *env) {
	r := e.reserver(t)
	vs := need[booking.Vouchers](t, e, needVouchers)
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	addVoucher(t, e, vs, booking.Voucher{Code: "PAID2", Off: 2_00})
	res, err := e.kioskReserve(t, r, "k1", 2, "020 7946 0018", "paid2")
	if err != nil || res.Voucher == nil || res.Voucher.Discount != 2_00 {
		t.Fatalf("reserve with a voucher: %+v, %v", res, err)
	}
	b, err := r.PayReservation(e.ctx, clerk, booking.PayReservationRequest{Number: res.Number, Method: booking.Card, IdempotencyKey: "pay-v"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Total != 2*12_50-2_00 || b.Voucher == nil || b.Voucher.Code != "PAID2" || b.Voucher.Discount != 2_00 {
		t.Fatalf("paid: total %s, voucher %+v", b.Total, b.Voucher)
	}
	if n := usesLeft(t, e, vs, "PAID2"); n != 0 {
		t.Fatalf("%d uses left once paid, want 0", n)
	}
	got, err := r.Reservation(e.ctx, clerk, res.Number)
	if err != nil || got.Status != booking.ReservationPaid || got.Voucher == nil || got.Voucher.Returned {
		t.Fatalf("paid reservation: %+v, %v", got, err)
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number, Reason: fmt.Sprint("twice ", i)})
		})
	}
	wg.Wait()
	if ok := oneCancelled(t, errs); ok != 1 {
		t.Fatalf("%d cancels succeeded", ok)
	}
	if n := usesLeft(t, e, vs, "PAID2"); n != 1 {
		t.Fatalf("%d uses left after two cancels, want 1", n)
	}
	e.whole(t)
}

// kioskPayTwoKiosks: a 30.00 card offered at two kiosks at once for two
// reservations of 25.00: exactly one is paid, with tickets and one
// ledger row; the other is refused naming the balance, nothing of it
// written, still reserved. Two cancels of the paid one refill it once.
func kioskPayTwoKiosks(t *testing.T, e *env) {
	r := e.reserver(t)
	g := need[booking.GiftCards](t, e, needGiftCards)
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	card := issueCard(t, e, g, 30_00, booking.Card)
	var res [2]*booking.Reservation
	for i := range res {
		var err error
		if res[i], err = e.kioskReserve(t, r, fmt.Sprint("k", i), 2, fmt.Sprintf("07700 90012%d", i), ""); err != nil {
			t.Fatal(err)
		}
	}
	var paid [2]*booking.Booking
	var errs [2]error
	var wg sync.WaitGroup
	for i := range res {
		wg.Go(func() {
			paid[i], errs[i] = r.KioskPay(e.ctx, kioskActor, booking.KioskPayRequest{Number: res[i].Number, Digits: fmt.Sprintf("012%d", i),
				Card: booking.FormatCardNumber(card), Addr: "192.0.2.5", IdempotencyKey: fmt.Sprint("kp", i)})
		})
	}
	wg.Wait()
	won, lost := 0, 1
	if errs[0] != nil {
		won, lost = 1, 0
	}
	if errs[won] != nil {
		t.Fatalf("neither paid: %v; %v", errs[0], errs[1])
	}
	wantCode(t, "the second kiosk", errs[lost], booking.EConflict)
	wantMessage(t, "the second kiosk", errs[lost], booking.ErrorMessage(booking.ErrCardShort(card, 5_00, 25_00)))
	b := paid[won]
	if b.Number != res[won].Number || len(b.Tickets) != 2 || b.Total != 25_00 || len(b.Payments) != 1 || b.Payments[0].Method != booking.GiftCard {
		t.Fatalf("paid at the kiosk: %+v", b)
	}
	if bal := balanceOf(t, e, g, card); bal != 5_00 {
		t.Fatalf("balance %s after one payment, want 5.00", bal)
	}
	if got, err := r.Reservation(e.ctx, clerk, res[lost].Number); err != nil || got.Status != booking.ReservationReserved {
		t.Fatalf("the one refused: %+v, %v", got, err)
	}
	e.counts(t, 2, 2)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number, Reason: fmt.Sprint("twice ", i)})
		})
	}
	wg.Wait()
	if ok := oneCancelled(t, errs[:]); ok != 1 {
		t.Fatalf("%d cancels succeeded", ok)
	}
	if bal := balanceOf(t, e, g, card); bal != 30_00 {
		t.Fatalf("balance %s after two cancels, want 30.00", bal)
	}
	e.whole(t)
}

// kioskPayRefusals: a card number with a wrong check digit is refused
// unread; a card nobody has says what the counter's balance check says;
// wrong phone digits read as no reservation; and after the allowance of
// wrong tries from one kiosk even the right card waits, unread.
func kioskPayRefusals(t *testing.T, e *env) {
	r := e.reserver(t)
	g := need[booking.GiftCards](t, e, needGiftCards)
	card := issueCard(t, e, g, 50_00, booking.Card)
	res, err := e.kioskReserve(t, r, "k1", 1, "020 7946 0018", "")
	if err != nil {
		t.Fatal(err)
	}
	pay := func(card, digits string) error {
		_, err := r.KioskPay(e.ctx, kioskActor, booking.KioskPayRequest{Number: res.Number, Digits: digits, Card: card, Addr: "192.0.2.6", IdempotencyKey: "kp"})
		return err
	}
	bad := []byte(card)
	bad[len(bad)-1] = '0' + (bad[len(bad)-1]-'0'+1)%10
	wantCode(t, "a wrong check digit", pay(string(bad), "0018"), booking.EInvalid)
	_, counter := g.GiftCardBalance(e.ctx, clerk, string(bad))
	wantMessage(t, "a wrong check digit", pay(string(bad), "0018"), booking.ErrorMessage(counter))
	other := booking.NewCardNumber()
	_, counter = g.GiftCardBalance(e.ctx, clerk, other)
	err = pay(other, "0018")
	wantCode(t, "a card nobody has", err, booking.ENotFound)
	wantMessage(t, "a card nobody has", err, booking.ErrorMessage(counter))
	err = pay(card, "9999")
	wantCode(t, "wrong digits", err, booking.ENotFound)
	wantMessage(t, "wrong digits", err, booking.ErrNoBookingFound.Message)
	for range booking.CollectByAddr.Free - 2 {
		if err := pay(booking.NewCardNumber(), "0018"); booking.ErrorCode(err) != booking.ENotFound {
			t.Fatalf("a wrong card: %v", err)
		}
	}
	err = pay(card, "0018")
	wantCode(t, "the right card after five wrong tries", err, booking.EForbidden)
	wantMessage(t, "the right card after five wrong tries", err, "Too many wrong tries at this kiosk: try again in 1 minute, or ask at the counter.")
	if bal := balanceOf(t, e, g, card); bal != 50_00 {
		t.Fatalf("balance %s after refusals", bal)
	}
	e.clock.Add(booking.CollectByAddr.FirstPause)
	if _, err := r.KioskPay(e.ctx, kioskActor, booking.KioskPayRequest{Number: res.Number, Digits: "0018", Card: card, Addr: "192.0.2.6", IdempotencyKey: "kp"}); err != nil {
		t.Fatalf("the right card after the pause: %v", err)
	}
	if bal := balanceOf(t, e, g, card); bal != 50_00-12_50 {
		t.Fatalf("balance %s after paying 12.50", bal)
	}
}

// kioskPayVoucherShowCancelled: cancelling a show lapses its unpaid
// reservations with their holds, and each gives its voucher's use back
// once.
func kioskPayVoucherShowCancelled(t *testing.T, e *env) {
	r := e.reserver(t)
	vs := need[booking.Vouchers](t, e, needVouchers)
	c := need[showCanceller](t, e, "CancelShow (booking.Programme)")
	addVoucher(t, e, vs, booking.Voucher{Code: "GONE2", Off: 1_00, Uses: 2})
	for i := range 2 {
		if _, err := e.kioskReserve(t, r, fmt.Sprint("k", i), 1, fmt.Sprintf("0123 45670%d", i), "GONE2"); err != nil {
			t.Fatal(err)
		}
	}
	if n := usesLeft(t, e, vs, "GONE2"); n != 0 {
		t.Fatalf("%d uses left after two reservations", n)
	}
	if _, err := c.CancelShow(e.ctx, manager, e.show.ID, "projector"); err != nil {
		t.Fatal(err)
	}
	if n := usesLeft(t, e, vs, "GONE2"); n != 2 {
		t.Fatalf("%d uses left after the show was cancelled, want 2", n)
	}
	e.whole(t)
}

// kioskPayErrHostile: what a bot sends the kiosk's new inputs is bounded
// and refused before anything is read or written: a voucher code of a
// megabyte or with an escape sequence, a card number of a megabyte.
func kioskPayErrHostile(t *testing.T, e *env) {
	r := e.reserver(t)
	h, err := r.KioskHold(e.ctx, kioskActor, booking.KioskHoldRequest{ShowID: e.show.ID, Owner: "k1", N: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{strings.Repeat("A", 1<<20), "SUMMER\x1b[2J", "ab"} {
		_, err := r.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "k1", Name: "Ann Lee", Phone: "0123456789", Voucher: v})
		wantCode(t, "a voucher code "+fmt.Sprint(len(v))+" long", err, booking.EInvalid)
	}
	res, err := r.Reserve(e.ctx, kioskActor, booking.ReserveRequest{HoldID: h.ID, Owner: "k1", Name: "Ann Lee", Phone: "0123456789"})
	if err != nil {
		t.Fatalf("the hold after the refusals: %v", err)
	}
	for _, card := range []string{strings.Repeat("1", 1<<20), "6012\x1b[2J"} {
		_, err := r.KioskPay(e.ctx, kioskActor, booking.KioskPayRequest{Number: res.Number, Digits: "6789", Card: card, Addr: "192.0.2.8", IdempotencyKey: "k"})
		wantCode(t, "a card number", err, booking.EInvalid)
	}
	_, err = r.KioskPay(e.ctx, kioskActor, booking.KioskPayRequest{Number: strings.Repeat("B", 1<<20), Digits: "6789", Card: booking.NewCardNumber(), IdempotencyKey: "k"})
	wantCode(t, "a reservation number of a megabyte", err, booking.EInvalid)
	_, err = kioskActorPays(e, r)
	wantCode(t, "the kiosk's pay without a key", err, booking.EInvalid)
}

// kioskActorPays is a payment without an idempotency key.
func kioskActorPays(e *env, r reserver) (*booking.Booking, error) {
	return r.KioskPay(e.ctx, kioskActor, booking.KioskPayRequest{Number: "BO-AAAA2222", Digits: "6789", Card: booking.NewCardNumber()})
}
