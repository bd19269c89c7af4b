package cli

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/internal/sdnotify"
	"boxoffice/paper"
	"boxoffice/tui"
	"boxoffice/tui/server"
)

// The counter, in this terminal or served over SSH.

func counterFlags(fs *flag.FlagSet) runFunc {
	idle := fs.Duration("idle-signout", 10*time.Minute, "sign a clerk out after this long without a key press (0 never)")
	var pr target
	fs.StringVar(&pr.url, "printer", "", "print tickets and receipts on the printer `URL` (tcp://HOST[:PORT] or /dev/usb/lp0)")
	cinemaFlag(fs, &pr.cinema)
	var layouts string
	layoutsFlag(fs, &layouts)
	return func(c *env, pos []string) error { return c.counter(*idle, pr, layouts) }
}

// layoutsFlag is --layouts, the folder the manager screens add halls
// from.
func layoutsFlag(fs *flag.FlagSet, dir *string) {
	fs.StringVar(dir, "layouts", "", "the folder (`DIR`) the manager screens add halls from, and nowhere else (layouts/ in the data dir by default)")
}

// layoutsDirIn is --layouts, or layouts/ in the data dir, made absolute
// so the form names the folder whatever directory the server was started
// in.
func layoutsDirIn(flagValue string, dir dataDir) string {
	if flagValue == "" {
		return dir.file("layouts")
	}
	if abs, err := filepath.Abs(flagValue); err == nil {
		return abs
	}
	return flagValue
}

// openTerminal prepares a screen run in this terminal (the counter, the
// kiosk): the data dir's log, so nothing is written over the screen, and
// its shared lock, so restore refuses while the screen is open. ring
// keeps the lines the log file could not take (the counter shows them on
// ctrl+l); when stderr is the screen, they go there only once the screen
// has closed. done lets the log and the lock go.
func (c *env) openTerminal() (logger *slog.Logger, ring *tui.LogRing, done func(), err error) {
	dir, err := resolveDataDir(c.dataFlag)
	if err != nil {
		return nil, nil, nil, err
	}
	ring = tui.NewLogRing()
	stderr := c.stderr
	if screenIsStderr(c.term, c.stderr) {
		stderr = nil
	}
	logger, fl, closer, err := dir.openLog(stderr, ring)
	if err != nil {
		return nil, nil, nil, err
	}
	release, err := c.holdShared()
	if err != nil {
		closer.Close()
		return nil, nil, nil, err
	}
	return logger, ring, func() { release(); closer.Close(); fl.flush(c.stderr) }, nil
}

// counter opens the counter in this terminal, logging to the data dir's
// log file so nothing is written over its screen.
func (c *env) counter(idle time.Duration, pr target, layouts string) error {
	if idle < 0 {
		return usagef("--idle-signout must not be negative")
	}
	printer, err := booking.ParsePrinter(pr.url)
	if err != nil {
		return err
	}
	logger, ring, done, err := c.openTerminal()
	if err != nil {
		return err
	}
	defer done()
	return c.withData(openOptions{logger: logger, live: true}, func(o *opened) error {
		site, _, serr := c.site(o.store) // --site: where this counter sells
		if serr != nil {
			return serr
		}
		owner := "local-" + randomID()
		stopWatch := quiesceOnSignal(c.ctx, o.store)
		defer nameHoldsLeft(o.store, owner, logger) // after the watch: the release has been tried
		defer stopWatch()
		err := tui.Run(c.ctx, tui.Options{
			Store:           o.store,
			Demo:            o.demo,
			DemoCredentials: o.demoHint(c.ctx),
			Owner:           owner,
			Terminal:        hostTerminal(),
			Site:            site.ID,
			Logger:          logger,
			IdleSignOut:     idle,
			Now:             c.now,
			Printer:         printer,
			Layout:          counterLayout(pr.layout()),
			LayoutsDir:      layoutsDirIn(layouts, o.dir),
			LogRing:         ring,
			ExportDir:       o.dir.file(exportsDir),
		}, c.stdin, c.term)
		if err != nil {
			logger.Error("counter", "err", err)
		}
		return err
	})
}

// counterQuiesce is how long a counter stopped by a signal lets a sale
// under way commit; tui.Run then releases the counter's holds (for up to
// 5 s), and the whole stays inside shutdownDeadline.
const counterQuiesce = 2500 * time.Millisecond

// quiesceOnSignal bounds a counter's stop by a signal (ctx ending): writes
// under way get counterQuiesce to commit, then any still stuck on another
// process's write lock give up, so the release of the counter's holds
// gets the writer. stop ends the watch once the counter has returned.
func quiesceOnSignal(ctx context.Context, store backend) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		qctx, cancel := context.WithTimeout(context.Background(), counterQuiesce)
		defer cancel()
		if store.Quiesce(qctx) != nil {
			store.GiveUpWaiting()
		}
	})
	return func() { close(done); wg.Wait() }
}

