package booking_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"

	"boxoffice/booking"
)

// seatingHall builds a small hall from a picture, front row (nearest the
// screen) first:
//
//	A  ss.ssss
//	B  ssssss.s
//
// Each line is a row label, blanks, then one character per column: s
// standard, p premium, w wheelchair, c companion, '.' a gap or aisle. An
// upper-case letter (S, P, W, C) is a seat of that kind that is taken.
// Seats get IDs from 1 in Row, Col order and numbers per row from the left,
// so "A3" is the third seat of row A, whatever gaps come before it.
func seatingHall(tb testing.TB, picture string) (*booking.Hall, func(int64) bool) {
	tb.Helper()
	kinds := map[rune]booking.SeatKind{
		's': booking.Standard, 'p': booking.Premium,
		'w': booking.Wheelchair, 'c': booking.Companion,
	}
	h := &booking.Hall{ID: 1, Name: "test"}
	taken := map[int64]bool{}
	for line := range strings.Lines(picture) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			tb.Fatalf("picture line %q: want a label and a row of seats", line)
		}
		label, cells := f[0], f[1]
		row := len(h.Rows)
		h.Rows = append(h.Rows, label)
		h.Width = max(h.Width, len(cells))
		num := 0
		for col, ch := range cells {
			if ch == '.' {
				continue
			}
			kind, ok := kinds[unicode.ToLower(ch)]
			if !ok {
				tb.Fatalf("picture line %q: unknown seat %q", line, ch)
			}
			num++
			id := int64(len(h.Seats) + 1)
			h.Seats = append(h.Seats, booking.Seat{
				ID: id, Label: fmt.Sprintf("%s%d", label, num), RowTag: label,
				Number: num, Row: row, Col: col, Kind: kind,
			})
			if unicode.IsUpper(ch) {
				taken[id] = true
			}
		}
	}
	return h, func(id int64) bool { return taken[id] }
}

// seatingLabels turns blocks into their seat labels for comparing.
func seatingLabels(blocks [][]booking.Seat) [][]string {
	if blocks == nil {
		return nil
	}
	out := make([][]string, len(blocks))
	for i, b := range blocks {
		out[i] = make([]string, len(b))
		for j, s := range b {
			out[i][j] = s.Label
		}
	}
	return out
}

func seatingSeat(tb testing.TB, h *booking.Hall, label string) booking.Seat {
	tb.Helper()
	s, ok := h.SeatByLabel(label)
	if !ok {
		tb.Fatalf("no seat %s", label)
	}
	return s
}

// seatingBlocks is a want written like "C4 C5 C6 | D4 D5".
func seatingBlocks(want string) [][]string {
	if want == "" {
		return nil
	}
	var out [][]string
	for b := range strings.SplitSeq(want, "|") {
		out = append(out, strings.Fields(b))
	}
	return out
}

const seatingEmpty4x9 = `
	A  sssssssss
	B  sssssssss
	C  sssssssss
	D  sssssssss
`

