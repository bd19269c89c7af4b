package cli

import (
	"flag"
	"strings"

	"boxoffice/booking"
)

// runFunc runs a command on its positional arguments, its flags parsed.
type runFunc func(c *env, pos []string) error

// command is one entry of the command table: a command or a subcommand.
// The table is the whole command line: route and the parser read it, and
// help is generated from it.
type command struct {
	name string
	// args is what follows the command's words in its usage, one form a
	// line; short says what it does in the overview, long says more in
	// its own help.
	args, short, long string
	// json is the help of the --json flag, which the command and its
	// subcommands then take; "" for none.
	json string
	// flags defines the command's own flags on fs and returns its run,
	// bound to their values; run is used instead when it has none.
	flags func(fs *flag.FlagSet) runFunc
	run   runFunc
	// subs are the subcommands, named by the word after the command's.
	// missing is the usage message when none is named.
	subs    []*command
	missing string
	parent  *command
}

// root is the command line: with no command it opens the counter.
var root *command

func init() {
	root = &command{
		name: "boxoffice", args: "[--idle-signout D] [--printer URL]", short: "open the counter in this terminal",
		flags: counterFlags,
		subs: []*command{
			{name: "help", args: "[COMMAND [SUBCOMMAND]]", short: "this overview, or more on one command", run: (*env).help},
			{name: "init", args: "[--no-demo | --demo-history DAYS]", short: "create the data dir and database",
				long: initLong, flags: initFlags},
			{name: "shows", args: "[--date YYYY-MM-DD] [--json]", short: "list a day's shows", json: machine, flags: showsFlags},
			{name: "seats", args: "SHOW [--json]", short: "every seat of a show with its state", json: machine, run: (*env).seats},
			{name: "sell", args: "SHOW SEAT... [--type T] [--pay cash|card] [--tendered AMOUNT] [...]\nSHOW --best N [--wheelchair W] [--premium] [...]",
				short: "sell the seats named\nsell the best N seats together", long: sellLong, json: machine, flags: sellFlags},
			{name: "booking", args: "NUMBER [--json] [--pdf FILE]", short: "look a booking up", json: machine, flags: bookingFlags},
			{name: "find", args: "TEXT [--json]", short: "find bookings by number, phone or name", long: findLong, json: machine, run: (*env).find},
			{name: "cancel", args: "NUMBER [--reason R] [--json]", short: "cancel and refund a booking", json: machine, flags: cancelFlags},
			{name: "admit", args: "CODE|BO-NUMBER [--json]", short: "admit a ticket, or a booking's tickets, at the door (once)", json: machine, run: (*env).admit},
			staffCommand(),
			terminalCommand(),
			hallCommand(),
			filmCommand(),
			showCommand(),
			priceCommand(),
			waitlistCommand(),
			{name: "serve", args: "[--listen ADDR] [--hold-grace D] [--idle-signout D] [--pdf-dir DIR]\n[--backup-dir DIR [--backup-every 24h] [--keep 14]] [--metrics 127.0.0.1:9222 [--metrics-public]]\n--kiosk [--kiosk-listen :2223] [--reserve-cutoff 30m]", short: "serve the counter over SSH\nthe same, with rotating backups and Prometheus metrics\nand the self-service kiosk to SSH user kiosk", long: serveLong, flags: serveFlags},
			{name: "bench", args: "[--duration D] [--clients 1,8,64] [--json] [...]\n--scale [--days 365] [--n 200] [--idle 10s] [--op TEXT]",
				short: "sales a second, beside the raw commit rate\nevery counter operation: a week's history against a year's", long: benchLong,
				json: "one JSON object per result", flags: benchFlags},

			// audit
			{name: "audit", args: "[--booking BO-…] [--staff NAME] [--day YYYY-MM-DD] [--limit N] [--json]",
				short: "the audit trail, newest first", long: auditLong, json: machine, flags: auditFlags},

			// Reports (issue 10).
			reportCommand(),

			// Running the house: backups, checks, restore.
			backupCommand(),
			checkCommand(),
			restoreCommand(),
			keyCommand(),
			// Moving up to PostgreSQL (issue 14).
			migrateCommand(),

			// Shifts and refunds.
			shiftCommand(),
			refundCommand(),

			// Printing (issue 12).
			{name: "print", args: "BOOKING --printer URL | --terminal NAME\n--shift ID --printer URL | --terminal NAME", short: "print a booking's tickets and receipt\na shift's Z report (X while it is open)", long: printerLong, flags: printFlags},
			printerCommand(),
			// Exchanges (issue 11).
			exchangeCommand(),
			// Blocked and house seats.
			{name: "block", args: "SHOW SEAT... [--reason R] [--hall-wide] [--json]", short: "keep seats out of sale (broken, crew)",
				long: blockLong, json: machine, flags: blockFlags(booking.BlockBlocked, false)},
			{name: "unblock", args: "SHOW SEAT... [--hall-wide] [--json]", short: "put blocked seats back on sale",
				json: machine, flags: blockFlags(booking.BlockBlocked, true)},
			{name: "house", args: "SHOW SEAT... [--reason R] [--json]", short: "hold seats of a show back as house seats",
				long: houseLong, json: machine, flags: blockFlags(booking.BlockHouse, false)},
			{name: "release-house", args: "SHOW SEAT... [--json]", short: "release house seats into sale (supervisor)",
				json: machine, flags: blockFlags(booking.BlockHouse, true)},
			// The kiosk and reservations (issue 13).
			reservationCommand(),
			// Sites: the cinemas of a chain (issue 14).
			siteCommand(),
			{name: "sites", args: "[--json]", short: "the sites of the chain (one on SQLite)", json: machine, run: (*env).siteList},
			{name: "kiosk", args: "[--reserve-cutoff 30m] [--printer URL] [--cinema NAME]", short: "the self-service kiosk, full screen in this terminal", long: kioskLong, flags: kioskFlags},
		},
	}
	root.subs = append(root.subs, besideSeatsCommands()...)
	root.walk(func(c *command) {
		for _, s := range c.subs {
			s.parent = c
		}
	})
}

