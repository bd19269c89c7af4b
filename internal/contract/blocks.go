package contract

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
)

// blockCases: seats kept out of sale (booking.SeatBlocks) never count as
// free, are never offered, and a hold of one is refused; a block and a
// hold of one seat racing have one winner.
var blockCases = []testCase{
	{"OK", blocksOK},
	{"ErrSoldOrHeld", blocksErrSoldOrHeld},
	{"OwnSelection", blocksOwnSelection},
	{"HallWide", blocksHallWide},
	{"Unblock", blocksUnblock},
	{"HoldRefused", blocksHoldRefused},
	{"BestAvoids", blocksBestAvoids},
	{"RaceHold", blocksRaceHold},
	{"WaitlistCountsThem", blocksWaitlistCountsThem},
	{"ErrInvalid", blocksErrInvalid},
	{"Roles", blocksRoles},
	{"SalesClosed", blocksSalesClosed},
	{"HallWideRacesHold", blocksHallWideRacesHold},
}

func init() { groups = append(groups, group{"Blocks", blockCases}) }

func (e *env) blocks(t *testing.T) booking.SeatBlocks {
	t.Helper()
	return need[booking.SeatBlocks](t, e, "BlockSeats (booking.SeatBlocks)")
}

// free is show id's free seats as Show, Shows and SeatMap count them; it
// fails unless the three agree.
func (e *env) free(t *testing.T, id int64) int {
	t.Helper()
	sh, err := e.s.Show(e.ctx, clerk, id)
	if err != nil {
		t.Fatal(err)
	}
	list, err := e.s.Shows(e.ctx, clerk, sh.Starts)
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.s.SeatMap(e.ctx, clerk, id, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range list {
		if x.ID == id && x.Free() != sh.Free() {
			t.Fatalf("show %d: Shows says %d free, Show %d", id, x.Free(), sh.Free())
		}
	}
	if m.Show.Free() != sh.Free() {
		t.Fatalf("show %d: the map says %d free, Show %d", id, m.Show.Free(), sh.Free())
	}
	return sh.Free()
}

func blocksOK(t *testing.T, e *env) {
	b := e.blocks(t)
	before, other := e.free(t, e.show.ID), e.free(t, 2)
	got, err := b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"E7", "e8"}, Kind: booking.BlockBlocked, Reason: "broken\x1b[31m"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"F7"}, Kind: booking.BlockHouse, Reason: "press"}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Seat.Label != "E8" || got[0].Reason != "broken[31m" || got[0].By != manager.Name || got[0].HallWide {
		t.Fatalf("blocks %+v", got)
	}
	if n := e.free(t, e.show.ID); n != before-3 {
		t.Fatalf("%d free after three blocks, want %d", n, before-3)
	}
	if n := e.free(t, 2); n != other {
		t.Fatalf("show 2: %d free, want %d: a show's block reached another show", n, other)
	}
	m := e.seatMap(t, "")
	e7, _ := m.Hall.SeatByLabel("E7")
	f7, _ := m.Hall.SeatByLabel("F7")
	if m.State(e7.ID) != booking.SeatBlocked || m.State(f7.ID) != booking.SeatHouse || m.Blocks[f7.ID].Reason != "press" || m.Blocks[e7.ID].Kind != booking.BlockBlocked {
		t.Fatalf("states %v %v, blocks %+v", m.State(e7.ID), m.State(f7.ID), m.Blocks)
	}
	_, err = b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"F7"}, Kind: booking.BlockBlocked})
	wantCode(t, "block a house seat", err, booking.EInvalid)
	wantMessage(t, "block a house seat", err, "F7 is already a house seat for this show.")
	_, err = b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"Z99"}, Kind: booking.BlockBlocked})
	wantCode(t, "block an unknown seat", err, booking.EInvalid)
	_, err = b.BlockSeats(e.ctx, clerk, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"A1"}, Kind: booking.BlockBlocked})
	wantCode(t, "a clerk's block", err, booking.EForbidden)
	_, err = b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: 1 << 40, Seats: []string{"A1"}, Kind: booking.BlockBlocked})
	wantCode(t, "block of no show", err, booking.ENotFound)
	e.whole(t)
}