func TestBestAvailable_OK(t *testing.T) {
	tests := []struct {
		name     string
		picture  string
		n        int
		wheel    int
		premium  bool
		want     string // blocks of labels, "|" between blocks
		together bool
	}{
		{
			// Row C is two thirds back of four rows; column 4 is the centre.
			name: "SweetSpot", picture: seatingEmpty4x9, n: 3,
			want: "C4 C5 C6", together: true,
		},
		{
			// Centred either way; the tie goes left.
			name: "EvenPartyTieGoesLeft", picture: seatingEmpty4x9, n: 2,
			want: "C4 C5", together: true,
		},
		{
			name: "Single", picture: seatingEmpty4x9, n: 1,
			want: "C5", together: true,
		},
		{
			// A seat in the middle two thirds back beats a front-row aisle seat.
			name: "MiddleBeatsFrontAisle", n: 1, together: true,
			picture: `
				A  sSSSSSSSS
				B  SSSSSSSSS
				C  SSSSsSSSS
				D  SSSSSSSSS
			`,
			want: "C5",
		},
		{
			// A block never crosses an aisle: four do not fit in 3-seat sections.
			name: "Aisles", n: 3, together: true,
			picture: `
				A  ss.sss.ss
				B  ss.sss.ss
				C  ss.sss.ss
				D  ss.sss.ss
			`,
			want: "C3 C4 C5",
		},
		{
			// Only row A has four together; from the aisle they strand nothing.
			name: "AislesBlockOnlyInWideRow", n: 4, together: true,
			picture: `
				A  ssssss.ss
				B  ss.sss.ss
				C  ss.sss.ss
				D  ss.sss.ss
			`,
			want: "A3 A4 A5 A6",
		},
		{
			// The sweet row is sold out; one row back beats one row forward.
			name: "FullRowSkipped", n: 3, together: true,
			picture: `
				A  sssssssss
				B  sssssssss
				C  SSSSSSSSS
				D  sssssssss
			`,
			want: "D4 D5 D6",
		},
		{
			// Premium seats cost more: asked for, they are offered like
			// any other.
			name: "PremiumWhenAsked", n: 3, together: true, premium: true,
			picture: `
				A  sssssssss
				B  sssssssss
				C  ssspppsss
				D  sssssssss
			`,
			want: "C4 C5 C6",
		},
		{
			// Not asked for, the best block without them: one row back
			// beats one row forward (frontWeight).
			name: "PremiumAvoided", n: 3, together: true,
			picture: `
				A  sssssssss
				B  sssssssss
				C  ssspppsss
				D  sssssssss
			`,
			want: "D4 D5 D6",
		},
		{
			// Only premium seats hold the party together: they are used
			// rather than splitting the party.
			name: "PremiumWhenNothingElseFits", n: 4, together: true,
			picture: `
				A  sssSsssSs
				B  ppppppppp
			`,
			want: "B3 B4 B5 B6",
		},
		{
			// Centred, four of six free strands one seat on each side; from
			// either end it strands none.
			name: "OrphanAvoidedInRow", n: 4, together: true,
			picture: `A  ssssss`,
			want:    "A1 A2 A3 A4",
		},
		{
			// Three of the five between two parties: centred strands two.
			name: "OrphanAvoidedBetweenParties", n: 3, together: true,
			picture: `A  sSsssssSs`,
			want:    "A3 A4 A5",
		},
		{
			// Row E is near the sweet spot but has five free from the wall:
			// four there strand one seat, so the front row gets them.
			name: "OrphanAvoidedOtherRow", n: 4, together: true,
			picture: `
				A  sssssssss
				B  SSSSSSSSS
				C  SSSSSSSSS
				D  SSSSSSSSS
				E  SSSSsssss
				F  SSSSSSSSS
			`,
			want: "A3 A4 A5 A6",
		},
		{
			// Nothing else fits: a stranded seat is allowed, centred as well as may be.
			name: "OrphanWhenNothingElseFits", n: 4, together: true,
			picture: `
				A  SSSSSSSSS
				B  SSSSSSSSS
				E  SSSSsssss
			`,
			want: "E5 E6 E7 E8",
		},
		{
			name: "AccessibleNotOfferedByDefault", n: 2, together: true,
			picture: `
				A  sssssssss
				B  SSSSSSSSS
				C  SSScwcSSS
			`,
			want: "A4 A5",
		},
		{
			name: "WheelchairWithCompanion", n: 2, wheel: 1, together: true,
			picture: `L  sssssscw..wcssssss`,
			want:    "L7 L8",
		},
		{
			// Three with one wheelchair: the companion and one standard seat.
			name: "WheelchairWithCompanionAndFriend", n: 3, wheel: 1, together: true,
			picture: `L  sssssscw..wcssssss`,
			want:    "L6 L7 L8",
		},
		{
			name: "TwoWheelchairs", n: 4, wheel: 2, together: true,
			picture: `T  wcwc...ssssssssssss...cwcw`,
			want:    "T1 T2 T3 T4",
		},
		{
			// Without a free companion, a standard seat next to the place.
			name: "WheelchairCompanionTaken", n: 2, wheel: 1, together: true,
			picture: `
				A  ssssssssss
				B  ssssssssss
				C  sssssssswC
			`,
			want: "C8 C9",
		},
		{
			// Five into sections of three: a split, three and two, one behind
			// the other, the two towards the centre.
			name: "SplitBiggerThanAnyGap", n: 5,
			picture: `
				A  sss.sss
				B  sss.sss
				C  sss.sss
			`,
			want: "B1 B2 B3 | C2 C3",
		},
		{
			name: "SplitAdjacentRowsSameColumns", n: 4,
			picture: `
				A  ssSSSSSss
				B  SSSSSSSSS
				C  SSSssSSSS
				D  SSSssSSSS
				E  SSSSSSSSS
			`,
			want: "C4 C5 | D4 D5",
		},
		{
			// Six fit in two blocks as 3+3 or 4+2; 3+3 strands a seat, 4+2 does not.
			name: "SplitAvoidsOrphan", n: 6,
			picture: `
				A  ssssSsss.ss
				B  SSSSSSSSSSS
			`,
			want: "A1 A2 A3 A4 | A9 A10",
		},
		{
			// Six as 3+3 rather than 4+2 when neither strands a seat.
			name: "SplitBalanced", n: 6,
			picture: `
				A  SSSsssSSS
				B  SSsssssSS
			`,
			want: "A4 A5 A6 | B3 B4 B5",
		},
		{
			// One run, a wheelchair place at each end, too long to hold both
			// in one block of five: a block grown from each place.
			name: "SplitWheelchairsAtBothEnds", n: 5, wheel: 2,
			picture: `A  wsssssw`,
			want:    "A1 A2 A3 | A6 A7",
		},
		{
			name: "SplitWheelchairPairs", n: 4, wheel: 2,
			picture: `
				A  sssssssss
				B  cw.....wc
			`,
			want: "B1 B2 | B3 B4",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, taken := seatingHall(t, tt.picture)
			blocks, together, ok := booking.BestAvailable(h, taken, tt.n, booking.BestOptions{Wheelchair: tt.wheel, Premium: tt.premium})
			if !ok {
				t.Fatalf("ok = false")
			}
			if got, want := seatingLabels(blocks), seatingBlocks(tt.want); !reflect.DeepEqual(got, want) {
				t.Errorf("blocks = %v, want %v", got, want)
			}
			if together != tt.together {
				t.Errorf("together = %v, want %v", together, tt.together)
			}
			seatingCheckBest(t, h, taken, tt.n, tt.wheel, tt.premium, blocks, together, ok)
		})
	}

	t.Run("UnsortedSeats", func(t *testing.T) {
		// A hall built by hand in another order gives the same answer.
		h, taken := seatingHall(t, seatingEmpty4x9)
		want, _, _ := booking.BestAvailable(h, taken, 3, booking.BestOptions{})
		slices.Reverse(h.Seats)
		got, _, ok := booking.BestAvailable(h, taken, 3, booking.BestOptions{})
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("reversed seats: %v, want %v", seatingLabels(got), seatingLabels(want))
		}
	})

	t.Run("NilTaken", func(t *testing.T) {
		h, _ := seatingHall(t, seatingEmpty4x9)
		got, together, ok := booking.BestAvailable(h, nil, 3, booking.BestOptions{})
		if !ok || !together || !reflect.DeepEqual(seatingLabels(got), seatingBlocks("C4 C5 C6")) {
			t.Errorf("got %v %v %v", seatingLabels(got), together, ok)
		}
	})

	t.Run("ResultIsACopy", func(t *testing.T) {
		h, taken := seatingHall(t, seatingEmpty4x9)
		got, _, _ := booking.BestAvailable(h, taken, 3, booking.BestOptions{})
		got[0][0].Label = "changed"
		if s := seatingSeat(t, h, "C4"); s.Label != "C4" {
			t.Errorf("changing the result changed the hall")
		}
	})
}

