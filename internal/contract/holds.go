package contract

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"boxoffice/booking"
)

// holdCases: Hold, all or nothing, and one winner of a race for a seat.
var holdCases = []testCase{
	{"OK", holdOK},
	{"AddToAndRelease", holdAddToAndRelease},
	{"ErrAllOrNothing", holdErrAllOrNothing},
	{"ErrUnknownSeat", holdErrUnknownSeat},
	{"ErrForbidden", holdErrForbidden},
	{"RaceOneSeat", holdRaceOneSeat},
	{"RacePair", holdRacePair},
	{"ClashSaysWhatIsFree", holdClashMessage},
	{"SingleSeatRule", holdSingleSeatRule},
}

func holdOK(t *testing.T, e *env) {
	h := e.hold(t, "a", "E7", "E8")
	if len(h.Seats) != 2 || h.Seats[0].Label != "E7" || h.Seats[1].Label != "E8" {
		t.Fatalf("held %+v", h.Seats)
	}
	if st := e.state(t, "a", "E7"); st != booking.SeatHeldByMe {
		t.Fatalf("E7 state %v for its owner", st)
	}
	if st := e.state(t, "b", "E7"); st != booking.SeatHeldByOther {
		t.Fatalf("E7 state %v for another counter", st)
	}
	e.counts(t, 0, 2)
}

func holdAddToAndRelease(t *testing.T, e *env) {
	h := e.hold(t, "a", "E7")
	h2, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"E8"}, Owner: "a", AddTo: h.ID})
	if err != nil || h2.ID != h.ID || len(h2.Seats) != 2 {
		t.Fatalf("add to hold: %+v %v", h2, err)
	}
	if err := e.s.Release(e.ctx, clerk, h.ID, "a", "E7"); err != nil {
		t.Fatal(err)
	}
	e.hold(t, "b", "E7") // free again for another counter
	_, err = e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"E8"}, Owner: "b"})
	wantCode(t, "E8 still held by a", err, booking.EConflict)
}

func holdErrAllOrNothing(t *testing.T, e *env) {
	e.hold(t, "a", "E7")
	_, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"E6", "E7"}, Owner: "b"})
	taken := seatsTaken(t, "E6 E7 with E7 held", err)
	if len(taken.Taken) != 1 || taken.Taken[0].Label != "E7" {
		t.Fatalf("want E7 taken, got %v", err)
	}
	wantCode(t, "a clash", err, booking.EConflict)
	if st := e.state(t, "b", "E6"); st != booking.SeatFree {
		t.Fatalf("E6 is %v although E7 clashed", st)
	}
	e.counts(t, 0, 1)
}

func holdErrUnknownSeat(t *testing.T, e *env) {
	_, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"Z99"}, Owner: "a"})
	wantCode(t, "hold Z99", err, booking.EInvalid)
	_, err = e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: 999, Seats: []string{"A1"}, Owner: "a"})
	wantCode(t, "hold of a show that does not exist", err, booking.ENotFound)
	e.counts(t, 0, 0)
}

func holdErrForbidden(t *testing.T, e *env) {
	_, err := e.s.Hold(e.ctx, door, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"E7"}, Owner: "a"})
	wantCode(t, "door staff's hold", err, booking.EForbidden)
	e.counts(t, 0, 0)
}

