package tui

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// The manager screens that used to stop at the command line: the
// customers of a cancelled show on screen (with the float asked for on
// the way), sales close, a terminal's printer, a staff SSH key, reopening
// a shift. Each drives the real root model over a real SQLite store and
// checks the store changed as the screen said.

// midWord is a letter cut short by an ellipsis.
var midWord = regexp.MustCompile(`\pL…`)

// dataRow is a row of a table whose cells shorten what was stored (a
// film title, an audit row's detail), which is data, not a message: the
// week's grid and the audit trail.
var dataRow = regexp.MustCompile(`^\s*(×?\d\d:\d\d |\d\d [A-Z][a-z]{2} \d\d:\d\d)`)

// checkTableFits fails when a line of the screen is wider than the window or
// was cut at its edge, or when a message or a key hint on it stops
// mid-word. A table's cells (lines drawn with │, the week's grid, the
// audit trail's rows) may shorten a stored name with "…": that is data,
// not a message.
func checkTableFits(t *testing.T, name string, m *Model) {
	t.Helper()
	lines := strings.Split(screenText(m), "\n")
	if len(lines) != m.height {
		t.Errorf("%s: %d lines on a screen of %d", name, len(lines), m.height)
	}
	for i, l := range lines {
		w := ansi.StringWidth(l)
		switch {
		case w > m.width:
			t.Errorf("%s: line %d is %d cells on a screen of %d: %q", name, i+1, w, m.width, l)
		case strings.Contains(l, "│") || dataRow.MatchString(l):
		case w == m.width && strings.HasSuffix(l, "…") && !strings.HasSuffix(l, " …"): // " …": the hint bar's "more keys"
			t.Errorf("%s: line %d is cut at the edge: %q", name, i+1, l)
		case midWord.MatchString(l):
			t.Errorf("%s: line %d stops mid-word: %q", name, i+1, l)
		}
	}
}

// sellTo sells seats of a show to a customer, by method, as another
// counter would.
func sellTo(t *testing.T, s *db.Store, showID int64, seats []string, name, phone string, method booking.PayMethod) *booking.Booking {
	t.Helper()
	ctx := context.Background()
	owner := "elsewhere-" + seats[0]
	h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: showID, Seats: seats, Owner: owner})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Checkout(ctx, booking.System, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: fmt.Sprintf("sell-%d-%s", showID, seats[0]),
		Customer: name, Phone: phone, Method: method})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// grandShow is the first show of the Grand hall on day.
func grandShow(t *testing.T, s *db.Store, day time.Time) booking.Show {
	t.Helper()
	shows, err := s.Shows(context.Background(), booking.System, day)
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range shows {
		if sh.HallName == "Grand" {
			return sh
		}
	}
	t.Fatal("no show in the Grand hall")
	return booking.Show{}
}

// sellParties sells n bookings of show, two seats each along rows A to
// H, every third paid in cash, each customer named "Customer k" with a
// phone; it returns them in the order sold.
func sellParties(t *testing.T, s *db.Store, show booking.Show, n int) []*booking.Booking {
	t.Helper()
	var out []*booking.Booking
	for k := range n {
		row := string(rune('A' + k/8))
		seat := 1 + 2*(k%8)
		method := booking.Card
		if k%3 == 0 {
			method = booking.Cash
		}
		out = append(out, sellTo(t, s, show.ID, []string{fmt.Sprintf("%s%d", row, seat), fmt.Sprintf("%s%d", row, seat+1)},
			fmt.Sprintf("Customer %d", k+1), fmt.Sprintf("0700 900 %03d", k+1), method))
	}
	return out
}