func TestBestAvailable_Err(t *testing.T) {
	tests := []struct {
		name    string
		picture string
		n       int
		wheel   int
	}{
		{name: "ZeroSeats", picture: seatingEmpty4x9, n: 0},
		{name: "NegativeSeats", picture: seatingEmpty4x9, n: -2},
		{name: "NegativeWheelchair", picture: seatingEmpty4x9, n: 2, wheel: -1},
		{name: "MoreWheelchairsThanSeats", picture: `A  wcwc`, n: 1, wheel: 2},
		{name: "NotEnoughSeats", picture: "A  sSsS\nB  SSsS", n: 4},
		{name: "SoldOut", picture: "A  SSSS\nB  SSSS", n: 1},
		{name: "EmptyHall", picture: "", n: 1},
		{
			// Accessible places are not counted for a party that did not ask.
			name: "OnlyAccessibleFree", picture: "A  SSSS\nB  SwcS", n: 2,
		},
		{name: "NoWheelchairFree", picture: "A  ssss\nB  sWcs", n: 2, wheel: 1},
		{name: "TooFewWheelchairsFree", picture: "A  ssss\nB  wcWc", n: 3, wheel: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, taken := seatingHall(t, tt.picture)
			blocks, together, ok := booking.BestAvailable(h, taken, tt.n, booking.BestOptions{Wheelchair: tt.wheel})
			if ok || together || blocks != nil {
				t.Errorf("got %v, together=%v, ok=%v; want nil, false, false", seatingLabels(blocks), together, ok)
			}
		})
	}
	t.Run("NilHall", func(t *testing.T) {
		if blocks, _, ok := booking.BestAvailable(nil, nil, 2, booking.BestOptions{}); ok || blocks != nil {
			t.Errorf("nil hall: ok = %v", ok)
		}
	})
}

func TestNextTo_OK(t *testing.T) {
	const rowsABC = `
		A  sssssssss
		B  ssssSssss
		C  sssssssss
	`
	tests := []struct {
		name    string
		picture string
		near    string
		n       int
		limit   int
		want    string
	}{
		{
			// B5 was just taken: both sides of it in row B first, nearest
			// first, then further along the row, then the rows either side.
			name: "SameRowFirst", picture: rowsABC, near: "B5", n: 2, limit: 5,
			want: "B3 B4 | B6 B7 | B2 B3 | B7 B8 | B1 B2",
		},
		{
			name: "ThenRowsEitherSide", n: 2, limit: 4, near: "B5",
			picture: `
				A  sssssssss
				B  SSSSSSSSS
				C  sssssssss
			`,
			want: "A4 A5 | A5 A6 | C4 C5 | C5 C6",
		},
		{
			// Row distance 1 before row distance 2, even when further across.
			name: "RowDistanceOrder", n: 3, limit: 3, near: "C5",
			picture: `
				A  sssssssss
				B  sssSSSSSS
				C  SSSSSSSSS
				D  SSSSSSSSS
				E  ssssSssss
			`,
			want: "B1 B2 B3 | A4 A5 A6 | A3 A4 A5",
		},
		{
			// Blocks never cross the aisle and never include a taken seat.
			name: "Aisle", n: 3, limit: 10, near: "A4",
			picture: `A  ssS.SSsss`,
			want:    "A6 A7 A8",
		},
		{
			name: "SizesAndLimit", picture: rowsABC, near: "B5", n: 4, limit: 2,
			want: "B1 B2 B3 B4 | B6 B7 B8 B9",
		},
		{
			// The seat itself is offered when it is free again.
			name: "NearFree", n: 1, limit: 3, near: "A3",
			picture: `A  sssss`,
			want:    "A3 | A2 | A4",
		},
		{
			name: "NoAccessibleForStandardSeat", n: 2, limit: 3, near: "B3",
			picture: `
				A  sssssss
				B  wcSsscw
			`,
			want: "B4 B5 | A3 A4 | A2 A3",
		},
		{
			name: "AccessibleForAccessibleSeat", n: 2, limit: 3, near: "B1",
			picture: `
				A  sssssss
				B  WcSsscw
			`,
			want: "B4 B5 | B5 B6 | B6 B7",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, taken := seatingHall(t, tt.picture)
			near := seatingSeat(t, h, tt.near)
			got := booking.NextTo(h, taken, near, tt.n, tt.limit)
			if g, w := seatingLabels(got), seatingBlocks(tt.want); !reflect.DeepEqual(g, w) {
				t.Errorf("NextTo(%s, %d) = %v, want %v", tt.near, tt.n, g, w)
			}
			seatingCheckNextTo(t, h, taken, near, tt.n, tt.limit, got)
		})
	}

	t.Run("NearWithoutID", func(t *testing.T) {
		// A hall fresh from a layout has no IDs yet: near is found by position.
		h, taken := seatingHall(t, rowsABC)
		near := seatingSeat(t, h, "B5")
		near.ID = 0
		got := booking.NextTo(h, taken, near, 2, 1)
		if g, w := seatingLabels(got), seatingBlocks("B3 B4"); !reflect.DeepEqual(g, w) {
			t.Errorf("got %v, want %v", g, w)
		}
	})
}

