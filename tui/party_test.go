package tui

import (
	"context"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"boxoffice/assets"
	"boxoffice/booking"
)

// A mixed party sells quantity first: typed on the map as counts and
// type letters, enter holds the best seats for all of them together and
// opens the checkout with the types on the seats, c makes it a card sale
// at the Sell button, enter sells — eight keys from the shows list.
func TestSeatMap_PartyRow(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "party", 80, 24)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	for m.shows.visible()[m.shows.cursor].HallName != "Grand" {
		press(t, m, "down")
	}
	keys := []string{"enter", "2", "a", "2", "c", "enter", "c", "enter"}
	press(t, m, keys[:5]...)
	if got := screenText(m); !strings.Contains(got, "Party: 2 Adult · 2 Child") || !strings.Contains(got, "2 Adult · 2 Child") {
		t.Fatalf("the party row is not on the map:\n%s", got)
	}
	press(t, m, keys[5])
	c := &m.checkout
	if m.screen != screenCheckout || len(c.seats) != 4 {
		t.Fatalf("enter with a party: screen %v, %d seats, status %q", m.screen, len(c.seats), m.status)
	}
	for i, want := range []string{"adult", "adult", "child", "child"} {
		if got := c.types[c.seats[i].Label]; got != want {
			t.Fatalf("seat %s is %s, want %s", c.seats[i].Label, got, want)
		}
		if c.seats[i].Row != c.seats[0].Row || c.seats[i].Col != c.seats[0].Col+i {
			t.Fatalf("the party does not sit together: %v", seatLabels(c.seats))
		}
	}
	press(t, m, keys[6])
	if c.method != booking.Card || c.focus != len(c.seats)+focusSell {
		t.Fatalf("c: method %v focus %d", c.method, c.focus)
	}
	press(t, m, keys[7])
	if m.screen != screenDone {
		t.Fatalf("no sale after %d keys: %v %q", len(keys), m.screen, m.status)
	}
	b, err := s.Booking(context.Background(), booking.System, m.done.booking.Number)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, tk := range b.Tickets {
		types[tk.Type]++
	}
	if types["adult"] != 2 || types["child"] != 2 || b.Total != 2*1250+2*850 || b.Payments[0].Method != booking.Card {
		t.Fatalf("booking %v total %s paid %s", types, b.Total, b.Payments[0].Method)
	}
}

// The party row's keys: backspace takes back what was typed last, esc
// clears it, a bare count still holds that many with b and stays on the
// map, and seats picked by hand take the party's types.
func TestSeatMap_PartyRowKeys(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "party-keys", 80, 24)
	openGrandShow(t, m)
	p := &m.seats.party
	press(t, m, "3", "a", "1", "2")
	if p.size() != 3 || p.num != 12 {
		t.Fatalf("3a12: size %d, count typed %d", p.size(), p.num)
	}
	press(t, m, "backspace", "backspace", "backspace")
	if !p.empty() {
		t.Fatalf("three backspaces left %+v", *p)
	}
	press(t, m, "2", "s", "esc")
	if !p.empty() || m.screen != screenSeatMap {
		t.Fatalf("esc did not clear the party: %+v, screen %v", *p, m.screen)
	}
	press(t, m, "4", "b")
	if m.screen != screenSeatMap || len(m.seats.mine()) != 4 {
		t.Fatalf("4b: screen %v, holding %d", m.screen, len(m.seats.mine()))
	}
	press(t, m, "x", "y", "1", "t", "1", "s")
	goTo(t, m, "N8-9")
	press(t, m, "enter")
	if m.screen != screenCheckout || m.checkout.types["N8"] != "student" || m.checkout.types["N9"] != "senior" {
		t.Fatalf("hand-picked seats: screen %v, types %v", m.screen, m.checkout.types)
	}
}

// w on a party row makes one of it a wheelchair user: best available
// gives a wheelchair place with its companion seat beside it. Before any
// type is typed, w is still the waiting list.
func TestSeatMap_PartyWheelchair(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "wheel", 80, 24)
	openGrandShow(t, m)
	press(t, m, "1", "a", "w", "w")
	if !m.statusErr || m.seats.party.wheel() != 1 {
		t.Fatalf("two wheelchairs for a party of one: %q, %d", m.status, m.seats.party.wheel())
	}
	press(t, m, "1", "a", "enter")
	c := &m.checkout
	if m.screen != screenCheckout || len(c.seats) != 2 {
		t.Fatalf("1a w 1a: screen %v, seats %v, status %q", m.screen, seatLabels(c.seats), m.status)
	}
	kinds := map[booking.SeatKind]int{}
	for _, seat := range c.seats {
		kinds[seat.Kind]++
	}
	if kinds[booking.Wheelchair] != 1 || kinds[booking.Companion] != 1 {
		t.Fatalf("held %v: want a wheelchair place and its companion", seatLabels(c.seats))
	}
	press(t, m, "esc", "x", "y", "esc")
	press(t, m, "3", "w")
	if !m.seats.waitPrompt {
		t.Fatal("3w with no type typed is not the waiting list")
	}
}

