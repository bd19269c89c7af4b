package paper_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/escpos/escpostest"
	"boxoffice/paper"
)

// TestItemReceipts: an order of items prints its lines on a receipt of
// its own (no film, no hall), its refund the lines paid back, and the X
// report the items by category with what runs low; receipt, report and
// order add up.
func TestItemReceipts(t *testing.T) {
	s, clock, _ := sold(t)
	ctx := context.Background()
	ten := booking.LowStock
	if _, err := s.AddItem(ctx, booking.System, booking.Item{Code: "popcorn", Name: "Popcorn", Category: "snacks", Price: 4_50, Stock: &ten}); err != nil {
		t.Fatal(err)
	}
	o, err := s.SellItems(ctx, clerk, booking.ItemSaleRequest{Lines: []booking.ItemLine{{Code: "popcorn", Qty: 2}}, IdempotencyKey: "k",
		Method: booking.Cash, Tendered: 10_00})
	if err != nil {
		t.Fatal(err)
	}
	text := receiptText(t, paper.ItemSaleReceipt(o))
	for _, want := range []string{"RECEIPT", "Order " + o.Number, "2 x Popcorn", "9.00", "Paid cash", "10.00", "Change", "1.00", "Clerk carl"} {
		if !strings.Contains(text, want) {
			t.Errorf("receipt has no %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Booking") || strings.Contains(text, "Hall") {
		t.Errorf("an order of items printed as a booking:\n%s", text)
	}

	clock.Add(time.Minute)
	since := clock.Now()
	sup := booking.Actor{StaffID: 2, Name: "sue", Role: booking.RoleSupervisor, Terminal: "till-2"}
	after, err := s.RefundItems(ctx, sup, booking.ItemRefundRequest{Number: o.Number})
	if err != nil {
		t.Fatal(err)
	}
	text = receiptText(t, paper.ItemRefundReceipt(after, since))
	for _, want := range []string{"REFUND", "2 x Popcorn", "9.00", "Paid out cash", "Clerk sue"} {
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
	cmds, err := escpostest.Parse(paper.Layout{}.ZReportJob(x))
	if err != nil {
		t.Fatal(err)
	}
	text = strings.Join(escpostest.Texts(cmds), "\n")
	// The tickets' 21.00 and the popcorn's 9.00 came in cash; the popcorn
	// went back out of sue's drawer, not carl's.
	for _, want := range []string{"X REPORT", "Cash sales (2)", "30.00", "Items snacks (2)", "9.00", "Low: Popcorn", "10", "130.00"} {
		if !strings.Contains(text, want) {
			t.Errorf("X report has no %q:\n%s", want, text)
		}
	}
}

func receiptText(t *testing.T, r paper.Receipt) string {
	t.Helper()
	cmds, err := escpostest.Parse(paper.Layout{}.ReceiptJob(r))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(escpostest.Texts(cmds), "\n")
}