func TestNextTo_Err(t *testing.T) {
	h, taken := seatingHall(t, `
		A  sssSsss
		B  SSSSSSS
	`)
	near := seatingSeat(t, h, "A4")
	tests := []struct {
		name         string
		hall         *booking.Hall
		n, limit     int
		wantNoBlocks bool
	}{
		{name: "ZeroSeats", hall: h, n: 0, limit: 3},
		{name: "ZeroLimit", hall: h, n: 2, limit: 0},
		{name: "NothingThatBig", hall: h, n: 4, limit: 3},
		{name: "NilHall", hall: nil, n: 2, limit: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := booking.NextTo(tt.hall, taken, near, tt.n, tt.limit); got != nil {
				t.Errorf("got %v, want nil", seatingLabels(got))
			}
		})
	}
}

// seatingPos is a place in a hall.
type seatingPos struct{ row, col int }

// seatingOracle answers questions about a hall by brute force, independently
// of the code under test.
type seatingOracle struct {
	h     *booking.Hall
	taken func(int64) bool
	byPos map[seatingPos]booking.Seat
	byID  map[int64]booking.Seat
}

func newSeatingOracle(h *booking.Hall, taken func(int64) bool) *seatingOracle {
	o := &seatingOracle{h: h, taken: taken, byPos: map[seatingPos]booking.Seat{}, byID: map[int64]booking.Seat{}}
	for _, s := range h.Seats {
		o.byPos[seatingPos{s.Row, s.Col}] = s
		o.byID[s.ID] = s
	}
	return o
}

func (o *seatingOracle) freeAt(row, col int) bool {
	s, ok := o.byPos[seatingPos{row, col}]
	return ok && !o.taken(s.ID)
}

// windows lists every block of n seats side by side that ok accepts.
func (o *seatingOracle) windows(n int, ok func(booking.Seat) bool) [][]booking.Seat {
	var out [][]booking.Seat
	for _, s := range o.h.Seats {
		var w []booking.Seat
		for c := s.Col; c < s.Col+n; c++ {
			t, exists := o.byPos[seatingPos{s.Row, c}]
			if !exists || !ok(t) {
				break
			}
			w = append(w, t)
		}
		if len(w) == n {
			out = append(out, w)
		}
	}
	return out
}

// fitting lists the blocks of n seats ok accepts holding at least wheel
// wheelchair places, and the fewest single seats any of them strands.
func (o *seatingOracle) fitting(n, wheel int, ok func(booking.Seat) bool) ([][]booking.Seat, int) {
	var windows [][]booking.Seat
	minOrphans := 3
	for _, w := range o.windows(n, ok) {
		k := 0
		for _, s := range w {
			if s.Kind == booking.Wheelchair {
				k++
			}
		}
		if k >= wheel {
			windows = append(windows, w)
			minOrphans = min(minOrphans, o.orphans(w))
		}
	}
	return windows, minOrphans
}

// orphans counts the single free seats block b strands.
func (o *seatingOracle) orphans(b []booking.Seat) int {
	row, c0, c1 := b[0].Row, b[0].Col, b[len(b)-1].Col
	n := 0
	if o.freeAt(row, c0-1) && !o.freeAt(row, c0-2) {
		n++
	}
	if o.freeAt(row, c1+1) && !o.freeAt(row, c1+2) {
		n++
	}
	return n
}

// runs lists the lengths of the maximal blocks of seats ok accepts.
func (o *seatingOracle) runs(ok func(booking.Seat) bool) []int {
	var out []int
	for _, s := range o.h.Seats {
		if !ok(s) {
			continue
		}
		if p, exists := o.byPos[seatingPos{s.Row, s.Col - 1}]; exists && ok(p) {
			continue // not the start of a run
		}
		n := 0
		for {
			t, exists := o.byPos[seatingPos{s.Row, s.Col + n}]
			if !exists || !ok(t) {
				break
			}
			n++
		}
		out = append(out, n)
	}
	return out
}

// checkBlocks checks that every block is seats of the hall, side by side in
// one row, each accepted by ok, no seat twice, and returns the number of
// seats and of wheelchair places.
func (o *seatingOracle) checkBlocks(t *testing.T, blocks [][]booking.Seat, ok func(booking.Seat) bool) (seats, wheel int) {
	t.Helper()
	seen := map[int64]bool{}
	for i, b := range blocks {
		if len(b) == 0 {
			t.Fatalf("block %d is empty", i)
		}
		for j, s := range b {
			hs, exists := o.byID[s.ID]
			if !exists || hs != s {
				t.Fatalf("block %d seat %v is not a seat of the hall", i, s)
			}
			if !ok(s) {
				t.Fatalf("block %d seat %s (%s, taken=%v) may not be offered", i, s.Label, s.Kind, o.taken(s.ID))
			}
			if seen[s.ID] {
				t.Fatalf("seat %s offered twice", s.Label)
			}
			seen[s.ID] = true
			if j > 0 && (s.Row != b[j-1].Row || s.Col != b[j-1].Col+1) {
				t.Fatalf("block %d is not side by side in one row: %v", i, seatingLabels(blocks))
			}
			if s.Kind == booking.Wheelchair {
				wheel++
			}
			seats++
		}
	}
	return seats, wheel
}

