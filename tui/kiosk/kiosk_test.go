package kiosk

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// newTestKiosk is a kiosk session on store with its idle timer in the
// test's hands.
func newTestKiosk(store Backend, owner string) *Model {
	m := New(Options{Store: store, Owner: owner, Now: newClock().Now, Addr: "192.0.2.9"})
	m.noTimer = true
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	return m
}

// kioskSend delivers msg and runs every command it leads to, in order.
func kioskSend(tb testing.TB, m *Model, msg tea.Msg) {
	tb.Helper()
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		msg := queue[0]
		queue = queue[1:]
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				if c != nil {
					queue = append(queue, c())
				}
			}
			continue
		}
		if msg == nil {
			continue
		}
		if _, cmd := m.Update(msg); cmd != nil {
			queue = append(queue, cmd())
		}
	}
}

func kioskPress(tb testing.TB, m *Model, keys ...string) {
	tb.Helper()
	for _, k := range keys {
		kioskSend(tb, m, keyMsg(k))
	}
}

func kioskType(tb testing.TB, m *Model, s string) {
	tb.Helper()
	kioskSend(tb, m, tea.PasteMsg{Content: s})
}

// kioskToSeats books two adult seats of the first film's first show to
// the map.
func kioskToSeats(t *testing.T, m *Model) {
	t.Helper()
	kioskPress(t, m, "enter", "enter", "enter", "right", "right", "enter")
	if m.screen != kSeats || m.hold == nil || len(m.hold.Seats) != 2 {
		t.Fatalf("not on the map with two seats: screen %d, note %q\n%s", m.screen, m.note, m.Render())
	}
}

// liveHolds counts the seats of show 1 owner holds.
func liveHolds(t *testing.T, s *db.Store, owner string) int {
	t.Helper()
	m, err := s.SeatMap(context.Background(), booking.System, 1, owner)
	if err != nil {
		t.Fatal(err)
	}
	mine := 0
	for _, st := range m.States {
		if st == booking.SeatHeldByMe {
			mine++
		}
	}
	return mine
}

// TestKiosk_BookAndCollect walks the customer's flow: two seats, moved
// one seat left, a name and phone, the reservation's number and QR; then
// collect with the number and the phone's last four digits.
func TestKiosk_BookAndCollect(t *testing.T) {
	s := MustOpenStore(t, newClock())
	m := newTestKiosk(s, "kiosk-a")
	kioskToSeats(t, m)
	before := m.hold.Seats[0].Label
	kioskPress(t, m, "left")
	if m.hold.Seats[0].Label == before || m.note != "" {
		t.Fatalf("the block did not move: %s, note %q", m.hold.Seats[0].Label, m.note)
	}
	kioskPress(t, m, "enter")
	kioskType(t, m, "Ann Lee")
	kioskPress(t, m, "tab")
	kioskType(t, m, "020 7946 0018")
	kioskPress(t, m, "enter")
	if m.screen != kReserved || m.reservation == nil {
		t.Fatalf("not reserved: %q\n%s", m.note, m.Render())
	}
	screen := m.Render()
	number := m.reservation.Number
	if !strings.Contains(screen, number) || !strings.Contains(screen, "Pay at the counter by") || !strings.Contains(screen, "▄") {
		t.Fatalf("reserved screen without the number, cut-off or QR:\n%s", screen)
	}
	kioskPress(t, m, "enter", "down", "enter")
	kioskType(t, m, number)
	kioskPress(t, m, "tab")
	kioskType(t, m, "0018")
	kioskPress(t, m, "enter")
	if m.screen != kCollected || !strings.Contains(m.Render(), "Not paid yet") {
		t.Fatalf("collect: %q\n%s", m.note, m.Render())
	}
}

