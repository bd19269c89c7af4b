package tui

import (
	"testing"

	"boxoffice/assets"
)

// TestModel_EnterBeforeTheListLoads: enter pressed on the shows list
// right after signing in, before the day's shows have arrived, opens the
// show under the cursor once they do. Before, the key found an empty list
// and was lost: on PostgreSQL, where the first list takes a few round
// trips, 6 runs in 20 stayed on the list (never on SQLite, where the list
// arrives before the key can).
func TestModel_EnterBeforeTheListLoads(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "race", 80, 24)
	typeText(t, m, assets.DemoUser)
	press(t, m, "enter")
	typeText(t, m, assets.DemoPIN)
	_, signingIn := m.Update(keyMsg("enter"))
	answers := exec(signingIn)
	if len(answers) != 1 {
		t.Fatalf("signing in answered %v", answers)
	}
	// Signed in: the shows list is on screen, its loads not yet run.
	_, loads := m.Update(answers[0])
	if m.screen != screenShows || m.shows.loaded {
		t.Fatalf("after signing in: screen %v, list loaded %v", m.screen, m.shows.loaded)
	}
	press(t, m, "enter") // the clerk's enter beats the list
	run(t, m, loads)     // and now the list arrives
	if m.screen != screenSeatMap || m.seats.show.ID == 0 || m.seats.sm == nil {
		t.Fatalf("enter before the list: screen %v, show %d, status %q", m.screen, m.seats.show.ID, m.status)
	}
	if first := m.shows.visible()[0]; m.seats.show.ID != first.ID {
		t.Fatalf("opened show %d, want the first of the list, %d", m.seats.show.ID, first.ID)
	}

	// A reload of the list later opens nothing by itself.
	press(t, m, "esc")
	if m.screen != screenShows {
		t.Fatalf("esc from the map: %v", m.screen)
	}
	run(t, m, m.loadShowsCmd())
	if m.screen != screenShows {
		t.Fatalf("a reload opened %v", m.screen)
	}
}
