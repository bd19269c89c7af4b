// Package cli is boxoffice's command line: one table of commands
// (commands.go) that also generates help, one flag parser for global and
// command flags, the data directory's bootstrap, and one printer through
// which every command's output and every error leave the process.
//
// Each command is a function returning error. Run prints the error (as
// text, or as JSON under --json); the caller only maps it to an exit code:
// a *UsageError is a mistake in the command line, anything else carries a
// booking error code (booking.ErrorCode).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"boxoffice/booking"
)

// env is one command line being run: its streams, its clock and the flags
// every command shares.
type env struct {
	ctx   context.Context
	stdin io.Reader
	// stdout and stderr clean everything printed (see cleanWriter); term
	// is the raw terminal the counter draws its screen on.
	stdout, stderr io.Writer
	term           io.Writer
	// now is the clock every command and the store it opens read:
	// time.Now, or the instant in BOXOFFICE_NOW (for tests that need
	// fixed output).
	now func() time.Time
	// dataFlag, syncFlag and dbFlag are the global --data, --sync and --db.
	dataFlag, syncFlag, dbFlag string
	jsonOut                    bool
	// siteFlag is the global --site (sites.go).
	siteFlag string
}

// Run runs one command line with the process's streams (args without the
// program name). It prints the error it returns, if any, so the caller
// has only to map it to an exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	c := &env{ctx: ctx, stdin: stdin, stdout: newCleanWriter(stdout), stderr: newCleanWriter(stderr), term: stdout, now: time.Now}
	err := c.run(args)
	c.report(err)
	return err
}

func (c *env) run(args []string) error {
	if at := os.Getenv("BOXOFFICE_NOW"); at != "" {
		// A hidden test hook: every command, and the store it opens, reads
		// this instant as now, so a test's output does not depend on the day.
		t, err := time.Parse(time.RFC3339, at)
		if err != nil {
			return usagef("BOXOFFICE_NOW %q is not a time like 2026-12-01T18:00:00Z", at)
		}
		c.now = func() time.Time { return t }
	}
	cmd, rest, unknown := route(args)
	if unknown != "" {
		fmt.Fprintf(c.stderr, "boxoffice: unknown command %q\n\n", unknown)
		writeOverview(c.stderr)
		return shown(usagef("unknown command %q", unknown))
	}
	runCmd, pos, err := c.parse(cmd, rest)
	if errors.Is(err, errHelp) {
		writeHelp(c.stdout, cmd)
		return nil
	}
	if err != nil {
		return err
	}
	return runCmd(c, pos)
}

// UsageError is a mistake in the command line itself (exit code 2): a
// missing argument, a flag nobody defined, a value that is not a number.
type UsageError struct{ Message string }

func (e *UsageError) Error() string { return e.Message }

func usagef(format string, args ...any) error {
	return &UsageError{Message: fmt.Sprintf(format, args...)}
}

// shownError is an error whose message a command already printed in its
// own form (every mistake of every layout file, every broken invariant):
// Run prints nothing more, and the exit code is the wrapped error's.
type shownError struct{ err error }

func (e *shownError) Error() string { return e.err.Error() }
func (e *shownError) Unwrap() error { return e.err }

func shown(err error) error { return &shownError{err} }

// report prints err for a person (stderr) or, under --json, for a program
// (stdout): the one place an error leaves the command line.
func (c *env) report(err error) {
	var already *shownError
	var usage *UsageError
	var taken *booking.SeatsTakenError
	switch {
	case err == nil || errors.As(err, &already):
		return
	case errors.As(err, &usage) && c.jsonOut:
		c.printJSON(map[string]string{"error": booking.EInvalid, "message": usage.Message})
		return
	case errors.As(err, &usage):
		fmt.Fprintf(c.stderr, "boxoffice: %s\n(see boxoffice help)\n", usage.Message)
		return
	case c.jsonOut && errors.As(err, &taken):
		sug := taken.SuggestionLabels()
		if sug == nil {
			sug = [][]string{}
		}
		out := map[string]any{"error": "seats_taken", "taken": taken.TakenLabels(), "suggestions": sug, "message": taken.Message()}
		if taken.OutOfSale {
			out["out_of_sale"] = true // blocked or house seats, not sold or held
		}
		c.printJSON(out)
	case c.jsonOut:
		code := booking.ErrorCode(err)
		if errors.Is(err, booking.ErrStaleStatus) {
			code = "stale_status"
		}
		c.printJSON(map[string]string{"error": code, "message": booking.ErrorMessage(err)})
	default:
		fmt.Fprintf(c.stderr, "boxoffice: %s\n", booking.ErrorMessage(err))
		if errors.As(err, &taken) {
			for i, s := range taken.SuggestionLabels() {
				fmt.Fprintf(c.stderr, "  free instead (%d): %s\n", i+1, strings.Join(s, " "))
			}
		}
		if booking.IsNoShift(err) {
			fmt.Fprintln(c.stderr, "  boxoffice shift open --float AMOUNT opens the command line's shift")
		}
	}
	var de *booking.Error
	if booking.ErrorCode(err) == booking.EInternal && !errors.As(err, &de) {
		// Not a domain error: a file or a flag problem the person can act
		// on, so show the text too.
		fmt.Fprintf(c.stderr, "boxoffice: %v\n", err)
	}
}

// openOptions say how a command opens the data dir.
type openOptions struct {
	noDemo bool          // an empty cinema instead of the demo one
	logger *slog.Logger  // the store's logger; warnings to stderr when nil
	cutoff time.Duration // a reservation's cut-off (serve, kiosk); the default when zero
}

// withData opens the data dir for one command (creating it, its keys and
// its database when missing), runs fn on it and closes it: the one place a
// command's store is opened and closed. A failure to close is fn's error
// when fn had none.
func (c *env) withData(opts openOptions, fn func(*opened) error) error {
	dir, err := resolveDataDir(c.dataFlag)
	if err != nil {
		return err
	}
	url, err := resolveDB(c.dbFlag)
	if err != nil {
		return err
	}
	if opts.logger == nil {
		opts.logger = slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	if url == "" {
		// The SQLite file stays as it is while the command runs: restore
		// refuses meanwhile (holdShared).
		release, err := c.holdShared()
		if err != nil {
			return err
		}
		defer release()
	}
	o, err := dir.open(c.ctx, dataOptions{sync: c.syncFlag, noDemo: opts.noDemo, now: c.now, logger: opts.logger, cutoff: opts.cutoff, dbURL: url})
	if err != nil {
		return err
	}
	err = fn(o)
	if cerr := o.store.Close(); err == nil {
		err = cerr
	}
	return err
}

// withStore is withData for a command that needs only the store.
func (c *env) withStore(fn func(backend) error) error {
	return c.withData(openOptions{}, func(o *opened) error { return fn(o.store) })
}

// say prints a line of text for a person whatever --json says: the
// answer of a command that has no machine form (staff add, hall add…).
func (c *env) say(format string, args ...any) {
	fmt.Fprintf(c.stdout, format+"\n", args...)
}
