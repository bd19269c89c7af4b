package paper_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"boxoffice/booking"
	"boxoffice/escpos/escpostest"
	"boxoffice/internal/hostile"
	"boxoffice/paper"
)

// hostileBooking is a sold booking of two tickets, one refunded, whose
// every text (number, film, rating, hall, seat, row, type, customer,
// phone, staff, terminal, reason) is h.
func hostileBooking(h string) *booking.Booking {
	at := time.Date(2026, 12, 1, 19, 30, 0, 0, time.UTC)
	seat := func(n int) booking.Seat { return booking.Seat{Label: h, RowTag: h, Number: n} }
	return &booking.Booking{Number: h, Customer: h, Phone: h, SoldBy: h, Terminal: h, CancelledBy: h, ApprovedBy: h, Reason: h, CreatedAt: at,
		Show: booking.Show{Film: booking.Film{Title: h, Rating: h, Minutes: 90}, HallName: h, Starts: at, CancelReason: h},
		Tickets: []booking.Ticket{
			{ID: 1, Seat: seat(1), Type: h, Price: 1250, Status: booking.TicketIssued, Code: "CODE1"},
			{ID: 2, Seat: seat(2), Type: h, Price: 850, Status: booking.TicketRefunded, Code: "CODE2"},
		},
		Payments: []booking.Payment{
			{Kind: booking.PaymentSale, Method: booking.Cash, Amount: 2100, Staff: h, Terminal: h, At: at},
			{Kind: booking.PaymentRefund, Method: booking.Cash, Amount: 850, Staff: h, Terminal: h, ApprovedBy: h, At: at.Add(time.Minute)},
		},
		Total: 2100}
}

// hostileJobs are every printout made from h: tickets and sale receipt,
// the refund receipt, a Z report and the test page.
func hostileJobs(t *testing.T, h string) map[string][]byte {
	t.Helper()
	l := paper.Layout{Cinema: h}
	b := hostileBooking(h)
	job, err := l.BookingJob(b)
	if err != nil {
		t.Fatal(err)
	}
	z := &booking.ShiftReport{Final: true, Shift: booking.Shift{ID: 1, Staff: h, Terminal: h, ClosedBy: h}, Breakdown: h}
	return map[string][]byte{
		"tickets and receipt": job,
		"refund receipt":      l.ReceiptJob(paper.RefundReceipt(b, b.CreatedAt)),
		"z report":            l.ZReportJob(z),
		"test page":           l.TestJob(b.CreatedAt, h),
	}
}

// TestHostile_Paper prints every hostile string in every text of every
// printout: the ESC/POS stream holds the same commands as for plain text
// (no text became a command), no text line holds a control character or
// is wider than the paper, and the PDF tickets are made and, read back
// by pdftotext when it is installed, hold no control character either.
func TestHostile_Paper(t *testing.T) {
	t.Parallel()
	names := func(job []byte) []string {
		cmds, err := escpostest.Parse(job)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cmds {
			if c.Name != "text" && c.Name != "qr-store" {
				out = append(out, c.Name)
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	plain := map[string][]string{}
	for what, job := range hostileJobs(t, "Plain") {
		plain[what] = names(job)
	}
	pdftotext, _ := exec.LookPath("pdftotext")
	dir := t.TempDir()
	for _, h := range hostile.Strings {
		for what, job := range hostileJobs(t, h.S) {
			if got := names(job); !slices.Equal(got, plain[what]) {
				t.Errorf("%s: %s: commands %v, plain text gives %v", h.Name, what, got, plain[what])
			}
			cmds, _ := escpostest.Parse(job)
			for _, line := range escpostest.Texts(cmds) {
				for _, l := range hostile.Leaks(line, false) {
					t.Errorf("%s: %s: %s", h.Name, what, l)
				}
				if n := utf8.RuneCountInString(line); n > paper.Width {
					t.Errorf("%s: %s: a line of %d characters on a %d-character paper: %q", h.Name, what, n, paper.Width, line)
				}
			}
		}
		var pdf bytes.Buffer
		if err := (paper.Layout{Cinema: h.S}).PDF(&pdf, hostileBooking(h.S)); err != nil {
			t.Errorf("%s: PDF: %v", h.Name, err)
			continue
		}
		if pdftotext == "" {
			continue
		}
		file := filepath.Join(dir, "t.pdf")
		os.WriteFile(file, pdf.Bytes(), 0o600)
		out, err := exec.Command(pdftotext, "-enc", "UTF-8", file, "-").Output()
		if err != nil {
			t.Errorf("%s: pdftotext: %v", h.Name, err)
		}
		// pdftotext ends pages with a form feed of its own.
		for _, l := range hostile.Leaks(strings.ReplaceAll(string(out), "\f", ""), false) {
			t.Errorf("%s: PDF text: %s", h.Name, l)
		}
	}
	if pdftotext == "" {
		t.Log("pdftotext is not installed: the PDFs' text is not read back")
	}
}
