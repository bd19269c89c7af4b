package booking

import (
	"testing"
	"time"
)

func TestRatingAge(t *testing.T) {
	t.Parallel()
	for rating, want := range map[string]int{"U": 0, "PG": 0, "": 0, "12A": 12, "15": 15, "18": 18, "R18": 18, "FSK 16": 16, "MA15+": 15, "99": 0} {
		if got := RatingAge(rating); got != want {
			t.Errorf("RatingAge(%q) = %d, want %d", rating, got, want)
		}
	}
	if NeedsID("12A", DefaultIDAbove) || !NeedsID("15", DefaultIDAbove) || NeedsID("15", 15) {
		t.Fatal("NeedsID: 12A needs none at 12, 15 does; 15 needs none at 15")
	}
}

func TestHireFor_WeekOverRun(t *testing.T) {
	t.Parallel()
	hires := []FilmHire{{Week: 0, Rate: 3500}, {Week: 2, Rate: 3000}, {Week: 0, Rate: 4000}}
	for week, want := range map[int]Rate{1: 4000, 2: 3000, 3: 4000} {
		if got, ok := HireFor(hires, week); !ok || got != want {
			t.Errorf("week %d: %s %v, want %s", week, got, ok, want)
		}
	}
	if _, ok := HireFor(nil, 1); ok {
		t.Fatal("a hire with none set")
	}
}

func TestHireOwed_RoundsHalfUp(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		net  Money
		rate Rate
		unit Money
		want Money
	}{{2084, 3500, 1, 729}, {1000, 3500, 1, 350}, {3, 5000, 1, 2}, {-3, 5000, 1, -2}, {2084, 3500, 100, 700}} {
		if got := HireOwed(c.net, c.rate, c.unit); got != c.want {
			t.Errorf("HireOwed(%d, %s, %d) = %d, want %d", c.net, c.rate, c.unit, got, c.want)
		}
	}
}

func TestRunWeek(t *testing.T) {
	t.Parallel()
	first := time.Date(2026, 12, 4, 20, 0, 0, 0, time.UTC)
	for day, want := range map[int]int{3: 0, 4: 1, 10: 1, 11: 2, 18: 3} {
		if got := RunWeek(first, time.Date(2026, 12, day, 0, 0, 0, 0, time.UTC)); got != want {
			t.Errorf("Dec %d: week %d, want %d", day, got, want)
		}
	}
}
