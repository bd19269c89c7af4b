package db

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"boxoffice/booking"
)

// A history generator for tests and benchmarks: days of box-office
// business played through the store's own write paths (Hold, Release,
// Checkout, Cancel, AddWaitlist, NotifyWaitlist, MarkCalled, ExpireHolds)
// on a store whose clock is the simulated time, so what it leaves is
// exactly what real sales leave: claims sold, released and expired,
// tickets, payments and refunds, sold counts, waiting lists told and
// called. Many counters sell at once, so group commit batches the writes
// as on a busy night; each picks seats with booking.BestAvailable, as
// HoldBest does, but outside the writer.

// HistoryOptions say what history to make.
type HistoryOptions struct {
	// Days of business before Today to play, each at most a week ahead.
	Days  int
	Today time.Time
	// Actor sells, cancels and calls: a member of staff of the cinema.
	Actor booking.Actor
	// Seed makes the run repeatable (the same sales, seat for seat, up to
	// the order concurrent counters commit in).
	Seed uint64
	// Counters is how many sell at once; 128 when zero.
	Counters int
	// TicketKey signs the tickets; Logger gets warnings.
	TicketKey booking.TicketKey
	Logger    *slog.Logger
	// Progress, when set, is called after each day with the day's index.
	Progress func(day int)
}

// HistoryStats count what a generation made.
type HistoryStats struct {
	Bookings, Cancelled, Abandoned, Waiting, Told, Called int
	Elapsed                                               time.Duration
}

// plannedSale is one customer at a counter.
type plannedSale struct {
	show          booking.Show
	party         int
	name, phone   string
	card          bool
	abandon, stay bool // release the seats again, or let the hold lapse
	children      int
	// soldOut: the show sells out, wheelchair and companion places too.
	soldOut bool
}

// GenerateHistory plays opts.Days days of business on the database at
// path, which must hold shows for those days (and the week after) and no
// sales yet: EConflict when it already holds a booking.
func GenerateHistory(ctx context.Context, path string, opts HistoryOptions) (HistoryStats, error) {
	start := time.Now()
	if opts.Counters <= 0 {
		opts.Counters = 128
	}
	// The run allocates much and keeps little: collect less often (the
	// command that runs it does nothing else).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	first := booking.DayStart(opts.Today).AddDate(0, 0, -opts.Days)
	var now atomic.Int64
	now.Store(first.UnixMilli())
	s, err := Open(path, Options{
		Sync: "normal", Clock: func() time.Time { return time.UnixMilli(now.Load()) },
		TicketKey: opts.TicketKey, Logger: opts.Logger, PollInterval: -1, SweepInterval: -1,
	})
	if err != nil {
		return HistoryStats{}, err
	}
	defer s.Close()
	if sold, err := s.HasSales(ctx); err != nil || sold {
		return HistoryStats{}, errors.Join(err, errHasSales(sold))
	}
	g := &historyGen{s: s, opts: opts, now: &now, rng: rand.New(rand.NewPCG(opts.Seed, 7)),
		film: map[int64]float64{}, occ: map[int64]float64{}, prices: map[string]booking.Money{}, models: map[int64]*showModel{}}
	types, err := s.TicketTypes(ctx)
	if err != nil || len(types) == 0 {
		return HistoryStats{}, booking.Errorf(booking.EInvalid, "History needs ticket types to sell.")
	}
	for _, t := range types {
		g.prices[t.Code] = t.Price
	}
	if _, ok := g.prices["adult"]; !ok {
		return HistoryStats{}, booking.Errorf(booking.EInvalid, "History needs an adult ticket type.")
	}
	if g.table, err = s.priceTable(ctx); err != nil {
		return HistoryStats{}, err
	}
	for i := 0; i < opts.Days; i++ {
		if err := g.playDay(ctx, first.AddDate(0, 0, i)); err != nil {
			return g.stats, err
		}
		if opts.Progress != nil {
			opts.Progress(i)
		}
	}
	if _, err := s.TrimChanges(ctx); err != nil {
		return g.stats, err
	}
	// A show's life: see markHistorySettled.
	if err := s.markHistorySettled(ctx, first.AddDate(0, 0, opts.Days)); err != nil {
		return g.stats, err
	}
	g.stats.Elapsed = time.Since(start)
	return g.stats, nil
}