// nameHoldsLeft logs each hold of owner still held once the counter has
// stopped: its release could not get the write lock in time (another
// process held it). Each lapses by itself at its expiry.
func nameHoldsLeft(store backend, owner string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	left, err := store.LiveHolds(ctx, owner)
	if err != nil {
		log.Error("holds not listed at exit", "owner", owner, "err", err)
		return
	}
	for _, h := range left {
		labels := make([]string, len(h.Seats))
		for i, seat := range h.Seats {
			labels[i] = booking.CleanLine(seat.Label, 16)
		}
		log.Warn("hold not released: it lapses by itself at its expiry", "hold", h.ID, "show", h.ShowID,
			"seats", strings.Join(labels, " "), "owner", owner, "expires", h.ExpiresAt.Format(time.RFC3339))
	}
}

func hostTerminal() string {
	if h, err := os.Hostname(); err == nil {
		return "local:" + h
	}
	return "local"
}

const serveLong = `Serves the counter over SSH until SIGINT or SIGTERM. Staff sign in with
the SSH key added by staff add --key-file, or on a counter device added by
terminal add. The host key is made in the data dir on first start; its
fingerprint is printed to compare when a counter first connects.

--backup-dir takes a checked backup (as the backup command does) when the
newest copy there is a period old, then every --backup-every, named by the
time, keeping the newest --keep and removing older ones it made; a failed
one is logged and tried again a period later. --metrics serves Prometheus
metrics (sales, clashes, holds, refunds, admissions, sessions by role,
write and group-commit latency, sweeper lag) at /metrics, on a loopback
address unless --metrics-public.`

// shutdownDeadline bounds a graceful stop whatever another process does
// with the database's write lock: sessions are told, sales in flight
// finish (or, stuck on the lock, give up), holds go back or are named in
// the log to lapse by themselves, the database closes. The README
// promises 10 s; closeReserve of it is kept for closing the database.
const (
	shutdownDeadline = 8 * time.Second
	closeReserve     = 1500 * time.Millisecond
)

// stopContext is the context a stop that begins now must finish by,
// closing the database aside.
func stopContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), shutdownDeadline-closeReserve)
}

// serveConfig is the serve command line.
type serveConfig struct {
	listen      string
	grace, idle time.Duration
	house       houseConfig // backups and metrics (house.go)
	pdfDir      string      // where sessions without a printer get PDF tickets (issue 12)
	layouts     string      // the folder the manager screens add halls from
	cinema      string      // the name heading printouts (issue 12)

	// The kiosk over SSH (issue 13): its own address, user kiosk.
	kiosk       bool
	kioskListen string
	cutoff      time.Duration
}

func serveFlags(fs *flag.FlagSet) runFunc {
	var sc serveConfig
	fs.StringVar(&sc.listen, "listen", ":2222", "the address (`ADDR`) to listen on")
	fs.DurationVar(&sc.grace, "hold-grace", 90*time.Second, "how long a dropped session's holds wait for it to reconnect")
	fs.DurationVar(&sc.idle, "idle-signout", 10*time.Minute, "sign a clerk out after this long without a key press")
	sc.house.bind(fs)
	fs.StringVar(&sc.pdfDir, "pdf-dir", "", "where SSH sessions without a printer get PDF tickets (`DIR`; tickets/ in the data dir by default)")
	cinemaFlag(fs, &sc.cinema)
	layoutsFlag(fs, &sc.layouts)
	fs.BoolVar(&sc.kiosk, "kiosk", false, "also serve the self-service kiosk to SSH user kiosk (any key or none) on --kiosk-listen")
	fs.StringVar(&sc.kioskListen, "kiosk-listen", ":2223", "the kiosk's address (`ADDR`), apart from the staff one")
	fs.DurationVar(&sc.cutoff, "reserve-cutoff", booking.DefaultReserveCutoff, "a reservation lapses unpaid this long before its show")
	return func(c *env, pos []string) error {
		if len(pos) > 0 {
			return usagef("serve takes no arguments")
		}
		if sc.cutoff <= 0 {
			return usagef("--reserve-cutoff must be positive")
		}
		return c.serve(sc)
	}
}

