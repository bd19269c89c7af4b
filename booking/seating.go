package booking

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// How the seat-choosing algorithms weigh a place. Distances are in seats
// across and rows deep, squared, so a block twice as far off is four times
// as bad and a small step off the sweet spot hardly matters.
const (
	// sweetDepth is how far back the best row is, as a fraction of the
	// hall's depth: far enough back to take in the whole screen, close
	// enough to be inside the sound.
	sweetDepth = 2.0 / 3.0
	// frontWeight makes rows in front of the sweet spot count half as much
	// again as rows behind it: craning up at a screen that is too close is
	// worse than sitting a row too far back.
	frontWeight = 1.5
	// rowWeight is how many seats across one row forward or back counts
	// as when measuring how far apart the blocks of a split party sit:
	// talking over a seat back is harder than along a row.
	rowWeight = 1.5
	// cohesionWeight is how much the spread of a split party counts against
	// its distance from the sweet spot. A family split in two wants to sit
	// one behind the other more than it wants the best row.
	cohesionWeight = 2.0
	// maxSplitTries bounds how many (blocks, smallest block) shapes the
	// split search tries. Past it the best split found so far is kept, or
	// when there is none (a wheelchair party in an odd hall) a plain greedy
	// choice is made, so a strange hall can never make a counter wait.
	maxSplitTries = 8
)

// BestOptions tunes BestAvailable.
type BestOptions struct {
	// Wheelchair is how many of the N must be wheelchair places; companions
	// next to them fill the rest when possible. 0 means accessible
	// (wheelchair and companion) places are never offered, so they stay free
	// for the customers who need them.
	Wheelchair int
	// Premium lets premium seats be offered like standard ones. Without
	// it a party is steered into premium seats only when no block of
	// other seats fits them together: a premium seat costs more, and the
	// customer should ask for it.
	Premium bool
}

// BestAvailable picks the best n free seats. When n free seats sit side by
// side somewhere it returns the best such block as the only element of
// blocks, with together=true. Otherwise it returns the best split, with
// together=false: as few blocks as possible, the smallest as large as
// possible, close together (one behind the other in the same columns is
// best) and close to the sweet spot. ok is false, and blocks nil, when
// fewer than n seats that may be offered are free, when fewer than
// opt.Wheelchair wheelchair places are free, or when the request makes no
// sense (n <= 0, opt.Wheelchair < 0 or > n).
//
// The best block is the one a cinema would sell first: near the sweet spot
// (the centre of the hall, about two thirds back, where picture and sound
// are best), and not stranding a single free seat between itself and a
// taken seat, an aisle or a wall, because nobody buys that seat afterwards.
// A block that strands one is chosen only when every block of n does.
// Premium seats are offered like standard ones when opt.Premium is set;
// otherwise only when no block of n without them exists (then the best
// block or split with them is chosen as if premium were asked for).
// Accessible places are offered only to a party that asks for wheelchair
// places, so they stay free for those who need them. Ties go to the front-most, then left-most block, so two
// counters asking the same question get the same answer. taken may be nil
// when nothing is taken.
//
// Blocks are ordered by row, then column, and each block by column. The
// slices are new: the caller may keep or change them.
func BestAvailable(h *Hall, taken func(seatID int64) bool, n int, opt BestOptions) (blocks [][]Seat, together bool, ok bool) {
	wheel := opt.Wheelchair
	if h == nil || n <= 0 || wheel < 0 || wheel > n {
		return nil, false, false
	}
	g := newSeatGrid(h, taken)
	kindOK := func(s Seat) bool { return wheel > 0 || !s.Kind.Accessible() }
	if !opt.Premium {
		g.markEligible(func(s Seat) bool { return s.Kind != Premium && kindOK(s) })
		if s, found := g.bestBlock(g.runs(), n, wheel); found {
			return [][]Seat{g.block(s)}, true, true
		}
	}
	free, freeWheel := g.markEligible(kindOK)
	if free < n || freeWheel < wheel {
		return nil, false, false
	}
	runs := g.runs()
	if s, found := g.bestBlock(runs, n, wheel); found {
		return [][]Seat{g.block(s)}, true, true
	}
	spans := g.bestSplit(runs, n, wheel)
	slices.SortFunc(spans, func(a, b seatSpan) int { return cmp.Compare(a.lo, b.lo) })
	blocks = make([][]Seat, len(spans))
	for i, s := range spans {
		blocks[i] = g.block(s)
	}
	return blocks, false, true
}

