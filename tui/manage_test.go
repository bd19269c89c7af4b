package tui

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	gossh "golang.org/x/crypto/ssh"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
)

// openManager signs the demo manager in and opens section n (1-6) of the
// manager screens.
func openManager(t *testing.T, m *Model, n string) {
	t.Helper()
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	press(t, m, "ctrl+g", n)
	if m.screen != screenManage || m.manage.busy {
		t.Fatalf("manager section %s did not open: screen %v, status %q, err %q", n, m.screen, m.status, m.manage.err)
	}
}

// retype clears the focused field and types s.
func retype(t *testing.T, m *Model, s string) {
	t.Helper()
	press(t, m, "ctrl+u")
	typeText(t, m, s)
}

// onScreen fails unless the screen shows every one of words.
func onScreen(t *testing.T, m *Model, words ...string) {
	t.Helper()
	text := screenText(m)
	for _, w := range words {
		if !strings.Contains(text, w) {
			t.Fatalf("the screen does not say %q:\n%s", w, text)
		}
	}
}

func storeFilm(t *testing.T, s *db.Store, title string) (booking.Film, bool) {
	t.Helper()
	films, err := s.Films(context.Background(), booking.System)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range films {
		if f.Title == title {
			return f, true
		}
	}
	return booking.Film{}, false
}

func TestManage_NotForNonManagers(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	addStaff(t, s, "carl", booking.RoleClerk, "1111")
	m := newTestModel(t, s, clock, "mgr-clerk", 80, 24)
	signIn(t, m, "carl", "1111")
	press(t, m, "ctrl+g")
	if m.screen != screenShows || !strings.Contains(m.status, "need a manager") {
		t.Fatalf("a clerk's ctrl+g: screen %v, status %q", m.screen, m.status)
	}
	if strings.Contains(screenText(m), "ctrl+g") {
		t.Fatal("a clerk is offered the manager screens")
	}
	// Were the screen reached anyway, the store refuses, in its words, on
	// the form, and nothing is written.
	m.screen = screenManage
	m.manage = manageState{}
	press(t, m, "1", "a")
	typeText(t, m, "Sneaked In")
	press(t, m, "tab")
	typeText(t, m, "90")
	press(t, m, "enter")
	onScreen(t, m, "needs a manager", "carl is signed in as clerk")
	if _, ok := storeFilm(t, s, "Sneaked In"); ok {
		t.Fatal("a clerk added a film")
	}
}

func TestManage_Films(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "mgr-films", 80, 24)
	openManager(t, m, "1")

	// A form is checked before the store is asked.
	press(t, m, "a", "enter")
	onScreen(t, m, "A film needs a title.")
	typeText(t, m, "Night Train")
	press(t, m, "tab")
	typeText(t, m, "9x9") // digits only
	press(t, m, "tab")
	typeText(t, m, "15")
	press(t, m, "enter")
	f, ok := storeFilm(t, s, "Night Train")
	if !ok || f.Minutes != 99 || f.Rating != "15" || m.manage.form != nil {
		t.Fatalf("added %+v %v; form %+v", f, ok, m.manage.form)
	}
	onScreen(t, m, "Added Night Train.", "Night Train")

	// Edit it: the store's refusal stays on the form.
	for m.manage.films[m.manage.cursor].ID != f.ID {
		press(t, m, "down")
	}
	press(t, m, "e", "tab")
	retype(t, m, "700")
	press(t, m, "enter")
	onScreen(t, m, "A film runs between 1 and 600 minutes.")
	retype(t, m, "104")
	press(t, m, "enter")
	if f, _ = storeFilm(t, s, "Night Train"); f.Minutes != 104 {
		t.Fatalf("after the edit: %+v", f)
	}

	// Retire asks; no is the default.
	press(t, m, "r")
	onScreen(t, m, "Retire Night Train?", "y/N")
	press(t, m, "enter")
	if f, _ = storeFilm(t, s, "Night Train"); f.Retired {
		t.Fatal("enter retired the film")
	}
	press(t, m, "r", "y")
	if f, _ = storeFilm(t, s, "Night Train"); !f.Retired {
		t.Fatal("y did not retire the film")
	}
	onScreen(t, m, "retired")
}

