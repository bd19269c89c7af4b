package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// reportsModel is a counter on the reports fixture (internal/storetest)
// at noon on its D3, signed in as name.
func reportsModel(t *testing.T, name string, w, h int) *Model {
	t.Helper()
	path := filepath.Join(t.TempDir(), "boxoffice.db")
	dbtest.ReportFixture(t, path, time.Local)
	clock := storetest.NewClock(storetest.ReportDay(time.Local, 3, 12, 0))
	s := dbtest.Open(t, path, storeOptions(clock))
	m := newTestModel(t, s, clock, "reports-"+name, w, h)
	signIn(t, m, name, "1234")
	m.setInfo("")
	return m
}

// TestGolden_Reports draws the takings and the occupancy (bars) at 80×24
// and 120×40.
func TestGolden_Reports(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, h := size[0], size[1]
		m := reportsModel(t, "mgr", w, h)
		shot := func(name string) {
			for _, p := range []colorprofile.Profile{colorprofile.Ascii, colorprofile.ANSI256} {
				golden(t, m, fmt.Sprintf("%s-%dx%d-%s", name, w, h, p), p)
			}
		}
		press(t, m, "ctrl+r")
		shot("reports-takings")
		press(t, m, "tab")
		shot("reports-occupancy")
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
	if len(r.table.rows) != 1 || r.table.rows[0][5] != "bob" || r.table.rows[0][6] != "sue" {
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

// A clerk's ctrl+r opens nothing: reports are a manager's.
func TestReports_ManagersOnly(t *testing.T) {
	m := reportsModel(t, "ann", 80, 24)
	press(t, m, "ctrl+r")
	if m.screen != screenShows || m.reports.table != nil {
		t.Errorf("a clerk opened %v", m.screen)
	}
}