// NextTo lists, after a clash on seat near for a party of n, the free
// blocks of n seats nearest near, best first, at most limit of them: the
// blocks in near's own row first, then those one row either side, then two
// rows, and so on. Within one row distance a block covering near's column
// comes first, then blocks by how far their nearest seat is from it, then
// the better centred on it, then the one stranding fewer single seats, then
// the front-most and left-most. Blocks may overlap (G8-G9 and G9-G10) but
// none is listed twice. They never include a taken seat (so never near
// itself when it is taken) and include accessible places only when near is
// one.
//
// It answers the clerk who just lost G7 to another counter: the party still
// wants to sit where they pointed, so nearness to that seat beats the sweet
// spot. near is looked up in the hall by ID, or by Row and Col when its ID
// is zero or unknown (a hall fresh from ParseLayout has no IDs yet); a seat
// not in the hall is used as given. taken may be nil when nothing is taken.
func NextTo(h *Hall, taken func(seatID int64) bool, near Seat, n int, limit int) [][]Seat {
	if h == nil || n <= 0 || limit <= 0 {
		return nil
	}
	g := newSeatGrid(h, taken)
	near = g.find(near)
	acc := near.Kind.Accessible()
	g.markEligible(func(s Seat) bool { return acc || !s.Kind.Accessible() })

	type candidate struct {
		lo                        int
		rowDist, colDist, centred int
		orphans                   int
	}
	var cands []candidate
	for _, r := range g.runs() {
		for lo := r.lo; lo+n <= r.hi; lo++ {
			c0, c1 := g.seats[lo].Col, g.seats[lo+n-1].Col
			colDist := 0
			switch {
			case near.Col < c0:
				colDist = c0 - near.Col
			case near.Col > c1:
				colDist = near.Col - c1
			}
			cands = append(cands, candidate{
				lo:      lo,
				rowDist: seatAbs(g.seats[lo].Row - near.Row),
				colDist: colDist,
				centred: seatAbs(c0 + c1 - 2*near.Col),
				orphans: g.orphans(seatSpan{lo, lo + n}),
			})
		}
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(
			cmp.Compare(a.rowDist, b.rowDist),
			cmp.Compare(a.colDist, b.colDist),
			cmp.Compare(a.centred, b.centred),
			cmp.Compare(a.orphans, b.orphans),
			cmp.Compare(a.lo, b.lo),
		)
	})
	if len(cands) > limit {
		cands = cands[:limit]
	}
	if len(cands) == 0 {
		return nil
	}
	out := make([][]Seat, len(cands))
	for i, c := range cands {
		out[i] = g.block(seatSpan{c.lo, c.lo + n})
	}
	return out
}

// seatGrid is a hall prepared for one question: seats in Row, Col order,
// each seat's row segment, and which seats are free and may be offered.
type seatGrid struct {
	seats    []Seat
	segStart []int  // index of the first seat of seat i's row segment
	segEnd   []int  // index one past the last seat of seat i's row segment
	free     []bool // not taken: what stranding a seat is measured against
	ok       []bool // free and of a kind this request may be offered
	// whPre and compPre count offerable wheelchair and companion places
	// before index i, so a block's count is one subtraction.
	whPre, compPre []int
	centreCol      float64
	spotRow        float64
}

// seatSpan is a block of seats by index into seatGrid.seats, [lo, hi), always
// inside one row segment.
type seatSpan struct{ lo, hi int }

func (s seatSpan) len() int { return s.hi - s.lo }

func bySeatPos(a, b Seat) int {
	return cmp.Or(cmp.Compare(a.Row, b.Row), cmp.Compare(a.Col, b.Col))
}