func errHasSales(sold bool) error {
	if !sold {
		return nil
	}
	return booking.Errorf(booking.EConflict, "This data directory already holds sales: history goes into a new one.")
}

type historyGen struct {
	s      *Store
	opts   HistoryOptions
	now    *atomic.Int64
	rng    *rand.Rand
	film   map[int64]float64        // how well each film sells
	occ    map[int64]float64        // how full each show ends up
	prices map[string]booking.Money // by ticket type code
	// table prices a sale's cash: a fresh cinema's shows are all on the
	// standing list, and a premium seat costs more than its type's price.
	table *booking.PriceTable
	stats HistoryStats
	// mu guards stats, soldOn, models and lapsing while counters sell.
	mu sync.Mutex
	// soldOn is the bookings the day's counters made, by show; models
	// what the counters know of each show's seats, kept from day to day
	// (cancellations and lapsed holds give seats back to them).
	soldOn  map[int64][]*booking.Booking
	models  map[int64]*showModel
	lapsing []lapsingHold
}

// lapsingHold is a hold a customer walked away from: its seats come back
// when the sweep expires it.
type lapsingHold struct {
	model *showModel
	seats []int64
}

// at sets the simulated clock to the given time of day.
func (g *historyGen) at(day time.Time, hour, minute int) {
	g.now.Store(time.Date(day.Year(), day.Month(), day.Day(), hour, minute, 0, 0, day.Location()).UnixMilli())
}

// playDay is one business day: the morning's sales for the shows of the
// day and the week ahead, then sold-out shows' waiting lists, the day's
// cancellations, the waiting customers told, called and selling.
func (g *historyGen) playDay(ctx context.Context, day time.Time) error {
	sales, err := g.planDay(ctx, day)
	if err != nil {
		return err
	}
	g.at(day, 9, 0)
	g.soldOn = map[int64][]*booking.Booking{}
	if err := g.openShift(ctx); err != nil {
		return err
	}
	if err := g.sell(ctx, sales); err != nil {
		return err
	}
	g.at(day, 9, 30)
	full, err := g.waitForSoldOut(ctx, day)
	if err != nil {
		return err
	}
	g.at(day, 10, 0)
	if err := g.cancelSome(ctx, full); err != nil {
		return err
	}
	g.at(day, 10, 5)
	if err := g.tellAndCall(ctx, day); err != nil {
		return err
	}
	g.at(day, 10, 30)
	if _, err := g.s.ExpireHolds(ctx); err != nil {
		return err
	}
	for _, l := range g.lapsing {
		l.model.unpick(l.seats)
	}
	g.lapsing = nil
	g.at(day, 23, 30)
	return g.closeShift(ctx)
}

// historyFloat is the float each simulated day's drawer starts with.
const historyFloat booking.Money = 100_00

// openShift opens the clerk's drawer for the day: the cash sales and
// refunds of the day belong to it.
func (g *historyGen) openShift(ctx context.Context) error {
	if _, err := g.s.CurrentShift(ctx, g.opts.Actor); err == nil {
		return nil // opened before the history was asked for: today's drawer
	}
	_, err := g.s.OpenShift(ctx, g.opts.Actor, booking.OpenShiftRequest{Float: historyFloat})
	return err
}

// closeShift cashes the day up. The simulated clerk counts right, but for
// about one day in ten, when the drawer is a little over or short.
func (g *historyGen) closeShift(ctx context.Context) error {
	sh, err := g.s.CurrentShift(ctx, g.opts.Actor)
	if err != nil {
		return err
	}
	x, err := g.s.ShiftReport(ctx, g.opts.Actor, sh.ID)
	if err != nil {
		return err
	}
	counted := x.Expected
	if g.rng.IntN(10) == 0 {
		counted = max(0, counted+booking.Money(g.rng.IntN(1001)-500))
	}
	_, err = g.s.CloseShift(ctx, g.opts.Actor, booking.CloseShiftRequest{Counted: counted})
	return err
}

// sell runs the day's sales on several counters at once.
func (g *historyGen) sell(ctx context.Context, sales []plannedSale) error {
	return g.parallel(len(sales), func(owner string, i int) error {
		return g.sellOne(ctx, owner, sales[i], fmt.Sprintf("history-%d-%d", g.now.Load(), i))
	})
}

