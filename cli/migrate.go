package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/pg"
)

const migrateLong = `Copies the data dir's SQLite cinema — programme, prices, staff,
terminals, holds, bookings, tickets, payments, shifts, exchanges,
reservations, waiting lists, blocked seats and the audit trail — into the
empty PostgreSQL database --to names, in one transaction. It checks the
SQLite side first (every invariant) and, before committing, counts every
table on both sides and runs the invariant check on what PostgreSQL
received: any difference and nothing is committed. Refused while a
server or a counter has the data dir open, and when the PostgreSQL
database already holds a cinema. The SQLite file is left as it was.
Afterwards start everything with --db URL (or BOXOFFICE_DB) from this data
dir, or one with a copy of its ticket_key: tickets sold before the move
are signed with that key and admit after it.`

func migrateCommand() *command {
	return &command{name: "migrate", args: "--to postgres://… [--json]", short: "copy this SQLite cinema into PostgreSQL, checked on both sides",
		long: migrateLong, json: machine, flags: migrateFlags}
}

func migrateFlags(fs *flag.FlagSet) runFunc {
	to := fs.String("to", "", "the empty PostgreSQL database to copy into, a `URL` (postgres://…)")
	return func(c *env, pos []string) error {
		if len(pos) > 0 {
			return usagef("migrate takes no arguments: boxoffice migrate --to postgres://…")
		}
		return c.migrate(*to)
	}
}

func (c *env) migrate(to string) error {
	if to == "" {
		return usagef("migrate needs --to postgres://… (the empty database to copy into)")
	}
	to, err := pgAddress("--to", to)
	if err != nil {
		return err
	}
	if from, _ := resolveDB(c.dbFlag); from != "" {
		return usagef("migrate copies the data dir's SQLite file: leave --db (and BOXOFFICE_DB) out")
	}
	dir, err := resolveDataDir(c.dataFlag)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir.dbPath()); err != nil {
		return booking.Errorf(booking.ENotFound, "There is no cinema in %s to migrate (no %s).", string(dir), dbFile)
	}
	release, err := dir.lock(true)
	if errors.Is(err, errLocked) {
		return booking.Errorf(booking.EConflict, "A server or a counter has %s open: stop it before migrating. Nothing was copied.", string(dir))
	}
	if err != nil {
		return err
	}
	defer release()
	if rec, err := db.RecoverRestore(dir.dbPath()); err != nil {
		return err
	} else if rec != nil {
		fmt.Fprintf(c.stderr, "boxoffice: %s\n", recoveryText(rec))
	}
	key, oldKeys, err := dir.ticketKeys()
	if err != nil {
		return err
	}
	if err := c.checkBeforeMigrate(dir, key, oldKeys); err != nil {
		return err
	}
	src, err := db.OpenCarrySource(c.ctx, dir.dbPath())
	if err != nil {
		return err
	}
	defer src.Close()
	dest, err := pg.Open(c.ctx, to, pg.Options{TicketKey: key})
	if err != nil {
		return err
	}
	defer dest.Close()
	report, err := dest.Carry(c.ctx, src)
	if err != nil {
		return err
	}
	if len(report.Problems) > 0 {
		return c.problems("PostgreSQL's check of what it received", report.Problems, "nothing was committed")
	}
	after, err := dest.CheckInvariants(c.ctx)
	if err != nil {
		return err
	}
	if len(after) > 0 {
		return c.problems("PostgreSQL's check after the commit", after, "the copy is in PostgreSQL: do not use it")
	}
	c.print(migrateView{report: report, into: booking.RedactDSN(to)})
	return nil
}

// checkBeforeMigrate opens the SQLite cinema (which brings its schema up
// to this binary's) and refuses to copy one whose invariants do not hold.
func (c *env) checkBeforeMigrate(dir dataDir, key booking.TicketKey, oldKeys []booking.TicketKey) error {
	s, err := db.Open(dir.dbPath(), db.Options{TicketKey: key, OldTicketKeys: oldKeys, SweepInterval: -1, PollInterval: -1})
	if err != nil {
		return err
	}
	defer s.Close()
	problems, err := s.CheckInvariants(c.ctx)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return c.problems("The SQLite cinema's check", problems, "nothing was copied")
	}
	return nil
}

// problems prints what a check found and fails with what became of the copy.
func (c *env) problems(what string, found []string, outcome string) error {
	for _, p := range found {
		fmt.Fprintf(c.stderr, "  %s\n", p)
	}
	return booking.Errorf(booking.EInvalid, "%s found %d problems: %s.", what, len(found), outcome)
}

type migrateView struct {
	report *pg.CarryReport
	into   string
}

func (v migrateView) writeText(w io.Writer) {
	fmt.Fprintf(w, "Copied into %s:\n", v.into)
	fmt.Fprintf(w, "  %-18s %10s %10s\n", "table", "SQLite", "PostgreSQL")
	for _, t := range v.report.Tables {
		fmt.Fprintf(w, "  %-18s %10d %10d\n", t.Name, t.Source, t.PostgreSQL)
	}
	if len(v.report.LeftBehind) > 0 {
		fmt.Fprintln(w, "Not copied, kept another way on PostgreSQL:")
		for _, l := range v.report.LeftBehind {
			fmt.Fprintf(w, "  %s\n", l)
		}
	}
	fmt.Fprintln(w, "Checked: every invariant holds on SQLite before and on PostgreSQL after; every table's rows are equal.")
	fmt.Fprintln(w, "Next: start serve and the counters with --db URL (or BOXOFFICE_DB) and this data dir's ticket_key.")
}

func (v migrateView) jsonValue() any {
	type table struct {
		Name       string `json:"name"`
		SQLite     int64  `json:"sqlite"`
		PostgreSQL int64  `json:"postgresql"`
	}
	out := struct {
		Into       string   `json:"into"`
		Tables     []table  `json:"tables"`
		LeftBehind []string `json:"left_behind"`
		Checked    bool     `json:"checked"`
	}{Into: v.into, LeftBehind: v.report.LeftBehind, Checked: true}
	for _, t := range v.report.Tables {
		out.Tables = append(out.Tables, table{t.Name, t.Source, t.PostgreSQL})
	}
	if out.LeftBehind == nil {
		out.LeftBehind = []string{}
	}
	return out
}