// serve listens first, so a bad --listen fails at once and before the
// data dir is touched, then serves the counter until the context ends.
func (c *env) serve(sc serveConfig) error {
	ln, err := net.Listen("tcp", sc.listen)
	if err != nil {
		return booking.Errorf(booking.EInvalid, "Cannot listen on %s: %v", booking.CleanLine(sc.listen, 100), err)
	}
	defer ln.Close() // Serve closes it too; this is for a failure before
	hs, err := sc.house.open()
	if err != nil {
		return err
	}
	defer hs.close()
	// Restore refuses while this lock is held.
	release, err := c.holdShared()
	if err != nil {
		return err
	}
	defer release()
	kln, err := kioskListener(sc)
	if err != nil {
		return err
	}
	logger := serveLogger(c.stderr)
	err = c.withData(openOptions{logger: logger, cutoff: sc.cutoff, live: true}, func(o *opened) error {
		if err := hs.fits(o); err != nil {
			return err
		}
		srv, err := server.New(server.Config{
			Addr:            sc.listen,
			DataDir:         string(o.dir),
			Store:           o.store,
			Demo:            o.demo,
			DemoCredentials: booking.Credentials{Name: assets.DemoUser, PIN: assets.DemoPIN},
			Logger:          logger,
			Now:             c.now,
			HoldGrace:       sc.grace,
			IdleSignOut:     sc.idle,
			PDFDir:          sc.pdfDirIn(o.dir),
			Layout:          paper.Layout{Cinema: sc.cinema},
			LayoutsDir:      layoutsDirIn(sc.layouts, o.dir),
			ExportDir:       o.dir.file(exportsDir),
		})
		if err != nil {
			return err
		}
		defer hs.start(o.store, srv, logger)() // stopped before the store closes
		stopKiosk, err := c.serveKiosk(kln, o, logger)
		if err != nil {
			return err
		}
		served := make(chan error, 1)
		go func() { served <- srv.Serve(ln) }()
		fmt.Fprintf(c.stdout, "Serving the counter on %s\nHost key %s\n%s", sc.listen, srv.Fingerprint(), hs.banner())
		if o.demo {
			fmt.Fprintf(c.stdout, "Demo cinema: add a key with `boxoffice staff add NAME --role clerk --key-file KEY.pub` (PIN on stdin)\n")
		}
		// Under systemd (Type=notify): ready once both servers accept
		// connections, then alive while the store answers.
		notifyService(sdnotify.Ready+"\nSTATUS=Serving the counter on "+booking.CleanLine(sc.listen, 100), logger)
		defer startWatchdog(o.store, logger)() // stopped before the store closes
		select {
		case err := <-served:
			notifyService(sdnotify.Stopping, logger)
			ctx, cancel := stopContext()
			defer cancel()
			stopKiosk(ctx)
			return err
		case <-c.ctx.Done():
		}
		notifyService(sdnotify.Stopping, logger)
		stopServers(srv, stopKiosk, served, logger)
		return nil
	})
	if err == nil {
		logger.Info("stopped")
	}
	return err
}

// stopServers stops the staff server and the kiosk side by side on one
// deadline (stopContext): each releases its own sessions' holds; the
// house and the store stop after.
func stopServers(srv *server.Server, stopKiosk func(context.Context), served <-chan error, logger *slog.Logger) {
	logger.Info("shutting down", "deadline", shutdownDeadline)
	ctx, cancel := stopContext()
	defer cancel()
	kioskStopped := make(chan struct{})
	go func() { stopKiosk(ctx); close(kioskStopped) }()
	if err := srv.Shutdown(ctx); err != nil {
		logger.Warn("shutdown", "err", err)
	}
	<-kioskStopped
	if err := <-served; err != nil {
		logger.Error("serve", "err", err)
	}
}

// kioskListener listens on --kiosk-listen when --kiosk is set, so a bad
// address fails before the data dir is touched; nil without --kiosk.
func kioskListener(sc serveConfig) (net.Listener, error) {
	if !sc.kiosk {
		return nil, nil
	}
	ln, err := net.Listen("tcp", sc.kioskListen)
	if err != nil {
		return nil, booking.Errorf(booking.EInvalid, "Cannot listen on %s: %v", booking.CleanLine(sc.kioskListen, 100), err)
	}
	return ln, nil
}

// serveKiosk serves the kiosk on ln (nil: none) and returns what stops
// it by ctx's deadline and gives back its sessions' holds.
func (c *env) serveKiosk(ln net.Listener, o *opened, logger *slog.Logger) (func(context.Context), error) {
	if ln == nil {
		return func(context.Context) {}, nil
	}
	ks, err := server.NewKioskServer(server.KioskConfig{DataDir: string(o.dir), Store: o.store, Logger: logger, Now: c.now})
	if err != nil {
		ln.Close()
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- ks.Serve(ln) }()
	fmt.Fprintf(c.stdout, "Serving the kiosk on %s (ssh -p PORT kiosk@HOST)\n", ln.Addr())
	return func(ctx context.Context) {
		if err := ks.Shutdown(ctx); err != nil {
			logger.Error("kiosk shutdown", "err", err)
		}
		if err := <-done; err != nil {
			logger.Error("kiosk serve", "err", err)
		}
	}, nil
}