func blocksErrSoldOrHeld(t *testing.T, e *env) {
	b := e.blocks(t)
	e.sell(t, "a", "E7", "E8")
	e.hold(t, "b", "E9")
	for _, c := range []struct {
		seats []string
		msg   string
	}{
		{[]string{"E7", "E8"}, "E7, E8 are sold and cannot be blocked; refund or move the booking first."},
		{[]string{"E9"}, "E9 is held at a counter and cannot be blocked; try again when that sale is done."},
		{[]string{"E10", "E9", "E7"}, "E7 is sold and cannot be blocked; refund or move the booking first."},
	} {
		_, err := b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: c.seats, Kind: booking.BlockBlocked})
		wantCode(t, fmt.Sprint(c.seats), err, booking.EConflict)
		wantMessage(t, fmt.Sprint(c.seats), err, c.msg)
	}
	if st := e.state(t, "", "E10"); st != booking.SeatFree {
		t.Fatalf("E10 is %v after a refused block, want free: all or nothing", st)
	}
	e.counts(t, 2, 1)
}

// blocksOwnSelection: seats the asking session holds itself are let go
// and blocked in one transaction.
func blocksOwnSelection(t *testing.T, e *env) {
	b := e.blocks(t)
	e.hold(t, "me", "C3", "C4")
	e.hold(t, "them", "C5")
	_, err := b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"C3", "C5"}, Kind: booking.BlockHouse, Owner: "me"})
	wantMessage(t, "another session's seat", err, "C5 is held at a counter and cannot be blocked; try again when that sale is done.")
	if st := e.state(t, "me", "C3"); st != booking.SeatHeldByMe {
		t.Fatalf("C3 is %v after a refused block, want still held: all or nothing", st)
	}
	if _, err := b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"C3"}, Kind: booking.BlockHouse, Owner: "me"}); err != nil {
		t.Fatal(err)
	}
	if st := e.state(t, "me", "C3"); st != booking.SeatHouse {
		t.Fatalf("C3 is %v, want a house seat", st)
	}
	if st := e.state(t, "me", "C4"); st != booking.SeatHeldByMe {
		t.Fatalf("C4 is %v, want still held", st)
	}
	e.counts(t, 0, 2)
}

// blocksHallWide: a hall-wide block reaches every show of the hall to
// come, and is lifted only hall-wide.
func blocksHallWide(t *testing.T, e *env) {
	b := e.blocks(t)
	if _, err := b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"J1"}, Kind: booking.BlockBlocked, HallWide: true, Reason: "broken"}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{e.show.ID, 2, 3} {
		m, err := e.s.SeatMap(e.ctx, clerk, id, "")
		if err != nil {
			t.Fatal(err)
		}
		j1, _ := m.Hall.SeatByLabel("J1")
		if m.State(j1.ID) != booking.SeatBlocked || !m.Blocks[j1.ID].HallWide {
			t.Fatalf("show %d: J1 is %v (%+v), want blocked hall-wide", id, m.State(j1.ID), m.Blocks[j1.ID])
		}
		if n := e.free(t, id); n != 139 {
			t.Fatalf("show %d: %d free, want 139", id, n)
		}
		_, err = e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: id, Seats: []string{"J1"}, Owner: "a"})
		seatsTaken(t, fmt.Sprint("a hold of J1 for show ", id), err)
	}
	_, err := b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: 2, Seats: []string{"J1"}, Kind: booking.BlockHouse})
	wantCode(t, "house seat of a seat blocked hall-wide", err, booking.EInvalid)
	wantMessage(t, "house seat of a seat blocked hall-wide", err, fmt.Sprintf("J1 is already blocked for every show of %s.", e.show.HallName))
	_, err = b.UnblockSeats(e.ctx, manager, booking.BlockRequest{ShowID: 2, Seats: []string{"J1"}, Kind: booking.BlockBlocked})
	wantMessage(t, "unblock one show of a hall-wide block", err, fmt.Sprintf("J1 is blocked for every show of %s: unblock it for the whole hall.", e.show.HallName))
	e.hold(t, "x", "J2")
	_, err = b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: 2, Seats: []string{"J2"}, Kind: booking.BlockBlocked, HallWide: true})
	wantCode(t, "hall-wide block of a seat held for a show to come", err, booking.EConflict)
	wantMessage(t, "hall-wide block of a seat held for a show to come", err,
		fmt.Sprintf("J2 is held at a counter for the show at %s and cannot be blocked; try again when that sale is done.", when(e.show.Starts)))
	if _, err := b.UnblockSeats(e.ctx, manager, booking.BlockRequest{ShowID: 2, Seats: []string{"J1"}, Kind: booking.BlockBlocked, HallWide: true}); err != nil {
		t.Fatal(err)
	}
	if st := e.state(t, "", "J1"); st != booking.SeatFree {
		t.Fatalf("J1 is %v after the hall-wide unblock, want free", st)
	}
	e.whole(t)
}