func TestManage_Halls(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "mgr-halls", 80, 24)
	dir := t.TempDir()
	m.opts.LayoutsDir = dir
	good := filepath.Join(dir, "annex.hall")
	if err := os.WriteFile(good, []byte("hall: Annex\nnumbering: left-to-right\n\nA | ssss..ssss\nB | sssscwssss\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.hall")
	if err := os.WriteFile(bad, []byte("hall: Bad\n\nA | ss?s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	openManager(t, m, "2")
	for _, c := range []struct{ path, says string }{
		{"missing.hall", "no such file"},
		{"bad.hall", "bad.hall:3:7: unexpected"},
		{good, "Only a file in the layouts folder is read"},
	} {
		press(t, m, "a")
		typeText(t, m, c.path)
		press(t, m, "enter")
		onScreen(t, m, c.says)
		press(t, m, "esc")
	}
	press(t, m, "a")
	typeText(t, m, "annex.hall")
	press(t, m, "enter")
	halls, err := s.Halls(context.Background(), booking.System)
	if err != nil {
		t.Fatal(err)
	}
	if len(halls) != 4 || !slices.ContainsFunc(halls, func(h booking.Hall) bool { return h.Name == "Annex" && len(h.Seats) == 18 }) {
		t.Fatalf("halls after adding: %d", len(halls))
	}
	onScreen(t, m, "Annex", "18")
}

// sellFirstShow sells a seat of the demo's first show (Grand, 11:00).
func sellFirstShow(t *testing.T, s *db.Store) *booking.Booking {
	t.Helper()
	ctx := context.Background()
	h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: 1, Seats: []string{"H9"}, Owner: "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Checkout(ctx, booking.System, booking.CheckoutRequest{HoldID: h.ID, Owner: "elsewhere", IdempotencyKey: "mgr-week", Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestManage_WeekMove(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	sold := sellFirstShow(t, s)
	m := newTestModel(t, s, clock, "mgr-week", 80, 24)
	openManager(t, m, "3")
	onScreen(t, m, "Hall Grand", "11:00", "Show 1 ")

	// Show 1 has a booking: the form says it keeps its seats, the move
	// asks first, and the store's overlap refusal stays on the form.
	press(t, m, "m")
	onScreen(t, m, "the bookings keep their seats")
	press(t, m, "tab")
	retype(t, m, "09:30")
	press(t, m, "enter")
	onScreen(t, m, "cannot start in the past")
	retype(t, m, "12:30")
	press(t, m, "enter")
	onScreen(t, m, "Move show 1 with 1 seat sold", "y/N")
	press(t, m, "y")
	onScreen(t, m, "The hall is taken by")
	press(t, m, "shift+tab")
	retype(t, m, "2026-03-20")
	press(t, m, "tab")
	retype(t, m, "09:00")
	press(t, m, "enter", "n")
	if sh, _ := s.Show(ctx, booking.System, 1); sh.Starts.Hour() != 11 {
		t.Fatalf("n moved the show: %v", sh.Starts)
	}
	if m.manage.form == nil {
		t.Fatal("n closed the form: what was typed is lost")
	}
	press(t, m, "enter", "y")
	sh, err := s.Show(ctx, booking.System, 1)
	if want := time.Date(2026, 3, 20, 9, 0, 0, 0, time.UTC); err != nil || !sh.Starts.Equal(want) || sh.Sold != 1 {
		t.Fatalf("show 1 after the move: %+v %v, want at %v with its sale", sh, err, want)
	}
	if b, err := s.Booking(ctx, booking.System, sold.Number); err != nil || b.Status != booking.BookingConfirmed {
		t.Fatalf("the booking after the move: %+v %v", b, err)
	}
	onScreen(t, m, "Moved show 1")

	// A week on, the moved show is there.
	press(t, m, "]")
	onScreen(t, m, "09:00", "Fri 20 Mar")
}

func TestManage_WeekAddAndCancel(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	retired, _ := storeFilm(t, s, "A Quiet Arithmetic")
	if err := s.RetireFilm(ctx, booking.System, retired.ID); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, "mgr-add", 120, 40)
	openManager(t, m, "3")
	press(t, m, "tab") // the second hall
	onScreen(t, m, "Hall Screen 2")
	before, _ := s.Shows(ctx, booking.System, clock.Now())
	press(t, m, "a")
	for _, c := range m.manage.form.fields[0].choices {
		if strings.Contains(c, "A Quiet Arithmetic") {
			t.Fatalf("the retired film is offered: %q", m.manage.form.fields[0].choices)
		}
	}
	film := m.manage.form.fields[0].value()
	press(t, m, "tab", "tab")
	typeText(t, m, "23:40")
	press(t, m, "enter")
	onScreen(t, m, "The hall is taken by") // the day's last show, with cleaning
	if today, _ := s.Shows(ctx, booking.System, clock.Now()); len(today) != len(before) {
		t.Fatalf("a refused show was added: %d shows, were %d", len(today), len(before))
	}
	tomorrow := clock.Now().AddDate(0, 0, 1)
	before, _ = s.Shows(ctx, booking.System, tomorrow)
	press(t, m, "shift+tab")
	retype(t, m, "2026-03-14")
	press(t, m, "tab")
	retype(t, m, "08:00")
	press(t, m, "enter")
	after, _ := s.Shows(ctx, booking.System, tomorrow)
	if len(after) != len(before)+1 {
		t.Fatalf("%d shows after adding, want %d:\n%s", len(after), len(before)+1, screenText(m))
	}
	first := after[0]
	if first.HallName != "Screen 2" || first.Starts.Format("15:04") != "08:00" || !strings.HasPrefix(film, first.Film.Title) {
		t.Fatalf("added %+v, chose %q", first, film)
	}

	// Cancel: a reason, then y; the store cancels the show picked and the
	// screen says how many bookings it refunded.
	press(t, m, "c", "enter")
	onScreen(t, m, "Say why")
	typeText(t, m, "projector")
	press(t, m, "enter")
	onScreen(t, m, "refund every booking?", "y/N")
	press(t, m, "y")
	onScreen(t, m, "cancelled: ", "Nobody had booked it")
	var cancelled int64
	if _, err := fmt.Sscanf(screenText(m)[strings.Index(screenText(m), "  Show ")+2:], "Show %d cancelled", &cancelled); err != nil {
		t.Fatalf("no show number on screen: %v\n%s", err, screenText(m))
	}
	if sh, err := s.Show(ctx, booking.System, cancelled); err != nil || sh.Status != booking.ShowCancelled || sh.CancelReason != "projector" {
		t.Fatalf("show %d after the cancel: %+v %v", cancelled, sh, err)
	}
}

func TestManage_Prices(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	m := newTestModel(t, s, clock, "mgr-prices", 80, 24)
	openManager(t, m, "4")
	press(t, m, "s", "tab", "tab", "tab")
	typeText(t, m, "16,25")
	press(t, m, "enter")
	pt, err := s.Prices(ctx, booking.System)
	if err != nil || pt.Entries[booking.PriceKey{Type: "adult", Kind: booking.Premium}] != 1625 {
		t.Fatalf("adult premium after setting: %v %v", pt.Entries, err)
	}
	onScreen(t, m, "16.25*")

	// l picks the show from the coming shows, not by a number typed, and
	// offers only the lists a price was set on.
	press(t, m, "l")
	onScreen(t, m, "Put a show on a price list", "Fri 13 Mar 11:00", "The Lighthouse Keeper")
	press(t, m, "enter") // the first: show 1
	if got := m.manage.form.fields[0].choices; !slices.Equal(got, []string{"standing", "evening"}) {
		t.Fatalf("lists offered %q", got)
	}
	press(t, m, "right", "enter")
	if sh, _ := s.Show(ctx, booking.System, 1); sh.PriceList != "evening" {
		t.Fatalf("show 1 on list %q", sh.PriceList)
	}
	onScreen(t, m, "Show 1 sells at the evening list.")
	press(t, m, "tab") // the evening list's column
	onScreen(t, m, "evening")
}

func TestManage_Staff(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	m := newTestModel(t, s, clock, "mgr-staff", 80, 24)
	openManager(t, m, "5")
	press(t, m, "a")
	typeText(t, m, "maria")
	press(t, m, "tab", "right", "tab")
	typeText(t, m, "12")
	press(t, m, "enter")
	onScreen(t, m, "A PIN has 4 to 32 characters.")
	typeText(t, m, "34")
	press(t, m, "enter")
	staff := func() booking.Staff {
		t.Helper()
		all, err := s.ListStaff(ctx, booking.System)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range all {
			if st.Name == "maria" {
				return st
			}
		}
		t.Fatal("no maria")
		return booking.Staff{}
	}
	if st := staff(); st.Role != booking.RoleSupervisor {
		t.Fatalf("added %+v", st)
	}
	press(t, m, "d") // the cursor is on demo: oneself
	if m.manage.confirm != nil || !strings.Contains(screenText(m), "Your own access") {
		t.Fatalf("disabling oneself:\n%s", screenText(m))
	}
	for m.manage.staff[m.manage.cursor].Name != "maria" {
		press(t, m, "down")
	}
	press(t, m, "d", "n")
	if staff().Disabled {
		t.Fatal("n disabled maria")
	}
	press(t, m, "d", "y")
	if !staff().Disabled {
		t.Fatal("y did not disable maria")
	}
	press(t, m, "d") // enabling asks nothing
	if staff().Disabled {
		t.Fatal("d did not enable maria again")
	}
	press(t, m, "r", "right", "enter")
	if st := staff(); st.Role != booking.RoleManager {
		t.Fatalf("after the role change: %+v", st)
	}
	for range 5 {
		if _, err := s.SignIn(ctx, booking.SignInRequest{Name: "maria", PIN: "0000", Terminal: "t"}); booking.ErrorCode(err) != booking.EForbidden {
			t.Fatal(err)
		}
	}
	press(t, m, "esc", "5")
	onScreen(t, m, "locked")
	for m.manage.staff[m.manage.cursor].Name != "maria" {
		press(t, m, "down")
	}
	press(t, m, "u")
	if staff().Locked {
		t.Fatal("u did not unlock maria")
	}
	press(t, m, "p")
	typeText(t, m, "9876")
	press(t, m, "enter")
	if _, err := s.SignIn(ctx, booking.SignInRequest{Name: "maria", PIN: "9876", Terminal: "t"}); err != nil {
		t.Fatalf("the new PIN: %v", err)
	}
}

func TestManage_Terminals(t *testing.T) {
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
	m := newTestModel(t, s, clock, "mgr-terms", 80, 24)
	openManager(t, m, "6")
	press(t, m, "a")
	typeText(t, m, "till-9")
	press(t, m, "tab")
	send(t, m, tea.PasteMsg{Content: string(gossh.MarshalAuthorizedKey(signer.PublicKey()))})
	press(t, m, "enter")
	terms, err := s.ListTerminals(ctx, booking.System)
	if err != nil || len(terms) != 1 || terms[0].Name != "till-9" {
		t.Fatalf("terminals after adding: %+v %v (%q)", terms, err, screenText(m))
	}
	press(t, m, "x", "esc")
	if terms, _ = s.ListTerminals(ctx, booking.System); len(terms) != 1 {
		t.Fatal("esc removed the terminal")
	}
	press(t, m, "x", "y")
	if terms, _ = s.ListTerminals(ctx, booking.System); len(terms) != 0 {
		t.Fatalf("y left %+v", terms)
	}
}

// TestManage_StoreRefusesNonManagers: a supervisor put on each section
// by hand (the menu never opens for them) is refused by the store, in its
// words, and nothing changes.
func TestManage_StoreRefusesNonManagers(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	addStaff(t, s, "sue", booking.RoleSupervisor, "2222")
	dir := t.TempDir()
	layout := filepath.Join(dir, "annex.hall")
	if err := os.WriteFile(layout, []byte("hall: Annex\n\nA | ssss\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, "mgr-sue", 80, 24)
	m.opts.LayoutsDir = dir
	signIn(t, m, "sue", "2222")
	force := func(section string) {
		t.Helper()
		m.screen, m.manage = screenManage, manageState{}
		press(t, m, section)
	}

	force("2") // halls: add from a file
	press(t, m, "a")
	typeText(t, m, filepath.Base(layout))
	press(t, m, "enter")
	onScreen(t, m, "needs a manager")
	if halls, _ := s.Halls(ctx, booking.System); len(halls) != 3 {
		t.Fatalf("a supervisor added a hall: %d halls", len(halls))
	}

	force("3") // the week: move a show
	press(t, m, "m", "tab")
	retype(t, m, "23:55")
	press(t, m, "enter")
	onScreen(t, m, "needs a manager")
	if sh, _ := s.Show(ctx, booking.System, 1); sh.Starts.Hour() != 11 {
		t.Fatalf("a supervisor moved show 1 to %v", sh.Starts)
	}

	force("4") // prices: set one
	press(t, m, "s", "tab", "tab", "tab")
	typeText(t, m, "1")
	press(t, m, "enter")
	onScreen(t, m, "needs a manager")
	if pt, _ := s.Prices(ctx, booking.System); pt.Entries[booking.PriceKey{Type: "adult", Kind: booking.Premium}] == 100 {
		t.Fatal("a supervisor set a price")
	}

	force("5") // staff: not even the list
	onScreen(t, m, "Managing staff needs a manager")
	press(t, m, "a")
	if m.manage.form == nil {
		t.Fatal("the staff form did not open") // the store refuses, not the screen
	}
	typeText(t, m, "eve")
	press(t, m, "tab", "tab")
	typeText(t, m, "4444")
	press(t, m, "enter")
	onScreen(t, m, "Managing staff needs a manager")
	if _, err := s.SignIn(ctx, booking.SignInRequest{Name: "eve", PIN: "4444", Terminal: "t"}); err == nil {
		t.Fatal("a supervisor added staff")
	}

	force("6") // terminals: not even the list
	onScreen(t, m, "Managing staff needs a manager")
}

// TestManage_TypingGoesToTheFocusedField: in a form letters are text,
// never keys: r typed into a title neither retires the film nor leaves
// the field, and it lands in the focused field only.
func TestManage_TypingGoesToTheFocusedField(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "mgr-typing", 80, 24)
	openManager(t, m, "1")
	press(t, m, "e", "tab", "tab") // the rating
	typeText(t, m, "r?x")
	f := m.manage.form
	if m.manage.confirm != nil || m.help.ShowAll || f.fields[2].value() != "PGr?x" || f.fields[0].value() != "A Quiet Arithmetic" || f.fields[1].value() != "104" {
		t.Fatalf("typing into the rating: confirm %v, help %v, fields %q %q %q", m.manage.confirm, m.help.ShowAll, f.fields[0].value(), f.fields[1].value(), f.fields[2].value())
	}
	send(t, m, tea.PasteMsg{Content: "\x1b[31m!"})
	if got := f.fields[2].value(); strings.ContainsRune(got, '\x1b') || got != "PGr?x[31" { // cleaned, and at most 8
		t.Fatalf("a paste with an escape: %q", got)
	}
}

// TestManage_WeekHearsChanges: a sale of a show in the week repaints it,
// even when it is heard while the week is being read.
func TestManage_WeekHearsChanges(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "mgr-live", 120, 40)
	openManager(t, m, "3")
	onScreen(t, m, "0/404 sold")
	read := exec(m.mgrLoadCmd()) // a read, made before the sale
	sellFirstShow(t, s)
	send(t, m, changeMsg{ShowID: 1}) // the sale, heard while the read is under way
	send(t, m, read...)              // the read answers with what it saw
	onScreen(t, m, "1/404 sold")
	if m.manage.busy || m.manage.dirty {
		t.Fatalf("busy %v, dirty %v after the second read", m.manage.busy, m.manage.dirty)
	}
}