// TestKiosk_CollectWrongLooksTheSame is must-show 2's screen half: a
// wrong phone, another customer's number with this phone, and a made-up
// number draw byte-identical screens but for what was typed, which stays
// for the customer to put right: digits typed again replace the wrong
// ones.
func TestKiosk_CollectWrongLooksTheSame(t *testing.T) {
	s := MustOpenStore(t, newClock())
	ctx := context.Background()
	reserve := func(owner, phone string) string {
		h, err := s.KioskHold(ctx, kioskActorT, booking.KioskHoldRequest{ShowID: 1, Owner: owner, N: 1})
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Reserve(ctx, kioskActorT, booking.ReserveRequest{HoldID: h.ID, Owner: owner, Name: "X", Phone: phone})
		if err != nil {
			t.Fatal(err)
		}
		return r.Number
	}
	ann, bob := reserve("a", "020 7946 0018"), reserve("b", "07700 900123")
	var screens []string
	for _, c := range [][2]string{{ann, "9999"}, {bob, "0018"}, {"BO-ZZZZ2222", "0018"}} {
		m := newTestKiosk(s, "k")
		kioskPress(t, m, "down", "enter")
		kioskType(t, m, c[0])
		kioskPress(t, m, "tab")
		kioskType(t, m, c[1])
		kioskPress(t, m, "enter")
		if m.fields[0].String() != c[0] || m.fields[1].String() != c[1] || m.focus != 1 {
			t.Fatalf("a wrong pair lost what was typed: %q %q, focus %d", m.fields[0].String(), m.fields[1].String(), m.focus)
		}
		screens = append(screens, strings.NewReplacer(c[0], "NUMBER", c[1], "DIGITS").Replace(m.Render()))
		kioskType(t, m, "1234")
		if m.fields[0].String() != c[0] || m.fields[1].String() != "1234" {
			t.Fatalf("digits typed again: %q %q", m.fields[0].String(), m.fields[1].String())
		}
	}
	if !strings.Contains(screens[0], "No booking found.") {
		t.Fatalf("wrong phone:\n%s", screens[0])
	}
	for i, sc := range screens[1:] {
		if sc != screens[0] {
			t.Errorf("screen %d differs from the wrong phone's:\n%s\n---\n%s", i+1, sc, screens[0])
		}
	}
}

// kioskActorT is a kiosk's actor for setting up a test's store.
var kioskActorT = booking.Actor{Name: "kiosk", Role: booking.RoleKiosk}

// testStart is the tests' clock: a Friday morning, so the demo programme
// has shows later the same day.
var testStart = time.Date(2026, 3, 13, 10, 0, 0, 0, time.UTC)

func newClock() *storetest.Clock { return storetest.NewClock(testStart) }

// MustOpenStore opens the demo cinema on a file in a temp dir.
func MustOpenStore(tb testing.TB, clock *storetest.Clock) *db.Store {
	tb.Helper()
	s, _ := dbtest.MustOpenDemo(tb, db.Options{Clock: clock.Now, SweepInterval: -1, PollInterval: -1, Sync: "normal"})
	return s
}

// keyMsg builds the key press a terminal sends for a key name.
func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	}
	if rest, ok := strings.CutPrefix(k, "ctrl+"); ok && len(rest) == 1 {
		return tea.KeyPressMsg{Code: rune(rest[0]), Mod: tea.ModCtrl}
	}
	r := []rune(k)
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// TestKiosk_IdleReleasesHold is must-show 4's kiosk half: a session idle
// past its limit starts again and lets its hold go; a stale timer does
// nothing.
func TestKiosk_IdleReleasesHold(t *testing.T) {
	s := MustOpenStore(t, newClock())
	m := newTestKiosk(s, "kiosk-idle")
	kioskToSeats(t, m)
	if n := liveHolds(t, s, "kiosk-idle"); n != 2 {
		t.Fatalf("%d seats held before idling", n)
	}
	kioskSend(t, m, kIdleMsg{gen: m.idleGen - 1}) // a key came after this timer was armed
	if m.screen != kSeats {
		t.Fatal("a stale idle timer reset the kiosk")
	}
	kioskSend(t, m, kIdleMsg{gen: m.idleGen})
	if m.screen != kHome || m.hold != nil {
		t.Fatalf("idle kiosk on screen %d", m.screen)
	}
	if n := liveHolds(t, s, "kiosk-idle"); n != 0 {
		t.Fatalf("%d seats still held after the idle reset", n)
	}
}