// seatingCheckBest checks everything BestAvailable promises against a brute
// force answer.
func seatingCheckBest(t *testing.T, h *booking.Hall, taken func(int64) bool, n, wheel int, premium bool, blocks [][]booking.Seat, together, ok bool) {
	t.Helper()
	o := newSeatingOracle(h, taken)
	eligible := func(s booking.Seat) bool { return !taken(s.ID) && (wheel > 0 || !s.Kind.Accessible()) }
	free, freeWheel := 0, 0
	for _, s := range h.Seats {
		if eligible(s) {
			free++
			if s.Kind == booking.Wheelchair {
				freeWheel++
			}
		}
	}
	wantOK := n > 0 && wheel >= 0 && wheel <= n && free >= n && freeWheel >= wheel
	if ok != wantOK {
		t.Fatalf("ok = %v, want %v (n=%d wheel=%d free=%d freeWheel=%d)", ok, wantOK, n, wheel, free, freeWheel)
	}
	if !ok {
		if blocks != nil || together {
			t.Fatalf("not ok but blocks = %v, together = %v", seatingLabels(blocks), together)
		}
		return
	}
	seats, wh := o.checkBlocks(t, blocks, eligible)
	if seats != n {
		t.Fatalf("%d seats offered, want %d: %v", seats, n, seatingLabels(blocks))
	}
	if wh < wheel {
		t.Fatalf("%d wheelchair places offered, want at least %d", wh, wheel)
	}
	if !premium {
		// Premium seats not asked for: when a block without them fits,
		// that is the answer, the best of those blocks for stranding.
		std := func(s booking.Seat) bool { return eligible(s) && s.Kind != booking.Premium }
		if stdWindows, stdOrphans := o.fitting(n, wheel, std); len(stdWindows) > 0 {
			if !together || len(blocks) != 1 {
				t.Fatalf("%v (together=%v) although %v fits without premium seats", seatingLabels(blocks), together, seatingLabels(stdWindows[:1]))
			}
			for _, s := range blocks[0] {
				if s.Kind == booking.Premium {
					t.Fatalf("%v has premium seat %s although %v fits without", seatingLabels(blocks), s.Label, seatingLabels(stdWindows[:1]))
				}
			}
			if o.orphans(blocks[0]) > stdOrphans {
				t.Fatalf("%v strands %d seats; some block without premium strands only %d", seatingLabels(blocks), o.orphans(blocks[0]), stdOrphans)
			}
			return
		}
	}
	windows, minOrphans := o.fitting(n, wheel, eligible)
	switch {
	case together && len(blocks) != 1:
		t.Fatalf("together but %d blocks", len(blocks))
	case !together && len(windows) > 0:
		t.Fatalf("split %v although %v fits together", seatingLabels(blocks), seatingLabels(windows[:1]))
	case !together && len(blocks) < 2:
		t.Fatalf("not together but one block")
	case together && o.orphans(blocks[0]) > minOrphans:
		t.Fatalf("%v strands %d seats; some block strands only %d", seatingLabels(blocks), o.orphans(blocks[0]), minOrphans)
	}
	if !together && wheel == 0 {
		// The fewest blocks the free runs allow.
		runs := o.runs(eligible)
		slices.SortFunc(runs, func(a, b int) int { return b - a })
		k, sum := 0, 0
		for sum < n {
			sum += runs[k]
			k++
		}
		if len(blocks) != k {
			t.Fatalf("split into %d blocks %v; %d would do", len(blocks), seatingLabels(blocks), k)
		}
		// Nobody sits alone who need not: the smallest block is as large
		// as k blocks allow, or at least two.
		smallest := n
		for _, b := range blocks {
			smallest = min(smallest, len(b))
		}
		if most := min(n/k, runs[k-1]); smallest > most || smallest < min(most, 2) {
			t.Fatalf("split %v: smallest block %d, want %d (or 2 to save a stranded seat)", seatingLabels(blocks), smallest, most)
		}
	}
	for i := 1; i < len(blocks); i++ {
		a, b := blocks[i-1][0], blocks[i][0]
		if a.Row > b.Row || a.Row == b.Row && a.Col > b.Col {
			t.Fatalf("blocks out of order: %v", seatingLabels(blocks))
		}
	}
}

// seatingCheckNextTo checks everything NextTo promises against a brute force
// answer.
func seatingCheckNextTo(t *testing.T, h *booking.Hall, taken func(int64) bool, near booking.Seat, n, limit int, got [][]booking.Seat) {
	t.Helper()
	if n <= 0 || limit <= 0 {
		if got != nil {
			t.Fatalf("n=%d limit=%d: got %v, want nil", n, limit, seatingLabels(got))
		}
		return
	}
	o := newSeatingOracle(h, taken)
	eligible := func(s booking.Seat) bool {
		return !taken(s.ID) && (near.Kind.Accessible() || !s.Kind.Accessible())
	}
	if len(got) > limit {
		t.Fatalf("%d blocks, limit %d", len(got), limit)
	}
	firsts := map[int64]bool{}
	for i, b := range got {
		if len(b) != n {
			t.Fatalf("block %d has %d seats, want %d", i, len(b), n)
		}
		o.checkBlocks(t, [][]booking.Seat{b}, eligible)
		if firsts[b[0].ID] {
			t.Fatalf("block %v offered twice", seatingLabels(got[i:i+1]))
		}
		firsts[b[0].ID] = true
	}
	if want := min(limit, len(o.windows(n, eligible))); len(got) != want {
		t.Fatalf("%d blocks, want %d", len(got), want)
	}
	rowDist := func(b []booking.Seat) int { return max(b[0].Row-near.Row, near.Row-b[0].Row) }
	colDist := func(b []booking.Seat) int {
		return max(0, b[0].Col-near.Col, near.Col-b[len(b)-1].Col)
	}
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		if rowDist(a) > rowDist(b) || rowDist(a) == rowDist(b) && colDist(a) > colDist(b) {
			t.Fatalf("blocks out of order: %v", seatingLabels(got))
		}
	}
}

