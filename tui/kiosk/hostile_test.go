package kiosk

import (
	"database/sql"
	"encoding/hex"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/hostile"
	"boxoffice/paper"
)

// TestHostile_Kiosk writes every hostile string straight into the file
// (film titles and ratings, hall names, seat labels, the cinema's name)
// and types it into the kiosk's fields, then walks the customer's screens:
// films, shows, seats, name and phone, the reservation, collect. No
// escape sequence, C1 or bidi control of theirs reaches a frame and every
// line keeps within the window.
func TestHostile_Kiosk(t *testing.T) {
	t.Parallel()
	clock := newClock()
	opts := db.Options{Clock: clock.Now, SweepInterval: -1, PollInterval: -1, Sync: "normal"}
	s, path := dbtest.MustOpenDemo(t, opts)
	s.Close()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_pragma=synchronous(off)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.SetMaxOpenConns(1) // one connection for every plant: each new one reads the schema again
	// plant writes h everywhere; with short, seat labels take only its
	// first five bytes, as a reservation refuses labels over eight.
	plant := func(h string, short bool) {
		v := "CAST(X'" + hex.EncodeToString([]byte(h)) + "' AS TEXT)"
		label := v
		if short {
			label = "CAST(substr(X'" + hex.EncodeToString([]byte(h)) + "', 1, 5) AS TEXT)"
		}
		for _, q := range []string{
			`UPDATE films SET title = ` + v + ` || ' ' || id, rating = ` + v,
			`UPDATE halls SET name = ` + v + ` || ' ' || id`,
			`UPDATE seats SET label = ` + label + ` || row_tag || number WHERE hall_id = (SELECT hall_id FROM shows WHERE id = 1)`,
			`UPDATE holds SET status = 'released' WHERE status = 'held'`,
			`DELETE FROM seat_claims WHERE status = 'held'`,
		} {
			if _, err := raw.Exec(q); err != nil {
				t.Fatalf("%v\n%.200s", err, q)
			}
		}
	}
	const w, ht = 100, 40
	walk := func(h string, frame func(where, f string)) {
		st := dbtest.Open(t, path, opts)
		defer st.Close()
		m := New(Options{Store: st, Owner: "hostile", Now: clock.Now, Addr: "192.0.2.9", Layout: paper.Layout{Cinema: h}})
		m.noTimer = true
		m.Update(tea.WindowSizeMsg{Width: w, Height: ht})
		frame("welcome", m.Render())
		kioskPress(t, m, "enter")
		frame("films", m.Render())
		kioskPress(t, m, "enter")
		frame("shows", m.Render())
		kioskPress(t, m, "enter")
		frame("party", m.Render())
		kioskPress(t, m, "right", "right", "enter")
		frame("seats", m.Render())
		kioskPress(t, m, "enter")
		kioskType(t, m, h)
		kioskPress(t, m, "tab")
		kioskType(t, m, "020 7946 0018")
		frame("name typed", m.Render())
		kioskPress(t, m, "enter")
		frame("reserved", m.Render())
		number := ""
		if m.reservation != nil {
			number = m.reservation.Number
		}
		kioskPress(t, m, "enter", "down", "enter")
		kioskType(t, m, h)
		kioskPress(t, m, "tab")
		kioskType(t, m, h)
		kioskPress(t, m, "enter")
		frame("collect with it typed", m.Render())
		kioskPress(t, m, "esc", "down", "enter")
		kioskType(t, m, number)
		kioskPress(t, m, "tab")
		kioskType(t, m, "0018")
		kioskPress(t, m, "enter")
		frame("collected", m.Render())
	}
	var base []string
	plant("Benign", true)
	walk("Benign", func(_, f string) { base = append(base, f) })
	known := hostile.Known(base...)
	for _, want := range []string{"Benign 1", "BenigP11", "Reserved. Your booking number is", "Not paid yet"} {
		if !strings.Contains(ansi.Strip(strings.Join(base, "")), want) {
			t.Fatalf("the walk never drew %q", want)
		}
	}
	for i, hs := range hostile.Strings {
		// Full labels for half the strings (the seats screen draws them;
		// a reservation refuses them), five bytes of the string for the
		// other half, which the reservation and collection draw too.
		for _, short := range []bool{i%2 == 1} {
			plant(hs.S, short)
			walk(hs.S, func(where, f string) {
				for _, l := range hostile.ScreenLeaks(f, known) {
					t.Errorf("%s (short labels %v): %s: %s", hs.Name, short, where, l)
				}
				for _, o := range hostile.Overflow(f, w, ht) {
					t.Errorf("%s (short labels %v): %s: %s", hs.Name, short, where, o)
				}
			})
		}
	}
}