func blocksUnblock(t *testing.T, e *env) {
	b := e.blocks(t)
	before := e.free(t, e.show.ID)
	if _, err := b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"D1", "D2"}, Kind: booking.BlockHouse}); err != nil {
		t.Fatal(err)
	}
	_, err := b.UnblockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"D1", "D3"}, Kind: booking.BlockHouse})
	wantCode(t, "release a seat that is no house seat", err, booking.EInvalid)
	wantMessage(t, "release a seat that is no house seat", err, "D3 is not a house seat of this show.")
	_, err = b.UnblockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"D1"}, Kind: booking.BlockBlocked})
	wantMessage(t, "unblock a house seat", err, "D1 is not blocked for this show.")
	got, err := b.UnblockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"D1", "D2"}, Kind: booking.BlockHouse})
	if err != nil || len(got) != 2 {
		t.Fatalf("release %+v, %v", got, err)
	}
	if n := e.free(t, e.show.ID); n != before {
		t.Fatalf("%d free after the release, want %d", n, before)
	}
	e.hold(t, "a", "D1", "D2")
	e.counts(t, 0, 2)
}

// blocksHoldRefused: a hold of a seat kept out of sale is refused in the
// hold's transaction, saying so, with free seats next to it that are
// not kept out of sale.
func blocksHoldRefused(t *testing.T, e *env) {
	b := e.blocks(t)
	if _, err := b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"G6", "G7"}, Kind: booking.BlockBlocked}); err != nil {
		t.Fatal(err)
	}
	_, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"G7"}, Owner: "a"})
	taken := seatsTaken(t, "hold of a blocked seat", err)
	if !taken.OutOfSale || len(taken.Suggestions) == 0 {
		t.Fatalf("hold of a blocked seat: %+v", taken)
	}
	wantMessage(t, "hold of a blocked seat", err, "G7 is not for sale (blocked or a house seat) — G8 is free next to it")
	for _, sug := range taken.Suggestions {
		for _, seat := range sug {
			if seat.Label == "G6" {
				t.Fatalf("suggested %v, which is blocked", booking.Labels(sug))
			}
		}
	}
	e.counts(t, 0, 0)
}

// blocksBestAvoids: best available never picks a seat kept out of sale.
func blocksBestAvoids(t *testing.T, e *env) {
	b := e.blocks(t)
	h, err := e.s.HoldBest(e.ctx, clerk, booking.HoldBestRequest{ShowID: e.show.ID, N: 4, Owner: "probe"})
	if err != nil {
		t.Fatal(err)
	}
	best := booking.Labels(h.Seats)
	if err := e.s.Release(e.ctx, clerk, h.ID, "probe"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: best[1:2], Kind: booking.BlockHouse}); err != nil {
		t.Fatal(err)
	}
	h, err = e.s.HoldBest(e.ctx, clerk, booking.HoldBestRequest{ShowID: e.show.ID, N: 4, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if got := booking.Labels(h.Seats); slices.Contains(got, best[1]) {
		t.Fatalf("best available gave %v, with the house seat %s", got, best[1])
	}
	e.counts(t, 0, 4)
}

// blocksRaceHold: a block and a hold of the same seat, started together,
// 20 rounds: exactly one wins each round, and no live claim is left on a
// blocked seat.
func blocksRaceHold(t *testing.T, e *env) {
	b := e.blocks(t)
	seats := []string{"A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "A9", "A10", "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10"}
	blocked, held := 0, 0
	for i, seat := range seats {
		var wg sync.WaitGroup
		start := make(chan struct{})
		var berr, herr error
		wg.Go(func() {
			<-start
			_, berr = b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{seat}, Kind: booking.BlockBlocked})
		})
		wg.Go(func() {
			<-start
			_, herr = e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{seat}, Owner: fmt.Sprint("racer-", i)})
		})
		close(start)
		wg.Wait()
		switch {
		case berr == nil && herr == nil:
			t.Fatalf("%s: both the block and the hold won", seat)
		case berr == nil:
			seatsTaken(t, seat+": the hold that lost", herr)
			blocked++
		case herr == nil:
			wantCode(t, seat+": the block that lost", berr, booking.EConflict)
			held++
		default:
			t.Fatalf("%s: both lost: block %v, hold %v", seat, berr, herr)
		}
	}
	t.Logf("%d rounds to the block, %d to the hold", blocked, held)
	e.counts(t, 0, held)
}