func newSeatGrid(h *Hall, taken func(seatID int64) bool) *seatGrid {
	seats := h.Seats
	if !slices.IsSortedFunc(seats, bySeatPos) {
		// The store promises Row, Col order; a hall built by hand may not
		// keep it, and adjacency is only right on sorted seats.
		seats = slices.Clone(seats)
		slices.SortStableFunc(seats, bySeatPos)
	}
	ns := len(seats)
	ints := make([]int, 4*ns+2)
	bools := make([]bool, 2*ns)
	g := &seatGrid{
		seats:    seats,
		segStart: ints[:ns:ns],
		segEnd:   ints[ns : 2*ns : 2*ns],
		whPre:    ints[2*ns : 3*ns+1 : 3*ns+1],
		compPre:  ints[3*ns+1:],
		free:     bools[:ns:ns],
		ok:       bools[ns:],
	}
	width, rows := h.Width, len(h.Rows)
	start := 0
	for i, s := range seats {
		width = max(width, s.Col+1)
		rows = max(rows, s.Row+1)
		g.free[i] = taken == nil || !taken(s.ID)
		if i > 0 && (s.Row != seats[i-1].Row || s.Col != seats[i-1].Col+1) {
			for j := start; j < i; j++ {
				g.segEnd[j] = i
			}
			start = i
		}
		g.segStart[i] = start
	}
	for j := start; j < ns; j++ {
		g.segEnd[j] = ns
	}
	g.centreCol = float64(width-1) / 2
	g.spotRow = sweetDepth * float64(max(rows-1, 0))
	return g
}

// find returns the hall's own copy of seat s: by ID when s has one the hall
// knows, else the seat at s's Row and Col, else s itself.
func (g *seatGrid) find(s Seat) Seat {
	if s.ID != 0 {
		for _, t := range g.seats {
			if t.ID == s.ID {
				return t
			}
		}
	}
	if i, found := slices.BinarySearchFunc(g.seats, s, bySeatPos); found {
		return g.seats[i]
	}
	return s
}

// markEligible sets which free seats may be offered and returns how many
// there are and how many of them are wheelchair places.
func (g *seatGrid) markEligible(kindOK func(Seat) bool) (free, wheel int) {
	for i, s := range g.seats {
		g.ok[i] = g.free[i] && kindOK(s)
		g.whPre[i+1], g.compPre[i+1] = g.whPre[i], g.compPre[i]
		if !g.ok[i] {
			continue
		}
		free++
		switch s.Kind {
		case Wheelchair:
			wheel++
			g.whPre[i+1]++
		case Companion:
			g.compPre[i+1]++
		}
	}
	return free, wheel
}

// runs returns the maximal blocks of offerable seats, in Row, Col order.
// Every block the algorithms offer lies inside one run.
func (g *seatGrid) runs() []seatSpan {
	var out []seatSpan
	for i := 0; i < len(g.seats); {
		if !g.ok[i] {
			i++
			continue
		}
		j := i + 1
		for j < g.segEnd[i] && g.ok[j] {
			j++
		}
		out = append(out, seatSpan{i, j})
		i = j
	}
	return out
}

func (g *seatGrid) block(s seatSpan) []Seat { return slices.Clone(g.seats[s.lo:s.hi]) }

func (g *seatGrid) wheelchairs(s seatSpan) int { return g.whPre[s.hi] - g.whPre[s.lo] }

func (g *seatGrid) companions(s seatSpan) int { return g.compPre[s.hi] - g.compPre[s.lo] }

// orphans counts the single free seats a block would strand: a free seat
// just past either end of the block whose other neighbour is taken or is
// the end of the row segment (an aisle or a wall).
func (g *seatGrid) orphans(s seatSpan) int {
	ss, se := g.segStart[s.lo], g.segEnd[s.lo]
	n := 0
	if p := s.lo - 1; p >= ss && g.free[p] && (p-1 < ss || !g.free[p-1]) {
		n++
	}
	if q := s.hi; q < se && g.free[q] && (q+1 >= se || !g.free[q+1]) {
		n++
	}
	return n
}

// centre is a block's middle as (row, column).
func (g *seatGrid) centre(s seatSpan) (row, col float64) {
	return float64(g.seats[s.lo].Row), float64(g.seats[s.lo].Col+g.seats[s.hi-1].Col) / 2
}