// Seats picked by hand that would strand a single empty seat are refused
// with a banner naming it: enter holds the seats with the single, y holds
// them anyway and the trail says who left it, esc chooses again.
func TestSeatMap_SingleSeatRule(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "single", 120, 40) // the banner on one line
	show := openGrandShow(t, m)
	goTo(t, m, "G7")
	if m.seats.single == nil || !strings.Contains(screenText(m), "G6 would be left as a single seat. · enter holds G6 and G7 · y holds G7 anyway (logged) · esc") ||
		len(storeMap(t, s, show.ID, "single").HoldID) != 0 {
		t.Fatalf("G7 alone:\n%s", screenText(m))
	}
	press(t, m, "esc")
	if m.seats.single != nil || m.status != "Choose again." {
		t.Fatalf("esc: %q", m.status)
	}
	goTo(t, m, "G7")
	press(t, m, "enter")
	if got := seatLabels(m.seats.mine()); strings.Join(got, " ") != "G6 G7" {
		t.Fatalf("enter held %v, want G6 G7", got)
	}
	press(t, m, "x", "y")
	goTo(t, m, "G7")
	press(t, m, "y")
	if got := seatLabels(m.seats.mine()); strings.Join(got, " ") != "G7" {
		t.Fatalf("y held %v, want G7", got)
	}
	rows, err := s.Audit(context.Background(), booking.System, booking.AuditQuery{Day: clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		if r.Action == booking.AuditOverride && strings.Contains(r.Detail, "single seat left: G6") {
			n++
			if r.Actor != assets.DemoUser || !strings.HasSuffix(r.Detail, ": G7)") {
				t.Fatalf("override row %+v", r)
			}
		}
	}
	if n != 1 {
		t.Fatalf("%d override rows, want 1", n)
	}
}

// A message too long for the status line's two lines ends on a word and
// says where to read it whole; ctrl+l opens the log with all of it, which
// keeps the last fifty, and signing out empties it.
func TestMessages_Log(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "log", 80, 24)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	long := "The receipt printer at ipp://printer.local:631/ipp/print did not answer in time: check that it is switched on and has paper, then press p on the done screen to print the tickets again."
	m.setError(long)
	m.drawn = false
	lines := strings.Split(screenText(m), "\n")
	if !strings.HasSuffix(strings.TrimSpace(lines[22]), "ctrl+l reads it all") || !strings.HasPrefix(lines[21], "! The receipt printer") {
		t.Fatalf("a long message:\n%s", strings.Join(lines[19:], "\n"))
	}
	press(t, m, "ctrl+l")
	if got := strings.Join(strings.Fields(screenText(m)), " "); !strings.Contains(got, "to print the tickets again.") {
		t.Fatalf("the log does not hold the whole message:\n%s", screenText(m))
	}
	press(t, m, "esc")
	if m.msgs.open {
		t.Fatal("esc did not close the log")
	}
	for i := range 60 {
		m.setInfo("message " + string(rune('A'+i%26)) + strings.Repeat("!", i))
	}
	if len(m.msgs.entries) != maxMessages {
		t.Fatalf("%d messages kept, want %d", len(m.msgs.entries), maxMessages)
	}
	press(t, m, "ctrl+o")
	if len(m.msgs.entries) > 1 {
		t.Fatalf("signing out kept %d messages", len(m.msgs.entries))
	}
}

// The hint bar puts the screen's own keys first and the keys of every
// screen after them, keeps ? last, and leaves out what does not fit whole.
func TestModel_HintBar(t *testing.T) {
	t.Parallel()
	m := New(Options{})
	m.width = 50
	k := m.keys
	bar := screenLine(m.hintBar([]key.Binding{k.Find, k.Toggle, k.Help, k.GoTo, k.Door, k.Clear}))
	if bar != "space hold/release • / go to G7 or G7-9 • ? keys" {
		t.Fatalf("bar %q", bar)
	}
	m.width = 80
	bar = screenLine(m.hintBar([]key.Binding{k.Find, k.Toggle, k.Help, k.GoTo}))
	if bar != "space hold/release • / go to G7 or G7-9 • ctrl+f find booking • ? keys" {
		t.Fatalf("bar %q", bar)
	}
}
