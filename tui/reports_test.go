package tui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// reportsModel is a counter on the reports fixture (internal/storetest)
// at noon on its D3, signed in as name.
func reportsModel(t *testing.T, name string, w, h int) *Model {
	t.Helper()
	m, _ := reportsModelStore(t, name, w, h)
	return m
}

// reportsModelStore is reportsModel and its store.
func reportsModelStore(t *testing.T, name string, w, h int) (*Model, *db.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "boxoffice.db")
	dbtest.ReportFixture(t, path, time.Local)
	clock := storetest.NewClock(storetest.ReportDay(time.Local, 3, 12, 0))
	s := dbtest.Open(t, path, storeOptions(clock))
	m := newTestModel(t, s, clock, "reports-"+name, w, h)
	signIn(t, m, name, "1234")
	m.setInfo("")
	return m, s
}

// TestGolden_Reports draws every report at 80×24 and 120×40 (takings and
// occupancy in colour too), the note of an export, and the occupancy of
// the demo cinema, whose titles and halls would make the table wider than
// 80 columns: the names are taken in, no figure is cut. Every frame passes
// checkFits.
func TestGolden_Reports(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, h := size[0], size[1]
		m := reportsModel(t, "mgr", w, h)
		m.opts.ExportDir = filepath.Join(t.TempDir(), "exports")
		shot := func(name string, profiles ...colorprofile.Profile) {
			t.Helper()
			checkTableFits(t, name, m)
			for _, p := range append(profiles, colorprofile.Ascii) {
				golden(t, m, fmt.Sprintf("%s-%dx%d-%s", name, w, h, p), p)
			}
		}
		press(t, m, "ctrl+r")
		shot("reports-takings", colorprofile.ANSI256)
		press(t, m, "tab")
		shot("reports-occupancy", colorprofile.ANSI256)
		for _, name := range []string{"refunds", "shifts", "noshows", "reservations"} {
			press(t, m, "tab")
			shot("reports-" + name)
		}
		press(t, m, "tab") // a film's week for its distributor (reports_books.go)
		shot("reports-returns")
		press(t, m, "tab", "e")
		shot("reports-exported")

		clock := newClock()
		demo := newTestModel(t, MustOpenStore(t, clock), clock, fmt.Sprintf("reports-demo-%d", w), w, h)
		signIn(t, demo, assets.DemoUser, assets.DemoPIN)
		press(t, demo, "ctrl+r", "tab")
		m = demo
		shot("reports-occupancy-demo")
	}
}

// The week to today on open is the fixture's D0..D3 (Oct 29 to Nov 4):
// the hand-worked takings of D1..D3 (db/reports_test.go) and R8's 8.50
// on D0. tab, b, p and ← change what is added up and over which days.
func TestReports_Screen(t *testing.T) {
	m := reportsModel(t, "mgr", 120, 40)
	press(t, m, "ctrl+r")
	r := &m.reports
	if m.screen != screenReports || r.table == nil {
		t.Fatalf("screen %v, status %q", m.screen, m.status)
	}
	if got := r.table.total; got[1] != "204.00" || got[2] != "45.00" || got[3] != "159.00" || got[4] != "18" {
		t.Errorf("week's takings total %q", got)
	}
	if len(r.table.rows) != 7 || r.table.rows[4][0] != "Mon 2 Nov 2026" || r.table.rows[4][1] != "93.00" {
		t.Errorf("by day rows %q", r.table.rows)
	}
	press(t, m, "b") // by film
	if r.byName() != "film" || len(r.table.rows) != 2 || r.table.rows[0][0] != "First Film" {
		t.Errorf("by film %q", r.table.rows)
	}
	press(t, m, "p", "p", "p") // month, year, day
	press(t, m, "left")        // the day before: D2
	if s := r.span(); !s.From.Equal(storetest.ReportDay(time.Local, 2, 0, 0)) || !s.To.Equal(s.From) {
		t.Errorf("range %v..%v", s.From, s.To)
	}
	if got := r.table.total; got[1] != "90.00" { // D2 by film
		t.Errorf("D2 total %q", got)
	}
	press(t, m, "tab", "tab") // refunds of D2
	if len(r.table.rows) != 1 || r.table.rows[0][5] != "bob" || r.table.rows[0][6] != "sue" || r.table.head[7] != "Reason" {
		t.Errorf("refunds %q", r.table.rows)
	}
	if !strings.Contains(screenText(m), "Approved by") {
		t.Errorf("refunds screen:\n%s", screenText(m))
	}
	press(t, m, "esc")
	if m.screen != screenShows {
		t.Errorf("esc went to %v", m.screen)
	}
}

