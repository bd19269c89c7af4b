// Command boxoffice is a cinema box office in the terminal: counters sell
// seats from a live seat map, door staff scan tickets, and several counters
// (local terminals and remote staff over SSH) share one SQLite file.
//
// main only wires: the commands are package cli; here are the signal
// context and the one mapping from an error to an exit code.
package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	"boxoffice/booking"
	"boxoffice/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err))
}

// run is main without the process: the tests call it with their own
// streams. It has printed err, if any, by the time it returns.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return cli.Run(ctx, args, stdin, stdout, stderr)
}

// Exit codes, for scripts.
const (
	exitOK       = 0
	exitInternal = 1
	exitUsage    = 2 // bad usage or invalid input
	exitConflict = 3 // seat taken, stale status
	exitNotFound = 4
	exitDiskFull = 5 // the disk is full: nothing was saved; free space and run it again
)

// exitUnavailable: the database server cannot be reached; run the
// command again once it is back.
const exitUnavailable = 6

// exitCode maps the error a command returned to the process's exit code:
// a mistake in the command line is 2, a domain error by its code.
func exitCode(err error) int {
	var usage *cli.UsageError
	if errors.As(err, &usage) {
		return exitUsage
	}
	switch booking.ErrorCode(err) {
	case "":
		return exitOK
	case booking.EInvalid, booking.EForbidden:
		return exitUsage
	case booking.EConflict, booking.EExpired:
		return exitConflict
	case booking.ENotFound:
		return exitNotFound
	case booking.EDiskFull:
		return exitDiskFull
	case booking.EUnavailable:
		return exitUnavailable
	}
	return exitInternal
}
