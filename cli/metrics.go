package cli

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"boxoffice/booking"
	"boxoffice/db"
)

// Prometheus metrics for serve --metrics: a collector that reads, at each
// scrape, the figures the store and the SSH server already keep (Stats,
// SessionsByRole), so nothing else in the program knows about Prometheus.

// sessionCounter is the SSH server as the metrics see it.
type sessionCounter interface {
	SessionsByRole() map[string]int
}

// statsSource is a store that keeps the figures metrics read: the SQLite
// store (db.Store.Stats).
type statsSource interface{ Stats() db.Stats }

// skewSource is a store whose transactions run on the database server's
// clock (pg.Store.ClockSkew): how far this machine's clock is from it.
type skewSource interface{ ClockSkew() time.Duration }

// collector turns a store's Stats into metrics at each scrape; on
// PostgreSQL, which keeps no Stats, the clock's skew and the sessions.
type collector struct {
	store    statsSource // nil on PostgreSQL
	skew     skewSource  // nil on SQLite
	sessions sessionCounter
	skewDesc *prometheus.Desc

	counters                                                  []counterDesc
	open, commits, jobs, retries, writes, batches, sweeperLag *prometheus.Desc
}

// counterDesc is one counter of db.HouseStats.
type counterDesc struct {
	desc *prometheus.Desc
	read func(db.HouseStats) int64
}

func newCollector(store any, sessions sessionCounter) *collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("boxoffice_"+name, help, labels, nil)
	}
	stats, _ := store.(statsSource)
	skew, _ := store.(skewSource)
	c := &collector{store: stats, skew: skew, sessions: sessions,
		skewDesc:   d("database_clock_skew_seconds", "How far the database server's clock is ahead of this server's (negative: behind); holds and expiries go by the database's. Above 1 in size, the log warns."),
		open:       d("sessions", "Counter sessions open over SSH, by the role of who acts in each.", "role"),
		commits:    d("commits_total", "Write transactions committed (one group commit each)."),
		jobs:       d("commit_writes_total", "Writes answered from those commits; per commit, the mean batch."),
		retries:    d("busy_retries_total", "Batches retried because another process held the write lock."),
		writes:     d("write_seconds", "How long a write took from being asked for to its answer, queueing for the writer included."),
		batches:    d("commit_batch_seconds", "How long one group commit took, BEGIN to COMMIT."),
		sweeperLag: d("sweeper_last_run_age_seconds", "How long ago the sweeper (lapsed holds, waiting list) last finished a pass; about a second when well."),
	}
	for _, m := range []struct {
		name, help string
		read       func(db.HouseStats) int64
	}{
		{"sales_total", "Bookings sold by this server (a replayed checkout is not counted again).", func(h db.HouseStats) int64 { return h.Sales }},
		{"seats_sold_total", "Tickets of those bookings.", func(h db.HouseStats) int64 { return h.SeatsSold }},
		{"clashes_total", "Holds and sales refused because another counter had a seat.", func(h db.HouseStats) int64 { return h.Clashes }},
		{"holds_total", "Holds made or added to.", func(h db.HouseStats) int64 { return h.Holds }},
		{"refunds_total", "Bookings cancelled and refunded.", func(h db.HouseStats) int64 { return h.Refunds }},
		{"admissions_total", "Tickets admitted at the door.", func(h db.HouseStats) int64 { return h.Admissions }},
	} {
		c.counters = append(c.counters, counterDesc{d(m.name, m.help), m.read})
	}
	return c
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range c.counters {
		ch <- m.desc
	}
	for _, d := range []*prometheus.Desc{c.open, c.commits, c.jobs, c.retries, c.writes, c.batches, c.sweeperLag, c.skewDesc} {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	if c.skew != nil {
		ch <- prometheus.MustNewConstMetric(c.skewDesc, prometheus.GaugeValue, c.skew.ClockSkew().Seconds())
	}
	c.collectSessions(ch)
	if c.store == nil {
		return
	}
	st := c.store.Stats()
	for _, m := range c.counters {
		ch <- prometheus.MustNewConstMetric(m.desc, prometheus.CounterValue, float64(m.read(st.House)))
	}
	ch <- prometheus.MustNewConstMetric(c.commits, prometheus.CounterValue, float64(st.Commits))
	ch <- prometheus.MustNewConstMetric(c.jobs, prometheus.CounterValue, float64(st.Jobs))
	ch <- prometheus.MustNewConstMetric(c.retries, prometheus.CounterValue, float64(st.Retries))
	ch <- prometheus.MustNewConstHistogram(c.writes, st.House.Writes.Count, st.House.Writes.Sum, st.House.Writes.Cumulative)
	ch <- prometheus.MustNewConstHistogram(c.batches, st.House.Batches.Count, st.House.Batches.Sum, st.House.Batches.Cumulative)
	if !st.House.LastSweep.IsZero() {
		ch <- prometheus.MustNewConstMetric(c.sweeperLag, prometheus.GaugeValue, time.Since(st.House.LastSweep).Seconds())
	}
}

// collectSessions counts the SSH server's sessions by role.
func (c *collector) collectSessions(ch chan<- prometheus.Metric) {
	if c.sessions != nil {
		for role, n := range c.sessions.SessionsByRole() {
			ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, float64(n), role)
		}
	}
}

// metricsHandler serves the store's and the server's metrics, with the
// Go runtime's and the process's beside them.
func metricsHandler(store any, sessions sessionCounter) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newCollector(store, sessions), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return mux
}

// serveMetrics serves metricsHandler on ln until the returned stop.
func serveMetrics(ln net.Listener, store any, sessions sessionCounter, log *slog.Logger) (stop func()) {
	srv := &http.Server{Handler: metricsHandler(store, sessions), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics", "err", booking.CleanLine(err.Error(), 200))
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		<-done
	}
}
