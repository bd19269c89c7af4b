package paper_test

import (
	"bytes"
	"context"
	"image/png"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/makiuchi-d/gozxing"
	zxqr "github.com/makiuchi-d/gozxing/qrcode"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/escpos"
	"boxoffice/escpos/escpostest"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
	"boxoffice/paper"
)

var (
	clerk = booking.Actor{StaffID: 3, Name: "carl", Role: booking.RoleClerk, Terminal: "till-1"}
	door  = booking.Actor{StaffID: 4, Name: "dora", Role: booking.RoleDoor, Terminal: "door-1"}
)

// sold is a real sale of two seats of the store's first show, paid cash.
func sold(t *testing.T) (*db.Store, *storetest.Clock, *booking.Booking) {
	t.Helper()
	clock := storetest.FixedClock()
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now, SweepInterval: -1})
	ctx := context.Background()
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"G7", "G8"}, Owner: "o"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "o", IdempotencyKey: "k1",
		Method: booking.Cash, Tendered: 3000, Types: map[string]string{"G8": "child"}})
	if err != nil {
		t.Fatal(err)
	}
	return s, clock, b
}

// TestSend_TwoTicketSale is must-show 1: a printer on loopback TCP gets,
// for a 2-ticket sale, a stream read back command by command — the reset,
// each ticket's lines with seat and film, a native QR code of each
// ticket's code, a cut after each, then the receipt.
func TestSend_TwoTicketSale(t *testing.T) {
	_, _, b := sold(t)
	pr := escpostest.NewPrinter(t)
	target, err := booking.ParsePrinter(pr.URL())
	if err != nil {
		t.Fatal(err)
	}
	job, err := paper.Layout{Cinema: "Roxy \x1b@Cinema"}.BookingJob(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := paper.Send(context.Background(), target, job, 0); err != nil {
		t.Fatal(err)
	}
	cmds, err := escpostest.Parse(pr.Job(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if cmds[0].Name != "init" {
		t.Fatalf("first command %v, want init", cmds[0])
	}
	codes := []string{b.Tickets[0].Code, b.Tickets[1].Code}
	if got := escpostest.QRData(cmds); !slices.Equal(got, codes) {
		t.Fatalf("QR codes printed %q, want the tickets' %q", got, codes)
	}
	// Cut into its parts: ticket, ticket, receipt.
	var parts [][]escpostest.Cmd
	start := 1
	for i, c := range cmds {
		if c.Name == "cut" {
			parts = append(parts, cmds[start:i+1])
			start = i + 1
		}
	}
	if len(parts) != 3 || start != len(cmds) {
		t.Fatalf("%d cut parts (ending at %d of %d), want two tickets and a receipt", len(parts), start, len(cmds))
	}
	for i, seat := range []string{"Row G  Seat 7", "Row G  Seat 8"} {
		lines := escpostest.Texts(parts[i])
		for _, want := range []string{"Roxy @Cinema", "First Film", "Rating PG", "Hall Test Hall", seat, b.Number, codes[i]} {
			if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, want) }) {
				t.Errorf("ticket %d has no line with %q: %q", i+1, want, lines)
			}
		}
		if escpostest.Count(parts[i], "qr-print") != 1 {
			t.Errorf("ticket %d prints %d QR codes", i+1, escpostest.Count(parts[i], "qr-print"))
		}
	}
	receipt := strings.Join(escpostest.Texts(parts[2]), "\n")
	for _, want := range []string{"RECEIPT", "G7 Adult", "G8 Child", "Total", "21.00", "Paid cash", "30.00", "Change", "9.00", "Clerk carl", "Terminal till-1"} {
		if !strings.Contains(receipt, want) {
			t.Errorf("receipt has no %q:\n%s", want, receipt)
		}
	}
}

