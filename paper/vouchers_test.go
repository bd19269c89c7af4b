package paper_test

import (
	"context"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/escpos/escpostest"
	"boxoffice/paper"
)

// TestSaleReceipt_VoucherAndItems: a cash sale of two tickets with 10 %
// off and two popcorns prints the tickets at what was paid, the
// popcorns, the total of both, what the voucher saved and the change of
// all the cash; the X report's cash is the same total.
func TestSaleReceipt_VoucherAndItems(t *testing.T) {
	s, _, _ := sold(t)
	ctx := context.Background()
	if _, err := s.AddVoucher(ctx, booking.System, booking.Voucher{Code: "TENPC", Percent: 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddItem(ctx, booking.System, booking.Item{Code: "popcorn", Name: "Popcorn", Category: "snacks", Price: 4_50}); err != nil {
		t.Fatal(err)
	}
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"H7", "H8"}, Owner: "v"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "v", IdempotencyKey: "v", Method: booking.Cash, Tendered: 40_00,
		Types: map[string]string{"H8": "child"}, Voucher: "tenpc", Items: []booking.ItemLine{{Code: "popcorn", Qty: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	r := paper.SaleReceipt(b)
	// Tickets 12.50 + 8.50 less 10 % each: 11.25 + 7.65 = 18.90; popcorn
	// 9.00; 40.00 handed over, 12.10 back.
	if r.Total != 27_90 || r.Paid != 40_00 || r.Change != 12_10 || r.Saved != 2_10 {
		t.Fatalf("receipt total %s paid %s change %s saved %s", r.Total, r.Paid, r.Change, r.Saved)
	}
	var lines booking.Money
	for _, ln := range append(r.Lines, r.Items...) {
		lines += ln.Amount
	}
	if lines != r.Total {
		t.Fatalf("the lines add up to %s, the total is %s", lines, r.Total)
	}
	text := receiptText(t, r)
	for _, want := range []string{"H7 Adult", "11.25", "H8 Child", "7.65", "2 x Popcorn", "9.00", "27.90", "Voucher TENPC saved 2.10", "40.00", "12.10"} {
		if !strings.Contains(text, want) {
			t.Errorf("receipt has no %q:\n%s", want, text)
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
	// The first sale's 21.00 (sold) and this one's 27.90, in cash.
	for _, want := range []string{"X REPORT", "48.90", "Items snacks (2)", "9.00"} {
		if !strings.Contains(text, want) {
			t.Errorf("X report has no %q:\n%s", want, text)
		}
	}
}
