package db

import (
	"errors"
	"sync/atomic"
	"time"

	"boxoffice/booking"
)

// The house's figures: what this store committed since Open, counted
// after the commit from each write's own answer (so a batch retried after
// SQLITE_BUSY, a savepoint rolled back or a checkout replayed by its
// idempotency key counts once or not at all), the latency of writes and
// of group commits, and when the sweeper last finished. Atomic counters
// the writer bumps at a few places; a metrics collector reads them with
// Stats. Sales made by another process on the same file count there.

// houseStats is the store's side of HouseStats.
type houseStats struct {
	sales, seats, clashes, holds, refunds, admissions atomic.Int64
	writes, batches                                   histogram
	lastSweep                                         atomic.Int64 // unix nanoseconds; 0 before the first
}

// HouseStats is a snapshot of the house's figures (see Stats).
type HouseStats struct {
	Sales      int64 // bookings sold (a replayed checkout is not a sale)
	SeatsSold  int64 // tickets of those bookings
	Clashes    int64 // holds and sales refused because a seat was taken
	Holds      int64 // holds made or added to
	Refunds    int64 // bookings cancelled and refunded
	Admissions int64 // tickets admitted at the door
	// Writes is how long each write took from being asked for to its
	// answer (queueing for the writer included): what a clerk waits.
	Writes Histogram
	// Batches is how long each group commit took, BEGIN to COMMIT.
	Batches Histogram
	// LastSweep is when the sweeper last finished a pass; zero before the
	// first or without a sweeper.
	LastSweep time.Time
}

// note counts one write's answer, after its commit.
func (h *houseStats) note(op string, a answer) {
	var taken *booking.SeatsTakenError
	if a.err != nil {
		if errors.As(a.err, &taken) {
			h.clashes.Add(1)
		}
		return
	}
	switch op {
	case "checkout":
		if b, ok := a.val.(*booking.Booking); ok && b != nil {
			h.sales.Add(1)
			h.seats.Add(int64(len(b.Tickets)))
		}
	case "hold", "hold best":
		h.holds.Add(1)
	case "cancel":
		h.refunds.Add(1)
	case "admit":
		h.admissions.Add(1)
	}
}

func (h *houseStats) swept() { h.lastSweep.Store(time.Now().UnixNano()) }

func (h *houseStats) snapshot() HouseStats {
	out := HouseStats{
		Sales: h.sales.Load(), SeatsSold: h.seats.Load(), Clashes: h.clashes.Load(), Holds: h.holds.Load(),
		Refunds: h.refunds.Load(), Admissions: h.admissions.Load(),
		Writes: h.writes.snapshot(), Batches: h.batches.snapshot(),
	}
	if ns := h.lastSweep.Load(); ns != 0 {
		out.LastSweep = time.Unix(0, ns)
	}
	return out
}

// LatencyBounds are the upper bounds, in seconds, of the latency
// histograms' buckets: a durable commit takes about a millisecond, a
// sale's target p99 is 15 ms and its ceiling 100 ms.
var LatencyBounds = [...]float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5}

// histogram counts durations into LatencyBounds' buckets, lock-free.
type histogram struct {
	counts [len(LatencyBounds) + 1]atomic.Uint64 // one per bound, and the last for above them all
	sumNS  atomic.Int64
}

func (h *histogram) since(start time.Time) { h.observe(time.Since(start)) }

func (h *histogram) observe(d time.Duration) {
	i := 0
	for i < len(LatencyBounds) && d.Seconds() > LatencyBounds[i] {
		i++
	}
	h.counts[i].Add(1)
	h.sumNS.Add(int64(d))
}

// Histogram is a snapshot of a latency histogram in Prometheus's form.
type Histogram struct {
	Count uint64
	Sum   float64 // seconds
	// Cumulative maps each of LatencyBounds to how many took at most that.
	Cumulative map[float64]uint64
}

func (h *histogram) snapshot() Histogram {
	out := Histogram{Sum: time.Duration(h.sumNS.Load()).Seconds(), Cumulative: make(map[float64]uint64, len(LatencyBounds))}
	for i, bound := range LatencyBounds {
		out.Count += h.counts[i].Load()
		out.Cumulative[bound] = out.Count
	}
	out.Count += h.counts[len(LatencyBounds)].Load()
	return out
}