// seatingFuzzInput reads a hall and a request from fuzz bytes. Running out
// of bytes reads zeros, which make free standard seats.
type seatingFuzzInput struct {
	b []byte
	i int
}

func (in *seatingFuzzInput) next() byte {
	if in.i >= len(in.b) {
		return 0
	}
	in.i++
	return in.b[in.i-1]
}

// hall builds up to 6 rows of up to 14 columns. Each cell byte: low three
// bits 0-3 standard, 4 a gap, 5 premium, 6 wheelchair, 7 companion; bit 5
// set means taken.
func (in *seatingFuzzInput) hall() (*booking.Hall, func(int64) bool) {
	rows, width := 1+int(in.next()%6), 1+int(in.next()%14)
	kinds := [8]booking.SeatKind{booking.Standard, booking.Standard, booking.Standard, booking.Standard,
		-1, booking.Premium, booking.Wheelchair, booking.Companion}
	h := &booking.Hall{ID: 1, Width: width}
	taken := map[int64]bool{}
	for r := range rows {
		tag := string(rune('A' + r))
		h.Rows = append(h.Rows, tag)
		num := 0
		for c := range width {
			b := in.next()
			kind := kinds[b%8]
			if kind < 0 {
				continue
			}
			num++
			id := int64(len(h.Seats) + 1)
			h.Seats = append(h.Seats, booking.Seat{ID: id, Label: fmt.Sprintf("%s%d", tag, num), RowTag: tag, Number: num, Row: r, Col: c, Kind: kind})
			taken[id] = b&0x20 != 0
		}
	}
	return h, func(id int64) bool { return taken[id] }
}

func FuzzBestAvailable(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{4, 2, 5, 8, 0, 0, 4, 0, 0, 0, 32, 0, 0, 4, 0, 0})
	f.Add([]byte{5, 1, 3, 8, 0x20, 0, 0, 0x20, 0, 6, 7, 0x20, 0, 0, 4, 0, 0x20, 0, 0, 0, 0x20})
	f.Add([]byte{7, 0, 5, 13, 0, 0x20, 0, 0x20, 0, 4, 0, 0, 0x20, 0, 0, 0, 4, 0, 0x20, 0x20, 0})
	f.Add([]byte{3, 2, 2, 6, 6, 7, 4, 7, 6, 0, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20})
	// Premium seats in the middle of a row, asked for and not.
	f.Add([]byte{4, 0, 1, 4, 0, 0x20, 5, 5, 5, 5, 0, 0, 0x20, 0, 5, 5, 5, 0, 0, 0x20, 0})
	f.Add([]byte{4, 0, 1, 4, 0, 0x20, 5, 5, 5, 5, 0, 0, 0x20, 0, 5, 5, 5, 0, 0, 0x20, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &seatingFuzzInput{b: data}
		n := int(in.next()%12) - 1
		wheel := int(in.next() % 5)
		if wheel > 2 {
			wheel = 0
		}
		h, taken := in.hall()
		premium := in.next()%2 == 1 // after the hall, so the seeds keep their meaning
		opt := booking.BestOptions{Wheelchair: wheel, Premium: premium}
		blocks, together, ok := booking.BestAvailable(h, taken, n, opt)
		seatingCheckBest(t, h, taken, n, wheel, premium, blocks, together, ok)
		again, together2, ok2 := booking.BestAvailable(h, taken, n, opt)
		if !reflect.DeepEqual(again, blocks) || together2 != together || ok2 != ok {
			t.Fatalf("not deterministic: %v then %v", seatingLabels(blocks), seatingLabels(again))
		}
		// The order seats are listed in does not matter.
		slices.Reverse(h.Seats)
		again, together2, ok2 = booking.BestAvailable(h, taken, n, opt)
		if !reflect.DeepEqual(again, blocks) || together2 != together || ok2 != ok {
			t.Fatalf("seats listed back to front: %v, want %v", seatingLabels(again), seatingLabels(blocks))
		}
	})
}

func FuzzNextTo(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2, 3, 9, 2, 5, 8, 0, 0, 4, 0, 0x20, 0, 0, 4, 0, 0})
	f.Add([]byte{3, 5, 2, 5, 1, 3, 8, 0x20, 0, 0, 0x20, 0, 6, 7, 0x20, 0, 0, 4, 0, 0x20, 0, 0, 0, 0x20})
	f.Add([]byte{1, 4, 0, 3, 2, 6, 6, 7, 4, 7, 6, 0, 0x20, 0x20, 0x26, 0x20, 0x20, 0x20})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := &seatingFuzzInput{b: data}
		n := int(in.next()%8) - 1
		limit := int(in.next()%8) - 1
		pick := int(in.next())
		h, taken := in.hall()
		if len(h.Seats) == 0 {
			return
		}
		near := h.Seats[pick%len(h.Seats)]
		got := booking.NextTo(h, taken, near, n, limit)
		seatingCheckNextTo(t, h, taken, near, n, limit, got)
	})
}

