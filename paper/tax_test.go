package paper_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/escpos/escpostest"
	"boxoffice/paper"
)

var update = flag.Bool("update", false, "rewrite the goldens under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test ./paper -run %s -update to accept):\n--- got\n%s\n--- want\n%s", name, t.Name(), got, want)
	}
}

// germanCinema is a cinema in Berlin that set everything: its name,
// address, tax id and footer, euros written the German way, and VAT of
// 20 % on adult tickets and 33 % on a 0.10 sweet sold as a ticket type.
func germanCinema(t *testing.T) (paper.Layout, time.Time) {
	t.Helper()
	rows := []booking.SettingRow{
		{Key: booking.SetName, Value: "Kino Roxy"},
		{Key: booking.SetAddress, Value: "Hauptstraße 1 | 10115 Berlin"},
		{Key: booking.SetTaxID, Value: "DE123456789"},
		{Key: booking.SetSymbol, Value: "€"},
		{Key: booking.SetCode, Value: "EUR"},
		{Key: booking.SetLocale, Value: "de"},
		{Key: booking.SetTimeZone, Value: "Europe/Berlin"},
		{Key: booking.SetFooter, Value: "Danke für Ihren Besuch!"},
	}
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	rates := booking.TaxRates{
		{ID: 1, Key: booking.TicketTax("adult"), Rate: 2000, From: from},
		{ID: 2, Key: booking.TicketTax("sweet"), Rate: 3300, From: from},
	}
	return paper.Layout{Settings: booking.ResolveCinema(rows, booking.AllSites), Rates: rates}, from.AddDate(0, 1, 0).Add(18 * time.Hour)
}

// taxedBooking is one adult ticket at 12.50, three sweets at 0.10 and a
// child's ticket no rate was set for, paid in cash.
func taxedBooking(at time.Time) *booking.Booking {
	b := &booking.Booking{Number: "BO-TAX23456", SoldBy: "carl", Terminal: "till-1", CreatedAt: at,
		Show: booking.Show{Film: booking.Film{Title: "Der Film", Rating: "12"}, HallName: "Saal 1", Starts: at.Add(2 * time.Hour)}}
	add := func(label, typ string, price booking.Money) {
		b.Tickets = append(b.Tickets, booking.Ticket{ID: int64(len(b.Tickets) + 1), Seat: booking.Seat{Label: label, RowTag: label[:1], Number: int(label[1] - '0')},
			Type: typ, Price: price, Status: booking.TicketIssued, Code: "CODE" + label})
		b.Total += price
	}
	add("E1", "adult", 1250)
	add("E2", "sweet", 10)
	add("E3", "sweet", 10)
	add("E4", "sweet", 10)
	add("E5", "child", 850)
	b.Payments = []booking.Payment{{Kind: booking.PaymentSale, Method: booking.Cash, Amount: b.Total, Tendered: 3000, Change: 3000 - b.Total, Staff: "carl", Terminal: "till-1", At: at}}
	return b
}

// TestReceipt_VAT is must-show 1b's receipt: in euros the German way, the
// 12.50 adult line holds VAT 20 % 2,08; the three 0.10 lines at 33 %
// hold 0.02 each, 0,06 (not the 0,07 of 0,30 taken whole); the untaxed
// line prints no tax line; the euro sign reaches the printer as a sign.
func TestReceipt_VAT(t *testing.T) {
	l, at := germanCinema(t)
	b := taxedBooking(at)
	cmds, err := escpostest.Parse(l.ReceiptJob(paper.SaleReceipt(b)))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(escpostest.Texts(cmds), "\n") + "\n"
	for _, want := range []string{"E1 Adult", "12,50 €", "VAT 20 % 2,08 €", "VAT 33 % 0,06 €", "net 10,42 €", "DE123456789", "Danke fur Ihren Besuch!"} {
		if !strings.Contains(text, want) {
			t.Errorf("receipt has no %q", want)
		}
	}
	golden(t, "receipt_vat.txt", text)
	rows := l.Tax(paper.SaleReceipt(b))
	if len(rows) != 3 || rows[1].Tax != 208 || rows[2].Tax != 6 {
		t.Fatalf("tax rows %+v", rows)
	}
}

// TestTickets_Currency: a ticket and its PDF write the price in the
// cinema's currency and locale.
func TestTickets_Currency(t *testing.T) {
	l, at := germanCinema(t)
	b := taxedBooking(at)
	job, err := l.TicketsJob(b)
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := escpostest.Parse(job)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(escpostest.Texts(cmds), "\n")
	for _, want := range []string{"Kino Roxy", "Adult  12,50 €", "Di 01.12.2026 21:00"} {
		if !strings.Contains(text, want) {
			t.Errorf("tickets have no %q:\n%s", want, text)
		}
	}
}

// TestZReport_VAT: a shift's Z report prints its tax by rate, the way
// its receipts do; the untaxed rate prints nothing.
func TestZReport_VAT(t *testing.T) {
	l, at := germanCinema(t)
	z := &booking.ShiftReport{Final: true, Shift: booking.Shift{ID: 7, Staff: "carl", OpenedAt: at, ClosedAt: at.Add(8 * time.Hour), Float: 10000},
		CashSales: 2130, Sales: 1, CashSaleCount: 1, Expected: 12130, Counted: 12130,
		Tax: []booking.TaxRow{{Rate: 0, Sales: 850, Gross: 850, Net: 850, Sold: 1}, {Rate: 2000, Sales: 1250, Gross: 1250, Tax: 208, Net: 1042, Sold: 1},
			{Rate: 3300, Sales: 30, Gross: 30, Tax: 6, Net: 24, Sold: 3}}}
	cmds, err := escpostest.Parse(l.ZReportJob(z))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(escpostest.Texts(cmds), "\n")
	for _, want := range []string{"Z REPORT", "Cash sales (1)                     21,30 €", "VAT 20 % 2,08 €                net 10,42 €", "VAT 33 % 0,06 €                 net 0,24 €", "Expected in drawer                121,30 €"} {
		if !strings.Contains(text, want) {
			t.Errorf("Z report has no %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "VAT 0 %") {
		t.Errorf("Z report prints the untaxed rate:\n%s", text)
	}
}