// A show with cash bookings, cancelled by a manager with no shift open:
// the store refuses before anything is written, the form comes back with
// the reason as typed and asks for the float; enter opens the shift and
// cancels; the screen lists every customer to call, scrolling at 80×24,
// and never sends the manager to the command line. c on the cancelled
// show lists them again.
func TestManage_CancelShowCallList(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	if _, err := s.AddStaff(ctx, booking.System, "mona", booking.RoleManager, "4321", nil); err != nil {
		t.Fatal(err)
	}
	show := grandShow(t, s, clock.Now())
	sold := sellParties(t, s, show, 20)
	var cash booking.Money
	for _, b := range sold {
		if b.Payments[0].Method == booking.Cash {
			cash += b.Total
		}
	}
	m := newTestModel(t, s, clock, "mgr-cancel", 80, 24)
	signIn(t, m, "mona", "4321")
	press(t, m, "ctrl+g", "3")
	if sh, ok := m.manage.week.picked(m.manage.halls); !ok || sh.ID != show.ID {
		t.Fatalf("the week opened on %+v, want show %d", sh, show.ID)
	}
	press(t, m, "c")
	typeText(t, m, "Projector broken")
	press(t, m, "enter", "y")

	// No shift: refused before anything was written, the reason kept.
	f := m.manage.form
	if f == nil || f.fields[0].value() != "Projector broken" || f.focus != 1 {
		t.Fatalf("after ErrNoShift the form is %+v:\n%s", f, screenText(m))
	}
	onScreen(t, m, "Open a shift first", "Type the float")
	checkTableFits(t, "float form", m)
	if sh, _ := s.Show(ctx, booking.System, show.ID); sh.Cancelled() {
		t.Fatal("the show was cancelled without a shift")
	}
	if _, err := s.CurrentShift(ctx, booking.Actor{Name: "mona", Role: booking.RoleManager}); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("mona's shift before the float: %v", err)
	}
	typeText(t, m, "50")
	press(t, m, "enter")

	// The store: the show cancelled for the reason, every booking
	// cancelled, the cash refunds out of the shift the float opened.
	if sh, err := s.Show(ctx, booking.System, show.ID); err != nil || !sh.Cancelled() || sh.CancelReason != "Projector broken" {
		t.Fatalf("show after the cancel: %+v %v", sh, err)
	}
	for _, b := range sold {
		if got, err := s.Booking(ctx, booking.System, b.Number); err != nil || got.Status != booking.BookingCancelled {
			t.Fatalf("%s after the cancel: %+v %v", b.Number, got, err)
		}
	}
	mona := booking.Actor{Name: "mona", Role: booking.RoleManager}
	sh, err := s.CurrentShift(ctx, mona)
	if err != nil || sh.Float != 5000 {
		t.Fatalf("mona's shift: %+v %v", sh, err)
	}
	x, err := s.ShiftReport(ctx, mona, sh.ID)
	if err != nil || x.CashRefunds != cash {
		t.Fatalf("cash refunds of the shift %v (%v), want %s", x, err, cash)
	}

	// The screen: every customer to call, by name, the first rows and
	// then the last ones after scrolling; no command line.
	slices.SortFunc(sold, func(a, b *booking.Booking) int { return strings.Compare(a.Customer, b.Customer) })
	onScreen(t, m, fmt.Sprintf("Show %d cancelled", show.ID), "Why: Projector broken", "20 bookings refunded", "customers 1–")
	first, last := sold[0], sold[19]
	onScreen(t, m, fmt.Sprintf("%s  %-21s  %-16s      2      25.00  %s", first.Number, first.Customer, first.Phone, first.Payments[0].Method))
	checkTableFits(t, "call list", m)
	if text := screenText(m); strings.Contains(text, "boxoffice show") || strings.Contains(text, "command line") {
		t.Fatalf("the screen sends the manager to the command line:\n%s", screenText(m))
	}
	for range 20 {
		press(t, m, "down")
	}
	onScreen(t, m, fmt.Sprintf("%s  %-21s  %-16s      2      25.00  %s", last.Number, last.Customer, last.Phone, last.Payments[0].Method), "of 20")
	checkTableFits(t, "call list scrolled", m)

	// Back on the week the show is marked cancelled; c lists them again.
	press(t, m, "esc")
	onScreen(t, m, "×11:00", "× cancelled: Projector")
	checkTableFits(t, "week with a cancelled show", m)
	press(t, m, "c")
	onScreen(t, m, "List its customers again?")
	press(t, m, "y")
	onScreen(t, m, "20 bookings refunded", sold[0].Number)
}

// s sets when sales close: for the show picked, for every show (the
// cinema's default), and back on the default; a bad close is refused on
// the form.
func TestManage_SalesClose(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	m := newTestModel(t, s, clock, "mgr-close", 80, 24)
	openManager(t, m, "3")
	show, _ := m.manage.week.picked(m.manage.halls)
	closeOf := func(id int64) time.Duration {
		t.Helper()
		sh, err := s.Show(ctx, booking.System, id)
		if err != nil {
			t.Fatal(err)
		}
		return sh.SalesClose
	}
	other := grandShow(t, s, clock.Now().AddDate(0, 0, 1)).ID

	press(t, m, "s", "tab")
	retype(t, m, "2h")
	press(t, m, "enter")
	onScreen(t, m, "Sales close between")
	checkTableFits(t, "sales close refused", m)
	retype(t, m, "-10m")
	press(t, m, "enter")
	if got := closeOf(show.ID); got != -10*time.Minute {
		t.Fatalf("show %d closes at %v", show.ID, got)
	}
	onScreen(t, m, fmt.Sprintf("Sales of show %d close 10 min before the start.", show.ID))

	press(t, m, "s", "right", "tab") // every show
	retype(t, m, "15m")
	press(t, m, "enter")
	if got := closeOf(other); got != 15*time.Minute {
		t.Fatalf("another show closes at %v after the default changed", got)
	}
	if got := closeOf(show.ID); got != -10*time.Minute {
		t.Fatalf("show %d lost its own close: %v", show.ID, got)
	}

	press(t, m, "s", "tab", "ctrl+u", "enter") // this show, empty: the default
	if got := closeOf(show.ID); got != 15*time.Minute {
		t.Fatalf("show %d back on the default closes at %v", show.ID, got)
	}
	onScreen(t, m, "back on the cinema's sales close")
}