// seatingBenchHall is a 400-seat hall, 20 rows of 20 in three sections
// (5, 10, 5) between two aisles, about half sold at random.
func seatingBenchHall() (*booking.Hall, func(int64) bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := &booking.Hall{ID: 1, Name: "bench", Width: 22}
	taken := map[int64]bool{}
	for r := range 20 {
		tag := string(rune('A' + r))
		h.Rows = append(h.Rows, tag)
		num := 0
		for c := range 22 {
			if c == 5 || c == 16 {
				continue
			}
			num++
			id := int64(len(h.Seats) + 1)
			h.Seats = append(h.Seats, booking.Seat{ID: id, Label: fmt.Sprintf("%s%d", tag, num), RowTag: tag, Number: num, Row: r, Col: c})
			taken[id] = rng.IntN(2) == 0
		}
	}
	return h, func(id int64) bool { return taken[id] }
}

func BenchmarkBestAvailable400(b *testing.B) {
	h, half := seatingBenchHall()
	// Every other seat sold, as under distancing rules: nothing sits
	// together, the split search's worst case.
	chess := func(id int64) bool { return id%2 == 0 }
	for _, bc := range []struct {
		name  string
		taken func(int64) bool
		n     int
	}{
		{"half", half, 2}, {"half", half, 4}, {"half", half, 8}, {"half", half, 16},
		{"chessboard", chess, 4}, {"chessboard", chess, 10},
	} {
		blocks, together, _ := booking.BestAvailable(h, bc.taken, bc.n, booking.BestOptions{})
		b.Run(fmt.Sprintf("%s/n=%d/together=%v/blocks=%d", bc.name, bc.n, together, len(blocks)), func(b *testing.B) {
			for b.Loop() {
				booking.BestAvailable(h, bc.taken, bc.n, booking.BestOptions{})
			}
		})
	}
}

func BenchmarkNextTo400(b *testing.B) {
	h, taken := seatingBenchHall()
	near := h.Seats[250]
	for b.Loop() {
		booking.NextTo(h, taken, near, 3, 5)
	}
}

// seatingPick is the seats of a hall named in a want-like string.
func seatingPick(tb testing.TB, h *booking.Hall, labels string) []booking.Seat {
	tb.Helper()
	var out []booking.Seat
	for _, l := range strings.Fields(labels) {
		out = append(out, seatingSeat(tb, h, l))
	}
	return out
}

func TestStrandedSingles_OK(t *testing.T) {
	tests := []struct {
		name    string
		picture string
		pick    string
		want    string // the seats left single, in order
	}{
		{name: "MiddleOfEmptyRow", picture: "A  sssssssss", pick: "A4 A5"},
		{name: "NextToTaken", picture: "A  ssssSssss", pick: "A3 A4", want: ""},
		// A4 free between A3 picked and A5 taken.
		{name: "GapBeforeTaken", picture: "A  ssssSssss", pick: "A3", want: "A4"},
		// A1 free between the wall and A2 picked.
		{name: "AgainstTheWall", picture: "A  sssssssss", pick: "A2 A3", want: "A1"},
		// The aisle counts as the end of the row.
		{name: "AgainstAnAisle", picture: "A  sss.sssss", pick: "A5 A6", want: "A4"},
		{name: "BothSides", picture: "A  sSsssSsss", pick: "A4", want: "A3 A5"},
		// A seat between two picked seats is named once.
		{name: "BetweenTwoPicked", picture: "A  sssssssss", pick: "A4 A6", want: "A5"},
		// A3 sat alone already: picking A5 and A6 is not what stranded it.
		{name: "AlreadySingle", picture: "A  sSsSssss", pick: "A5 A6", want: ""},
		// Two free seats are left together: not single.
		{name: "PairLeftIsFine", picture: "A  ssssSssss", pick: "A1 A2 A3 A4"},
		{name: "FillsTheGap", picture: "A  sSsSsssss", pick: "A3"},
		// Taken seats in the pick change nothing.
		{name: "PickedTaken", picture: "A  sssSsssss", pick: "A4"},
		{name: "OtherRowsUntouched", picture: "A  sssss\nB  SsSss", pick: "A3"},
		{name: "EveryKindCounts", picture: "A  wcsscw", pick: "A3 A4"},
		{name: "Nothing", picture: "A  sssss", pick: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, taken := seatingHall(t, tt.picture)
			got := booking.StrandedSingles(h, taken, seatingPick(t, h, tt.pick))
			if g, w := strings.Join(booking.Labels(got), " "), tt.want; g != w {
				t.Errorf("stranded %q, want %q", g, w)
			}
		})
	}
	t.Run("NilHall", func(t *testing.T) {
		if got := booking.StrandedSingles(nil, nil, []booking.Seat{{ID: 1}}); got != nil {
			t.Errorf("nil hall: %v", got)
		}
	})
}

