package paper_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/escpos/escpostest"
	"boxoffice/paper"
)

// TestDayReportJob prints a closed day in the cinema's currency: the
// takings by method, the cash to bank and the VAT by rate, every line
// readable back.
func TestDayReportJob(t *testing.T) {
	t.Parallel()
	l, at := germanCinema(t)
	zs := []*booking.ShiftReport{
		{Shift: booking.Shift{ID: 1, Staff: "carl", Status: booking.ShiftClosed, Float: 10000}, Final: true,
			CashSales: 2500, CashSaleCount: 2, CardSales: 1250, CardSaleCount: 1, Expected: 12500, Counted: 12400, Variance: -100,
			Tax: []booking.TaxRow{{Rate: 2000, Sales: 3750, Gross: 3750, Tax: 624, Net: 3126, Sold: 3}}},
	}
	rep := booking.NewDayReport(at, booking.AllSites, zs)
	rep.ClosedBy, rep.ClosedAt = "mgr", at
	cmds, err := escpostest.Parse(l.DayReportJob(rep))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(escpostest.Texts(cmds), "\n")
	for _, want := range []string{"DAY CLOSE", "Cash to bank", "24,00 €", "Variance", "-1,00 €", "VAT 20 % 6,24 €", "37,50 €"} {
		if !strings.Contains(text, want) {
			t.Errorf("the day close lacks %q:\n%s", want, text)
		}
	}
	if escpostest.Count(cmds, "drawer") != 0 {
		t.Error("a day report opens no drawer")
	}
}

// TestReturnPDF writes a return as a PDF, and a paper.Layout without
// the drawer prints a "no sale" slip without the pulse.
func TestReturnPDF(t *testing.T) {
	t.Parallel()
	l, at := germanCinema(t)
	day := booking.DayStart(at)
	rep := &booking.DistributorReturn{Film: booking.Film{ID: 3, Title: "Der Film"}, From: day, To: day.AddDate(0, 0, 6), RunWeek: 1, Hire: 3500, HireSet: true,
		Days: []booking.ReturnDay{{Day: day, Shows: []booking.ReturnRow{{Show: 1, Starts: at, Hall: "Saal 1", Paid: 2, Comps: 1, House: 1, Gross: 2500, Tax: 416, Net: 2084}}}}}
	rep.Totals(1)
	var b bytes.Buffer
	if err := l.ReturnPDF(&b, rep); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte("%PDF-")) || b.Len() < 1000 {
		t.Fatalf("not a PDF: %d bytes", b.Len())
	}
	cmds, err := escpostest.Parse(paper.Layout{}.DrawerJob("No sale: change", "carl", time.Unix(0, 0)))
	if err != nil || escpostest.Count(cmds, "drawer") != 0 {
		t.Fatalf("a slip without a drawer: %v, %v", cmds, err)
	}
}

// TestReceipt_DrawerOnCash: with a drawer, a cash sale's job and a cash
// refund's receipt pulse it once; a card sale, a card refund and a
// receipt printed again do not.
func TestReceipt_DrawerOnCash(t *testing.T) {
	t.Parallel()
	l, at := germanCinema(t)
	l.Drawer = true
	pulses := func(job []byte) int {
		t.Helper()
		cmds, err := escpostest.Parse(job)
		if err != nil {
			t.Fatal(err)
		}
		return escpostest.Count(cmds, "drawer")
	}
	b := taxedBooking(at)
	sale, err := l.BookingJob(b)
	if err != nil {
		t.Fatal(err)
	}
	again, err := l.ReprintJob(b)
	if err != nil {
		t.Fatal(err)
	}
	refundAt := at.Add(time.Hour)
	b.Payments = append(b.Payments, booking.Payment{Kind: booking.PaymentRefund, Method: booking.Cash, Amount: 1250, TicketID: 1, Staff: "sue", At: refundAt})
	cashBack := l.ReceiptJob(paper.RefundReceipt(b, refundAt))
	card := taxedBooking(at)
	card.Payments[0].Method, card.Payments[0].Tendered, card.Payments[0].Change = booking.Card, 0, 0
	cardSale, err := l.BookingJob(card)
	if err != nil {
		t.Fatal(err)
	}
	card.Payments = append(card.Payments, booking.Payment{Kind: booking.PaymentRefund, Method: booking.Card, Amount: 1250, TicketID: 1, Staff: "sue", At: refundAt})
	cardBack := l.ReceiptJob(paper.RefundReceipt(card, refundAt))
	if pulses(sale) != 1 || pulses(cashBack) != 1 || pulses(again) != 0 || pulses(cardSale) != 0 || pulses(cardBack) != 0 {
		t.Fatalf("pulses: cash sale %d, cash refund %d, reprint %d, card sale %d, card refund %d; want 1 1 0 0 0",
			pulses(sale), pulses(cashBack), pulses(again), pulses(cardSale), pulses(cardBack))
	}
}