// sweetCost is a block's squared distance from the sweet spot.
func (g *seatGrid) sweetCost(s seatSpan) float64 {
	row, col := g.centre(s)
	dx, dy := col-g.centreCol, row-g.spotRow
	if dy < 0 {
		dy *= frontWeight
	}
	return dx*dx + dy*dy
}

// cohesion is how far block b sits from block a, squared: rows apart weigh
// most, then the gap between their nearest seats, and a little how well
// their centres line up, so the seats right behind a block come before the
// seats across the aisle beside it, and those before two rows back.
func (g *seatGrid) cohesion(b, a seatSpan) float64 {
	ra, ca := g.centre(a)
	rb, cb := g.centre(b)
	dr := (rb - ra) * rowWeight
	gap := float64(max(0, g.seats[b.lo].Col-g.seats[a.hi-1].Col, g.seats[a.lo].Col-g.seats[b.hi-1].Col))
	dc := (cb - ca) / 2
	return dr*dr + gap*gap + dc*dc
}

// wheelFit is how far a choice is from the ideal for a wheelchair party:
// each wheelchair place beyond those asked for (it could have gone to the
// next wheelchair user) and each seat that is neither a wheelchair nor a
// companion place counts one. It is zero when no wheelchair places were asked for.
func (g *seatGrid) wheelFit(spans []seatSpan, wheel int) int {
	if wheel == 0 {
		return 0
	}
	n, wh, comp := 0, 0, 0
	for _, s := range spans {
		n += s.len()
		wh += g.wheelchairs(s)
		comp += g.companions(s)
	}
	return (wh - wheel) + (n - wh - comp)
}

// seatRank orders candidates: covering more of the wheelchair places still
// needed, then stranding fewer single seats, then fitting a wheelchair
// party better, then a lower cost, then a lower tie-break cost. Equal
// ranks keep the candidate seen first, which is the front-most, left-most.
type seatRank struct {
	cover   int // wheelchair places still needed that this covers, negated
	orphans int
	fit     int
	cost    float64
	tie     float64
}

func (r seatRank) less(o seatRank) bool {
	return cmp.Or(
		cmp.Compare(r.cover, o.cover),
		cmp.Compare(r.orphans, o.orphans),
		cmp.Compare(r.fit, o.fit),
		cmp.Compare(r.cost, o.cost),
		cmp.Compare(r.tie, o.tie),
	) < 0
}

// bestBlock finds the best single block of n offerable seats holding at
// least wheel wheelchair places.
func (g *seatGrid) bestBlock(runs []seatSpan, n, wheel int) (seatSpan, bool) {
	var best seatSpan
	var bestRank seatRank
	found := false
	for _, r := range runs {
		for lo := r.lo; lo+n <= r.hi; lo++ {
			s := seatSpan{lo, lo + n}
			if g.wheelchairs(s) < wheel {
				continue
			}
			rk := seatRank{orphans: g.orphans(s), fit: g.wheelFit([]seatSpan{s}, wheel), cost: g.sweetCost(s)}
			if !found || rk.less(bestRank) {
				best, bestRank, found = s, rk, true
			}
		}
	}
	return best, found
}

func seatAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// SinglesRelaxPercent is how full a show is, in percent of its seats taken
// (sold, held or kept out of sale), from which CheckSingles stops refusing:
// with nine seats in ten gone the last ones are wherever they are, and a
// clerk should not need an override to sell them.
const SinglesRelaxPercent = 90

// StrandedSingles returns the free seats that taking picked would leave
// single, in Row, Col order: a free seat next to a picked one whose other
// neighbour is taken or is the end of its row segment (an aisle or a
// wall). Such a seat had a free neighbour before (the picked one), so it
// is the pick's doing; a seat that sat alone already is never named, and
// a picked seat already taken changes nothing. picked are matched to the
// hall's seats by ID; taken may be nil when nothing is taken.
func StrandedSingles(h *Hall, taken func(seatID int64) bool, picked []Seat) []Seat {
	if h == nil || len(picked) == 0 {
		return nil
	}
	g := newSeatGrid(h, taken)
	return g.stranded(g.pickedSet(picked))
}

