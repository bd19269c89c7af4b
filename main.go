// Command boxoffice is a cinema box office in the terminal: counters sell
// seats from a live seat map, door staff scan tickets, and several counters
// (local terminals and remote staff over SSH) share one SQLite file.
//
// main is the only place that wires concrete parts together.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes, for scripts.
const (
	exitOK       = 0
	exitInternal = 1
	exitUsage    = 2 // bad usage or invalid input
	exitConflict = 3 // seat taken, stale status
	exitNotFound = 4
)

const usage = `boxoffice — a cinema box office in the terminal

Usage:
  boxoffice [--data DIR] [--sync full|normal]             open the counter in this terminal
  boxoffice init [--no-demo | --demo-history DAYS]        create the data dir and database
                                                          (DAYS of past demo sales, for trying scale)
  boxoffice shows [--date YYYY-MM-DD] [--json]            list a day's shows
  boxoffice seats SHOW [--json]                           every seat of a show with its state
  boxoffice sell SHOW SEAT... [--type T] [--pay cash|card] [--tendered AMOUNT]
                 [--key KEY] [--name N] [--phone P] [--json]
  boxoffice sell SHOW --best N [--wheelchair W] [...]     the best N seats together
  boxoffice booking NUMBER [--json]                       look a booking up
  boxoffice cancel NUMBER [--reason R] [--json]           cancel and refund a booking
  boxoffice admit CODE [--json]                           admit a ticket at the door (once)
  boxoffice staff add NAME --role door|clerk|supervisor|manager [--key-file FILE]
                                                          (the PIN is read from stdin)
  boxoffice staff list | staff disable|enable|unlock NAME | staff role NAME ROLE
  boxoffice staff pin NAME                                a new PIN (read from stdin)
  boxoffice terminal add NAME --key-file FILE | terminal list | terminal remove NAME
  boxoffice hall check FILE... | hall add FILE... | hall list   hall layouts (see README)
  boxoffice film add "TITLE" --minutes N [--rating R] | film list
  boxoffice show add --film ID --hall NAME --at "2026-12-01 19:30"
  boxoffice price set CODE "NAME" AMOUNT | price list     ticket types and prices
  boxoffice waitlist add SHOW --name N --phone P [--seats N] | waitlist SHOW [--json]
  boxoffice waitlist remove ENTRY_ID                      take a customer off a waiting list
  boxoffice serve [--listen ADDR]                         serve the counter over SSH
  boxoffice bench [--json] [--sync full|normal] [--duration D]
  boxoffice bench --scale [--days 365] [--n 200] [--idle 10s] [--op TEXT]
                                                          a week's history against a year's

Global flags (before or after the command):
  --data DIR      data directory (env BOXOFFICE_DATA; default $XDG_DATA_HOME/boxoffice)
  --sync MODE     SQLite synchronous mode: full (default) or normal

Exit codes: 0 ok, 1 internal error, 2 bad usage or invalid input,
3 conflict (seat taken, stale status), 4 not found.
`

// run is main without the process: tests call it with their own streams.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd, rest := "", args
	for i, a := range args {
		if len(a) > 0 && a[0] != '-' {
			// The first word that is not a flag (or a flag's value) is
			// the command.
			if i > 0 && takesValue(args[i-1]) {
				continue
			}
			cmd, rest = a, append(append([]string{}, args[:i]...), args[i+1:]...)
			break
		}
	}
	c := &cli{ctx: ctx, stdin: stdin, stdout: newCleanWriter(stdout), stderr: newCleanWriter(stderr), term: stdout, now: time.Now}
	if env := os.Getenv("BOXOFFICE_NOW"); env != "" {
		// A hidden test hook: every command, and the store it opens, reads
		// this instant as now, so a test's output does not depend on the day.
		at, err := time.Parse(time.RFC3339, env)
		if err != nil {
			return c.usageErr("BOXOFFICE_NOW %q is not a time like 2026-12-01T18:00:00Z", env)
		}
		c.now = func() time.Time { return at }
	}
	switch cmd {
	case "":
		return c.counter(rest)
	case "help":
		fmt.Fprint(c.stdout, usage)
		return exitOK
	case "init":
		return c.init(rest)
	case "shows":
		return c.shows(rest)
	case "seats":
		return c.seats(rest)
	case "sell":
		return c.sell(rest)
	case "booking":
		return c.booking(rest)
	case "cancel":
		return c.cancel(rest)
	case "staff":
		return c.staff(rest)
	case "terminal":
		return c.terminal(rest)
	case "admit":
		return c.admit(rest)
	case "hall":
		return c.hall(rest)
	case "film":
		return c.film(rest)
	case "show":
		return c.show(rest)
	case "price":
		return c.price(rest)
	case "waitlist":
		return c.waitlist(rest)
	case "serve":
		return c.serve(rest)
	case "bench":
		return c.bench(rest)
	}
	fmt.Fprintf(c.stderr, "boxoffice: unknown command %q\n\n%s", cmd, usage)
	return exitUsage
}

// takesValue reports whether a flag is one that consumes the next word.
func takesValue(flag string) bool {
	switch trimDashes(flag) {
	case "data", "sync":
		return true
	}
	return false
}

func trimDashes(s string) string {
	for len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	return s
}
