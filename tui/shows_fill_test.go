package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"boxoffice/booking"
)

// TestFillBar_BlockedSeatsAreNoSale: the shows list's bar counts the
// seats sold and held of those a show can sell. Before, blocked and house
// seats filled it: a show with a fifth of its seats blocked and none sold
// drew two cells of ten, and one sold out but for them never drew full.
func TestFillBar_BlockedSeatsAreNoSale(t *testing.T) {
	st := DefaultStyles()
	for _, c := range []struct {
		sold, held, blocked, want int
	}{
		{0, 0, 0, 0},
		{0, 0, 20, 0},
		{40, 0, 20, 5},
		{30, 10, 20, 5},
		{79, 0, 20, 10},
		{80, 0, 20, 10},
		{0, 0, 100, 0}, // every seat blocked: nothing to sell
	} {
		sh := booking.Show{Capacity: 100, Sold: c.sold, Held: c.held, Blocked: c.blocked}
		if got := strings.Count(ansi.Strip(fillBar(&st, sh, 10)), "█"); got != c.want {
			t.Errorf("%d sold, %d held, %d blocked of 100: %d full cells, want %d", c.sold, c.held, c.blocked, got, c.want)
		}
	}
}
