package tui

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/hostile"
	"boxoffice/internal/storetest"
	"boxoffice/tui/kiosk"
)

// hostileFix is a demo cinema with a row in every table a screen draws
// from: bookings with a customer and phone (one cancelled with a reason,
// one sold, refunded with a supervisor's approval and exchanged by a
// clerk at a terminal, its new ticket admitted), a cancelled show, seats
// blocked for the show and for the hall and held back as house seats, a
// reservation, a waiting-list entry, a clerk's shift closed with a count
// by denomination and reopened, a member of staff and a terminal with a
// printer. plant then writes a hostile string into every text column of
// the schema straight in the file, as someone at the sqlite3 shell would.
type hostileFix struct {
	path     string
	pristine string       // the file as the fixture left it: each plant starts from it
	show     booking.Show // the show the bookings are of, first on the list
	code     string       // a ticket of a confirmed booking, not yet admitted
	admitted string       // a ticket admitted by the clerk
}

// The fixture's people: a clerk at a terminal, a supervisor who approves.
const (
	hostileClerk = "Benign Staff"
	hostileSuper = "Benign Super"
	hostileTerm  = "Benign Terminal"
)

func newHostileFix(t *testing.T, clock *storetest.Clock) *hostileFix {
	t.Helper()
	s, path := dbtest.MustOpenDemo(t, storeOptions(clock))
	ctx := context.Background()
	shows, err := s.Shows(ctx, booking.System, clock.Now())
	if err != nil || len(shows) < 2 {
		t.Fatal("no shows", err)
	}
	f := &hostileFix{path: path, pristine: path + ".pristine", show: shows[0]}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	clerk := booking.Actor{Name: hostileClerk, Role: booking.RoleClerk, Terminal: hostileTerm}
	sell := func(actor booking.Actor, owner, customer string, method booking.PayMethod, seats ...string) *booking.Booking {
		t.Helper()
		h, err := s.Hold(ctx, actor, booking.HoldRequest{ShowID: f.show.ID, Seats: seats, Owner: owner})
		must(err)
		req := booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: "k-" + owner, Method: method, Customer: customer, Phone: "0123 456 789"}
		if method == booking.Cash {
			req.Tendered = 100_00
		}
		b, err := s.Checkout(ctx, actor, req)
		must(err)
		return b
	}
	_, err = s.AddStaff(ctx, booking.System, hostileClerk, booking.RoleClerk, "9999", nil)
	must(err)
	_, err = s.AddStaff(ctx, booking.System, hostileSuper, booking.RoleSupervisor, "8642", nil)
	must(err)
	_, err = s.AddTerminal(ctx, booking.System, hostileTerm, []byte(hostileKey))
	must(err)

	b := sell(booking.System, "a", "Zed Benign", booking.Card, "A1", "A2")
	f.code = b.Tickets[0].Code
	c := sell(booking.System, "b", "Zed Benign", booking.Card, "A5")
	_, err = s.Cancel(ctx, booking.System, booking.CancelRequest{Number: c.Number, Reason: "benign"})
	must(err)

	// The clerk's shift: a cash sale, a refund a supervisor approved, an
	// exchange, an admission; closed by denomination, then reopened.
	_, err = s.OpenShift(ctx, clerk, booking.OpenShiftRequest{Float: 100_00})
	must(err)
	d := sell(clerk, "c", "Zed Clerk", booking.Cash, "A7", "A8")
	_, err = s.RefundTickets(ctx, clerk, booking.RefundRequest{Number: d.Number, Seats: []string{"A8"}, Reason: "benign",
		Approver: &booking.Credentials{Name: hostileSuper, PIN: "8642"}})
	must(err)
	x, err := s.Exchange(ctx, clerk, booking.ExchangeRequest{Number: d.Number, Tickets: []string{"A7"}, Seats: []string{"A9"},
		IdempotencyKey: "x-benign", Method: booking.Card, Reason: "benign"})
	must(err)
	f.admitted = x.To.Tickets[0].Code
	_, err = s.Admit(ctx, clerk, f.admitted)
	must(err)
	z, err := s.CloseShift(ctx, clerk, booking.CloseShiftRequest{Counted: 100_00, Breakdown: "50x2"})
	must(err)
	_, err = s.ReopenShift(ctx, booking.System, booking.ReopenShiftRequest{ID: z.Shift.ID, Reason: "benign"})
	must(err)

	h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: f.show.ID, Seats: []string{"A3"}, Owner: "resv"})
	must(err)
	_, err = s.Reserve(ctx, booking.System, booking.ReserveRequest{HoldID: h.ID, Owner: "resv", Name: "Zed Reserved", Phone: "0123 456 789"})
	must(err)
	_, err = s.CancelShow(ctx, booking.System, shows[1].ID, "benign")
	must(err)
	for _, blk := range []booking.BlockRequest{
		{ShowID: f.show.ID, Seats: []string{"B3"}, Kind: booking.BlockBlocked, Reason: "benign"},
		{ShowID: f.show.ID, Seats: []string{"A4"}, Kind: booking.BlockBlocked, HallWide: true, Reason: "benign"},
		{ShowID: f.show.ID, Seats: []string{"A6"}, Kind: booking.BlockHouse, Reason: "benign"},
	} {
		_, err = s.BlockSeats(ctx, booking.System, blk)
		must(err)
	}
	must(s.Close())
	raw := f.open(t)
	defer raw.Close()
	for _, q := range []string{
		fmt.Sprintf(`INSERT INTO waitlist (show_id, name, phone, seats, created_at, called_by) VALUES (%d, 'Benign', '0123', 2, 0, 'Benign')`, f.show.ID),
		`UPDATE terminals SET printer = 'tcp://benign:9100'`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	raw.Close()
	f.copyFile(t, f.path, f.pristine)
	return f
}

