package booking

import (
	"fmt"
	"strings"
	"time"
)

// Paying at the kiosk (docs/kiosk.md): a customer who has just reserved
// pays the whole of the reservation with a gift card, and the reservation
// becomes a paid booking with tickets, as the counter's payment of it
// would. The kiosk is public, so every try is counted before the card is
// looked up, as Collect's are (CollectTry): per card number typed and per
// address, one allowance shared with Collect's.

// ActionKioskPay pays a reservation at a kiosk with a gift card.
const ActionKioskPay Action = "kiosk_pay"

// AuditKioskPayFailed is the audit row of a kiosk payment refused before
// it was tried: a card no card has, a reservation and phone digits that
// do not match, or a try refused unseen during a pause.
const AuditKioskPayFailed AuditAction = "kiosk_pay_failed"

// KioskPayRequest pays reservation Number with gift card Card for the
// whole amount. Digits are the last four of the reservation's phone (the
// kiosk has them from the form it just sent; a number alone pays nobody
// else's reservation). Addr is where the kiosk is (as KioskHoldRequest's).
// IdempotencyKey makes a retry land on the booking the first try made.
type KioskPayRequest struct {
	Number, Digits string
	Card           string
	Addr           string
	IdempotencyKey string
}

// Validate refuses, before anything is read, a request no reservation or
// card could match. A card number's length and check digit are
// ParseCardNumber's.
func (r KioskPayRequest) Validate() error {
	if n := strings.TrimSpace(r.Number); n == "" || len(n) > 16 {
		return Errorf(EInvalid, "Type the reservation number.")
	}
	d := strings.TrimSpace(r.Digits)
	if len(d) != 4 || strings.ContainsFunc(d, func(c rune) bool { return c < '0' || c > '9' }) {
		return Errorf(EInvalid, "Type the last four digits of your phone number.")
	}
	if k := strings.TrimSpace(r.IdempotencyKey); k == "" || len(k) > MaxIdempotencyKey {
		return Errorf(EInvalid, "A payment needs an idempotency key.")
	}
	_, err := ParseCardNumber(r.Card)
	return err
}

// KioskPayKeys are the guess counters' keys of a kiosk payment with card
// (ParseCardNumber's form) from addr: the card's own, and the address's
// that Collect counts too (CollectKeys), so wrong numbers of either kind
// share one allowance at one kiosk.
func KioskPayKeys(card, addr string) (byCard, byAddr string) {
	_, byAddr = CollectKeys("", addr)
	return "card " + card, byAddr
}

// KioskPayFailed is the audit row of a kiosk payment try c of card
// (named by its last four digits) for reservation number from addr,
// refused: unseen during a pause, or why.
func KioskPayFailed(c CollectCount, card, number, addr, why string) AuditEntry {
	d := fmt.Sprintf("gift card …%s for %s from %s: ", CardTail(card), CleanLine(number, 20), CleanLine(addr, 64))
	if c.Wait > 0 {
		d += "refused unseen, paused " + WaitText(c.Wait) + " more"
	} else {
		d += fmt.Sprintf("%s, try %d of %d on the card, %d of %d from here", why, c.Number.Tries, CollectByNumber.Free, c.Addr.Tries, CollectByAddr.Free)
	}
	return AuditEntry{Action: AuditKioskPayFailed, Detail: d}
}

// KioskPayPaused is the kiosk's answer to a payment refused before its
// card was looked up: the card (byCard) or the address is in a pause.
func KioskPayPaused(byCard bool, wait time.Duration) error {
	where := "at this kiosk"
	if byCard {
		where = "for that gift card"
	}
	return Errorf(EForbidden, "Too many wrong tries %s: try again in %s, or ask at the counter.", where, WaitText(wait))
}