func TestCheckSingles(t *testing.T) {
	t.Run("ErrRefused", func(t *testing.T) {
		h, taken := seatingHall(t, "A  ssssSssss\nB  sssssssss")
		singles, err := booking.CheckSingles(h, taken, seatingPick(t, h, "A3"), false)
		var e *booking.SingleSeatsError
		if !errors.As(err, &e) || booking.ErrorCode(err) != booking.EConflict {
			t.Fatalf("want a SingleSeatsError (conflict), got %v", err)
		}
		if got := booking.ErrorMessage(err); got != "A4 would be left as a single seat." {
			t.Errorf("message %q", got)
		}
		if got := strings.Join(booking.Labels(e.Fill()), " "); got != "A3 A4" {
			t.Errorf("fill %q, want A3 A4", got)
		}
		if len(singles) != 1 || singles[0].Label != "A4" {
			t.Errorf("singles %v", booking.Labels(singles))
		}
	})
	t.Run("ErrTwoSingles", func(t *testing.T) {
		h, taken := seatingHall(t, "A  sSsssSsss")
		_, err := booking.CheckSingles(h, taken, seatingPick(t, h, "A4"), false)
		if got := booking.ErrorMessage(err); got != "A3 and A5 would be left as single seats." {
			t.Errorf("message %q", got)
		}
	})
	t.Run("OverrideNamesTheSeats", func(t *testing.T) {
		h, taken := seatingHall(t, "A  ssssSssss")
		singles, err := booking.CheckSingles(h, taken, seatingPick(t, h, "A3"), true)
		if err != nil || len(singles) != 1 || singles[0].Label != "A4" {
			t.Fatalf("override: %v %v", booking.Labels(singles), err)
		}
	})
	t.Run("NoneStranded", func(t *testing.T) {
		h, taken := seatingHall(t, "A  ssssSssss")
		if singles, err := booking.CheckSingles(h, taken, seatingPick(t, h, "A3 A4"), false); err != nil || singles != nil {
			t.Fatalf("got %v %v", booking.Labels(singles), err)
		}
	})
	// Nine seats of ten taken: the rule is off, and nothing is logged.
	for _, tt := range []struct {
		name, rowA string
		refused    bool
	}{
		{"RelaxedAtNinetyPercent", "sssSSSSSSS", false}, // 27 of 30 taken
		{"StillOnBelow", "ssssSSSSSS", true},            // 26 of 30
	} {
		t.Run(tt.name, func(t *testing.T) {
			h, taken := seatingHall(t, "A  "+tt.rowA+"\nB  SSSSSSSSSS\nC  SSSSSSSSSS")
			singles, err := booking.CheckSingles(h, taken, seatingPick(t, h, "A2"), false) // strands A1
			if (err != nil) != tt.refused {
				t.Fatalf("refused = %v, want %v (%v)", err != nil, tt.refused, err)
			}
			if !tt.refused && singles != nil {
				t.Errorf("relaxed rule names %v", booking.Labels(singles))
			}
		})
	}
}

// seatingCheckStranded checks StrandedSingles against a brute-force
// reading of the hall by position.
func seatingCheckStranded(t *testing.T, h *booking.Hall, taken func(int64) bool, picked []booking.Seat, got []booking.Seat) {
	t.Helper()
	o := newSeatingOracle(h, taken)
	pick := map[int64]bool{}
	for _, s := range picked {
		pick[s.ID] = true
	}
	freeAfter := func(row, col int) bool {
		s, ok := o.byPos[seatingPos{row, col}]
		return ok && !taken(s.ID) && !pick[s.ID]
	}
	single := func(row, col int, free func(int, int) bool) bool {
		return free(row, col) && !free(row, col-1) && !free(row, col+1)
	}
	var want []string
	for _, s := range o.h.Seats {
		nextToPick := false
		for _, d := range []int{-1, 1} {
			if p, ok := o.byPos[seatingPos{s.Row, s.Col + d}]; ok && pick[p.ID] && !taken(p.ID) {
				nextToPick = true
			}
		}
		if nextToPick && single(s.Row, s.Col, freeAfter) && !single(s.Row, s.Col, o.freeAt) {
			want = append(want, s.Label)
		}
	}
	slices.SortFunc(want, func(a, b string) int {
		sa, sb := o.byLabel(a), o.byLabel(b)
		return cmpPos(sa, sb)
	})
	if g := booking.Labels(got); !slices.Equal(g, want) && !(len(g) == 0 && len(want) == 0) {
		t.Fatalf("stranded %v, want %v", g, want)
	}
	// Taking the singles too leaves no seat alone.
	fill := append(slices.Clone(picked), got...)
	if again := booking.StrandedSingles(h, taken, fill); len(again) != 0 {
		t.Fatalf("the pick with its singles still strands %v", booking.Labels(again))
	}
}

func (o *seatingOracle) byLabel(l string) booking.Seat {
	for _, s := range o.h.Seats {
		if s.Label == l {
			return s
		}
	}
	return booking.Seat{}
}

func cmpPos(a, b booking.Seat) int {
	if a.Row != b.Row {
		return a.Row - b.Row
	}
	return a.Col - b.Col
}

func FuzzStrandedSingles(f *testing.F) {
	f.Add([]byte{}, []byte{})
	f.Add([]byte{1, 9, 0, 0, 0, 0x20, 0, 0, 0, 0, 0}, []byte{2})
	f.Add([]byte{2, 9, 0, 0, 4, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, []byte{1, 3, 5})
	f.Add([]byte{3, 6, 6, 7, 0, 0, 7, 6, 0x20, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 0}, []byte{0, 4, 9})
	f.Fuzz(func(t *testing.T, data, picks []byte) {
		in := &seatingFuzzInput{b: data}
		h, taken := in.hall()
		if len(h.Seats) == 0 {
			return
		}
		var picked []booking.Seat
		for _, p := range picks {
			picked = append(picked, h.Seats[int(p)%len(h.Seats)])
		}
		got := booking.StrandedSingles(h, taken, picked)
		seatingCheckStranded(t, h, taken, picked, got)
		// The order seats are listed in does not matter.
		slices.Reverse(h.Seats)
		if again := booking.StrandedSingles(h, taken, picked); !reflect.DeepEqual(booking.Labels(again), booking.Labels(got)) {
			t.Fatalf("seats listed back to front: %v, want %v", booking.Labels(again), booking.Labels(got))
		}
	})
}
