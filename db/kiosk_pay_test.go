package db_test

import (
	"context"
	"fmt"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/storetest"
)

// Paying at the kiosk and vouchers on reservations: the audit and plan
// walks of SQLite's side (the rules are the contract suite's,
// internal/contract/kiosk_pay.go).

func init() {
	// The manager's list of gift cards reads, and walks the newest page
	// from the end of the primary key.
	unaudited = append(unaudited, "ListGiftCards")
	allowedScans = append(allowedScans, struct{ fragment, reason string }{"FROM giftcards g ORDER BY g.id DESC LIMIT",
		"ListGiftCards: the newest page, walked from the end of the primary key and stopped by LIMIT"})
	// A kiosk payment is a sale (the booking's row); a try refused
	// before paying leaves its own row.
	writeCalls[booking.ActionKioskPay] = []auditCall{
		{"KioskPay", auditClerk, booking.AuditSale, reservedWithCard, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.KioskPay(f.ctx, a, booking.KioskPayRequest{Number: f.sold.Number, Digits: "6789", Card: f.card, Addr: "192.0.2.9", IdempotencyKey: "kp"})
			return err
		}},
		{"KioskPay", auditClerk, booking.AuditKioskPayFailed, reservedWithCard, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.KioskPay(f.ctx, a, booking.KioskPayRequest{Number: f.sold.Number, Digits: "6789", Card: booking.NewCardNumber(),
				Addr: "192.0.2.9", IdempotencyKey: "kp"})
			if booking.ErrorCode(err) != booking.ENotFound {
				return fmt.Errorf("a card nobody has: %v, want ENotFound", err)
			}
			return nil
		}},
	}
}

// reservedWithCard reserves two seats at the kiosk (reservedK) and sells
// a gift card that pays for them.
func reservedWithCard(f *auditFixture) {
	reservedK(f)
	c, err := f.s.IssueGiftCard(f.ctx, auditClerk, booking.GiftCardRequest{Amount: 50_00, Method: booking.Card})
	if err != nil {
		f.t.Fatal(err)
	}
	f.card = c.Number
}

// kioskPaySteps is planWorkload's part for the kiosk's vouchers and gift
// cards: a reservation that takes a voucher, a kiosk payment with a card
// that does not exist, then with one that does; the reservation's voucher
// passes to the booking; the manager's list of cards, and a card sold for
// a customer.
func kioskPaySteps(t *testing.T, s *db.Store, _ *storetest.Clock, step func(string, error), stepV func(string) func(any, error)) {
	t.Helper()
	ctx := context.Background()
	kiosk := booking.Actor{Name: "kiosk", Role: booking.RoleKiosk}
	stepV("AddVoucher")(s.AddVoucher(ctx, booking.Actor{Name: "mgr", Role: booking.RoleManager}, booking.Voucher{Code: "KIOSK5", Off: 1_00}))
	c, err := s.IssueGiftCard(ctx, clerk, booking.GiftCardRequest{Amount: 50_00, Method: booking.Card})
	if err != nil {
		t.Fatalf("IssueGiftCard: %v", err)
	}
	h, err := s.KioskHold(ctx, kiosk, booking.KioskHoldRequest{ShowID: 3, Owner: "kiosk-p", N: 2})
	step("KioskHold", err)
	if err != nil {
		return
	}
	r, err := s.Reserve(ctx, kiosk, booking.ReserveRequest{HoldID: h.ID, Owner: "kiosk-p", Name: "Cy", Phone: "07700 900456", Voucher: "kiosk5", Addr: "192.0.2.7"})
	step("Reserve", err)
	if err != nil {
		return
	}
	stepV("Reservation")(s.Reservation(ctx, clerk, r.Number))
	pay := booking.KioskPayRequest{Number: r.Number, Digits: "0456", Card: booking.NewCardNumber(), Addr: "192.0.2.7", IdempotencyKey: "plan-kp"}
	stepV("KioskPay")(s.KioskPay(ctx, kiosk, pay))
	pay.Card = c.Number
	stepV("KioskPay")(s.KioskPay(ctx, kiosk, pay))
	stepV("KioskPay")(s.KioskPay(ctx, kiosk, pay)) // its retry
	stepV("ListGiftCards")(s.ListGiftCards(ctx, booking.Actor{Name: "mgr", Role: booking.RoleManager}, booking.GiftCardQuery{}))
	stepV("ListGiftCards")(s.ListGiftCards(ctx, booking.Actor{Name: "mgr", Role: booking.RoleManager}, booking.GiftCardQuery{Number: c.Number}))
	// A card sold for a customer, listed on the account.
	cu, err := s.AddCustomer(ctx, clerk, booking.NewCustomer{Name: "Di", Email: "di@example.com"})
	step("AddCustomer", err)
	if err == nil {
		stepV("IssueGiftCard")(s.IssueGiftCard(ctx, clerk, booking.GiftCardRequest{Amount: 10_00, Method: booking.Card, CustomerID: cu.ID}))
		stepV("Customer")(s.Customer(ctx, clerk, cu.ID))
	}
}
