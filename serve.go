package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/tui/server"
)

// shutdownDeadline bounds a graceful stop: sessions are told, sales in
// flight finish, holds go back, the database closes.
const shutdownDeadline = 10 * time.Second

// serve runs the counter over SSH until SIGINT or SIGTERM.
func (c *cli) serve(args []string) int {
	fs := c.flags("serve")
	listen := fs.String("listen", ":2222", "address to listen on")
	grace := fs.Duration("hold-grace", 90*time.Second, "how long a dropped session's holds wait for it to reconnect")
	idle := fs.Duration("idle-signout", 10*time.Minute, "sign a clerk out after this long without a key press")
	pos, err := c.parse(fs, args)
	if err != nil {
		return c.usageErr("%v", err)
	}
	if len(pos) > 0 {
		return c.usageErr("serve takes no arguments")
	}
	dir, err := dataDir(c.dataFlag)
	if err != nil {
		return c.fail(err)
	}
	logger := slog.New(slog.NewTextHandler(c.stderr, nil))
	o, err := openData(c.ctx, dir, c.syncFlag, false, c.now, logger)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()

	srv, err := server.New(server.Config{
		Addr:            *listen,
		DataDir:         dir,
		Store:           o.store,
		Demo:            o.demo,
		DemoCredentials: booking.Credentials{Name: assets.DemoUser, PIN: assets.DemoPIN},
		Logger:          logger,
		HoldGrace:       *grace,
		IdleSignOut:     *idle,
	})
	if err != nil {
		return c.fail(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.ListenAndServe() }()
	// Give a bad --listen a moment to fail before claiming to serve.
	select {
	case err := <-served:
		return c.fail(fmt.Errorf("listen on %s: %w", *listen, err))
	case <-time.After(100 * time.Millisecond):
	}
	fmt.Fprintf(c.stdout, "Serving the counter on %s\nHost key %s\n", *listen, srv.Fingerprint())
	if o.demo {
		fmt.Fprintf(c.stdout, "Demo cinema: add a key with `boxoffice staff add NAME --role clerk --key-file KEY.pub` (PIN on stdin)\n")
	}

	select {
	case err := <-served:
		if err != nil {
			return c.fail(err)
		}
		return exitOK
	case <-c.ctx.Done():
	}
	logger.Info("shutting down", "deadline", shutdownDeadline)
	ctx, cancel := context.WithTimeout(context.Background(), shutdownDeadline)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		logger.Error("shutdown", "err", err)
	}
	if err := <-served; err != nil {
		logger.Error("serve", "err", err)
	}
	if err := o.store.Close(); err != nil {
		logger.Error("close database", "err", err)
		return exitInternal
	}
	logger.Info("stopped")
	return exitOK
}