// holdRaceOneSeat: 64 goroutines race for G7; exactly one wins and every
// other is told it was taken and offered free seats next to it.
func holdRaceOneSeat(t *testing.T, e *env) {
	const racers = 64
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, racers)
	for i := range racers {
		wg.Go(func() {
			<-start
			_, errs[i] = e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"G7"}, Owner: fmt.Sprintf("counter-%d", i)})
		})
	}
	close(start)
	wg.Wait()
	m := e.seatMap(t, "")
	winners := 0
	for i, err := range errs {
		if err == nil {
			winners++
			continue
		}
		taken := seatsTaken(t, fmt.Sprintf("racer %d", i), err)
		if len(taken.Suggestions) == 0 {
			t.Fatalf("racer %d: no suggestions", i)
		}
		for _, sug := range taken.Suggestions {
			if len(sug) != 1 || m.State(sug[0].ID) != booking.SeatFree {
				t.Fatalf("racer %d: suggestion %v is not one free seat", i, booking.Labels(sug))
			}
		}
		if got := taken.Suggestions[0][0].Label; got != "G6" && got != "G8" {
			t.Fatalf("racer %d: first suggestion %s is not next to G7", i, got)
		}
	}
	if winners != 1 {
		t.Fatalf("%d winners, want exactly 1", winners)
	}
	e.counts(t, 0, 1)
}

// holdRacePair: 50 counters confirm the same pair; one wins, and every
// other is offered pairs that never include the lost seats.
func holdRacePair(t *testing.T, e *env) {
	const racers = 50
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, racers)
	for i := range racers {
		wg.Go(func() {
			<-start
			_, errs[i] = e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"E5", "E6"}, Owner: fmt.Sprintf("counter-%d", i)})
		})
	}
	close(start)
	wg.Wait()
	winners := 0
	for i, err := range errs {
		if err == nil {
			winners++
			continue
		}
		taken := seatsTaken(t, fmt.Sprintf("racer %d", i), err)
		wantCode(t, fmt.Sprintf("racer %d", i), err, booking.EConflict)
		if len(taken.Taken) == 0 || (taken.Taken[0].Label != "E5" && taken.Taken[0].Label != "E6") {
			t.Fatalf("racer %d: taken %v", i, booking.Labels(taken.Taken))
		}
		if len(taken.Suggestions) == 0 {
			t.Fatalf("racer %d: no seats offered next to the lost ones", i)
		}
		for _, block := range taken.Suggestions {
			if len(block) != 2 {
				t.Fatalf("racer %d: offered a block of %d for a party of 2", i, len(block))
			}
			for _, seat := range block {
				if seat.Label == "E5" || seat.Label == "E6" {
					t.Fatalf("racer %d: offered the lost seat %s", i, seat.Label)
				}
			}
		}
	}
	if winners != 1 {
		t.Fatalf("%d winners, want exactly 1", winners)
	}
	e.counts(t, 0, 2)
}

// holdClashMessage: the loser of a seat is told which went and what is
// free next to it, in the same words on every backend, whether the seat
// is held or sold.
func holdClashMessage(t *testing.T, e *env) {
	e.hold(t, "a", "G7")
	_, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"G7"}, Owner: "b"})
	seatsTaken(t, "G7 held", err)
	wantMessage(t, "G7 held", err, "G7 was just taken — G6 is free next to it")
	e.sell(t, "c", "C3", "C4")
	_, err = e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"C4", "C5"}, Owner: "b"})
	seatsTaken(t, "C4 sold", err)
	wantMessage(t, "C4 sold", err, "C4 was just taken — C5 and C6 are free next to it")
}

// holdBestCases: best available, and racers that never share a seat.
var holdBestCases = []testCase{
	{"OK", holdBestOK},
	{"Wheelchair", holdBestWheelchair},
	{"ErrTooMany", holdBestErrTooMany},
	{"Explains", holdBestExplains},
	{"RacersNeverShareASeat", holdBestRacers},
}

