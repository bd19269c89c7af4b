package cli

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"boxoffice/booking"
	"boxoffice/tui/server"
)

// What serve runs beside the counter to look after the house: rotating
// backups and the metrics listener.

// houseConfig is serve's command line for them.
type houseConfig struct {
	backupDir     string
	every         time.Duration
	keep          int
	metrics       string
	metricsPublic bool
}

func (h *houseConfig) bind(fs *flag.FlagSet) {
	fs.StringVar(&h.backupDir, "backup-dir", "", "keep rotating backups in `DIR` (none when empty)")
	fs.DurationVar(&h.every, "backup-every", 24*time.Hour, "take a backup this often")
	fs.IntVar(&h.keep, "keep", 14, "keep this many backups, removing the oldest")
	fs.StringVar(&h.metrics, "metrics", "", "serve Prometheus metrics on `ADDR` (a loopback address, like 127.0.0.1:9222)")
	fs.BoolVar(&h.metricsPublic, "metrics-public", false, "allow --metrics on an address other machines can reach")
}

// house is the house's parts, checked and listening, not yet running.
type house struct {
	cfg       houseConfig
	metricsLn net.Listener
}

// open checks the flags and listens for metrics, before the data dir is
// touched, so a mistake fails at once: exit 2.
func (h houseConfig) open() (*house, error) {
	if h.backupDir != "" {
		if h.every <= 0 || h.keep < 1 {
			return nil, usagef("--backup-every must be positive and --keep at least 1")
		}
		if err := os.MkdirAll(h.backupDir, 0o700); err != nil {
			return nil, booking.Errorf(booking.EInvalid, "Cannot use --backup-dir %s: %v", booking.CleanLine(h.backupDir, 200), err)
		}
	}
	hs := &house{cfg: h}
	if h.metrics == "" {
		return hs, nil
	}
	if err := metricsAddrAllowed(h.metrics, h.metricsPublic); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", h.metrics)
	if err != nil {
		return nil, booking.Errorf(booking.EInvalid, "Cannot listen for metrics on %s: %v", booking.CleanLine(h.metrics, 100), err)
	}
	hs.metricsLn = ln
	return hs, nil
}

// metricsAddrAllowed refuses an address other machines could reach
// (a host that is not loopback, or none, which is every interface)
// unless public: the metrics name staff roles and the business's pace.
func metricsAddrAllowed(addr string, public bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--metrics %q is not HOST:PORT", booking.CleanLine(addr, 100))
	}
	if public {
		return nil
	}
	ips, err := net.LookupIP(host)
	if host == "" || err != nil || len(ips) == 0 {
		return usagef("--metrics %s is not a loopback address: use 127.0.0.1:PORT, or add --metrics-public to serve metrics to other machines", booking.CleanLine(addr, 100))
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return usagef("--metrics %s is not a loopback address: use 127.0.0.1:PORT, or add --metrics-public to serve metrics to other machines", booking.CleanLine(addr, 100))
		}
	}
	return nil
}

// close releases what open took, for a serve that fails before start.
func (hs *house) close() {
	if hs.metricsLn != nil {
		hs.metricsLn.Close()
	}
}

// fits refuses, before anything starts, the parts that work on the
// SQLite file only when the store is on PostgreSQL: its backups are the
// server's (pg_dump, replicas).
func (hs *house) fits(o *opened) error {
	if hs.cfg.backupDir != "" {
		if _, err := o.sqlite("serve --backup-dir", "back PostgreSQL up with its own tools (pg_dump, a replica)"); err != nil {
			return err
		}
	}
	return nil
}

// start runs the house's parts until the returned stop is called; stop
// waits for them, so the store is not closed under a backup.
func (hs *house) start(store backend, srv *server.Server, log *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	if hs.cfg.backupDir != "" {
		r := rotation{dir: hs.cfg.backupDir, every: hs.cfg.every, keep: hs.cfg.keep, store: store, log: log}
		wg.Go(func() { r.run(ctx) })
		log.Info("rotating backups", "dir", hs.cfg.backupDir, "every", hs.cfg.every, "keep", hs.cfg.keep)
	}
	var stopMetrics func()
	if hs.metricsLn != nil {
		stopMetrics = serveMetrics(hs.metricsLn, store, srv, log)
	}
	return func() {
		cancel()
		wg.Wait()
		if stopMetrics != nil {
			stopMetrics()
		}
	}
}

// banner is serve's lines about the house's parts, each ending in a
// newline; "" for none.
func (hs *house) banner() string {
	var b strings.Builder
	if hs.cfg.backupDir != "" {
		fmt.Fprintf(&b, "Backups in %s every %s, keeping %d\n", hs.cfg.backupDir, hs.cfg.every, hs.cfg.keep)
	}
	if hs.metricsLn != nil {
		fmt.Fprintf(&b, "Metrics on http://%s/metrics\n", hs.metricsLn.Addr())
	}
	return b.String()
}