// waitlister is booking.Waitlist's AddWaitlist.
type waitlister interface {
	AddWaitlist(ctx context.Context, actor booking.Actor, showID int64, name, phone string, seats int) (*booking.WaitlistEntry, error)
}

// blocksWaitlistCountsThem: the waiting list counts seats kept out of
// sale as taken, as the show's free count does: with all but two
// standard seats blocked, a party of three may wait, and a party of two
// is told to buy. (Two wheelchair places left free would not do: a party
// is never sold those, see Waitlist/AccessiblePlacesKept.)
func blocksWaitlistCountsThem(t *testing.T, e *env) {
	b := e.blocks(t)
	w := need[waitlister](t, e, "AddWaitlist (booking.Waitlist)")
	m := e.seatMap(t, "")
	var labels []string
	for _, seat := range m.Hall.Seats {
		if !seat.Blocked && seat.Label != "E6" && seat.Label != "E7" {
			labels = append(labels, seat.Label)
		}
	}
	if _, err := b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: labels, Kind: booking.BlockHouse}); err != nil {
		t.Fatal(err)
	}
	if n := e.free(t, e.show.ID); n != 2 {
		t.Fatalf("%d free, want 2", n)
	}
	if _, err := w.AddWaitlist(e.ctx, clerk, e.show.ID, "Ann", "0123456789", 3); err != nil {
		t.Fatalf("a party of three with two seats free: %v", err)
	}
	_, err := w.AddWaitlist(e.ctx, clerk, e.show.ID, "Bo", "0987654321", 2)
	wantCode(t, "a party of two with two seats free", err, booking.EConflict)
}

// blocksErrInvalid: a request that names no seat, an unknown one, a seat
// kept out of sale already, a hall-wide house seat or no kind is refused,
// and nothing is written.
func blocksErrInvalid(t *testing.T, e *env) {
	b := e.blocks(t)
	for _, req := range []booking.BlockRequest{
		{ShowID: e.show.ID, Seats: []string{"E7"}, Kind: booking.BlockBlocked},
		{ShowID: e.show.ID, Seats: []string{"A1"}, Kind: booking.BlockBlocked, HallWide: true},
	} {
		if _, err := b.BlockSeats(e.ctx, manager, req); err != nil {
			t.Fatal(err)
		}
	}
	before := e.free(t, e.show.ID)
	for _, c := range []struct {
		req booking.BlockRequest
		msg string
	}{
		{booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"E6", "Z99"}, Kind: booking.BlockBlocked}, "There is no seat Z99 in Test Hall."},
		{booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"E6", "E7"}, Kind: booking.BlockHouse}, "E7 is already blocked for this show."},
		{booking.BlockRequest{ShowID: 2, Seats: []string{"A1"}, Kind: booking.BlockHouse}, "A1 is already blocked for every show of Test Hall."},
		{booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"E6"}, Kind: booking.BlockHouse, HallWide: true}, ""},
		{booking.BlockRequest{ShowID: e.show.ID, Kind: booking.BlockBlocked}, ""},
		{booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"E6"}, Kind: "broken"}, ""},
	} {
		_, err := b.BlockSeats(e.ctx, manager, c.req)
		wantCode(t, fmt.Sprintf("block %+v", c.req), err, booking.EInvalid)
		if c.msg != "" {
			wantMessage(t, fmt.Sprintf("block %+v", c.req), err, c.msg)
		}
	}
	_, err := b.UnblockSeats(e.ctx, manager, booking.BlockRequest{ShowID: 2, Seats: []string{"E7"}, Kind: booking.BlockBlocked, HallWide: true})
	wantMessage(t, "a hall-wide unblock of a show's block", err, "E7 is not blocked for the whole hall.")
	if n := e.free(t, e.show.ID); n != before {
		t.Fatalf("%d free after refusals, want %d", n, before)
	}
}