// At 80 columns every report's name is on screen: the tabs close up
// rather than one being cut to "…".
func TestReports_EveryTabAt80(t *testing.T) {
	m := reportsModel(t, "mgr", 80, 24)
	press(t, m, "ctrl+r")
	tabs := strings.Split(screenText(m), "\n")[2]
	for _, name := range reportNames {
		if !strings.Contains(tabs, name) {
			t.Errorf("%s is not on the tab line %q", name, tabs)
		}
	}
	if len([]rune(strings.TrimRight(tabs, " "))) > 80 {
		t.Errorf("tab line wider than 80: %q", tabs)
	}
}

// A clerk's ctrl+r opens nothing: reports are a manager's.
func TestReports_ManagersOnly(t *testing.T) {
	m := reportsModel(t, "ann", 80, 24)
	press(t, m, "ctrl+r")
	if m.screen != screenShows || m.reports.table != nil {
		t.Errorf("a clerk opened %v", m.screen)
	}
}

// e saves the report on show in the exports folder, under a name made
// from the report and its days, exactly as the sheet the store's report
// makes (what report --csv prints); a second save of the same report
// takes a new name, and the screen names each file.
func TestReports_Export(t *testing.T) {
	t.Parallel()
	m, s := reportsModelStore(t, "mgr", 80, 24)
	dir := filepath.Join(t.TempDir(), "exports")
	m.opts.ExportDir = dir
	press(t, m, "ctrl+r", "e")
	const name = "takings-by-day-2026-10-29-to-2026-11-04.csv"
	onScreen(t, m, "Saved 7 rows in the data folder:", "exports/"+name)
	got, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	span := m.reports.span()
	rep, err := s.ReportTakings(context.Background(), booking.System, booking.TakingsQuery{ReportRange: span, By: booking.ByDay})
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := booking.TakingsSheet(rep).WriteCSV(&want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) || !strings.HasPrefix(string(got), "key,label,sales,") || !strings.Contains(string(got), "total,,204.00,45.00,159.00,18,4") {
		t.Fatalf("the file:\n%s\nwant:\n%s", got, want.Bytes())
	}
	if info, err := os.Stat(filepath.Join(dir, name)); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the file's mode: %v %v", info.Mode(), err)
	}

	press(t, m, "e")
	onScreen(t, m, "exports/takings-by-day-2026-10-29-to-2026-11-04-2.csv")
	press(t, m, "tab", "tab", "tab", "tab", "tab", "e") // reservations
	onScreen(t, m, "exports/reservations-2026-10-29-to-2026-11-04.csv")
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 3 {
		t.Fatalf("the exports folder holds %v (%v)", entries, err)
	}
}

// The reservations report: taken, paid, lapsed and still reserved, per
// kiosk and counter, as report reservations counts them.
func TestReports_Reservations(t *testing.T) {
	t.Parallel()
	m := reportsModel(t, "mgr", 80, 24)
	press(t, m, "ctrl+r", "shift+tab", "shift+tab", "shift+tab") // past the returns and the vouchers
	r := &m.reports
	if r.kind != reportReservations || r.table == nil || len(r.table.rows) != 2 {
		t.Fatalf("the reservations report: %v %+v", r.kind, r.table)
	}
	onScreen(t, m, "[Reservations]", "the kiosk", "the counter", "Still reserved")
}
