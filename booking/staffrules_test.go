package booking

import (
	"testing"
	"time"
)

// The door window in the words both backends use, including the late
// show that ends after midnight.
func TestDoorWindow(t *testing.T) {
	at := func(d, h, m int) time.Time { return time.Date(2026, 3, d, h, m, 0, 0, time.UTC) }
	show := func(starts time.Time) Show {
		return Show{Starts: starts, Film: Film{Title: "Film\x1b[2J", Minutes: 100}}
	}
	for _, c := range []struct {
		now  time.Time
		show Show
		want string
	}{
		{at(13, 10, 0), show(at(13, 15, 0)), "Doors open at 13:00 for the 15:00 show (Film[2J, seat A1)."},
		{at(13, 10, 0), show(at(14, 12, 0)), "Ticket A1 is for Film[2J at Sat 14 Mar 12:00."},
		{at(13, 13, 0), show(at(13, 15, 0)), ""},
		{at(13, 16, 39), show(at(13, 15, 0)), ""},
		{at(13, 16, 40), show(at(13, 15, 0)), "This show ended at 16:40."},
		{at(14, 0, 41), show(at(13, 23, 0)), "This show ended at 00:40."},
		{at(15, 10, 0), show(at(13, 23, 0)), "Ticket A1 is for Film[2J at Fri 13 Mar 23:00."},
	} {
		err := DoorWindow(c.now, c.show, "A1")
		if c.want == "" && err != nil || c.want != "" && (ErrorCode(err) != EInvalid || ErrorMessage(err) != c.want) {
			t.Errorf("at %s for %s: %v, want %q", c.now.Format("Mon 15:04"), c.show.Starts.Format("Mon 15:04"), err, c.want)
		}
	}
}

func TestStaffRules(t *testing.T) {
	for pin, ok := range map[string]bool{"123": false, "1234": true, string(make([]byte, 33)): false} {
		if (ValidPIN(pin) == nil) != ok {
			t.Errorf("ValidPIN(%q) = %v", pin, ValidPIN(pin))
		}
	}
	for name, ok := range map[string]bool{"sue": true, " sue ": true, "s\x1bue": false, "": false, "\xff": false} {
		if _, err := ValidStaffName(name); (err == nil) != ok {
			t.Errorf("ValidStaffName(%q) = %v", name, err)
		}
	}
	mia := Actor{StaffID: 7, Name: "mia", Role: RoleManager}
	if err := NotYourself(mia, "MIA", "disable"); ErrorCode(err) != EInvalid {
		t.Errorf("mia disabling MIA: %v", err)
	}
	if NotYourself(mia, "max", "disable") != nil || NotYourself(System, "mia", "disable") != nil {
		t.Error("another manager or the command line refused")
	}
}