// hostileKey is a terminal's public key for the fixture.
const hostileKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl hostile"

// sqlText is s as a SQL literal that keeps every byte (NUL, invalid
// UTF-8): a blob cast to text.
func sqlText(s string) string {
	return "CAST(X'" + hex.EncodeToString([]byte(s)) + "' AS TEXT)"
}

// open opens the closed store's file for raw SQL, on one connection.
func (f *hostileFix) open(t *testing.T) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+f.path+"?_pragma=busy_timeout(5000)&_pragma=synchronous(off)")
	if err != nil {
		t.Fatal(err)
	}
	raw.SetMaxOpenConns(1)
	return raw
}

// copyFile copies the database file from to to, dropping to's journal.
func (f *hostileFix) copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{"-wal", "-shm"} {
		if err := os.Remove(to + ext); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// keptColumns are the text columns plant leaves alone, each with why: the
// program's own machinery, never drawn, that the walk cannot do without.
// Every other text column of the schema, a new one too, is planted.
var keptColumns = map[string]string{
	"meta.key":   "the program's own settings (the price generation), never drawn",
	"meta.value": "the program's own settings (the price generation), never drawn",
}

// plantRows narrows the rows plant writes in a table, or in one column
// of it, so the walk can still sign in (as the demo manager), go to seats
// by label and open bookings by number (the cancelled one of Zed Benign
// gets a planted number, which the results list draws).
var plantRows = map[string]string{
	"staff":           "lower(name) <> 'demo'",
	"seats":           "row_tag = 'A'",
	"bookings.number": "customer = 'Zed Benign' AND status = 'cancelled'",
}

// plant starts from the fixture's file and appends h to every non-empty
// value of every text column of the schema, enumerated from the schema
// itself (PRAGMA table_info), with the triggers that forbid editing
// payments, exchanges, shifts and the audit trail dropped for the while.
// Appending the same h everywhere keeps every join on a text key intact.
// The demo manager's name is left as it is wherever it is stored. It
// returns the columns planted and those whose CHECK refused h.
func (f *hostileFix) plant(t *testing.T, h string) (planted, refused []string) {
	t.Helper()
	f.copyFile(t, f.pristine, f.path)
	raw := f.open(t)
	defer raw.Close()
	ctx := context.Background()
	mustExec := func(q string) {
		t.Helper()
		if _, err := raw.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	query := func(q string, scan func(*sql.Rows) error) {
		t.Helper()
		rows, err := raw.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				t.Fatal(err)
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	var triggers [][2]string
	query(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name`, func(r *sql.Rows) error {
		var name, q string
		err := r.Scan(&name, &q)
		triggers = append(triggers, [2]string{name, q})
		return err
	})
	var columns [][2]string
	query(`SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p
		WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\_%' ESCAPE '\'
		AND (upper(p.type) LIKE '%TEXT%' OR upper(p.type) LIKE '%CHAR%' OR upper(p.type) LIKE '%CLOB%')
		ORDER BY m.name, p.cid`, func(r *sql.Rows) error {
		var c [2]string
		err := r.Scan(&c[0], &c[1])
		columns = append(columns, c)
		return err
	})
	seen := map[string]bool{}
	for _, c := range columns {
		seen[c[0]+"."+c[1]] = true
	}
	for k := range keptColumns {
		if !seen[k] {
			t.Fatalf("keptColumns names %s, which the schema no longer has", k)
		}
	}
	// The rows of each narrowed table, chosen before any of its columns
	// changes.
	rowsOf := map[string]string{}
	for key, where := range plantRows {
		table, _, _ := strings.Cut(key, ".")
		var ids []string
		query(`SELECT rowid FROM `+table+` WHERE `+where, func(r *sql.Rows) error {
			var id string
			err := r.Scan(&id)
			ids = append(ids, id)
			return err
		})
		rowsOf[key] = " AND rowid IN (" + strings.Join(append(ids, "NULL"), ",") + ")"
	}
	// The triggers are dropped in a transaction of their own: a ROLLBACK
	// TO in the one that changed the schema makes SQLite parse the whole
	// schema again, and every refused column below rolls back.
	for _, tr := range triggers {
		mustExec(`DROP TRIGGER "` + tr[0] + `"`)
	}
	tx, err := raw.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	exec := func(q string) error {
		_, err := tx.ExecContext(ctx, q)
		return err
	}
	v := sqlText(h)
	for _, c := range columns {
		table, col := c[0], c[1]
		if keptColumns[table+"."+col] != "" {
			continue
		}
		rows, ok := rowsOf[table+"."+col]
		if !ok {
			rows = rowsOf[table]
		}
		q := fmt.Sprintf(`UPDATE "%s" SET "%s" = "%s" || %s WHERE "%s" <> '' AND lower("%s") <> 'demo'%s`, table, col, col, v, col, col, rows)
		if err := exec(`SAVEPOINT col`); err != nil {
			t.Fatal(err)
		}
		if err := exec(q); err != nil {
			if !strings.Contains(err.Error(), "CHECK constraint failed") {
				t.Fatalf("planting %s.%s: %v", table, col, err)
			}
			refused = append(refused, table+"."+col)
			if err := exec(`ROLLBACK TO col`); err != nil {
				t.Fatal(err)
			}
		} else {
			planted = append(planted, table+"."+col)
		}
		if err := exec(`RELEASE col`); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, tr := range triggers {
		mustExec(tr[1])
	}
	return planted, refused
}

// walk opens a counter on the planted file at w×h and goes through every
// screen that draws stored text, handing each frame to check; at the end
// it sells seat (free in the first show) to h typed as name and phone.
// Then a kiosk on the same file shows its films, shows and seats.
func (f *hostileFix) walk(t *testing.T, clock *storetest.Clock, h, seat string, w, ht int, check func(where, frame string, w, h int)) {
	t.Helper()
	s := dbtest.Open(t, f.path, storeOptions(clock))
	defer s.Close()
	m := newTestModel(t, s, clock, "hostile", w, ht)
	defer m.Close()
	frame := func(where string) { check(where, m.View().Content, w, ht) }
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	frame("shows")
	send(t, m, tea.PasteMsg{Content: h})
	frame("shows filtered by it")
	press(t, m, "ctrl+u", "esc")
	for m.shows.cursor > 0 {
		press(t, m, "up")
	}
	press(t, m, "enter")
	frame("seat map")
	press(t, m, "/")
	typeText(t, m, "B3")
	press(t, m, "enter")
	frame("seat map on the blocked seat")
	// Row A, whose labels are planted: space on each seat says what it
	// is in the status line ("A1 is sold.").
	press(t, m, "up", "up")
	for range 20 {
		press(t, m, "left")
	}
	for i := range 6 {
		if i != 4 { // A5 is free: holding it would change the sale below
			press(t, m, "space")
			frame(fmt.Sprint("seat map, space on seat ", i+1, " of row A"))
		}
		press(t, m, "right")
	}
	press(t, m, "W")
	frame("waiting list")
	press(t, m, "esc", "ctrl+f")
	typeText(t, m, "Zed")
	press(t, m, "enter")
	frame("find results")
	// Every booking found, in the view: payments by the clerk, the
	// supervisor's approval, the exchange, the admission.
	forms := false
	for i := range len(m.find.results) {
		for m.find.cursor < i {
			press(t, m, "down")
		}
		press(t, m, "enter")
		frame(fmt.Sprint("booking view ", i))
		if m.find.mode != findView {
			continue // its number is planted: not found, and the list says so
		}
		if !forms && len(refundable(m.find.booking)) > 0 {
			forms = true
			press(t, m, "tab", "r")
			frame("refund pick")
			press(t, m, "esc", "c")
			send(t, m, tea.PasteMsg{Content: h})
			frame("cancel form with it typed")
			press(t, m, "esc")
		}
		press(t, m, "esc")
		if m.find.mode != findList {
			t.Fatalf("esc from a booking found did not go back to the list: %v (%d results, %q)\n%s", m.find.mode, len(m.find.results), m.status, screenText(m))
		}
	}
	press(t, m, "ctrl+f")
	send(t, m, tea.PasteMsg{Content: h})
	press(t, m, "enter")
	frame("find with it typed")
	press(t, m, "esc", "esc", "esc", "ctrl+y") // from the shows: on the seat map ctrl+y reserves
	typeText(t, m, "0123456789")
	press(t, m, "enter")
	frame("reservations")
	press(t, m, "esc", "ctrl+r")
	for i := range 7 { // by day first, which draws no stored text
		press(t, m, "b")
		frame(fmt.Sprint("report ", i, " by its second grouping"))
		press(t, m, "tab")
	}
	press(t, m, "esc", "ctrl+g")
	for _, n := range []string{"1", "2", "3", "4", "5", "6", "7"} {
		press(t, m, n)
		frame("manager section " + n)
		press(t, m, "esc")
	}
	press(t, m, "esc", "ctrl+e")
	frame("audit trail")
	press(t, m, "esc", "ctrl+d")
	typeText(t, m, f.code)
	press(t, m, "enter")
	frame("door")
	typeText(t, m, f.admitted)
	press(t, m, "enter")
	frame("door, a ticket the clerk admitted")
	send(t, m, tea.PasteMsg{Content: h})
	press(t, m, "enter")
	frame("door with it scanned")
	press(t, m, "esc")
	for m.shows.cursor > 0 {
		press(t, m, "up")
	}
	press(t, m, "enter", "/")
	typeText(t, m, seat)
	press(t, m, "enter", "enter") // the go-to holds it
	frame("checkout")
	press(t, m, "tab")
	send(t, m, tea.PasteMsg{Content: h})
	press(t, m, "tab")
	send(t, m, tea.PasteMsg{Content: h})
	frame("checkout with it typed as name and phone")
	press(t, m, "tab", "enter")
	frame("sold to it, or told why not")

	// The kiosk at the size its own tests use: at 80×24 the Grand hall's
	// seats run past the window whatever the text.
	kw, kh := max(w, 100), max(ht, 40)
	k := kiosk.New(kiosk.Options{Store: s, Owner: "hostile-kiosk", Now: clock.Now, Idle: time.Nanosecond})
	kioskStep(t, k, tea.WindowSizeMsg{Width: kw, Height: kh})
	check("kiosk welcome", k.Render(), kw, kh)
	for _, step := range []struct{ where, keys string }{{"kiosk films", "enter"}, {"kiosk shows", "enter"}, {"kiosk party", "enter"}, {"kiosk seats", "right right enter"}} {
		for _, key := range strings.Fields(step.keys) {
			kioskStep(t, k, keyMsg(key))
		}
		check(step.where, k.Render(), kw, kh)
	}
	if _, err := s.ReleaseOwner(context.Background(), "hostile-kiosk"); err != nil {
		t.Fatal(err)
	}
}

// kioskStep delivers msg to the kiosk and every message its commands lead
// to, but for its idle timer's, which the walk's instant timer would
// otherwise fire at once and start the kiosk again.
func kioskStep(t *testing.T, k *kiosk.Model, msg tea.Msg) {
	t.Helper()
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		msg := queue[0]
		queue = queue[1:]
		if fmt.Sprintf("%T", msg) == "kiosk.kIdleMsg" {
			continue
		}
		_, cmd := k.Update(msg)
		queue = append(queue, exec(cmd)...)
	}
}

// TestHostile_Screens plants every hostile string in every text column of
// the schema (straight in the file, past the store's own cleaning) and
// walks the screens of the counter, the manager, the door and the kiosk
// that draw them: no escape sequence, C1 control or bidi control of
// theirs reaches a frame (the program's own styles and cursor moves,
// parsed out as a terminal would and gathered from the same walk over
// benign text, are allowed) and every line keeps within the window.
//
// The table is walked in two halves side by side, each on its own file:
// a walk reopens the store (it keeps hall layouts for its life) and signs
// in again, so every string is seen from a cold start.
func TestHostile_Screens(t *testing.T) {
	t.Parallel()
	half := (len(hostile.Strings) + 1) / 2
	for part, strs := range [][]hostile.String{hostile.Strings[:half], hostile.Strings[half:]} {
		t.Run(fmt.Sprint("part", part), func(t *testing.T) {
			t.Parallel()
			clock := newClock()
			f := newHostileFix(t, clock)
			var baseline []string
			planted, refused := f.plant(t, "Benign")
			if part == 0 {
				t.Logf("planted %d text columns; their CHECK refused %d: %v", len(planted), len(refused), refused)
			}
			f.walk(t, clock, "Benign", "K5", 100, 30, func(_, frame string, _, _ int) { baseline = append(baseline, frame) })
			text := ansi.Strip(strings.Join(baseline, ""))
			for _, want := range []string{"Sold", "Zed Benign", "Benign Staff", "ADMIT", "is sold.", "approved by " + hostileSuper,
				"exchanged", "Zed Reserved", "Choose a film"} {
				if !strings.Contains(text, want) {
					t.Errorf("the walk never drew %q", want)
				}
			}
			if t.Failed() {
				t.Fatalf("the walk missed screens it should have drawn:\n%s", text)
			}
			known := hostile.Known(baseline...)
			for i, hs := range strs {
				// Half the strings at the smallest window, half at a large one.
				w, ht := 80, 24
				if i%2 == 1 {
					w, ht = 120, 40
				}
				f.plant(t, hs.S)
				f.walk(t, clock, hs.S, fmt.Sprintf("%c%d", 'C'+i/20, i%20+1), w, ht, func(where, frame string, w, ht int) {
					for _, l := range hostile.ScreenLeaks(frame, known) {
						t.Errorf("%s: %s: %s", hs.Name, where, l)
					}
					for _, o := range hostile.Overflow(frame, w, ht) {
						t.Errorf("%s: %s: %s", hs.Name, where, o)
					}
				})
			}
		})
	}
}

// sgrRE is an escape sequence drawable keeps: a colour or attribute.
var sgrRE = regexp.MustCompile(`^\x1b\[[0-9;:]*m`)

// TestDrawable_KeepsStylesOnly: every hostile string, between the
// program's own styles, comes out of the frame boundary with nothing but
// text, newlines and SGR sequences, and plain styled text comes out as
// it went in.
func TestDrawable_KeepsStylesOnly(t *testing.T) {
	t.Parallel()
	styled := "\x1b[1mBooking\x1b[m \x1b[38;5;42mG7 · 映画\x1b[m\n  next line ░▒ ✘"
	if got := drawable(styled); got != styled {
		t.Fatalf("drawable changed the program's own frame:\n%q\n%q", styled, got)
	}
	for _, hs := range hostile.Strings {
		out := drawable("\x1b[1m" + hs.S + "\x1b[m\n")
		for i := strings.IndexByte(out, 0x1b); i >= 0; i = strings.IndexByte(out, 0x1b) {
			n := len(sgrRE.FindString(out[i:]))
			if n == 0 {
				t.Errorf("%s: an escape sequence other than SGR is left: %q", hs.Name, out[i:min(i+12, len(out))])
				n = 1
			}
			out = out[:i] + out[i+n:]
		}
		for _, l := range hostile.Leaks(out, false) {
			t.Errorf("%s: %s", hs.Name, l)
		}
	}
}
