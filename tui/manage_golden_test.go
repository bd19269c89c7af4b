package tui

import (
	"context"
	"fmt"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"boxoffice/assets"
	"boxoffice/booking"
)

// TestGolden_Manager draws every manager screen at 80×24 and 120×40 on a
// fixed clock: the menu, each section, a form, a question.
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
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, h := size[0], size[1]
		m := newTestModel(t, s, clock, fmt.Sprintf("golden-mgr-%d", w), w, h)
		signIn(t, m, assets.DemoUser, assets.DemoPIN)
		shot := func(name string) {
			t.Helper()
			m.setInfo("")
			golden(t, m, fmt.Sprintf("manage-%s-%dx%d-%s", name, w, h, colorprofile.Ascii), colorprofile.Ascii)
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
		press(t, m, "n", "esc", "esc", "4")
		shot("prices")
		press(t, m, "s")
		shot("price-set")
		press(t, m, "esc", "esc", "5")
		shot("staff")
		press(t, m, "esc", "6")
		shot("terminals")
	}
}