// p on a terminal sets its printer; a printer that is none is refused on
// the form and nothing changes; an empty one takes it away.
func TestManage_TerminalPrinter(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	registerTerminal(t, s, "till-1")
	printer := func() string {
		t.Helper()
		terms, err := s.ListTerminals(ctx, booking.System)
		if err != nil || len(terms) != 1 {
			t.Fatalf("terminals %+v %v", terms, err)
		}
		return terms[0].Printer
	}
	m := newTestModel(t, s, clock, "mgr-printer", 80, 24)
	openManager(t, m, "6")
	press(t, m, "p")
	typeText(t, m, "lp0")
	press(t, m, "enter")
	onScreen(t, m, "A printer is tcp://HOST")
	if printer() != "" {
		t.Fatalf("a bad printer was stored: %q", printer())
	}
	retype(t, m, "tcp://10.0.0.5")
	press(t, m, "enter")
	if got := printer(); got != "tcp://10.0.0.5:9100" {
		t.Fatalf("printer %q", got)
	}
	onScreen(t, m, "till-1 prints on tcp://10.0.0.5:9100 now", "tcp://10.0.0.5:9100")
	checkTableFits(t, "terminals", m)
	press(t, m, "p", "ctrl+u", "enter")
	if got := printer(); got != "" {
		t.Fatalf("printer after emptying %q", got)
	}
}

// A member of staff added with an SSH key pasted is signed in by it.
func TestManage_StaffWithKey(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, "mgr-key", 80, 24)
	openManager(t, m, "5")
	press(t, m, "a")
	typeText(t, m, "kim")
	press(t, m, "tab", "tab")
	typeText(t, m, "2468")
	press(t, m, "tab")
	send(t, m, tea.PasteMsg{Content: "not a key"})
	press(t, m, "enter")
	if m.manage.form == nil || m.manage.form.err == "" {
		t.Fatalf("a bad key was accepted:\n%s", screenText(m))
	}
	press(t, m, "ctrl+u")
	send(t, m, tea.PasteMsg{Content: string(gossh.MarshalAuthorizedKey(signer.PublicKey()))})
	press(t, m, "enter")
	onScreen(t, m, "Added kim as a clerk with an SSH key.")
	st, term, err := s.IdentifyKey(ctx, signer.PublicKey().Marshal())
	if err != nil || term != nil || st == nil || st.Name != "kim" || st.Role != booking.RoleClerk {
		t.Fatalf("the key signs in %+v %+v %v", st, term, err)
	}
	onScreen(t, m, "ssh key")
}

// o reopens a closed shift with a reason, after a question; an open one
// is not reopened.
func TestManage_ReopenShift(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	addStaff(t, s, "ann", booking.RoleClerk, "1111")
	ann := booking.Actor{Name: "ann", Role: booking.RoleClerk}
	z := dbtest.MustCloseShift(t, s, ann)
	m := newTestModel(t, s, clock, "mgr-shifts", 80, 24)
	openManager(t, m, "7")
	checkTableFits(t, "shifts", m)
	shiftRow := func(ok func(booking.Shift) bool) {
		t.Helper()
		for i, sh := range m.manage.shifts {
			if ok(sh) {
				m.manage.cursor = i
				return
			}
		}
		t.Fatalf("no such shift in %+v", m.manage.shifts)
	}
	shiftRow(func(sh booking.Shift) bool { return sh.Status == booking.ShiftOpen })
	press(t, m, "o")
	onScreen(t, m, "only a closed shift is reopened")
	shiftRow(func(sh booking.Shift) bool { return sh.ID == z.Shift.ID })
	press(t, m, "o", "enter")
	onScreen(t, m, "Say why the shift is reopened.")
	typeText(t, m, "counted before the last sale")
	press(t, m, "enter")
	onScreen(t, m, fmt.Sprintf("Reopen shift %d of ann?", z.Shift.ID))
	press(t, m, "n")
	if _, err := s.CurrentShift(ctx, ann); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("n reopened the shift: %v", err)
	}
	press(t, m, "enter", "y")
	sh, err := s.CurrentShift(ctx, ann)
	if err != nil || sh.ID != z.Shift.ID {
		t.Fatalf("ann's shift after reopening: %+v %v", sh, err)
	}
	onScreen(t, m, fmt.Sprintf("Reopened shift %d of ann.", z.Shift.ID))
	rows, err := s.Audit(ctx, booking.System, booking.AuditQuery{Staff: "demo"})
	if err != nil || len(rows) == 0 || rows[0].Action != booking.AuditShiftReopen || !strings.Contains(rows[0].Detail, "counted before the last sale") {
		t.Fatalf("the audit trail's newest row of demo: %+v %v", rows, err)
	}
}
