package tui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
)

// bookingNumbers are random; the audit goldens draw them as BO-NNNNNNNN,
// the same width, so the layout is still compared cell for cell.
var bookingNumbers = regexp.MustCompile(`BO-[23456789A-HJKMNP-TV-Z]{8}`)

// auditGolden is golden with the booking numbers masked.
func auditGolden(t *testing.T, m *Model, name string, profile colorprofile.Profile) {
	t.Helper()
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: profile}
	if _, err := w.WriteString(m.View().Content); err != nil {
		t.Fatal(err)
	}
	got := bookingNumbers.ReplaceAll(buf.Bytes(), []byte("BO-NNNNNNNN"))
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui/ -run Audit -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (run with -update if the change is intended)\ngot:\n%s\nwant:\n%s", name, path, got, want)
	}
}

// auditTrail makes a trail with two clerks at two counters: carl sells
// and sue cancels, a sign-in is refused, a price changes.
func auditTrail(t *testing.T, s *db.Store, clock interface{ Add(time.Duration) }) *booking.Booking {
	t.Helper()
	ctx := context.Background()
	addStaff(t, s, "carl", booking.RoleClerk, "1234")
	addStaff(t, s, "sue", booking.RoleSupervisor, "1234")
	carl := booking.Actor{Name: "carl", Role: booking.RoleClerk, Terminal: "till-1"}
	sue := booking.Actor{Name: "sue", Role: booking.RoleSupervisor, Terminal: "till-2"}
	shows, err := s.Shows(ctx, booking.System, dayOf(testStart))
	if err != nil {
		t.Fatal(err)
	}
	show := shows[len(shows)-1]
	var sold *booking.Booking
	for i, seats := range [][]string{{"A1", "A2"}, {"B1"}, {"C4", "C5", "C6"}} {
		clock.Add(time.Minute)
		h, err := s.Hold(ctx, carl, booking.HoldRequest{ShowID: show.ID, Seats: seats, Owner: "carl"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Checkout(ctx, carl, booking.CheckoutRequest{HoldID: h.ID, Owner: "carl", IdempotencyKey: fmt.Sprint("audit-", i), Method: booking.Cash})
		if err != nil {
			t.Fatal(err)
		}
		sold = b
	}
	clock.Add(time.Minute)
	if _, err := s.Cancel(ctx, sue, booking.CancelRequest{Number: sold.Number, Reason: "customer asked"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "9999", Terminal: "till-1"}); err == nil {
		t.Fatal("a wrong PIN signed in")
	}
	if err := s.SetPrice(ctx, booking.System, booking.TicketType{Code: "child", Name: "Child", Price: 900}); err != nil {
		t.Fatal(err)
	}
	return sold
}

// TestGolden_Audit draws the audit trail at 80×24 and 120×40: all of it,
// then one person's, the row under the cursor told whole under the table
// (checkFits: wrapped, never cut at the edge).
func TestGolden_Audit(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	auditTrail(t, s, clock)
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, hgt := size[0], size[1]
		m := newTestModel(t, s, clock, fmt.Sprintf("audit-%d", w), w, hgt)
		signIn(t, m, assets.DemoUser, assets.DemoPIN)
		press(t, m, "ctrl+e")
		checkTableFits(t, "audit", m)
		for _, p := range []colorprofile.Profile{colorprofile.Ascii, colorprofile.ANSI256} {
			auditGolden(t, m, fmt.Sprintf("audit-%dx%d-%s", w, hgt, p), p)
		}
		typeText(t, m, "SUE")
		press(t, m, "enter")
		checkTableFits(t, "audit of sue", m)
		auditGolden(t, m, fmt.Sprintf("audit-sue-%dx%d-%s", w, hgt, colorprofile.Ascii), colorprofile.Ascii)
	}
}

// TestAudit_Screen: a manager filters the trail by person, booking and
// day and scrolls it; a clerk is not let in; esc goes back to the shows.
func TestAudit_Screen(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	sold := auditTrail(t, s, clock)

	clerkM := newTestModel(t, s, clock, "audit-clerk", 120, 40)
	signIn(t, clerkM, "carl", "1234")
	press(t, clerkM, "ctrl+e")
	if clerkM.screen == screenAudit || !strings.Contains(screenText(clerkM), "The audit trail needs a manager.") {
		t.Fatalf("a clerk pressed ctrl+e: screen %v\n%s", clerkM.screen, screenText(clerkM))
	}

	m := newTestModel(t, s, clock, "audit-mgr", 120, 40)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	press(t, m, "ctrl+e")
	if m.screen != screenAudit || len(m.audit.rows) == 0 {
		t.Fatalf("ctrl+e: screen %v, %d rows", m.screen, len(m.audit.rows))
	}
	newest := m.audit.rows[0]
	if newest.Action != booking.AuditSignIn || newest.Actor != assets.DemoUser {
		t.Errorf("the newest row is %+v, want the manager's own sign-in", newest)
	}

	typeText(t, m, "carl")
	press(t, m, "enter")
	for _, e := range m.audit.rows {
		if e.Actor != "carl" {
			t.Fatalf("filtered by carl: a row of %s", e.Actor)
		}
	}
	if n := len(m.audit.rows); n != 9 { // his shift, 3 holds, 3 sales, a refused sign-in and his own above
		t.Errorf("carl's rows: %d, want 9", n)
	}
	press(t, m, "ctrl+u", "tab")
	typeText(t, m, strings.ToLower(sold.Number))
	press(t, m, "enter")
	if len(m.audit.rows) != 2 || m.audit.rows[0].Action != booking.AuditCancel || m.audit.rows[0].Actor != "sue" {
		t.Fatalf("by booking: %+v", m.audit.rows)
	}
	if !strings.Contains(screenText(m), "customer asked") {
		t.Errorf("the cancel's reason is not on screen:\n%s", screenText(m))
	}
	press(t, m, "down", "down", "down")
	if m.audit.cursor != 1 {
		t.Errorf("cursor %d after three downs on two rows", m.audit.cursor)
	}

	press(t, m, "tab")
	typeText(t, m, "2026-13")
	press(t, m, "enter")
	if !strings.Contains(screenText(m), "A day is YYYY-MM-DD") {
		t.Errorf("a bad day:\n%s", screenText(m))
	}
	press(t, m, "ctrl+u")
	typeText(t, m, testStart.AddDate(0, 0, 1).Format("2006-01-02"))
	press(t, m, "enter")
	if len(m.audit.rows) != 0 || !strings.Contains(screenText(m), "No change matches.") {
		t.Errorf("tomorrow: %d rows\n%s", len(m.audit.rows), screenText(m))
	}

	press(t, m, "esc")
	if m.screen != screenShows {
		t.Errorf("esc went to %v", m.screen)
	}
}

// TestAudit_ScreenScrolls: a trail longer than the window keeps the row
// under the cursor on screen, and the frame within the window.
func TestAudit_ScreenScrolls(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	shows, err := s.Shows(ctx, booking.System, dayOf(testStart))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		clock.Add(time.Second)
		if _, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: shows[len(shows)-1].ID, Seats: []string{fmt.Sprintf("A%d", i%10+1)}, Owner: fmt.Sprint("o", i)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReleaseOwner(ctx, fmt.Sprint("o", i)); err != nil {
			t.Fatal(err)
		}
	}
	m := newTestModel(t, s, clock, "audit-scroll", 80, 24)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	press(t, m, "ctrl+e")
	for range 40 {
		press(t, m, "down")
	}
	a := &m.audit
	if len(a.rows) < 60 || a.cursor != 40 {
		t.Fatalf("%d rows, cursor %d", len(a.rows), a.cursor)
	}
	text := screenText(m)
	if lines := strings.Count(text, "\n") + 1; lines > 24 {
		t.Fatalf("the frame has %d lines in a 24-line window:\n%s", lines, text)
	}
	// The highlighted table row is the cursor's.
	want := m.styles.Selected.Render("  " + auditLayout(80).row(a.rows[40], m.now().Location()))
	if !strings.Contains(m.View().Content, want) {
		t.Errorf("row 40 is not highlighted on screen:\n%s", text)
	}
}
