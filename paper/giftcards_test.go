package paper_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/escpos/escpostest"
	"boxoffice/paper"
)

// TestGiftCardReceipts: a card's slip carries its number with the check
// digit and as a QR code; a sale paid 10.00 by that card, 10.00 by card
// and the rest in cash prints a line a part and the change; the X report
// shows the gift card's part and the card sold apart, and its expected
// cash adds up: the float, the cash sales and the card sold for cash.
func TestGiftCardReceipts(t *testing.T) {
	s, _, _ := sold(t) // 21.00 in cash
	ctx := context.Background()
	c, err := s.IssueGiftCard(ctx, clerk, booking.GiftCardRequest{Amount: 20_00, Method: booking.Cash})
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := escpostest.Parse(paper.Layout{}.GiftCardJob(c))
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(escpostest.Texts(cmds), "\n"); !strings.Contains(text, booking.FormatCardNumber(c.Number)) || !strings.Contains(text, "GIFT CARD") {
		t.Errorf("gift card slip:\n%s", text)
	}
	if qr := escpostest.QRData(cmds); !slices.Contains(qr, c.Number) {
		t.Errorf("the slip's QR codes %q do not carry %s", qr, c.Number)
	}
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"F5", "F6"}, Owner: "split"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "split", IdempotencyKey: "split", Tendered: 20_00,
		Tender: []booking.TenderPart{{Method: booking.GiftCard, Card: c.Number, Amount: 10_00}, {Method: booking.Card, Amount: 10_00}, {Method: booking.Cash}}})
	if err != nil {
		t.Fatal(err)
	}
	text := receiptText(t, paper.SaleReceipt(b))
	for _, want := range []string{"Total", "25.00", "Paid giftcard", "Paid card", "10.00", "Paid cash", "20.00", "Change", "15.00"} {
		if !strings.Contains(text, want) {
			t.Errorf("receipt has no %q:\n%s", want, text)
		}
	}
	// Its cancel pays each part back, a line a way.
	sup := booking.Actor{StaffID: 2, Name: "sue", Role: booking.RoleSupervisor, Terminal: "till-2"}
	if _, err := s.OpenShift(ctx, sup, booking.OpenShiftRequest{Float: 100_00}); err != nil && booking.ErrorCode(err) != booking.EConflict {
		t.Fatal(err)
	}
	since := b.CreatedAt
	after, err := s.Cancel(ctx, sup, booking.CancelRequest{Number: b.Number})
	if err != nil {
		t.Fatal(err)
	}
	text = receiptText(t, paper.RefundReceipt(after, since))
	for _, want := range []string{"REFUND", "25.00", "Paid out giftcard", "Paid out card", "Paid out cash", "5.00"} {
		if !strings.Contains(text, want) {
			t.Errorf("refund receipt has no %q:\n%s", want, text)
		}
	}
	sh, err := s.CurrentShift(ctx, clerk)
	if err != nil {
		t.Fatal(err)
	}
	x, err := s.ShiftReport(ctx, clerk, sh.ID)
	if err != nil {
		t.Fatal(err)
	}
	if cmds, err = escpostest.Parse(paper.Layout{}.ZReportJob(x)); err != nil {
		t.Fatal(err)
	}
	text = strings.Join(escpostest.Texts(cmds), "\n")
	// 100.00 float + 21.00 and 5.00 cash sales + 20.00 for the card.
	for _, want := range []string{"Cash sales (2)", "26.00", "Card sales (1)", "Gift card sales (1)", "Cards sold (1) cash", "146.00"} {
		if !strings.Contains(text, want) {
			t.Errorf("X report has no %q:\n%s", want, text)
		}
	}
}
