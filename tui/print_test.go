package tui

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/escpos/escpostest"
	"boxoffice/internal/storetest"
)

// newPrintModel is newTestModel with printing options.
func newPrintModel(tb testing.TB, store Backend, clock *storetest.Clock, owner string, opts Options) *Model {
	tb.Helper()
	opts.Store, opts.Demo, opts.Owner, opts.Terminal, opts.Now = store, true, owner, "counter-1", clock.Now
	opts.DemoCredentials = booking.Credentials{Name: assets.DemoUser, PIN: assets.DemoPIN}
	m := New(opts)
	m.parkBlocking = true
	tb.Cleanup(m.Close)
	send(tb, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	run(tb, m, m.Init())
	return m
}

// TestModel_PrintStalledPrinter is must-show 3: a printer that accepts
// the connection and never reads. The sale stands, the counter answers
// keys while the job hangs, the failure shows within the timeout, and once
// the printer reads again p prints the tickets with their codes.
func TestModel_PrintStalledPrinter(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	pr := escpostest.NewPrinter(t)
	pr.Stall(true)
	p, err := booking.ParsePrinter(pr.URL())
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 700 * time.Millisecond
	m := newPrintModel(t, s, clock, "stall", Options{Printer: p, PrintTimeout: timeout})
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter", "enter", "enter") // two seats, exact cash, sell
	if m.screen != screenDone {
		t.Fatalf("sale: screen %v status %q", m.screen, m.status)
	}
	sold := m.done.booking
	if b, err := s.Booking(context.Background(), booking.System, sold.Number); err != nil || b.Status != booking.BookingConfirmed {
		t.Fatalf("the sale does not stand: %+v, %v", b, err)
	}
	if !strings.Contains(m.status, "Printing") {
		t.Fatalf("status %q while printing", m.status)
	}

	// The job runs on a goroutine of its own, as the program runs it.
	job := takeParked(t, m, parkPrint)
	began := time.Now()
	answer := make(chan []tea.Msg, 1)
	go func() { answer <- exec(job) }()
	// Meanwhile the counter answers keys: the help opens and closes, and a
	// second p only says a job is running.
	press(t, m, "?")
	if !m.help.ShowAll {
		t.Fatal("? not handled while printing")
	}
	press(t, m, "?", "p")
	if m.help.ShowAll || !strings.Contains(m.status, "Still printing") {
		t.Fatalf("keys not handled while printing: help %v status %q", m.help.ShowAll, m.status)
	}
	var msgs []tea.Msg
	select {
	case msgs = <-answer:
	case <-time.After(timeout + 10*time.Second):
		t.Fatal("the print job never ended")
	}
	// The job's deadline ends it: not before the timeout, and not long
	// after (the slack is for a machine busy compiling).
	if d := time.Since(began); d < timeout/2 || d > timeout+3*time.Second {
		t.Fatalf("a stalled printer failed after %s, for a %s timeout", d, timeout)
	}
	send(t, m, msgs...)
	if !m.statusErr || !strings.Contains(m.status, "Printing failed — reprint from the booking.") {
		t.Fatalf("status after the stall: %q (error %v)", m.status, m.statusErr)
	}
	if m.screen != screenDone {
		t.Fatalf("screen %v after a failed print", m.screen)
	}

	// The printer reads again: reprint.
	pr.Stall(false)
	press(t, m, "p")
	run(t, m, takeParked(t, m, parkPrint))
	cmds, err := escpostest.Parse(pr.Job(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	codes := []string{sold.Tickets[0].Code, sold.Tickets[1].Code}
	if got := escpostest.QRData(cmds); !slices.Equal(got, codes) {
		t.Fatalf("reprinted QR codes %q, want %q", got, codes)
	}
	if m.statusErr || !strings.Contains(m.status, "Printed 2 ticket(s)") {
		t.Fatalf("status after the reprint: %q", m.status)
	}

	// And from the find result.
	press(t, m, "ctrl+f")
	typeText(t, m, sold.Number)
	press(t, m, "enter", "tab")
	if m.find.mode != findView {
		t.Fatalf("find: mode %v status %q", m.find.mode, m.status)
	}
	press(t, m, "p")
	run(t, m, takeParked(t, m, parkPrint))
	if cmds, err := escpostest.Parse(pr.Job(t, 5*time.Second)); err != nil || escpostest.Count(cmds, "qr-print") != 2 {
		t.Fatalf("reprint from find: %v, %v", cmds, err)
	}
}

// TestModel_PrintPDFWithoutPrinter: a counter with no printer but a PDF
// directory writes the tickets there and names the file.
func TestModel_PrintPDFWithoutPrinter(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	dir := t.TempDir()
	m := newPrintModel(t, s, clock, "pdf", Options{PDFDir: dir})
	openGrandShow(t, m)
	press(t, m, "1", "b", "enter", "enter", "enter")
	if m.screen != screenDone {
		t.Fatalf("sale: screen %v status %q", m.screen, m.status)
	}
	run(t, m, takeParked(t, m, parkPrint))
	i := strings.Index(m.status, dir)
	if m.statusErr || i < 0 {
		t.Fatalf("status %q names no PDF in %s", m.status, dir)
	}
	path := m.status[i:]
	if b, err := os.ReadFile(path); err != nil || !strings.HasPrefix(string(b), "%PDF-") {
		t.Fatalf("PDF %s: %v", path, err)
	}
}

// TestModel_NoPrinterNoJob: a counter with neither prints nothing and
// offers no reprint key.
func TestModel_NoPrinterNoJob(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "none", 80, 24)
	openGrandShow(t, m)
	press(t, m, "1", "b", "enter", "enter", "enter")
	for _, p := range m.parked {
		if p.kind == parkPrint {
			t.Fatal("a print job without a printer")
		}
	}
	if strings.Contains(m.View().Content, "print tickets again") {
		t.Fatal("reprint offered without a printer")
	}
}

// TestModel_PrintRefundAndZReport: a cancel prints its refund receipt and
// closing the shift prints the Z report, on the counter's printer.
func TestModel_PrintRefundAndZReport(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	pr := escpostest.NewPrinter(t)
	p, _ := booking.ParsePrinter(pr.URL())
	m := newPrintModel(t, s, clock, "refund", Options{Printer: p})
	openGrandShow(t, m)
	press(t, m, "1", "b", "enter", "enter", "enter")
	sold := m.done.booking
	run(t, m, takeParked(t, m, parkPrint))
	pr.Job(t, 5*time.Second)

	press(t, m, "ctrl+f")
	typeText(t, m, sold.Number)
	press(t, m, "enter", "tab", "c", "enter", "right", "enter")
	if b, err := s.Booking(context.Background(), booking.System, sold.Number); err != nil || b.Status != booking.BookingCancelled {
		t.Fatalf("cancel: %v, status %q", err, m.status)
	}
	run(t, m, takeParked(t, m, parkPrint))
	cmds, err := escpostest.Parse(pr.Job(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(escpostest.Texts(cmds), "\n")
	if !strings.Contains(text, "REFUND") || !strings.Contains(text, sold.Tickets[0].Seat.Label) || escpostest.Count(cmds, "qr-print") != 0 {
		t.Fatalf("refund receipt:\n%s", text)
	}
	if !strings.Contains(m.status, "Printed the refund receipt") {
		t.Fatalf("status %q", m.status)
	}

	press(t, m, "ctrl+t", "c")
	typeText(t, m, "100")
	press(t, m, "enter", "enter", "right", "enter")
	if m.shift.mode != shiftZ {
		t.Fatalf("shift mode %v status %q", m.shift.mode, m.status)
	}
	run(t, m, takeParked(t, m, parkPrint))
	cmds, err = escpostest.Parse(pr.Job(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(escpostest.Texts(cmds), "\n"); !strings.Contains(text, "Z REPORT") || !strings.Contains(text, "Counted") {
		t.Fatalf("Z report:\n%s", text)
	}
}

// TestModel_ReprintIsDuplicate: the receipt printed with the sale is the
// only one without DUPLICATE; a refund's receipt says why; p on the
// booking afterwards prints the receipt marked DUPLICATE with that
// refund on it.
func TestModel_ReprintIsDuplicate(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	pr := escpostest.NewPrinter(t)
	p, _ := booking.ParsePrinter(pr.URL())
	m := newPrintModel(t, s, clock, "reprint", Options{Printer: p})
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter", "enter", "enter")
	sold := m.done.booking
	run(t, m, takeParked(t, m, parkPrint))
	job := func() string {
		t.Helper()
		cmds, err := escpostest.Parse(pr.Job(t, 5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(escpostest.Texts(cmds), "\n")
	}
	if text := job(); !strings.Contains(text, "RECEIPT") || strings.Contains(text, "DUPLICATE") {
		t.Fatalf("the sale's receipt:\n%s", text)
	}

	press(t, m, "ctrl+f")
	typeText(t, m, sold.Number)
	press(t, m, "enter", "tab", "r", "enter")
	typeText(t, m, "seat wobbles")
	press(t, m, "enter", "right", "enter")
	after, err := s.Booking(context.Background(), booking.System, sold.Number)
	if err != nil || len(after.Payments) != 2 {
		t.Fatalf("refund: %v, status %q, screen:\n%s", err, m.status, screenText(m))
	}
	run(t, m, takeParked(t, m, parkPrint))
	if text := job(); !strings.Contains(text, "REFUND") || !strings.Contains(text, "Reason: seat wobbles") || !strings.Contains(text, "Approved by") {
		t.Fatalf("the refund's receipt:\n%s", text)
	}

	press(t, m, "p")
	run(t, m, takeParked(t, m, parkPrint))
	text := job()
	refunded := after.Payments[1].Amount.String()
	if strings.Count(text, "DUPLICATE") != 2 || !strings.Contains(text, "Refund "+sold.Tickets[0].Seat.Label) || !strings.Contains(text, "-"+refunded) {
		t.Fatalf("the receipt printed again:\n%s", text)
	}
}

// TestModel_PrintReadsSettings: the counter's printouts read the
// cinema's settings and tax rates with each job, not when the session
// opened: the sale's receipt is in euros with its VAT line, and a name
// set after it heads the next job, the refund's receipt.
func TestModel_PrintReadsSettings(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	pr := escpostest.NewPrinter(t)
	p, _ := booking.ParsePrinter(pr.URL())
	m := newPrintModel(t, s, clock, "settings", Options{Printer: p})
	for k, v := range map[string]string{booking.SetSymbol: "€", booking.SetLocale: "de"} {
		if _, err := s.SetSetting(ctx, booking.System, booking.AllSites, k, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.SetTaxRate(ctx, booking.System, booking.TaxRate{Key: booking.TicketTax("adult"), Rate: 2000}); err != nil {
		t.Fatal(err)
	}
	openGrandShow(t, m)
	press(t, m, "1", "b", "enter", "enter", "enter")
	sold := m.done.booking
	run(t, m, takeParked(t, m, parkPrint))
	cmds, err := escpostest.Parse(pr.Job(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(escpostest.Texts(cmds), "\n")
	if !strings.Contains(text, "12,50 €") || !strings.Contains(text, "VAT 20 % 2,08 €") {
		t.Fatalf("sale receipt without the settings:\n%s", text)
	}

	if _, err := s.SetSetting(ctx, booking.System, booking.AllSites, booking.SetName, "Kino Roxy"); err != nil {
		t.Fatal(err)
	}
	press(t, m, "ctrl+f")
	typeText(t, m, sold.Number)
	press(t, m, "enter", "tab", "c", "enter", "right", "enter")
	run(t, m, takeParked(t, m, parkPrint))
	cmds, err = escpostest.Parse(pr.Job(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(escpostest.Texts(cmds), "\n"); !strings.Contains(text, "Kino Roxy") || !strings.Contains(text, "REFUND") {
		t.Fatalf("refund receipt without the name set since:\n%s", text)
	}
}
