package booking

import (
	"cmp"
	"slices"
)

// Splitting a party when no block of n seats is free: the split search,
// and the greedy choice it falls back on.

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
	gr := newGreedy(g)
	for _, i := range gr.byCost {
		if gr.count == wheel {
			break
		}
		if g.seats[i].Kind == Wheelchair {
			gr.choose(i)
		}
	}
	for gr.count < n {
		gr.choose(gr.next(wheel))
	}
	return gr.spans()
}

// greedy is greedySplit's state: the offerable seats nearest the sweet
// spot first, and the blocks chosen so far.
type greedy struct {
	g      *seatGrid
	byCost []int
	chosen []bool
	// size holds a chosen block's length at both its ends, so the block
	// beside a free seat is known without walking it.
	size  []int
	count int
}

func newGreedy(g *seatGrid) *greedy {
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
	return &greedy{g: g, byCost: byCost, chosen: make([]bool, len(g.seats)), size: make([]int, len(g.seats))}
}

// beside returns the lengths of the chosen blocks left and right of seat
// i, 0 for none.
func (gr *greedy) beside(i int) (l, r int) {
	g := gr.g
	if i > g.segStart[i] && gr.chosen[i-1] {
		l = gr.size[i-1]
	}
	if i+1 < g.segEnd[i] && gr.chosen[i+1] {
		r = gr.size[i+1]
	}
	return l, r
}

func (gr *greedy) choose(i int) {
	l, r := gr.beside(i)
	gr.chosen[i] = true
	gr.size[i-l], gr.size[i+r] = l+r+1, l+r+1
	gr.count++
}

// growth is what choosing a free seat beside the blocks would do.
type growth struct {
	joins, companion bool
	beside           int // the smaller block beside the seat
}

func (a growth) better(b growth) bool {
	if a.joins != b.joins {
		return a.joins
	}
	if a.companion != b.companion {
		return a.companion
	}
	return a.beside < b.beside
}

// next is the seat to choose next: the best growth of a block, or the
// free seat nearest the sweet spot when no free seat is beside one.
func (gr *greedy) next(wheel int) int {
	pick, best := -1, growth{}
	for _, i := range gr.byCost {
		if gr.chosen[i] {
			continue
		}
		l, r := gr.beside(i)
		if l == 0 && r == 0 {
			continue
		}
		g := growth{joins: l > 0 && r > 0, companion: wheel > 0 && gr.g.seats[i].Kind == Companion, beside: max(l, r)}
		if l > 0 && r > 0 {
			g.beside = min(l, r)
		}
		if pick < 0 || g.better(best) {
			pick, best = i, g
		}
	}
	if pick >= 0 {
		return pick
	}
	for _, i := range gr.byCost {
		if !gr.chosen[i] {
			return i
		}
	}
	return -1
}

// spans lists the chosen blocks in hall order.
func (gr *greedy) spans() []seatSpan {
	var out []seatSpan
	for i := 0; i < len(gr.chosen); {
		if !gr.chosen[i] {
			i++
			continue
		}
		j := i + gr.size[i]
		out = append(out, seatSpan{i, j})
		i = j
	}
	return out
}
