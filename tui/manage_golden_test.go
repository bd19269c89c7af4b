package tui

import (
	"context"
	"fmt"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/internal/dbtest"
)

// TestGolden_Manager draws every manager screen at 80×24 and 120×40 on a
// fixed clock: the menu, each section, its forms and questions, the
// cancel of a show with cash bookings by a manager without a shift (the
// float asked for, the customers to call), the week with the show marked
// cancelled. Every frame passes checkFits: no line wider than the window,
// none cut at its edge, no message or key hint cut mid-word.
func TestGolden_Manager(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	sellFirstShow(t, s)
	if err := s.RetireFilm(ctx, booking.System, 2); err != nil {
		t.Fatal(err)
	}
	addStaff(t, s, "carl", booking.RoleClerk, "1111")
	if err := s.DisableStaff(ctx, booking.System, "carl"); err != nil {
		t.Fatal(err)
	}
	registerTerminal(t, s, "till-1")
	if _, err := s.SetTerminalPrinter(ctx, booking.System, "till-1", "tcp://10.0.0.5:9100"); err != nil {
		t.Fatal(err)
	}
	demo := booking.Actor{Name: assets.DemoUser, Role: booking.RoleManager}
	dbtest.MustCloseShift(t, s, demo) // the cancel asks for a float
	for i, size := range [][2]int{{80, 24}, {120, 40}} {
		w, h := size[0], size[1]
		// Each size cancels a show of its own: Saturday's or Sunday's
		// first in the Grand, with parties paid in cash and by card.
		day := i + 1
		sellParties(t, s, grandShow(t, s, clock.Now().AddDate(0, 0, day)), 14)
		m := newTestModel(t, s, clock, fmt.Sprintf("golden-mgr-%d", w), w, h)
		signIn(t, m, assets.DemoUser, assets.DemoPIN)
		shot := func(name string) {
			t.Helper()
			m.setInfo("")
			checkTableFits(t, name, m)
			goldenMasked(t, m, fmt.Sprintf("manage-%s-%dx%d-%s", name, w, h, colorprofile.Ascii), colorprofile.Ascii)
		}
		press(t, m, "ctrl+g")
		shot("menu")
		press(t, m, "1")
		shot("films")
		press(t, m, "e")
		shot("film-edit")
		press(t, m, "esc", "esc", "2")
		shot("halls")
		press(t, m, "esc", "3")
		shot("week")
		press(t, m, "m")
		shot("week-move")
		press(t, m, "tab")
		retype(t, m, "18:00")
		press(t, m, "enter")
		shot("week-move-confirm")
		press(t, m, "n", "esc")
		press(t, m, "l")
		shot("week-price-list")
		press(t, m, "esc", "s")
		shot("week-sales-close")
		press(t, m, "esc")
		for range day {
			press(t, m, "right")
		}
		press(t, m, "c")
		shot("week-cancel")
		typeText(t, m, "Projector broken")
		press(t, m, "enter")
		shot("week-cancel-confirm")
		press(t, m, "y")
		shot("week-cancel-float")
		typeText(t, m, "50")
		press(t, m, "enter")
		shot("week-cancelled-list")
		press(t, m, "esc")
		shot("week-cancelled")
		// The refunds took the drawer below nothing: counted empty.
		if _, err := s.CloseShift(ctx, demo, booking.CloseShiftRequest{}); err != nil {
			t.Fatal(err)
		}
		press(t, m, "esc", "4")
		shot("prices")
		press(t, m, "s")
		shot("price-set")
		press(t, m, "esc", "l")
		shot("prices-pick-show")
		press(t, m, "esc", "esc", "5")
		shot("staff")
		press(t, m, "a")
		shot("staff-add")
		press(t, m, "esc", "esc", "6")
		shot("terminals")
		press(t, m, "p")
		shot("terminal-printer")
		press(t, m, "esc", "esc", "7")
		shot("shifts")
		for m.manage.shifts[m.manage.cursor].Status != booking.ShiftClosed {
			press(t, m, "down")
		}
		press(t, m, "o")
		shot("shift-reopen")
	}
}
