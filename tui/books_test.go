package tui

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/escpos/escpostest"
	"boxoffice/paper"
)

// TestModel_CashSaleOpensDrawer is the drawer's must-show: a cash sale
// printed on an ESC/POS printer whose counter has a drawer opens it (ESC
// p, read back by the test parser) before the receipt; a card sale
// prints the same without the pulse.
func TestModel_CashSaleOpensDrawer(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	pr := escpostest.NewPrinter(t)
	p, err := booking.ParsePrinter(pr.URL())
	if err != nil {
		t.Fatal(err)
	}
	m := newPrintModel(t, s, clock, "drawer", Options{Printer: p, PrintTimeout: 5 * time.Second, Layout: paper.Layout{Drawer: true}})
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	sale := func(keys ...string) []escpostest.Cmd {
		t.Helper()
		openGrand(t, m)
		press(t, m, keys...)
		if m.screen != screenDone {
			t.Fatalf("sale: screen %v status %q", m.screen, m.status)
		}
		run(t, m, takeParked(t, m, parkPrint))
		cmds, err := escpostest.Parse(pr.Job(t, 5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		press(t, m, "esc") // back to the shows
		return cmds
	}
	cash := sale("2", "b", "enter", "enter", "enter") // exact cash
	if n := escpostest.Count(cash, "drawer"); n != 1 || escpostest.Count(cash, "qr-print") != 2 {
		t.Fatalf("a cash sale: %d drawer pulses, %d tickets; want 1 and 2", n, escpostest.Count(cash, "qr-print"))
	}
	card := sale("2", "b", "enter", "c", "enter") // card, to Sell
	if n := escpostest.Count(card, "drawer"); n != 0 || escpostest.Count(card, "qr-print") != 2 {
		t.Fatalf("a card sale: %d drawer pulses, %d tickets; want 0 and 2", n, escpostest.Count(card, "qr-print"))
	}
}

// TestModel_AgeRatedSaleAsksID: a film rated above the cinema's age asks
// the clerk once per sale whether they checked ID; any key but y sells
// nothing, y records the check in the audit trail and sells.
func TestModel_AgeRatedSaleAsksID(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	shows, err := s.Shows(ctx, booking.System, clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range shows {
		if sh.HallName == "Grand" {
			f := sh.Film
			f.Rating = "18"
			if err := s.EditFilm(ctx, booking.System, f); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	m := newTestModel(t, s, clock, "id", 100, 30)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter", "enter", "enter") // exact cash, Sell
	if m.screen != screenCheckout || !strings.Contains(m.status, "is rated 18: did you check the customer's ID? y yes") {
		t.Fatalf("no ID question: screen %v status %q", m.screen, m.status)
	}
	press(t, m, "enter") // the default is No
	if m.screen != screenCheckout || !m.statusErr || !strings.Contains(m.status, "Not sold.") {
		t.Fatalf("after no: screen %v status %q", m.screen, m.status)
	}
	press(t, m, "enter") // Sell again: asked again
	if !strings.Contains(m.status, "did you check the customer's ID?") {
		t.Fatalf("not asked again: %q", m.status)
	}
	press(t, m, "y")
	if m.screen != screenDone {
		t.Fatalf("after yes: screen %v status %q", m.screen, m.status)
	}
	rows, err := s.Audit(ctx, booking.System, booking.AuditQuery{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	checks := 0
	for _, r := range rows {
		if r.Action == booking.AuditIDCheck {
			checks++
		}
	}
	if checks != 1 {
		t.Fatalf("%d id_check rows, want 1: %+v", checks, rows)
	}
}

// TestModel_NoSaleOpensDrawer: n on the shift screen asks a reason,
// records the "no sale" in the audit trail and prints the slip that
// opens the drawer; no reason opens nothing.
func TestModel_NoSaleOpensDrawer(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	pr := escpostest.NewPrinter(t)
	p, err := booking.ParsePrinter(pr.URL())
	if err != nil {
		t.Fatal(err)
	}
	m := newPrintModel(t, s, clock, "nosale", Options{Printer: p, PrintTimeout: 5 * time.Second, Layout: paper.Layout{Drawer: true}})
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	press(t, m, "ctrl+t")
	if m.screen != screenShift || m.shift.mode != shiftOpen {
		t.Fatalf("shift screen: %v mode %v status %q", m.screen, m.shift.mode, m.status)
	}
	press(t, m, "n", "enter")
	if !m.statusErr || m.shift.mode != shiftNoSale {
		t.Fatalf("a no sale without a reason: mode %v status %q", m.shift.mode, m.status)
	}
	typeText(t, m, "change")
	press(t, m, "enter")
	if m.shift.mode != shiftOpen || !strings.Contains(m.status, "No sale recorded: change.") {
		t.Fatalf("after the reason: mode %v status %q", m.shift.mode, m.status)
	}
	run(t, m, takeParked(t, m, parkPrint))
	cmds, err := escpostest.Parse(pr.Job(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if escpostest.Count(cmds, "drawer") != 1 || !slices.Contains(escpostest.Texts(cmds), "No sale: change") {
		t.Fatalf("the slip: %v", cmds)
	}
	rows, err := s.Audit(context.Background(), booking.System, booking.AuditQuery{Limit: 3})
	if err != nil || len(rows) == 0 || rows[0].Action != booking.AuditNoSale || rows[0].Detail != "no sale: change" {
		t.Fatalf("audit: %+v, %v", rows, err)
	}
}

// TestReports_DistributorExport: the reports screen's returns are a
// film's week, b steps to the next film, and e saves the sheet that
// `boxoffice report distributor --csv` prints.
func TestReports_DistributorExport(t *testing.T) {
	t.Parallel()
	m, s := reportsModelStore(t, "mgr", 120, 40)
	m.opts.ExportDir = filepath.Join(t.TempDir(), "exports")
	press(t, m, "ctrl+r", "shift+tab")
	r := &m.reports
	if r.kind != reportDistributor || r.table == nil || len(r.films) == 0 || r.sheet == nil {
		t.Fatalf("the returns: kind %v table %+v films %d", r.kind, r.table, len(r.films))
	}
	first := r.filmName()
	press(t, m, "b")
	if len(r.films) > 1 && r.filmName() == first {
		t.Fatalf("b stayed on %q", first)
	}
	press(t, m, "b") // round again
	for r.filmName() != first {
		press(t, m, "b")
	}
	press(t, m, "e")
	entries, err := os.ReadDir(m.opts.ExportDir)
	if err != nil || len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), "distributor-film-") {
		t.Fatalf("exports: %v, %v", entries, err)
	}
	got, err := os.ReadFile(filepath.Join(m.opts.ExportDir, entries[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.DistributorReturn(context.Background(), booking.System, booking.ReturnQuery{Film: r.films[r.by%len(r.films)].ID, Week: r.span().From})
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	if err := booking.DistributorSheet(rep).WriteCSV(&want); err != nil {
		t.Fatal(err)
	}
	if string(got) != want.String() || rep.Total.Paid == 0 {
		t.Fatalf("the export:\n%s\nwant (paid %d)\n%s", got, rep.Total.Paid, want.String())
	}
}
