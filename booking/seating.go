package booking

import (
	"cmp"
	"slices"
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
// Premium seats are offered like standard ones; accessible places only to
// a party that asks for wheelchair places, so they stay free for those who
// need them. Ties go to the front-most, then left-most block, so two
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
	free, freeWheel := g.markEligible(func(s Seat) bool { return wheel > 0 || !s.Kind.Accessible() })
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

// bestSplit finds the best way to seat n people in several blocks when no
// single block will do: the fewest blocks k that can hold n; among those,
// no stranded single seat when that can be had; then the largest smallest
// block m, so nobody sits alone who need not (nor is anyone put alone just
// to save a stranded seat). For each k and m it anchors the party on one of
// the runs nearest the sweet spot and fills the rest from the runs nearest
// that anchor. A wheelchair party may need more or smaller blocks to reach
// the wheelchair places; when a few tries find nothing, a greedy choice
// that always succeeds is made instead.
func (g *seatGrid) bestSplit(runs []seatSpan, n, wheel int) []seatSpan {
	p := newSplitPlan(runs)
	kmin, sum := 0, 0
	for kmin < len(p.order) && sum < n {
		sum += runs[p.order[kmin]].len()
		kmin++
	}
	tries := 0
	for k := max(kmin, 2); k <= min(n, len(runs)) && tries < maxSplitTries; k++ {
		mmax := min(n/k, runs[p.order[k-1]].len())
		var best []seatSpan
		var bestRank seatRank
		for m := mmax; m >= min(mmax, 2) && tries < maxSplitTries; m-- {
			tries++
			s, rk, found := g.searchSplit(p, n, k, m, wheel)
			if found && (best == nil || rk.orphans < bestRank.orphans) {
				best, bestRank = s, rk
			}
			if best != nil && bestRank.orphans == 0 {
				break
			}
		}
		if best != nil {
			return best
		}
	}
	return g.greedySplit(n, wheel)
}

// splitPlan is the runs of offerable seats arranged for the split search:
// by length, to tell quickly whether what is left can still be seated, and
// by row, to look at the runs nearest an anchor first.
type splitPlan struct {
	runs  []seatSpan
	order []int // run indices, longest first (ties in hall order)
	pos   []int // pos[j] is run j's place in order
	rows  []int // the distinct rows that have runs, front to back
	first []int // runs of rows[i] are first[i] to first[i+1]-1
}

func newSplitPlan(runs []seatSpan) *splitPlan {
	p := &splitPlan{runs: runs, order: make([]int, len(runs)), pos: make([]int, len(runs))}
	for i := range p.order {
		p.order[i] = i
	}
	slices.SortStableFunc(p.order, func(a, b int) int { return cmp.Compare(runs[b].len(), runs[a].len()) })
	for i, j := range p.order {
		p.pos[j] = i
	}
	return p
}

// rowsOf fills in rows and first; the seat grid knows each run's row.
func (p *splitPlan) rowsOf(g *seatGrid) {
	if p.rows != nil {
		return
	}
	for j, r := range p.runs {
		if row := g.seats[r.lo].Row; j == 0 || row != p.rows[len(p.rows)-1] {
			p.rows = append(p.rows, row)
			p.first = append(p.first, j)
		}
	}
	p.first = append(p.first, len(p.runs))
}

// maxAnchors is how many anchors the split search tries for k blocks.
// Each anchor costs about k-1 fill steps, so the count shrinks as k grows
// and the search stays fast on a hall sold like a chessboard.
func maxAnchors(k int) int { return max(4, 24/(k-1)) }

// searchSplit looks for the best split of n into exactly k blocks of at
// least m seats, each block in its own run.
func (g *seatGrid) searchSplit(p *splitPlan, n, k, m, wheel int) ([]seatSpan, seatRank, bool) {
	p.rowsOf(g)
	runs := p.runs
	used := make([]bool, len(runs))

	// The anchors: runs that can take the largest block this shape allows
	// with the rest still seatable, best placed first.
	type anchor struct {
		j  int
		s  seatSpan
		rk seatRank
	}
	limit := maxAnchors(k)
	anchors := make([]anchor, 0, limit+1)
	for j, r := range runs {
		if r.len() < m {
			continue
		}
		a := min(r.len(), n-(k-1)*m)
		used[j] = true
		fits := splitFeasible(runs, p.order, used, n-a, k-1, m)
		used[j] = false
		if !fits {
			continue
		}
		s, rk := g.place(r, a, wheel, nil)
		if len(anchors) == limit && !rk.less(anchors[limit-1].rk) {
			continue
		}
		// Keep the best few in order, earlier runs first among equals.
		i := len(anchors)
		for i > 0 && rk.less(anchors[i-1].rk) {
			i--
		}
		anchors = slices.Insert(anchors, i, anchor{j, s, rk})
		if len(anchors) > limit {
			anchors = anchors[:limit]
		}
	}

	var best []seatSpan
	var bestRank seatRank
	cur := make([]seatSpan, 0, k)
	for _, an := range anchors {
		clear(used)
		used[an.j] = true
		cur = append(cur[:0], an.s)
		rem, need := n-an.s.len(), wheel-g.wheelchairs(an.s)
		complete := true
		for left := k - 1; left > 0; left-- {
			j, s, found := g.fill(p, used, an.s, rem, left, m, need)
			if !found {
				complete = false
				break
			}
			used[j] = true
			cur = append(cur, s)
			rem -= s.len()
			need -= g.wheelchairs(s)
		}
		if !complete || need > 0 {
			continue
		}
		rk := g.splitRank(cur, n, wheel)
		if best == nil || rk.less(bestRank) {
			best, bestRank = append(best[:0], cur...), rk
		}
	}
	return best, bestRank, best != nil
}

// fill picks the next block of a split: from an unused run, as many seats
// as the run holds up to what the other left-1 blocks cannot take, placed
// and chosen by the wheelchair places it covers, the seats it strands, and
// how close it sits to the anchor. It looks at rows outward from the
// anchor's and stops once no further row can come closer than the best
// block found.
func (g *seatGrid) fill(p *splitPlan, used []bool, anc seatSpan, rem, left, m, need int) (int, seatSpan, bool) {
	runs := p.runs
	// The longest unused runs: what the other blocks could take at most.
	// top1 is the sum of the first left-1, top2 of the first left; min1
	// and min2 their shortest; edge is the place in order of the last of
	// the first left-1, so a run at or before it is one of them.
	top1, top2, min1, min2, edge, seen := 0, 0, 0, 0, -1, 0
	for i, j := range p.order {
		if used[j] {
			continue
		}
		seen++
		l := runs[j].len()
		if seen <= left-1 {
			top1, min1, edge = top1+l, l, i
		}
		if seen == left {
			top2, min2 = top1+l, l
			break
		}
	}
	fits := func(j, t int) bool {
		rest := rem - t
		if left == 1 {
			return rest == 0
		}
		if p.pos[j] <= edge {
			// Taking j leaves the others the first left runs but j.
			return seen >= left && min2 >= m && top2-runs[j].len() >= rest
		}
		return seen >= left-1 && min1 >= m && top1 >= rest
	}

	need = max(need, 0)
	bj, bs, brk := -1, seatSpan{}, seatRank{}
	ar := g.seats[anc.lo].Row
	ri, _ := slices.BinarySearch(p.rows, ar)
	down, up := ri, ri+1
	for down >= 0 || up < len(p.rows) {
		var at int // the row to look at next: the nearer of down and up
		if up >= len(p.rows) || down >= 0 && ar-p.rows[down] <= p.rows[up]-ar {
			at, down = down, down-1
		} else {
			at, up = up, up+1
		}
		if bj >= 0 && brk.cover == -need && brk.orphans == 0 {
			// Nothing in this row or beyond can beat the best: its rows
			// apart alone cost more.
			dr := float64(seatAbs(p.rows[at]-ar)) * rowWeight
			if dr*dr > brk.cost {
				break
			}
		}
		for j := p.first[at]; j < p.first[at+1]; j++ {
			r := runs[j]
			if used[j] || r.len() < m {
				continue
			}
			t := min(r.len(), rem-(left-1)*m)
			if t < m || !fits(j, t) {
				continue
			}
			s, rk := g.place(r, t, need, &anc)
			if bj < 0 || rk.less(brk) || !brk.less(rk) && j < bj {
				bj, bs, brk = j, s, rk
			}
		}
	}
	return bj, bs, bj >= 0
}

// splitFeasible reports whether rem seats fit in exactly cnt unused runs of at
// least m seats each (rem >= cnt*m is known).
func splitFeasible(runs []seatSpan, order []int, used []bool, rem, cnt, m int) bool {
	if cnt == 0 {
		return rem == 0
	}
	sum := 0
	for _, j := range order {
		if used[j] {
			continue
		}
		if runs[j].len() < m {
			return false
		}
		sum += runs[j].len()
		if cnt--; cnt == 0 {
			return sum >= rem
		}
	}
	return false
}

// place picks where in run r a block of size seats goes: over the
// wheelchair places still needed, stranding no single seat, then nearest
// the sweet spot (an anchor, anc nil) or nearest the anchor anc (the rest
// of a split, the sweet spot breaking ties). It returns the block and its
// rank.
func (g *seatGrid) place(r seatSpan, size, need int, anc *seatSpan) (seatSpan, seatRank) {
	need = max(need, 0)
	var best seatSpan
	var bestRank seatRank
	for lo := r.lo; lo+size <= r.hi; lo++ {
		s := seatSpan{lo, lo + size}
		rk := seatRank{cover: -min(need, g.wheelchairs(s)), orphans: g.orphans(s), cost: g.sweetCost(s)}
		if anc != nil {
			rk.cost, rk.tie = g.cohesion(s, *anc), rk.cost
		}
		if lo == r.lo || rk.less(bestRank) {
			best, bestRank = s, rk
		}
	}
	return best, bestRank
}

// splitRank scores a whole split: stranded seats, wheelchair fit, then each
// block's distance from the sweet spot and from the anchor (the first
// block), weighted by how many people sit there.
func (g *seatGrid) splitRank(spans []seatSpan, n, wheel int) seatRank {
	rk := seatRank{fit: g.wheelFit(spans, wheel)}
	for i, s := range spans {
		rk.orphans += g.orphans(s)
		rk.cost += float64(s.len()) * g.sweetCost(s) / float64(n)
		if i > 0 {
			rk.cost += cohesionWeight * float64(s.len()) * g.cohesion(s, spans[0]) / float64(n)
		}
	}
	return rk
}

// greedySplit always finds n seats holding wheel wheelchair places when
// they are free, for the odd hall where the split search finds nothing
// (two wheelchair places at the two ends of one long run, say). It takes
// the wheelchair places nearest the sweet spot, then grows the blocks seat
// by seat: a seat that joins two blocks first, then a companion place
// (for a wheelchair party), then a seat beside the smallest block, then
// the seat nearest the sweet spot; a seat on its own only when no free
// seat is beside a block.
func (g *seatGrid) greedySplit(n, wheel int) []seatSpan {
	var byCost []int
	for i := range g.seats {
		if g.ok[i] {
			byCost = append(byCost, i)
		}
	}
	cost := make([]float64, len(g.seats))
	for _, i := range byCost {
		cost[i] = g.sweetCost(seatSpan{i, i + 1})
	}
	slices.SortStableFunc(byCost, func(a, b int) int { return cmp.Compare(cost[a], cost[b]) })

	chosen := make([]bool, len(g.seats))
	// size holds a chosen block's length at both its ends, so the block
	// beside a free seat is known without walking it.
	size := make([]int, len(g.seats))
	count := 0
	choose := func(i int) {
		l, r := 0, 0
		if i > g.segStart[i] && chosen[i-1] {
			l = size[i-1]
		}
		if i+1 < g.segEnd[i] && chosen[i+1] {
			r = size[i+1]
		}
		chosen[i] = true
		size[i-l], size[i+r] = l+r+1, l+r+1
		count++
	}
	for _, i := range byCost {
		if count == wheel {
			break
		}
		if g.seats[i].Kind == Wheelchair {
			choose(i)
		}
	}
	type growth struct {
		joins, companion bool
		beside           int // the smaller block beside the seat
	}
	better := func(a, b growth) bool {
		if a.joins != b.joins {
			return a.joins
		}
		if a.companion != b.companion {
			return a.companion
		}
		return a.beside < b.beside
	}
	for count < n {
		pick, best := -1, growth{}
		for _, i := range byCost {
			if chosen[i] {
				continue
			}
			l, r := 0, 0
			if i > g.segStart[i] && chosen[i-1] {
				l = size[i-1]
			}
			if i+1 < g.segEnd[i] && chosen[i+1] {
				r = size[i+1]
			}
			if l == 0 && r == 0 {
				continue
			}
			gr := growth{joins: l > 0 && r > 0, companion: wheel > 0 && g.seats[i].Kind == Companion, beside: max(l, r)}
			if l > 0 && r > 0 {
				gr.beside = min(l, r)
			}
			if pick < 0 || better(gr, best) {
				pick, best = i, gr
			}
		}
		if pick < 0 {
			for _, i := range byCost {
				if !chosen[i] {
					pick = i
					break
				}
			}
		}
		choose(pick)
	}
	var out []seatSpan
	for i := 0; i < len(g.seats); {
		if !chosen[i] {
			i++
			continue
		}
		j := i + size[i]
		out = append(out, seatSpan{i, j})
		i = j
	}
	return out
}

func seatAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
