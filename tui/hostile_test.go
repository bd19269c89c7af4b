package tui

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	oexec "os/exec"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/hostile"
	"boxoffice/internal/storetest"
)

// hostileFix is a demo cinema with one of everything a screen draws from
// stored text: bookings with a customer and phone (one cancelled with a
// reason), a cancelled show, a blocked seat, a waiting-list entry, a
// member of staff and a terminal. plant overwrites all of that text with
// one hostile string straight in the file, as someone at the sqlite3
// shell would.
type hostileFix struct {
	path   string
	show   booking.Show // the show the bookings are of, first on the list
	number string       // a confirmed booking
	code   string       // its first ticket's code
	shell  string       // the sqlite3 binary, "" when absent
}

func newHostileFix(t *testing.T, clock *storetest.Clock) *hostileFix {
	t.Helper()
	s, path := dbtest.MustOpenDemo(t, storeOptions(clock))
	ctx := context.Background()
	shows, err := s.Shows(ctx, booking.System, clock.Now())
	if err != nil || len(shows) < 2 {
		t.Fatal("no shows", err)
	}
	f := &hostileFix{path: path, show: shows[0]}
	sell := func(owner string, seats ...string) *booking.Booking {
		h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: f.show.ID, Seats: seats, Owner: owner})
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Checkout(ctx, booking.System, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: "k-" + owner,
			Method: booking.Card, Customer: "Zed Benign", Phone: "0123 456 789"})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b := sell("a", "A1", "A2")
	f.number, f.code = b.Number, b.Tickets[0].Code
	c := sell("b", "A5")
	if _, err := s.Cancel(ctx, booking.System, booking.CancelRequest{Number: c.Number, Reason: "benign"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CancelShow(ctx, booking.System, shows[1].ID, "benign"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BlockSeats(ctx, booking.System, booking.BlockRequest{ShowID: f.show.ID, Seats: []string{"B3"}, Kind: booking.BlockBlocked, Reason: "benign"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddStaff(ctx, booking.System, "Benign Staff", booking.RoleClerk, "9999", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddTerminal(ctx, booking.System, "Benign Terminal", []byte(hostileKey)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	f.shell, _ = oexec.LookPath("sqlite3")
	f.exec(t, fmt.Sprintf(`INSERT INTO waitlist (show_id, name, phone, seats, created_at) VALUES (%d, 'Benign', '0123', 2, 0)`, f.show.ID))
	return f
}

// hostileKey is a terminal's public key for the fixture.
const hostileKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl hostile"

// sqlText is s as a SQL literal that keeps every byte (NUL, invalid
// UTF-8): a blob cast to text.
func sqlText(s string) string {
	return "CAST(X'" + hex.EncodeToString([]byte(s)) + "' AS TEXT)"
}

// exec runs SQL on the closed store's file with the sqlite3 shell, or
// database/sql when the shell is not installed.
func (f *hostileFix) exec(t *testing.T, q string) {
	t.Helper()
	if f.shell != "" {
		cmd := oexec.Command(f.shell, "-bail", f.path)
		cmd.Stdin = strings.NewReader("PRAGMA synchronous = OFF;\n" + q) // a test file: no need to wait for the disk
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("sqlite3: %v: %s\n%.300s", err, out, q)
		}
		return
	}
	raw, err := sql.Open("sqlite", "file:"+f.path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(q); err != nil {
		t.Fatalf("%v\n%.300s", err, q)
	}
}

// plant writes h into every text the screens draw from the database.
func (f *hostileFix) plant(t *testing.T, h string) {
	t.Helper()
	v := sqlText(h)
	f.exec(t, strings.Join([]string{
		`UPDATE films SET title = ` + v + ` || ' ' || id, rating = ` + v,
		`UPDATE halls SET name = ` + v + ` || ' ' || id`,
		fmt.Sprintf(`UPDATE seats SET label = %s || row_tag || number WHERE hall_id = %d AND row_tag = 'A'`, v, f.show.HallID),
		`UPDATE bookings SET customer = 'Zed ' || ` + v + `, phone = ` + v + `, reason = ` + v,
		`UPDATE shows SET cancel_reason = ` + v + ` WHERE status = 'cancelled'`,
		`UPDATE seat_blocks SET reason = ` + v,
		`UPDATE staff SET name = ` + v + ` || ' ' || id WHERE name <> '` + assets.DemoUser + `'`,
		`UPDATE terminals SET name = ` + v + ` || ' ' || id`,
		`UPDATE waitlist SET name = ` + v + `, phone = ` + v,
	}, ";\n"))
}

// walk opens a counter on the planted file at w×h and goes through every
// screen that draws stored text, handing each frame to check; at the end
// it sells seat (free in the first show) to h typed as name and phone.
func (f *hostileFix) walk(t *testing.T, clock *storetest.Clock, h, seat string, w, ht int, check func(where, frame string)) {
	t.Helper()
	s := dbtest.Open(t, f.path, storeOptions(clock))
	defer s.Close()
	m := newTestModel(t, s, clock, "hostile", w, ht)
	defer m.Close()
	frame := func(where string) { check(where, m.View().Content) }
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
	press(t, m, "W")
	frame("waiting list")
	press(t, m, "esc", "ctrl+f")
	typeText(t, m, "Zed")
	press(t, m, "enter")
	frame("find results")
	press(t, m, "ctrl+f")
	send(t, m, tea.PasteMsg{Content: h})
	press(t, m, "enter")
	frame("find with it typed")
	press(t, m, "ctrl+f")
	typeText(t, m, f.number)
	press(t, m, "enter")
	frame("booking view")
	press(t, m, "c")
	send(t, m, tea.PasteMsg{Content: h})
	frame("cancel form with it typed")
	press(t, m, "esc", "esc", "ctrl+r")
	for i := range 5 { // by day first, which draws no stored text
		press(t, m, "b")
		frame(fmt.Sprint("report ", i, " by its second grouping"))
		press(t, m, "tab")
	}
	press(t, m, "esc", "ctrl+g")
	for _, n := range []string{"1", "2", "3", "4", "5", "6"} {
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
}

// TestHostile_Screens plants every hostile string in every stored text a
// screen draws (straight in the file, past the store's own cleaning) and
// walks the counter's screens: no escape sequence, C1 control or bidi
// control of theirs reaches a frame (the program's own styles, gathered
// from the same walk over benign text, are allowed) and every line keeps
// within the window.
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
			f.plant(t, "Benign")
			f.walk(t, clock, "Benign", "K5", 100, 30, func(_, frame string) { baseline = append(baseline, frame) })
			if text := ansi.Strip(strings.Join(baseline, "")); !strings.Contains(text, "Sold") || !strings.Contains(text, "Zed Benign") ||
				!strings.Contains(text, "Benign Staff") || !strings.Contains(text, "ADMIT") {
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
				f.walk(t, clock, hs.S, fmt.Sprintf("%c%d", 'C'+i/20, i%20+1), w, ht, func(where, frame string) {
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
