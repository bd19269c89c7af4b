package tui

import (
	"context"
	"fmt"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// TestModel_TwoCountersRace: two sessions on one database go for the same
// seats at the same moment. One sells them; the other sees the clash
// banner, its offer is really free, and taking it sells those seats.
func TestModel_TwoCountersRace(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	a := newTestModel(t, s, clock, "counter-a", 80, 24)
	b := newTestModel(t, s, clock, "counter-b", 80, 24)
	show := openGrandShow(t, a)
	openGrandShow(t, b)

	for round, want := range []string{"G8-9", "J10-11", "D3-5"} {
		t.Run(fmt.Sprint(want), func(t *testing.T) {
			// Both clerks type the same seats; both holds are sent before
			// either answer is seen.
			var cmds [2]tea.Cmd
			for i, m := range []*Model{a, b} {
				press(t, m, "/")
				typeText(t, m, want)
				_, cmds[i] = m.Update(keyMsg("enter"))
				if cmds[i] == nil {
					t.Fatalf("counter %d sent no hold", i)
				}
			}
			var msgs [2][]tea.Msg
			var wg sync.WaitGroup
			for i := range cmds {
				wg.Go(func() { msgs[i] = exec(cmds[i]) })
			}
			wg.Wait()
			for i, m := range []*Model{a, b} {
				send(t, m, msgs[i]...)
			}

			var winner, loser *Model
			switch {
			case a.seats.clash == nil && b.seats.clash != nil:
				winner, loser = a, b
			case b.seats.clash == nil && a.seats.clash != nil:
				winner, loser = b, a
			default:
				t.Fatalf("round %d: clash at a %v, at b %v", round, a.seats.clash != nil, b.seats.clash != nil)
			}
			wanted := labelsOfRange(t, want)
			if got := seatLabels(winner.seats.mine()); fmt.Sprint(got) != fmt.Sprint(wanted) {
				t.Fatalf("winner holds %v, want %v", got, wanted)
			}

			// The offer is really free: a third counter sees it so.
			offer := loser.seats.clash.offerSeats()
			if len(offer) != len(wanted) {
				t.Fatalf("offer %v for a party of %d", seatLabels(offer), len(wanted))
			}
			fresh := storeMap(t, s, show.ID, "third")
			for _, seat := range offer {
				if st := fresh.State(seat.ID); st != booking.SeatFree {
					t.Fatalf("offered %s is %v", seat.Label, st)
				}
			}

			// The winner sells; the loser takes the offer and sells it.
			press(t, winner, "enter", "enter", "enter")
			if winner.screen != screenDone {
				t.Fatalf("winner's sale: %q", winner.status)
			}
			press(t, loser, "enter")
			if loser.seats.clash != nil {
				t.Fatalf("the offer clashed again: %s", loser.seats.clash.err.Message())
			}
			press(t, loser, "enter", "enter", "enter")
			if loser.screen != screenDone {
				t.Fatalf("loser's sale: %q", loser.status)
			}
			if got, want := seatLabelsOf(loser.done.booking), seatLabels(offer); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("loser sold %v, offer was %v", got, want)
			}
			sm := storeMap(t, s, show.ID, "third")
			for _, l := range append(wanted, seatLabels(offer)...) {
				if st := stateOf(t, sm, l); st != booking.SeatSold {
					t.Fatalf("%s is %v", l, st)
				}
			}
			// Each sold seat belongs to exactly one booking.
			won, err := s.Booking(context.Background(), booking.System, winner.done.booking.Number)
			if err != nil {
				t.Fatal(err)
			}
			if got := won.SeatLabels(); fmt.Sprint(got) != fmt.Sprint(wanted) {
				t.Fatalf("winner's booking has %v", got)
			}
			for _, l := range wanted {
				for _, tk := range loser.done.booking.Tickets {
					if tk.Seat.Label == l {
						t.Fatalf("%s sold twice", l)
					}
				}
			}
			// Both back to the map for the next round.
			for _, m := range []*Model{a, b} {
				press(t, m, "enter", "enter")
				if m.screen != screenSeatMap {
					t.Fatalf("back to the map: %v", m.screen)
				}
			}
		})
	}
}

func labelsOfRange(t *testing.T, r string) []string {
	t.Helper()
	l, err := booking.ParseSeatRange(r)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