func holdBestOK(t *testing.T, e *env) {
	h, err := e.s.HoldBest(e.ctx, clerk, booking.HoldBestRequest{ShowID: e.show.ID, N: 4, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if !h.Together || len(h.Seats) != 4 {
		t.Fatalf("%+v", h)
	}
	for i := 1; i < 4; i++ {
		if h.Seats[i].Row != h.Seats[0].Row || h.Seats[i].Col != h.Seats[i-1].Col+1 {
			t.Fatalf("not side by side: %v", booking.Labels(h.Seats))
		}
	}
	for _, seat := range h.Seats {
		if seat.Kind.Accessible() {
			t.Fatalf("offered accessible %s unasked", seat.Label)
		}
	}
	e.counts(t, 0, 4)
}

func holdBestWheelchair(t *testing.T, e *env) {
	h, err := e.s.HoldBest(e.ctx, clerk, booking.HoldBestRequest{ShowID: e.show.ID, N: 2, Owner: "a", Wheelchair: 1})
	if err != nil {
		t.Fatal(err)
	}
	wheel := 0
	for _, seat := range h.Seats {
		if seat.Kind == booking.Wheelchair {
			wheel++
		}
	}
	if wheel < 1 {
		t.Fatalf("no wheelchair place in %v", booking.Labels(h.Seats))
	}
}

func holdBestErrTooMany(t *testing.T, e *env) {
	_, err := e.s.HoldBest(e.ctx, clerk, booking.HoldBestRequest{ShowID: e.show.ID, N: booking.MaxSeatsPerSale + 1, Owner: "a"})
	wantCode(t, "best 21", err, booking.EInvalid)
	_, err = e.s.HoldBest(e.ctx, clerk, booking.HoldBestRequest{ShowID: e.show.ID, N: 0, Owner: "a"})
	wantCode(t, "best 0", err, booking.EInvalid)
	e.counts(t, 0, 0)
}

// holdBestExplains: not "fewer than 1 seats" when only accessible places
// are left, and sold out when nothing is.
func holdBestExplains(t *testing.T, e *env) {
	var standard, accessible []string
	for _, seat := range e.seatMap(t, "").Hall.Seats {
		if seat.Kind.Accessible() {
			accessible = append(accessible, seat.Label)
		} else {
			standard = append(standard, seat.Label)
		}
	}
	hold := func(labels []string) {
		for len(labels) > 0 {
			n := min(booking.MaxSeatsPerSale, len(labels))
			e.hold(t, "filler", labels[:n]...)
			labels = labels[n:]
		}
	}
	best := func(n int) string {
		_, err := e.s.HoldBest(e.ctx, clerk, booking.HoldBestRequest{ShowID: e.show.ID, N: n, Owner: "a"})
		wantCode(t, fmt.Sprintf("best %d", n), err, booking.EConflict)
		return booking.ErrorMessage(err)
	}
	hold(standard[:len(standard)-3])
	if got := best(4); got != "Only 3 seats are free for this show, not 4 (and 4 wheelchair or companion places)." {
		t.Fatalf("best 4 of 3: %q", got)
	}
	hold(standard[len(standard)-3:])
	if got := best(1); got != "Only wheelchair and companion places are free (4); hold one by hand for a customer who needs it." {
		t.Fatalf("best 1 with only accessible places: %q", got)
	}
	hold(accessible)
	if got := best(2); got != "This show is sold out." {
		t.Fatalf("best 2 when sold out: %q", got)
	}
}

// holdBestRacers: 90 racers for pairs of a 140-seat hall at once; no seat
// is held twice, and the show's count is what the winners hold.
func holdBestRacers(t *testing.T, e *env) {
	const racers = 90
	var wg sync.WaitGroup
	holds := make([]*booking.Hold, racers)
	errs := make([]error, racers)
	start := make(chan struct{})
	for i := range racers {
		wg.Go(func() {
			<-start
			holds[i], errs[i] = e.s.HoldBest(e.ctx, clerk, booking.HoldBestRequest{ShowID: e.show.ID, N: 2, Owner: fmt.Sprintf("c%d", i)})
		})
	}
	close(start)
	wg.Wait()
	seen := map[string]int{}
	won := 0
	for i, h := range holds {
		if errs[i] != nil {
			wantCode(t, fmt.Sprintf("racer %d", i), errs[i], booking.EConflict)
			continue
		}
		won++
		if len(h.Seats) != 2 {
			t.Fatalf("racer %d held %d seats", i, len(h.Seats))
		}
		for _, seat := range h.Seats {
			if other, ok := seen[seat.Label]; ok {
				t.Fatalf("%s held by c%d and c%d", seat.Label, other, i)
			}
			seen[seat.Label] = i
		}
	}
	if won == 0 {
		t.Fatal("no racer won a pair")
	}
	e.counts(t, 0, 2*won)
}

// holdSingleSeatRule: seats picked by hand that would leave a single
// empty seat are refused, naming it, and nothing is held; the clerk's
// override holds them and leaves an audit row naming the clerk and the
// seats; a hold the program makes is not checked; and a show nine tenths
// full holds them without a word.
func holdSingleSeatRule(t *testing.T, e *env) {
	byHand := func(allow bool, seats ...string) (*booking.Hold, error) {
		return e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: seats, Owner: "a", ByHand: true, AllowSingle: allow})
	}
	e.sell(t, "x", "E9") // E3–E12 is the middle block of row E
	// E7 alone would strand E8 against the sold E9.
	_, err := byHand(false, "E7")
	var singles *booking.SingleSeatsError
	if !errors.As(err, &singles) || booking.ErrorCode(err) != booking.EConflict || booking.ErrorMessage(err) != "E8 would be left as a single seat." {
		t.Fatalf("E7 by hand: %v", err)
	}
	if got := booking.Labels(singles.Fill()); strings.Join(got, " ") != "E7 E8" {
		t.Fatalf("the fill offered is %v, want E7 E8", got)
	}
	e.counts(t, 1, 0)
	// Filling the gap strands nothing.
	h, err := byHand(false, "E7", "E8")
	if err != nil {
		t.Fatalf("E7 E8 by hand: %v", err)
	}
	if err := e.s.Release(e.ctx, clerk, h.ID, "a"); err != nil {
		t.Fatal(err)
	}
	// The override holds E7 and says so in the trail.
	if _, err := byHand(true, "E7"); err != nil {
		t.Fatalf("E7 with the override: %v", err)
	}
	e.counts(t, 1, 1)
	if a, ok := e.s.(booking.Audit); ok {
		rows, err := a.Audit(e.ctx, manager, booking.AuditQuery{Day: e.clock.Now()})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range rows {
			if r.Action == booking.AuditOverride {
				n++
				if r.Actor != clerk.Name || !strings.Contains(r.Detail, "single seat left: E8") || !strings.Contains(r.Detail, ": E7)") || r.ShowID != e.show.ID {
					t.Fatalf("override row %+v", r)
				}
			}
		}
		if n != 1 {
			t.Fatalf("%d override rows, want 1: %+v", n, rows)
		}
	}
	// A hold the program makes (not by hand) is not checked.
	if _, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"F7"}, Owner: "b"}); err != nil {
		t.Fatalf("a hold not by hand: %v", err)
	}
	// Every row but E taken, and J but J3 and J4: 126 of 140 seats, nine
	// tenths, and the rule is off.
	var rest []string
	for _, r := range "ABCDFGHI" {
		for n := 1; n <= 14; n++ {
			if l := fmt.Sprintf("%c%d", r, n); l != "F7" {
				rest = append(rest, l)
			}
		}
	}
	for n := 1; n <= 14; n++ {
		if l := fmt.Sprintf("J%d", n); n != 3 && n != 4 {
			rest = append(rest, l)
		}
	}
	for len(rest) > 0 {
		k := min(len(rest), booking.MaxSeatsPerSale)
		if _, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: rest[:k], Owner: "fill"}); err != nil {
			t.Fatalf("fill %v: %v", rest[:k], err)
		}
		rest = rest[k:]
	}
	// J4 alone strands J3 against the aisle, but the show is that full.
	if _, err := byHand(false, "J4"); err != nil {
		t.Fatalf("J4 by hand in a show nine tenths full: %v", err)
	}
	e.whole(t)
}