// blocksRoles: a manager blocks; a supervisor may release a house seat
// into sale but neither block nor unblock; a clerk may do none of it.
func blocksRoles(t *testing.T, e *env) {
	b := e.blocks(t)
	house := booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"E7"}, Kind: booking.BlockHouse}
	for _, a := range []booking.Actor{clerk, supervisor} {
		_, err := b.BlockSeats(e.ctx, a, house)
		wantCode(t, a.Name+"'s block", err, booking.EForbidden)
	}
	if _, err := b.BlockSeats(e.ctx, manager, house); err != nil {
		t.Fatal(err)
	}
	_, err := b.UnblockSeats(e.ctx, clerk, house)
	wantCode(t, "a clerk releases a house seat", err, booking.EForbidden)
	if _, err := b.UnblockSeats(e.ctx, supervisor, house); err != nil {
		t.Fatalf("a supervisor releases a house seat: %v", err)
	}
	blocked := booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"E8"}, Kind: booking.BlockBlocked}
	if _, err := b.BlockSeats(e.ctx, manager, blocked); err != nil {
		t.Fatal(err)
	}
	_, err = b.UnblockSeats(e.ctx, supervisor, blocked)
	wantCode(t, "a supervisor unblocks", err, booking.EForbidden)
}

// blocksSalesClosed: a show's seats are not blocked nor unblocked once
// its sales closed or it was cancelled, as the transaction reads its
// life; a hall-wide block, for the shows to come, still is.
func blocksSalesClosed(t *testing.T, e *env) {
	b := e.blocks(t)
	req := booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"E7"}, Kind: booking.BlockHouse}
	if _, err := b.BlockSeats(e.ctx, manager, req); err != nil {
		t.Fatal(err)
	}
	closes := -time.Hour // an hour before the start: two hours from now
	c := need[salesCloser](t, e, "SetSalesClose (booking.Programme)")
	if err := c.SetSalesClose(e.ctx, manager, e.show.ID, &closes); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(e.show.Starts.Add(closes))
	closed := e.show
	closed.SalesClose = closes
	want := booking.ErrorMessage(booking.SalesOpen(closed, e.clock.Now()))
	_, err := b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"E8"}, Kind: booking.BlockHouse})
	wantCode(t, "a block after the show's sales closed", err, booking.EInvalid)
	wantMessage(t, "a block after the show's sales closed", err, want)
	_, err = b.UnblockSeats(e.ctx, manager, req)
	wantMessage(t, "an unblock after the show's sales closed", err, want)
	if _, err := b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"E9"}, Kind: booking.BlockBlocked, HallWide: true}); err != nil {
		t.Fatalf("a hall-wide block from a closed show: %v", err)
	}
	if x, ok := e.s.(showCanceller); ok {
		if _, err := x.CancelShow(e.ctx, manager, 2, "flood"); err != nil {
			t.Fatal(err)
		}
		_, err = b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: 2, Seats: []string{"E8"}, Kind: booking.BlockHouse})
		wantCode(t, "a block of a cancelled show", err, booking.EInvalid)
	}
}

// blocksHallWideRacesHold: a hall-wide block of a seat and a hold of it
// for a show to come, started together, 12 rounds: exactly one wins each
// round, and no live claim is left on a seat kept out of sale.
func blocksHallWideRacesHold(t *testing.T, e *env) {
	b := e.blocks(t)
	later := mustShow(t, e, 3)
	blocked, held := 0, 0
	for i := range 12 {
		seat := fmt.Sprint("F", i+1)
		var berr, herr error
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Go(func() {
			<-start
			_, berr = b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{seat}, Kind: booking.BlockBlocked, HallWide: true})
		})
		wg.Go(func() {
			<-start
			_, herr = e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: later.ID, Seats: []string{seat}, Owner: fmt.Sprint("racer-", i)})
		})
		close(start)
		wg.Wait()
		switch {
		case berr == nil && herr == nil:
			t.Fatalf("%s: both the hall-wide block and the hold won", seat)
		case berr == nil:
			seatsTaken(t, seat+": the hold that lost", herr)
			blocked++
		case herr == nil:
			wantMessage(t, seat+": the block that lost", berr,
				fmt.Sprintf("%s is held at a counter for the show at %s and cannot be blocked; try again when that sale is done.", seat, when(later.Starts)))
			held++
		default:
			t.Fatalf("%s: both lost: block %v, hold %v", seat, berr, herr)
		}
	}
	t.Logf("%d rounds to the block, %d to the hold", blocked, held)
	if sh := mustShow(t, e, later.ID); sh.Held != held {
		t.Fatalf("show %d: %d held, want %d", later.ID, sh.Held, held)
	}
	e.whole(t)
}