// CheckSingles is the single-seat rule for seats picked by hand (best
// available keeps it by itself): a hold that would strand a single empty
// seat between taken seats or an aisle is refused with a
// *SingleSeatsError, unless allow says the clerk chose to (an override
// the store logs), or the show is SinglesRelaxPercent full or more. It
// returns the seats the hold strands, for the override's audit row: nil
// when it strands none or the rule is relaxed.
func CheckSingles(h *Hall, taken func(seatID int64) bool, picked []Seat, allow bool) ([]Seat, error) {
	if h == nil || len(picked) == 0 {
		return nil, nil
	}
	g := newSeatGrid(h, taken)
	full := 0
	for _, free := range g.free {
		if !free {
			full++
		}
	}
	if full*100 >= SinglesRelaxPercent*len(g.seats) {
		return nil, nil
	}
	singles := g.stranded(g.pickedSet(picked))
	if len(singles) == 0 || allow {
		return singles, nil
	}
	return singles, &SingleSeatsError{Picked: slices.Clone(picked), Singles: singles}
}

// pickedSet marks the seats of picked that are free now, by index.
func (g *seatGrid) pickedSet(picked []Seat) []bool {
	ids := make(map[int64]bool, len(picked))
	for _, s := range picked {
		ids[s.ID] = true
	}
	out := make([]bool, len(g.seats))
	for i, s := range g.seats {
		out[i] = ids[s.ID] && g.free[i]
	}
	return out
}

// stranded lists the seats next to a picked one that the pick leaves
// single.
func (g *seatGrid) stranded(picked []bool) []Seat {
	free := func(i int) bool { return g.free[i] && !picked[i] }
	single := func(i int) bool {
		return free(i) && (i-1 < g.segStart[i] || !free(i-1)) && (i+1 >= g.segEnd[i] || !free(i+1))
	}
	var out []Seat
	seen := -1
	for i, p := range picked {
		if !p {
			continue
		}
		for _, j := range [2]int{i - 1, i + 1} {
			if j < g.segStart[i] || j >= g.segEnd[i] || j <= seen {
				continue
			}
			if single(j) {
				out = append(out, g.seats[j])
				seen = j
			}
		}
	}
	return out
}

// SingleSeatsError refuses seats picked by hand that would leave single
// empty seats, which nobody buys (CheckSingles). Picked are the seats
// asked for, Singles the seats they would strand. Its code is EConflict.
type SingleSeatsError struct {
	Picked  []Seat
	Singles []Seat
}

func (e *SingleSeatsError) Error() string { return e.Message() }

// Unwrap gives the error its code and message for ErrorCode and
// ErrorMessage.
func (e *SingleSeatsError) Unwrap() error { return &Error{Code: EConflict, Message: e.Message()} }

// Message is what the clerk reads: "G8 would be left as a single seat."
func (e *SingleSeatsError) Message() string {
	if len(e.Singles) == 1 {
		return e.Singles[0].Label + " would be left as a single seat."
	}
	return joinAnd(Labels(e.Singles)) + " would be left as single seats."
}

// Fill is the picked seats with the singles they strand, in Row, Col
// order: the hold that leaves no seat alone.
func (e *SingleSeatsError) Fill() []Seat {
	out := append(slices.Clone(e.Picked), e.Singles...)
	slices.SortFunc(out, bySeatPos)
	return slices.CompactFunc(out, func(a, b Seat) bool { return a.ID == b.ID })
}

// SinglesAudit is the audit row of a hold made with AllowSingle that
// stranded singles: an override, naming the seats held and the seats left
// alone (the row names the clerk). Every store writes this one.
func SinglesAudit(showID, holdID int64, picked, singles []Seat) AuditEntry {
	what := "single seat left"
	if len(singles) > 1 {
		what = "single seats left"
	}
	return AuditEntry{
		Action: AuditOverride,
		ShowID: showID,
		Detail: fmt.Sprintf("%s: %s (hold %d: %s)", what, strings.Join(Labels(singles), " "), holdID, strings.Join(Labels(picked), " ")),
	}
}