// TestSend_Failures: a refused connection, a printer that never reads,
// and one out of paper each fail with a message, within the timeout.
func TestSend_Failures(t *testing.T) {
	job := paper.Layout{}.TestJob(time.Now(), "test")
	t.Run("ErrRefused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		p, _ := booking.ParsePrinter("tcp://" + ln.Addr().String())
		ln.Close()
		err = paper.Send(context.Background(), p, job, time.Second)
		if err == nil || !strings.Contains(booking.ErrorMessage(err), "cannot be reached") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("ErrStalled", func(t *testing.T) {
		pr := escpostest.NewPrinter(t)
		pr.Stall(true)
		p, _ := booking.ParsePrinter(pr.URL())
		began := time.Now()
		err := paper.Send(context.Background(), p, job, 300*time.Millisecond)
		if err == nil || !strings.Contains(booking.ErrorMessage(err), "did not answer in time") {
			t.Fatalf("err = %v", err)
		}
		if d := time.Since(began); d > 5*time.Second {
			t.Fatalf("failure took %s for a 300ms timeout", d)
		}
	})
	t.Run("ErrPaperOut", func(t *testing.T) {
		pr := escpostest.NewPrinter(t)
		pr.PaperOut(true)
		p, _ := booking.ParsePrinter(pr.URL())
		err := paper.Send(context.Background(), p, job, time.Second)
		if err == nil || !strings.Contains(booking.ErrorMessage(err), "out of paper") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("ErrNoDevice", func(t *testing.T) {
		err := paper.Send(context.Background(), booking.Printer{Device: "/dev/no-such-printer"}, job, time.Second)
		if err == nil || !strings.Contains(booking.ErrorMessage(err), "no printer device") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("OKDevice", func(t *testing.T) {
		if err := paper.Send(context.Background(), booking.Printer{Device: "/dev/null"}, job, time.Second); err != nil {
			t.Fatal(err)
		}
	})
}

// TestLayout_CleansData: control characters in a film title or a name
// never reach the printer as commands.
func TestLayout_CleansData(t *testing.T) {
	b := &booking.Booking{Number: "BO-1\x1bd", SoldBy: "carl\x1dV\x42", Terminal: "till\x10\x04\x04",
		Show:    booking.Show{Film: booking.Film{Title: "Evil\x1b@\x1dV\x42\x00Film\u009b", Rating: "\x1bE"}, HallName: "H\n\x1b", Starts: time.Now()},
		Tickets: []booking.Ticket{{ID: 1, Seat: booking.Seat{Label: "A1", RowTag: "A\x1b", Number: 1}, Type: "adult\x1d!", Price: 100, Status: booking.TicketIssued, Code: "CODE"}},
		Total:   100}
	job, err := paper.Layout{Cinema: "\x1b@"}.BookingJob(b)
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := escpostest.Parse(job)
	if err != nil {
		t.Fatal(err)
	}
	if n := escpostest.Count(cmds, "init"); n != 1 {
		t.Fatalf("%d init commands: data reset the printer", n)
	}
	if n := escpostest.Count(cmds, "cut"); n != 2 {
		t.Fatalf("%d cuts, want 2 (ticket, receipt)", n)
	}
	var d escpos.Doc
	paper.Layout{}.ZReport(&d, &booking.ShiftReport{Final: true, Shift: booking.Shift{ID: 1, Staff: "x\x1b@", Terminal: "\x1dV"}})
	if cmds, err := escpostest.Parse(d.Bytes()); err != nil || escpostest.Count(cmds, "init") != 0 || escpostest.Count(cmds, "cut") != 1 {
		t.Fatalf("Z report commands %v, %v", cmds, err)
	}
}

// TestZReport prints a closed shift's figures.
func TestZReport(t *testing.T) {
	s, _, _ := sold(t)
	z, err := s.CloseShift(context.Background(), clerk, booking.CloseShiftRequest{Counted: 12000})
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := escpostest.Parse(paper.Layout{}.ZReportJob(z))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(escpostest.Texts(cmds), "\n")
	for _, want := range []string{"Z REPORT", "carl", "Float", "Cash sales (1)", "21.00", "Expected in drawer", z.Expected.String(), "Counted", "120.00", "Variance", z.Variance.String()} {
		if !strings.Contains(text, want) {
			t.Errorf("Z report has no %q:\n%s", want, text)
		}
	}
}

// TestXReport_CountsByMethod: an open shift's X report counts its cash
// sales apart from its card ones. Before, "Cash sales (2)" after one
// cash and one card sale.
func TestXReport_CountsByMethod(t *testing.T) {
	s, _, _ := sold(t) // one cash sale of two seats
	ctx := context.Background()
	h, err := s.Hold(ctx, clerk, booking.HoldRequest{ShowID: 1, Seats: []string{"H1"}, Owner: "card"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Checkout(ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "card", IdempotencyKey: "k2", Method: booking.Card}); err != nil {
		t.Fatal(err)
	}
	cur, err := s.CurrentShift(ctx, clerk)
	if err != nil {
		t.Fatal(err)
	}
	x, err := s.ShiftReport(ctx, clerk, cur.ID)
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := escpostest.Parse(paper.Layout{}.ZReportJob(x))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(escpostest.Texts(cmds), "\n")
	for _, want := range []string{"X REPORT", "Cash sales (1)", "Card sales (1)", "12.50", "Cash refunds (0)", "Card refunds (0)"} {
		if !strings.Contains(text, want) {
			t.Errorf("X report has no %q:\n%s", want, text)
		}
	}
}

// TestRefundReceipt prints the refund just made, with why and who
// approved it: the supervisor whose PIN the clerk's counter took, or the
// supervisor who refunded alone.
func TestRefundReceipt(t *testing.T) {
	s, clock, b := sold(t)
	clock.Add(time.Minute)
	since := clock.Now()
	after, err := s.RefundTickets(context.Background(), clerk, booking.RefundRequest{Number: b.Number, Seats: []string{"G8"},
		Reason: "the child's seat was broken and nobody could move it", Approver: &booking.Credentials{Name: "sue", PIN: "1234"}})
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := escpostest.Parse(paper.Layout{}.ReceiptJob(paper.RefundReceipt(after, since)))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(escpostest.Texts(cmds), "\n")
	for _, want := range []string{"REFUND", "G8 Child", "8.50", "Paid out cash", "Reason: the child's seat was broken and\nnobody could move it", "Approved by sue", "Clerk carl"} {
		if !strings.Contains(text, want) {
			t.Errorf("refund receipt has no %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "G7 Adult") {
		t.Errorf("refund receipt lists the seat kept:\n%s", text)
	}
	// The booking's printable tickets are now only G7.
	if got := paper.Printable(after); len(got) != 1 || got[0].Seat.Label != "G7" {
		t.Fatalf("printable after refund = %+v", got)
	}

	// A supervisor refunding alone approved it themselves.
	clock.Add(time.Minute)
	since = clock.Now()
	sup := booking.Actor{StaffID: 2, Name: "sue", Role: booking.RoleSupervisor, Terminal: "till-2"}
	last, err := s.RefundTickets(context.Background(), sup, booking.RefundRequest{Number: b.Number, Seats: []string{"G7"}})
	if err != nil {
		t.Fatal(err)
	}
	cmds, err = escpostest.Parse(paper.Layout{}.ReceiptJob(paper.RefundReceipt(last, since)))
	if err != nil {
		t.Fatal(err)
	}
	text = strings.Join(escpostest.Texts(cmds), "\n")
	// "G8 Child", the seat's line: a random booking number may hold "G8".
	if !strings.Contains(text, "Approved by sue") || strings.Contains(text, "G8 Child") || strings.Contains(text, "Reason") {
		t.Errorf("a supervisor's own refund receipt:\n%s", text)
	}
}

// TestReprintReceipt: a receipt printed again says DUPLICATE, top and
// foot, and lists the refunds made since the sale with what the sale
// comes to after them; the first one says neither.
func TestReprintReceipt(t *testing.T) {
	s, clock, b := sold(t)
	receipt := func(job []byte, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		cmds, err := escpostest.Parse(job)
		if err != nil {
			t.Fatal(err)
		}
		texts := escpostest.Texts(cmds)
		at := slices.Index(texts, "RECEIPT")
		if at < 0 {
			t.Fatalf("no receipt in %q", texts)
		}
		return strings.Join(texts[at:], "\n")
	}
	if first := receipt(paper.Layout{}.BookingJob(b)); strings.Contains(first, "DUPLICATE") || strings.Contains(first, "Refund") {
		t.Errorf("the sale's own receipt:\n%s", first)
	}
	clock.Add(time.Minute)
	sup := booking.Actor{StaffID: 2, Name: "sue", Role: booking.RoleSupervisor, Terminal: "till-2"}
	after, err := s.RefundTickets(context.Background(), sup, booking.RefundRequest{Number: b.Number, Seats: []string{"G8"}})
	if err != nil {
		t.Fatal(err)
	}
	again := receipt(paper.Layout{}.ReprintJob(after))
	if strings.Count(again, "*** DUPLICATE ***") != 2 || !strings.HasPrefix(again, "RECEIPT\n*** DUPLICATE ***") {
		t.Errorf("the reprint is not marked DUPLICATE top and foot:\n%s", again)
	}
	for _, want := range []string{"G7 Adult", "G8 Child", "Total", "21.00", "Refund G8 Child", "-8.50", "Refunded", "Net", "12.50"} {
		if !strings.Contains(again, want) {
			t.Errorf("the reprint has no %q:\n%s", want, again)
		}
	}
}

// TestPDF_ScansAndAdmitsOnce is must-show 2: the PDF rendered to an image
// (pdftoppm) has on each page a QR code that reads as that ticket's code,
// and the code admits once at the door.
func TestPDF_ScansAndAdmitsOnce(t *testing.T) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Skip("pdftoppm (poppler-utils) is not installed: cannot render the PDF to read its QR codes back; .ci/run installs it")
	}
	s, clock, b := sold(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "tickets.pdf")
	if err := (paper.Layout{}).WritePDF(path, b); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftoppm", "-png", "-r", "150", path, filepath.Join(dir, "page")).CombinedOutput()
	if err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, out)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "page*.png"))
	slices.Sort(pages)
	if len(pages) != 2 {
		t.Fatalf("%d pages rendered, want one per ticket: %v", len(pages), pages)
	}
	clock.Add(2*time.Hour - 10*time.Minute) // doors open
	for i, page := range pages {
		code := scan(t, page)
		if code != b.Tickets[i].Code {
			t.Fatalf("page %d scans as %q, want ticket %s's code %q", i+1, code, b.Tickets[i].Seat.Label, b.Tickets[i].Code)
		}
		if _, err := s.Admit(context.Background(), door, code); err != nil {
			t.Fatalf("page %d's code does not admit: %v", i+1, err)
		}
		if _, err := s.Admit(context.Background(), door, code); booking.ErrorCode(err) != booking.EConflict {
			t.Fatalf("page %d's code admitted twice: %v", i+1, err)
		}
	}
}

func scan(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := zxqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("%s: no QR code read: %v", filepath.Base(path), err)
	}
	return res.GetText()
}

// TestWritePDF_NeverOverwrites refuses an existing file and leaves it be.
func TestWritePDF_NeverOverwrites(t *testing.T) {
	_, _, b := sold(t)
	path := filepath.Join(t.TempDir(), "x.pdf")
	if err := os.WriteFile(path, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := paper.Layout{}.WritePDF(path, b)
	if booking.ErrorCode(err) != booking.EInvalid || !strings.Contains(booking.ErrorMessage(err), "exists already") {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, []byte("keep me")) {
		t.Fatalf("file now %q", got)
	}
	dir := t.TempDir()
	p1, err := paper.Layout{}.WritePDFIn(dir, b)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := paper.Layout{}.WritePDFIn(dir, b)
	if err != nil || p1 == p2 {
		t.Fatalf("second PDF %q (%v) beside %q", p2, err, p1)
	}
	if !strings.HasPrefix(filepath.Base(p1), "tickets-BO-") {
		t.Fatalf("PDF name %q", p1)
	}
}