// TestKiosk_HostileInput is must-show 5's kiosk half: every field at its
// worst gets a clear message, nothing is stored, and nothing typed
// reaches the screen with its control characters.
func TestKiosk_HostileInput(t *testing.T) {
	s := MustOpenStore(t, newClock())
	m := newTestKiosk(s, "kiosk-h")
	kioskToSeats(t, m)
	kioskPress(t, m, "enter")
	for _, c := range []struct{ name, phone, want string }{
		{strings.Repeat("A", 5000), "0123456789", "at most 60"},
		{"\x1b[31m\x1b]0;owned\x07", "0123456789", "cannot be printed"},
		{"Ann\u202e", "0123456789", "cannot be printed"},
		{"Ann", "", "Type your phone number."},
		{"Ann", "\x1b[2J0123456789", "in digits"},
		{"Ann", strings.Repeat("9", 500), "6 to 15 digits"},
	} {
		m.fields[0].value, m.fields[1].value = nil, nil
		m.focus = 0
		kioskType(t, m, c.name)
		kioskPress(t, m, "tab")
		kioskType(t, m, c.phone)
		kioskPress(t, m, "enter")
		screen := m.Render()
		if m.screen != kDetails || !strings.Contains(m.note, c.want) {
			t.Errorf("name %q phone %q: screen %d, note %q, want %q", c.name, c.phone, m.screen, m.note, c.want)
		}
		if strings.ContainsAny(screen, "\x07\u202e") || strings.Contains(screen, "\x1b]0") || strings.Contains(screen, "\x1b[2J") {
			t.Errorf("a control sequence typed reached the screen: %q", screen)
		}
	}
	if list, err := s.FindReservations(context.Background(), booking.System, "0123456789"); err != nil || len(list) != 0 {
		t.Fatalf("hostile input stored %d reservations (%v)", len(list), err)
	}
}

// TestKiosk_NoWayOut: interrupt and suspend, as keys or messages, do not
// quit; without Unlock (an SSH kiosk) the staff chord does nothing; the
// eleventh seat cannot be counted.
func TestKiosk_NoWayOut(t *testing.T) {
	s := MustOpenStore(t, newClock())
	m := newTestKiosk(s, "kiosk-x")
	for _, msg := range []tea.Msg{keyMsg("ctrl+c"), keyMsg("ctrl+z"), keyMsg("ctrl+\\"), keyMsg("ctrl+d"), tea.InterruptMsg{}, tea.SuspendMsg{}} {
		if _, cmd := m.Update(msg); cmd != nil {
			if out := cmd(); out != nil {
				if _, quit := out.(tea.QuitMsg); quit {
					t.Fatalf("%T %v quits the kiosk", msg, msg)
				}
			}
		}
		if Filter(m, msg) != nil && (msg == tea.Msg(tea.InterruptMsg{}) || msg == tea.Msg(tea.SuspendMsg{})) {
			t.Errorf("the filter lets %T through", msg)
		}
	}
	kioskPress(t, m, "ctrl+x", "ctrl+e")
	if m.screen == kUnlock {
		t.Fatal("the staff chord opened the unlock screen on a kiosk without Unlock")
	}
	kioskPress(t, m, "enter", "enter", "enter")
	for range 12 {
		kioskPress(t, m, "right")
	}
	if m.total() != booking.MaxSeatsPerReservation || !strings.Contains(m.note, "At most 10") {
		t.Fatalf("counted %d seats, note %q", m.total(), m.note)
	}
}

// TestKiosk_LocalKioskCountsByDevice: a kiosk in the building (no
// network address) counts against the per-address limits as its device.
func TestKiosk_LocalKioskCountsByDevice(t *testing.T) {
	m := New(Options{Store: MustOpenStore(t, newClock()), Owner: "kiosk-local", Terminal: "kiosk foyer"})
	if m.opts.Addr != booking.DeviceAddr("kiosk foyer") {
		t.Fatalf("a local kiosk's address is %q", m.opts.Addr)
	}
}

// TestKiosk_NoteWraps: a long note (the kiosks' share, with what to do
// about it) wraps inside the window instead of losing its end.
func TestKiosk_NoteWraps(t *testing.T) {
	m := newTestKiosk(MustOpenStore(t, newClock()), "kiosk-w")
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 40})
	m.note = booking.ErrorMessage(booking.KioskShareCheck(404, 130, 10))
	screen := ansi.Strip(m.Render())
	for _, l := range strings.Split(screen, "\n") {
		if ansi.StringWidth(l) > 60 {
			t.Errorf("a line wider than the window: %q", l)
		}
	}
	if flat := strings.Join(strings.Fields(screen), " "); !strings.Contains(flat, "Choose fewer, or buy at the counter.") {
		t.Fatalf("the note lost its end:\n%s", screen)
	}
}
