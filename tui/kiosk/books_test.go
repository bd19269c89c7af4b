package kiosk

import (
	"context"
	"strings"
	"testing"

	"boxoffice/booking"
)

// TestKiosk_SaysIDAtTheDoor: a film rated above the cinema's
// rating.id_above says, when the customer picks their tickets, that ID
// will be checked at the door; a film rated PG says nothing of it.
func TestKiosk_SaysIDAtTheDoor(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t, newClock())
	ctx := context.Background()
	films, err := s.Films(ctx, booking.System)
	if err != nil {
		t.Fatal(err)
	}
	rate := func(r string) {
		for _, f := range films {
			f.Rating = r
			if err := s.EditFilm(ctx, booking.System, f); err != nil {
				t.Fatal(err)
			}
		}
	}
	const note = "is rated 18: ID will be checked at the door."
	rate("18")
	m := newTestKiosk(s, "kiosk-id")
	kioskPress(t, m, "enter", "enter", "enter")
	if m.screen != kCount || !strings.Contains(m.Render(), note) {
		t.Fatalf("an 18 film: screen %d\n%s", m.screen, m.Render())
	}
	rate("PG")
	m = newTestKiosk(s, "kiosk-pg")
	kioskPress(t, m, "enter", "enter", "enter")
	if m.screen != kCount || strings.Contains(m.Render(), "ID will be checked") {
		t.Fatalf("a PG film: screen %d\n%s", m.screen, m.Render())
	}
}