// besideSeatsCommands are the commands of what a cinema sells and keeps
// beside seats.
func besideSeatsCommands() []*command {
	return []*command{
		// Concessions: items sold beside seats.
		itemCommand(),
		// Customer accounts and the film watchlist (customers.go).
		customerCommand(),
		watchCommand(),
		// Vouchers and promo codes.
		voucherCommand(),
		// Gift cards: sold for money, spent on sales (giftcards.go).
		giftcardCommand(),
		// The books: the day close and the cash drawer.
		dayCommand(),
		drawerCommand(),
		// The cinema's settings and tax rates (settings.go).
		settingsCommand(),
		taxCommand(),
	}
}

// machine is the usual help of --json.
const machine = "print JSON for a program instead of text"

// sub is the subcommand called name, or nil.
func (c *command) sub(name string) *command {
	for _, s := range c.subs {
		if s.name == name {
			return s
		}
	}
	return nil
}

// walk calls fn on c and every command under it, in table order.
func (c *command) walk(fn func(*command)) {
	fn(c)
	for _, s := range c.subs {
		s.walk(fn)
	}
}

// path is the command's words: "boxoffice staff add".
func (c *command) path() string {
	if c.parent == nil {
		return c.name
	}
	return c.parent.path() + " " + c.name
}

// jsonHelp is the --json help of c, inherited from its parent.
func (c *command) jsonHelp() string {
	for ; c != nil; c = c.parent {
		if c.json != "" {
			return c.json
		}
	}
	return ""
}

// bindTo defines c's flags, the global ones and --json included, on fs and
// returns c's run bound to them.
func (c *command) bindTo(fs *flag.FlagSet, e *env) runFunc {
	e.globalFlags(fs)
	if help := c.jsonHelp(); help != "" {
		fs.BoolVar(&e.jsonOut, "json", false, help)
	}
	switch {
	case c.flags != nil:
		return c.flags(fs)
	case c.run != nil:
		return c.run
	}
	return c.needSub
}

// flagSet is c's flags on a set of their own, for help and route.
func (c *command) flagSet(e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(c.path(), flag.ContinueOnError)
	c.bindTo(fs, e)
	return fs
}

// needSub is the run of a command that does nothing without a
// subcommand: it names them.
func (c *command) needSub(_ *env, pos []string) error {
	if len(pos) == 0 {
		return usagef("%s", c.missing)
	}
	names := make([]string, len(c.subs))
	for i, s := range c.subs {
		names[i] = s.name
	}
	return usagef("unknown %s command %q (%s)", c.name, booking.CleanLine(pos[0], 20), strings.Join(names, ", "))
}
