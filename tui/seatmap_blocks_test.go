package tui

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// hearUntil delivers m's live changes, as its program would, until ok
// holds, failing after a few seconds.
func hearUntil(t *testing.T, m *Model, what string, ok func() bool) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for !ok() {
		wait := takeParked(t, m, parkChange)
		got := make(chan tea.Msg, 1)
		go func() { got <- wait() }()
		select {
		case msg := <-got:
			send(t, m, msg)
		case <-deadline:
			t.Fatalf("%s: never happened; status %q", what, m.status)
		}
	}
}

// TestModel_BlockFromMap is issue 11's must-show 2 at the counters: a
// manager blocks three seats from the map (their own selection) with a
// reason; the free count drops by three at the manager's counter and at
// a clerk's, which draws them blocked and will not hold one; a house
// seat a manager holds back is released by a supervisor, not a clerk.
func TestModel_BlockFromMap(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	addStaff(t, s, "cleo", booking.RoleClerk, "2468")
	addStaff(t, s, "sam", booking.RoleSupervisor, "1357")
	mgr := newTestModel(t, s, clock, "mgr", 100, 30)
	clerk := newTestModel(t, s, clock, "clerk", 100, 30)
	sup := newTestModel(t, s, clock, "sup", 100, 30)
	show := openGrandShow(t, mgr)
	signIn(t, clerk, "cleo", "2468")
	openGrand(t, clerk)
	signIn(t, sup, "sam", "1357")
	openGrand(t, sup)
	free := clerk.seats.show.Free()

	goTo(t, mgr, "G8-10")
	press(t, mgr, "B")
	if !mgr.seats.blockAsk || !strings.Contains(screenText(mgr), "Block G8 G9 G10 — reason:") {
		t.Fatalf("no reason prompt:\n%s", screenText(mgr))
	}
	typeText(t, mgr, "broken")
	press(t, mgr, "enter")
	if mgr.status != "Blocked: G8 G9 G10." || mgr.seats.show.Free() != free-3 || len(mgr.seats.mine()) != 0 || mgr.seats.showLapsed() {
		t.Fatalf("manager: status %q, free %d (want %d), holding %d", mgr.status, mgr.seats.show.Free(), free-3, len(mgr.seats.mine()))
	}
	hearUntil(t, clerk, "the clerk's count drops by three", func() bool { return clerk.seats.show.Free() == free-3 })
	view := screenText(clerk)
	if !strings.Contains(view, "free "+strconv.Itoa(free-3)+"/") || !strings.Contains(view, "# blocked") {
		t.Fatalf("clerk's map:\n%s", view)
	}
	goTo(t, clerk, "G8")
	if clerk.status != "G8 is blocked: not for sale." || !strings.Contains(screenText(clerk), "G8 blocked: broken") {
		t.Fatalf("clerk toggles G8: %q\n%s", clerk.status, screenText(clerk))
	}
	if got := storeMap(t, s, show.ID, ""); stateOf(t, got, "G8") != booking.SeatBlocked {
		t.Fatalf("store: G8 %v", stateOf(t, got, "G8"))
	}
	press(t, clerk, "B")
	if !strings.Contains(clerk.status, "needs a manager") {
		t.Fatalf("clerk presses B: %q", clerk.status)
	}

	// A house seat: held back by the manager, refused to the clerk,
	// released by the supervisor.
	goTo(t, mgr, "H5")
	press(t, mgr, "H")
	typeText(t, mgr, "press")
	press(t, mgr, "enter")
	if mgr.status != "House seats: H5." || stateOf(t, mgr.seats.sm, "H5") != booking.SeatHouse {
		t.Fatalf("house seat: %q", mgr.status)
	}
	hearUntil(t, sup, "the supervisor sees the house seat", func() bool { return stateOf(t, sup.seats.sm, "H5") == booking.SeatHouse })
	if !strings.Contains(screenText(sup), "H house seat") {
		t.Fatalf("no house seat in the legend:\n%s", screenText(sup))
	}
	press(t, mgr, "B")
	if mgr.status != "A house seat is not blocked: R releases it first." {
		t.Fatalf("B on a house seat: %q", mgr.status)
	}
	hearUntil(t, clerk, "the clerk sees the house seat", func() bool { return stateOf(t, clerk.seats.sm, "H5") == booking.SeatHouse })
	goTo(t, clerk, "H5")
	if clerk.status != "H5 is a house seat: not for sale until a supervisor releases it." {
		t.Fatalf("clerk toggles H5: %q", clerk.status)
	}
	press(t, clerk, "R")
	if !strings.Contains(clerk.status, "needs a supervisor") {
		t.Fatalf("clerk presses R: %q", clerk.status)
	}
	goTo(t, sup, "H5")
	press(t, sup, "R")
	if sup.status != "Released into sale: H5." || stateOf(t, sup.seats.sm, "H5") != booking.SeatFree {
		t.Fatalf("supervisor releases H5: %q", sup.status)
	}

	// B again on a seat blocked for this show unblocks it.
	goTo(t, mgr, "G10")
	press(t, mgr, "B")
	if mgr.status != "Unblocked: G10." || mgr.seats.show.Free() != free-2 {
		t.Fatalf("unblock: %q, free %d", mgr.status, mgr.seats.show.Free())
	}
	hearUntil(t, clerk, "the clerk's count rises by one", func() bool { return clerk.seats.show.Free() == free-2 })

	// A blocks for every show of the hall; B then says A lifts it, and
	// A does.
	goTo(t, mgr, "J7")
	press(t, mgr, "A")
	typeText(t, mgr, "torn")
	press(t, mgr, "enter")
	if mgr.status != "Blocked for every show of the hall: J7." || !mgr.seats.sm.Blocks[seatID(t, mgr, "J7")].HallWide {
		t.Fatalf("hall-wide block: %q", mgr.status)
	}
	hearUntil(t, clerk, "the clerk sees the hall-wide block", func() bool { return clerk.seats.show.Free() == free-3 })
	press(t, mgr, "B")
	if mgr.status != "J7 is blocked for every show of the hall: A unblocks it." {
		t.Fatalf("B on a hall-wide block: %q", mgr.status)
	}
	press(t, mgr, "A")
	if mgr.status != "Unblocked for every show of the hall: J7." || mgr.seats.show.Free() != free-2 {
		t.Fatalf("hall-wide unblock: %q, free %d", mgr.status, mgr.seats.show.Free())
	}

	// A clerk whose map has not caught up yet is refused by the store:
	// the clash banner says the seat is not for sale and offers others.
	if _, err := s.BlockSeats(context.Background(), storetest.Manager, booking.BlockRequest{ShowID: show.ID, Seats: []string{"L9"}, Kind: booking.BlockBlocked}); err != nil {
		t.Fatal(err)
	}
	goTo(t, clerk, "L9")
	if c := clerk.seats.clash; c == nil || !c.err.OutOfSale || !strings.Contains(screenText(clerk), "L9 is not for sale") {
		t.Fatalf("stale map toggles L9: %q\n%s", clerk.status, screenText(clerk))
	}
	dbtest.MustBeWhole(t, s)
}

// seatID is a seat's id in m's hall.
func seatID(t *testing.T, m *Model, label string) int64 {
	t.Helper()
	seat, ok := m.seats.hall.SeatByLabel(label)
	if !ok {
		t.Fatalf("no seat %s", label)
	}
	return seat.ID
}
