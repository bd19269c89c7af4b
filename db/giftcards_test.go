package db_test

import (
	"context"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// Gift cards: what the contract suite (internal/contract/giftcards.go)
// cannot say about SQLite itself — the schema's last word on a balance
// and the ledger, and the audit and plan walks of the new methods.

func init() {
	// Cards and their moves grow with every card sold and spent.
	for _, t := range []string{"giftcards", "giftcard_moves"} {
		historyTables[t] = true
	}
	boundedIndexes["giftcards_with_balance"] = "cards with money left: a spent card leaves it"
	allowedScans = append(allowedScans, struct{ fragment, reason string }{"FROM giftcards g WHERE g.balance <>", "CheckInvariants: a full check, run on demand, never by a counter"})
	unaudited = append(unaudited, "GiftCardBalance", "ReportGiftCards")
	writeCalls[booking.ActionIssueGiftCard] = []auditCall{
		{"IssueGiftCard", auditClerk, booking.AuditGiftCard, nil, func(f *auditFixture, a booking.Actor) error {
			_, err := f.s.IssueGiftCard(f.ctx, a, booking.GiftCardRequest{Amount: 30_00, Method: booking.Card})
			return err
		}},
	}
}

// giftCardSteps is planWorkload's part for gift cards: a card sold and
// read, a sale paid in parts by it, card and cash, a seat's refund, the
// cancel of the rest, the report.
func giftCardSteps(t *testing.T, s *db.Store, clock *storetest.Clock, step func(string, error), stepV func(string) func(any, error)) {
	t.Helper()
	ctx := context.Background()
	c, err := s.IssueGiftCard(ctx, clerk, booking.GiftCardRequest{Amount: 20_00, Method: booking.Cash})
	if err != nil {
		t.Fatalf("IssueGiftCard: %v", err)
	}
	step("IssueGiftCard", err)
	stepV("GiftCardBalance")(s.GiftCardBalance(ctx, clerk, c.Number))
	h := mustHold(t, s, 2, "plan-gc", "G1", "G2")
	b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "plan-gc", IdempotencyKey: "plan-gc", Tendered: 50_00,
		Tender: []booking.TenderPart{{Method: booking.GiftCard, Card: c.Number, Amount: 10_00}, {Method: booking.Card, Amount: 5_00}, {Method: booking.Cash}}})
	step("Checkout", err)
	if err == nil {
		stepV("RefundTickets")(s.RefundTickets(ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"G1"}}))
		stepV("Cancel")(s.Cancel(ctx, supervisor, booking.CancelRequest{Number: b.Number}))
	}
	day := booking.DayStart(clock.Now())
	stepV("ReportGiftCards")(s.ReportGiftCards(ctx, booking.Actor{Name: "mgr", Role: booking.RoleManager}, booking.ReportRange{From: day, To: day}))
}

// TestGiftCards_SchemaRefusesNegativeBalance: whatever writes the file, a
// balance never goes below zero and the ledger is never changed.
func TestGiftCards_SchemaRefusesNegativeBalance(t *testing.T) {
	t.Parallel()
	s, path := dbtest.MustOpen(t, db.Options{Clock: storetest.FixedClock().Now, SweepInterval: -1})
	if _, err := s.IssueGiftCard(context.Background(), clerk, booking.GiftCardRequest{Amount: 5_00, Method: booking.Card}); err != nil {
		t.Fatal(err)
	}
	raw := openRaw(t, path)
	for _, q := range []string{
		`UPDATE giftcards SET balance = balance - 501`,
		`UPDATE giftcard_moves SET amount = 1`,
		`DELETE FROM giftcard_moves`,
		`DELETE FROM giftcards`,
		`INSERT INTO giftcard_moves (card_id, kind, amount, method, tendered, at, staff) VALUES (1, 'issue', 100, 'cash', 100, 0, 'nobody')`,
	} {
		if _, err := raw.Exec(q); err == nil || !strings.Contains(strings.ToLower(err.Error()), "constraint") && !strings.Contains(err.Error(), "never") &&
			!strings.Contains(err.Error(), "shift") {
			t.Errorf("%s: %v", q, err)
		}
	}
}
