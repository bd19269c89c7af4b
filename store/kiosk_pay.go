package store

import (
	"context"
	"crypto/subtle"
	"strings"

	"boxoffice/booking"
)

// Paying a reservation at the kiosk with a gift card (booking.Kiosk's
// KioskPay, booking/kioskpay.go). The kiosk is public, so a try is
// counted as Collect's are (collect.go): on the card's and the address's
// guess counters, in the write transaction, before anything is looked
// up, the counters held until it ends. Then the reservation must match
// its number and phone digits and the card must exist; a try that fails
// there commits its count and an audit row and nothing else. A try whose
// reservation and card are both found takes its count back, as a right
// answer at Collect does, and pays as the counter's PayReservation would
// with a gift card for the whole (payReservation): a card holding less
// refuses the payment whole (ErrCardShort), and nothing is written.

// kioskPaid is what KioskPay's transaction did: the booking paid, or the
// refusal of a try counted and committed.
type kioskPaid struct {
	bookingID int64
	refusal   error
	count     booking.CollectCount
}

// KioskPay pays a reservation at the kiosk with a gift card.
func (s *Store) KioskPay(ctx context.Context, actor booking.Actor, req booking.KioskPayRequest) (*booking.Booking, error) {
	if err := booking.Authorize(actor, booking.ActionKioskPay); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	card, _ := booking.ParseCardNumber(req.Card)
	number := booking.NormalizeNumber(booking.CleanLine(req.Number, 16))
	digits, key := strings.TrimSpace(req.Digits), strings.TrimSpace(req.IdempotencyKey)
	addr := booking.KioskAddr(req.Addr, "")
	got, err := write(s, ctx, actor, Write{Op: "kiosk pay"}, func(tx Tx) (kioskPaid, error) {
		return s.kioskPay(tx, actor, kioskTry{card: card, number: number, digits: digits, addr: addr, key: key})
	})
	if err != nil {
		return nil, err
	}
	if got.refusal != nil {
		s.log.Warn("kiosk pay refused", "number", number, "addr", addr, "terminal", booking.CleanLine(actor.Terminal, 60),
			"card_tries", got.count.Number.Tries, "addr_tries", got.count.Addr.Tries, "wait", got.count.Wait)
		return nil, got.refusal
	}
	return s.committedBooking(ctx, got.bookingID)
}

// kioskTry is one KioskPay cleaned.
type kioskTry struct {
	card, number, digits, addr, key string
}

// kioskPay is KioskPay's transaction: count, then (unless paused) look
// the reservation and the card up, then pay.
func (s *Store) kioskPay(tx Tx, actor booking.Actor, t kioskTry) (kioskPaid, error) {
	cardKey, addrKey := booking.KioskPayKeys(t.card, t.addr)
	count, addrBefore, err := countTry(tx, cardKey, addrKey)
	if err != nil {
		return kioskPaid{}, err
	}
	got := kioskPaid{count: count}
	failed := func(refusal error, why string) (kioskPaid, error) {
		got.refusal = refusal
		return got, Audit(tx, actor, booking.KioskPayFailed(got.count, t.card, t.number, t.addr, why), 0)
	}
	if got.count.Wait > 0 {
		return failed(booking.KioskPayPaused(got.count.ByNumber, got.count.Wait), "")
	}
	r, found, err := tx.ReservationForUpdate(t.number)
	if err != nil {
		return kioskPaid{}, err
	}
	want := "----"
	if found {
		want = lastFour(r.Phone)
	}
	if subtle.ConstantTimeCompare([]byte(want), []byte(t.digits)) != 1 || !found {
		return failed(booking.ErrNoBookingFound, "no reservation with those digits")
	}
	if _, _, found, err := tx.GiftCardForUpdate(t.card); err != nil || !found {
		if err != nil {
			return kioskPaid{}, err
		}
		return failed(booking.ErrNoGiftCard(t.card), "no such card")
	}
	if err := rightTry(tx, cardKey, addrKey, addrBefore); err != nil {
		return kioskPaid{}, err
	}
	pay := booking.CheckoutRequest{Method: booking.GiftCard, Tender: []booking.TenderPart{{Method: booking.GiftCard, Card: t.card}}}
	got.bookingID, err = s.payReservation(tx, actor, pay, r, t.key)
	return got, err
}