// parallel runs do(0..n-1) on opts.Counters goroutines, each with its own
// hold owner, and returns the first error.
func (g *historyGen) parallel(n int, do func(owner string, i int) error) error {
	work := make(chan int)
	errs := make(chan error, g.opts.Counters)
	var wg sync.WaitGroup
	for c := 0; c < g.opts.Counters; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			owner := fmt.Sprintf("history-%d", c)
			for i := range work {
				if err := do(owner, i); err != nil {
					errs <- err
					for range work {
					}
					return
				}
			}
		}(c)
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs
}

// showModel is what the day's counters know of a show's seats: read once
// from the seat map, then kept by the counters themselves, so choosing
// seats (booking.BestAvailable, as HoldBest does) runs at the counters in
// parallel instead of in the writer. Only this generator writes the file
// while it plays, so the model never falls behind it.
type showModel struct {
	mu    sync.Mutex
	hall  *booking.Hall
	taken map[int64]bool
}

func (g *historyGen) model(ctx context.Context, showID int64) (*showModel, error) {
	g.mu.Lock()
	m := g.models[showID]
	if m == nil {
		m = &showModel{}
		g.models[showID] = m
	}
	g.mu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hall != nil {
		return m, nil
	}
	sm, err := g.s.SeatMap(ctx, g.opts.Actor, showID, "")
	if err != nil {
		return nil, err
	}
	m.taken = map[int64]bool{}
	for _, seat := range sm.Hall.Seats {
		if sm.State(seat.ID) != booking.SeatFree {
			m.taken[seat.ID] = true
		}
	}
	m.hall = sm.Hall
	return m, nil
}

// pick chooses the party's seats as best available would and marks them
// taken; for a show that sells out, the last seats go whatever their kind
// (wheelchair and companion places, sold to those who need them). None
// when the party does not fit: the customer goes home.
func (m *showModel) pick(p plannedSale) []int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []int64
	blocks, _, ok := booking.BestAvailable(m.hall, func(id int64) bool { return m.taken[id] }, p.party, booking.BestOptions{})
	for _, b := range blocks {
		for _, seat := range b {
			ids = append(ids, seat.ID)
		}
	}
	if !ok && p.soldOut {
		for _, seat := range m.hall.Seats {
			if !m.taken[seat.ID] && !seat.Blocked && len(ids) < p.party {
				ids = append(ids, seat.ID)
			}
		}
	}
	for _, id := range ids {
		m.taken[id] = true
	}
	return ids
}

func (m *showModel) unpick(ids []int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		delete(m.taken, id)
	}
}

// sellOne is one customer: the best seats for the party held, then
// checkout, unless they change their mind and the seats are released or
// left to lapse.
func (g *historyGen) sellOne(ctx context.Context, owner string, p plannedSale, key string) error {
	g.now.Add(700) // the counters take their time
	m, err := g.model(ctx, p.show.ID)
	if err != nil {
		return err
	}
	ids := m.pick(p)
	if len(ids) == 0 {
		return nil
	}
	h, err := g.s.Hold(ctx, g.opts.Actor, booking.HoldRequest{ShowID: p.show.ID, SeatIDs: ids, Owner: owner})
	if err != nil {
		return err
	}
	if p.abandon || p.stay {
		g.mu.Lock()
		g.stats.Abandoned++
		g.mu.Unlock()
		if p.stay {
			g.mu.Lock()
			g.lapsing = append(g.lapsing, lapsingHold{m, ids}) // the sweep expires it
			g.mu.Unlock()
			return nil
		}
		if err := g.s.Release(ctx, g.opts.Actor, h.ID, owner); err != nil {
			return err
		}
		m.unpick(ids) // only once released: another counter may take them now
		return nil
	}
	return g.checkout(ctx, owner, h, p, key)
}

