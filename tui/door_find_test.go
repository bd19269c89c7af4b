package tui

import (
	"strings"
	"testing"

	"boxoffice/booking"
)

// TestDoor_NoFindForDoorStaff: door staff may not look bookings up, so
// neither the door's hint bar nor its ? keys offer them ctrl+f, and
// ctrl+f leaves them where they are; esc, which clears the code for them
// (the door is their home), says so. A clerk at the same door screen is
// offered ctrl+f and esc back.
func TestDoor_NoFindForDoorStaff(t *testing.T) {
	clock := newClock()
	s := MustOpenStore(t, clock)
	addStaff(t, s, "dora", booking.RoleDoor, "2468")
	addStaff(t, s, "cleo", booking.RoleClerk, "1357")
	m := newTestModel(t, s, clock, "door-1", 100, 30)
	typeText(t, m, "dora")
	press(t, m, "enter")
	typeText(t, m, "2468")
	press(t, m, "enter")
	if m.screen != screenDoor {
		t.Fatalf("door staff landed on %v", m.screen)
	}
	if v := screenText(m); strings.Contains(v, "ctrl+f") || !strings.Contains(v, "esc clear") {
		t.Errorf("the door offers door staff ctrl+f, or esc back:\n%s", v)
	}
	press(t, m, "?")
	if v := screenText(m); strings.Contains(v, "ctrl+f") || !strings.Contains(v, "ctrl+o") {
		t.Errorf("the door's ? keys offer door staff ctrl+f:\n%s", v)
	}
	press(t, m, "?", "ctrl+f")
	if m.screen != screenDoor || m.leaving != nil {
		t.Errorf("ctrl+f took door staff to %v", m.screen)
	}

	c := newTestModel(t, s, clock, "door-2", 100, 30)
	signIn(t, c, "cleo", "1357")
	press(t, c, "ctrl+d")
	if v := screenText(c); c.screen != screenDoor || !strings.Contains(v, "ctrl+f") || !strings.Contains(v, "esc back") {
		t.Errorf("a clerk at the door is not offered ctrl+f (screen %v):\n%s", c.screen, v)
	}
}
