package booking

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Invariant 8: an action nobody classified needs the highest role.
func TestAuthorize_FailsClosed(t *testing.T) {
	unclassified := Action("test_only_action")
	for r := RoleKiosk; r < RoleManager; r++ {
		if err := Authorize(Actor{Name: "x", Role: r}, unclassified); ErrorCode(err) != EForbidden {
			t.Fatalf("%s may do an unclassified action: %v", r, err)
		}
	}
	if err := Authorize(Actor{Name: "m", Role: RoleManager}, unclassified); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		role   Role
		action Action
		ok     bool
	}{
		{RoleDoor, ActionAdmit, true},
		{RoleDoor, ActionSell, false},
		{RoleClerk, ActionSell, true},
		{RoleClerk, ActionCancel, false},
		{RoleSupervisor, ActionCancel, true},
		{RoleSupervisor, ActionManageStaff, false},
		{RoleKiosk, ActionHold, false},
		{RoleKiosk, ActionViewShows, true},
		{RoleKiosk, ActionKiosk, true},
	}
	for _, c := range cases {
		err := Authorize(Actor{Name: "x", Role: c.role}, c.action)
		if (err == nil) != c.ok {
			t.Errorf("%s %s: %v", c.role, c.action, err)
		}
	}
}

// An Actor nobody filled in is nobody: not a kiosk, so not even the
// public reads or a kiosk's hold are open to it.
func TestAuthorize_ZeroActorMayDoNothing(t *testing.T) {
	for _, a := range []Action{ActionViewShows, ActionKiosk, ActionReserve, ActionCollect, ActionAdmit, ActionHold} {
		if err := Authorize(Actor{}, a); ErrorCode(err) != EForbidden {
			t.Errorf("a zero Actor may %s: %v", a, err)
		}
	}
	if RoleNone.String() != "nobody" {
		t.Errorf("RoleNone is %q", RoleNone)
	}
	if _, err := ParseRole("nobody"); err == nil {
		t.Error("nobody parses as a staff role")
	}
}

func TestCanMove(t *testing.T) {
	bookings := []struct {
		from, to BookingStatus
		ok       bool
	}{
		{BookingConfirmed, BookingCancelled, true},
		{BookingConfirmed, BookingCompleted, true},
		{BookingConfirmed, BookingNoShow, true},
		{BookingCancelled, BookingConfirmed, false},
		{BookingCancelled, BookingCancelled, false},
		{BookingCompleted, BookingCancelled, false},
	}
	for _, c := range bookings {
		if got := c.from.CanMove(c.to); got != c.ok {
			t.Errorf("booking %s -> %s: CanMove = %v", c.from, c.to, got)
		}
	}
	tickets := []struct {
		from, to TicketStatus
		ok       bool
	}{
		{TicketIssued, TicketAdmitted, true},
		{TicketIssued, TicketVoid, true},
		{TicketIssued, TicketRefunded, true},
		{TicketAdmitted, TicketIssued, false},
		{TicketAdmitted, TicketAdmitted, false},
		{TicketVoid, TicketAdmitted, false},
		{TicketRefunded, TicketIssued, false},
	}
	for _, c := range tickets {
		if got := c.from.CanMove(c.to); got != c.ok {
			t.Errorf("ticket %s -> %s: CanMove = %v", c.from, c.to, got)
		}
	}
	if !HoldHeld.CanMove(HoldConfirmed) || HoldConfirmed.CanMove(HoldHeld) {
		t.Error("a held hold is sold once and a sold one never held again")
	}
	if !ClaimSold.CanMove(ClaimCancelled) || ClaimSold.CanMove(ClaimReleased) {
		t.Error("a sold seat is freed only by a cancel")
	}
}

// Invariant 9: no untrusted string reaches a terminal with its control
// characters.
func TestClean(t *testing.T) {
	cases := map[string]string{
		"Ann Lee":                        "Ann Lee",
		"\x1b[2J\x1b]0;pwned\x07Film":    "[2J]0;pwnedFilm",
		"Amélie\u202eevil\u202c":         "Amélieevil",
		"tab\there\nnew":                 "tab here new",
		"c1\u0085\u009b31m":              "c131m",
		"zero\u200bwidth\u2066iso\u2069": "zerowidthiso",
		"\ufeffbom":                      "bom",
	}
	for in, want := range cases {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
	if got := CleanLine("  "+strings.Repeat("x", 100)+"  ", 10); got != strings.Repeat("x", 10) {
		t.Errorf("CleanLine = %q", got)
	}
}

func FuzzClean(f *testing.F) {
	f.Add("\x1b[31mred\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range Clean(s) {
			if r < 0x20 || (r >= 0x7f && r <= 0x9f) || isBidiOrFormat(r) {
				t.Fatalf("Clean(%q) kept %U", s, r)
			}
		}
	})
}

// Publishing never blocks on a slow subscriber, and a subscriber that
// fell behind still learns that something changed.
func TestBroker_NeverBlocks(t *testing.T) {
	b := NewBroker()
	ctx, cancel := context.WithCancel(context.Background())
	slow := b.Subscribe(ctx) // never read until the end
	fast := b.Subscribe(ctx)
	done := make(chan struct{})
	go func() {
		for i := 0; i < 10000; i++ {
			b.Publish(int64(i%7 + 1))
		}
		close(done)
	}()
	go func() {
		for range fast {
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Publish blocked on a slow subscriber")
	}
	got := 0
	for len(slow) > 0 {
		<-slow
		got++
	}
	if got == 0 {
		t.Fatal("the slow subscriber was told nothing")
	}
	cancel()
	deadline := time.Now().Add(time.Second)
	for b.Subscribers() != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if b.Subscribers() != 0 {
		t.Fatal("subscribers were not removed when their context ended")
	}
}

func TestSeatsTakenError_Message(t *testing.T) {
	e := &SeatsTakenError{
		Taken:       []Seat{{Label: "G7"}},
		Suggestions: [][]Seat{{{Label: "G8"}, {Label: "G9"}}},
	}
	if got, want := e.Message(), "G7 was just taken — G8 and G9 are free next to it"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	if ErrorCode(e) != EConflict {
		t.Fatal("a clash is a conflict")
	}
	if ErrorMessage(context.Canceled) != "Internal error." {
		t.Fatal("non-domain errors must not leak their text")
	}
}