func (g *historyGen) checkout(ctx context.Context, owner string, h *booking.Hold, p plannedSale, key string) error {
	req := booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: key, Customer: p.name, Phone: p.phone, Method: booking.Card}
	for i, seat := range h.Seats {
		if i >= len(h.Seats)-p.children {
			if req.Types == nil {
				req.Types = map[string]string{}
			}
			req.Types[seat.Label] = "child"
		}
	}
	if !p.card {
		// Cash: notes, rounded up to the next five; change given.
		q, err := booking.QuoteSeats(g.table, "", h.Seats, req.Types)
		if err != nil {
			return err
		}
		req.Method = booking.Cash
		req.Tendered = (q.Total + 499) / 500 * 500
	}
	b, err := g.s.Checkout(ctx, g.opts.Actor, req)
	if err != nil {
		return err
	}
	g.mu.Lock()
	g.stats.Bookings++
	g.soldOn[p.show.ID] = append(g.soldOn[p.show.ID], b)
	g.mu.Unlock()
	return nil
}

// waitForSoldOut puts one to three customers on the waiting list of each
// of the day's shows that sold out, and returns those shows.
func (g *historyGen) waitForSoldOut(ctx context.Context, day time.Time) ([]int64, error) {
	shows, err := g.s.Shows(ctx, g.opts.Actor, day)
	if err != nil {
		return nil, err
	}
	var full []int64
	for _, sh := range shows {
		if sh.Free() > 0 {
			continue
		}
		full = append(full, sh.ID)
		for n := 1 + g.rng.IntN(3); n > 0; n-- {
			p := g.planSale(sh)
			if p.name == "" {
				p.name = historyFirst[g.rng.IntN(len(historyFirst))] + " " + historyLast[g.rng.IntN(len(historyLast))]
				p.phone = fmt.Sprintf("07%03d %06d", g.rng.IntN(1000), g.rng.IntN(1000000))
			}
			if _, err := g.s.AddWaitlist(ctx, g.opts.Actor, sh.ID, p.name, p.phone, p.party); err != nil {
				return nil, err
			}
			g.stats.Waiting++
		}
	}
	return full, nil
}

var historyReasons = []string{"customer ill", "wrong day", "bought twice", "plans changed"}

// cancelSome cancels and refunds about one in twenty-five of the day's
// bookings, and one booking of most sold-out shows, so their waiting
// lists have seats to be told of.
func (g *historyGen) cancelSome(ctx context.Context, full []int64) error {
	var cancel []*booking.Booking
	for _, id := range full {
		if list := g.soldOn[id]; len(list) > 0 && g.rng.IntN(100) < 60 {
			cancel = append(cancel, list[g.rng.IntN(len(list))])
		}
	}
	for _, list := range g.soldOn {
		for _, b := range list {
			if g.rng.IntN(100) < 4 {
				cancel = append(cancel, b)
			}
		}
	}
	return g.parallel(len(cancel), func(_ string, i int) error {
		g.now.Add(5_000)
		reason := historyReasons[i%len(historyReasons)]
		b, err := g.s.Cancel(ctx, g.opts.Actor, booking.CancelRequest{Number: cancel[i].Number, Reason: reason})
		if errors.Is(err, booking.ErrStaleStatus) {
			return nil // picked twice
		}
		if err != nil {
			return err
		}
		m, err := g.model(ctx, b.Show.ID)
		if err != nil {
			return err
		}
		var seats []int64
		for _, t := range b.Tickets {
			seats = append(seats, t.Seat.ID)
		}
		m.unpick(seats)
		g.mu.Lock()
		g.stats.Cancelled++
		g.mu.Unlock()
		return nil
	})
}

// tellAndCall runs the waiting list: the customers whose seats came free
// are told; most are called, and half of those come and buy.
func (g *historyGen) tellAndCall(ctx context.Context, day time.Time) error {
	told, err := g.s.NotifyWaitlist(ctx)
	if err != nil {
		return err
	}
	g.stats.Told += len(told)
	g.at(day, 10, 10)
	for _, e := range told {
		if g.rng.IntN(100) >= 70 {
			continue
		}
		if err := g.s.MarkCalled(ctx, g.opts.Actor, e.ID); err != nil {
			return err
		}
		g.stats.Called++
		if g.rng.IntN(2) == 0 {
			continue
		}
		sh, err := g.s.showInfo(ctx, e.ShowID)
		if err != nil {
			return err
		}
		p := plannedSale{show: sh, party: e.Seats, name: e.Name, phone: e.Phone, card: true, soldOut: true}
		if err := g.sellOne(ctx, fmt.Sprintf("history-wait-%d", e.ID), p, fmt.Sprintf("history-wait-%d", e.ID)); err != nil {
			return err
		}
	}
	return nil
}
