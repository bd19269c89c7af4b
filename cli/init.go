package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
)

// init: a data dir with its keys and database, the demo cinema or an
// empty one, and, for trying scale, days of the demo's past business.

// maxHistoryDays bounds --demo-history: ten years of business.
const maxHistoryDays = 3660

const initLong = `Creates the data directory (0700), its ticket key and its database (0600),
and loads the demo cinema into an empty database, or nothing with --no-demo.
Run again, it changes nothing; on a database it finds, it runs SQLite's
quick check first and refuses a damaged one. --demo-history DAYS plays DAYS
of past sales, cancellations and waiting lists through the store into a new
demo cinema and checks every invariant afterwards.`

func initFlags(fs *flag.FlagSet) runFunc {
	noDemo := fs.Bool("no-demo", false, "create an empty cinema")
	history := fs.Int("demo-history", 0, "give the demo cinema this many `DAYS` of past sales")
	return func(c *env, pos []string) error { return c.initData(pos, *noDemo, *history) }
}

// initData is the init command.
func (c *env) initData(pos []string, noDemo bool, history int) error {
	if len(pos) > 0 {
		return usagef("init takes no arguments")
	}
	if history < 0 || history > maxHistoryDays || (history > 0 && noDemo) {
		return usagef("--demo-history takes 1 to %d days of the demo cinema (not with --no-demo)", maxHistoryDays)
	}
	if err := c.checkBeforeInit(); err != nil {
		return err
	}
	if history > 0 {
		return c.initHistory(history)
	}
	return c.withData(openOptions{noDemo: noDemo}, func(o *opened) error {
		if o.readOnly {
			return o.dir.diskFull() // nothing init would make or check can be written
		}
		c.say("Data directory: %s", o.dir)
		hint := ""
		if h := o.demoHint(c.ctx); h.Name != "" {
			hint = fmt.Sprintf(" Sign in as %s with PIN %s.", h.Name, h.PIN)
		}
		switch {
		case o.seeded && o.demo:
			c.say("Created the demo cinema.%s", hint)
		case o.demo:
			c.say("The demo cinema is already there.%s", hint)
		case o.seeded:
			c.say("Created an empty cinema. Next: boxoffice hall add FILE, film add, show add, price set,")
			c.say("and a manager: echo PIN | boxoffice staff add NAME --role manager")
		default:
			c.say("The database is ready.")
		}
		return nil
	})
}

// checkBeforeInit runs SQLite's quick check on a database file init finds
// in the data dir, and refuses a damaged one (EDamaged, in the check's
// words) before anything opens it to write: init is what an operator runs
// to see that a data dir is ready, and "ready" must not be said of a file
// with corrupt pages. The file is read-only to it, so it runs on a full
// disk where SQLite can read.
func (c *env) checkBeforeInit() error {
	url, err := resolveDB(c.dbFlag)
	if err != nil || url != "" {
		return err
	}
	dir, err := resolveDataDir(c.dataFlag)
	if err != nil {
		return err
	}
	if info, err := os.Stat(dir.dbPath()); err != nil || info.Size() == 0 {
		return nil // nothing there yet: init makes it
	}
	return db.QuickCheck(c.ctx, dir.dbPath())
}

// initHistory gives a new demo cinema days of past business: the demo
// programme for each past day, then the day's sales, cancellations and
// waiting lists played through the store. It refuses a data dir that
// holds sales before it writes anything, and closes the store while it
// plays: the store's own sweeper, on the real clock, would expire the
// simulated morning's holds under it.
func (c *env) initHistory(days int) error {
	if err := c.onSQLiteOnly("init --demo-history", "make the history on SQLite (no --db)"); err != nil {
		return err
	}
	var dir dataDir
	err := c.withData(openOptions{}, func(o *opened) error {
		c.say("Data directory: %s", o.dir)
		dir = o.dir
		if !o.demo {
			return usagef("--demo-history needs the demo cinema (not --no-demo)")
		}
		sold, err := o.store.HasSales(c.ctx)
		if err == nil && sold {
			err = booking.Errorf(booking.EConflict, "This data directory already holds sales: history goes into a new one.")
		}
		return err
	})
	if err != nil {
		return err
	}
	c.say("Playing %s of business…", plural(days, "day", "days"))
	stats, err := playHistory(c.ctx, dir, days, c.now(), func(day int) {
		if (day+1)%30 == 0 {
			c.say("  %d days", day+1)
		}
	})
	if err != nil {
		return err
	}
	c.say("%d bookings (%d cancelled and refunded), %d customers who changed their mind, %d waiting (%d told, %d called) in %.1fs.",
		stats.Bookings, stats.Cancelled, stats.Abandoned, stats.Waiting, stats.Told, stats.Called, stats.Elapsed.Seconds())
	return c.checkHistory()
}

// playHistory adds the past programme to the demo cinema in dir (closed,
// without sales) and plays days of business on it.
func playHistory(ctx context.Context, dir dataDir, days int, today time.Time, progress func(int)) (db.HistoryStats, error) {
	past, err := pastProgramme(today, days)
	if err != nil {
		return db.HistoryStats{}, err
	}
	key, _, err := dir.ticketKeys()
	if err != nil {
		return db.HistoryStats{}, err
	}
	s, err := db.Open(dir.dbPath(), db.Options{TicketKey: key, SweepInterval: -1, PollInterval: -1})
	if err != nil {
		return db.HistoryStats{}, err
	}
	_, err = s.TopUpDemo(ctx, past)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return db.HistoryStats{}, err
	}
	return db.GenerateHistory(ctx, dir.dbPath(), db.HistoryOptions{
		Days: days, Today: today, Seed: 1, TicketKey: key, Progress: progress,
		Actor: booking.Actor{Name: assets.DemoUser, Role: booking.RoleManager, Terminal: "history"},
	})
}

// checkHistory reopens the data dir and checks every invariant of what
// was generated.
func (c *env) checkHistory() error {
	return c.withStore(func(st backend) error {
		problems, err := st.CheckInvariants(c.ctx)
		if err != nil {
			return err
		}
		for _, p := range problems {
			fmt.Fprintf(c.stderr, "boxoffice: %s\n", p)
		}
		if len(problems) > 0 {
			return shown(errors.New("the generated history breaks an invariant"))
		}
		c.say("Checked: every seat sold once, sold counts, tickets, payments and refunds agree.")
		return nil
	})
}

// pastProgramme is the demo programme for the days days before today,
// built a week at a time the way the demo plans its week ahead.
func pastProgramme(today time.Time, days int) (booking.Seed, error) {
	first := time.Date(today.Year(), today.Month(), today.Day()-days, 0, 0, 0, 0, today.Location())
	end := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, today.Location())
	var out booking.Seed
	for week := first; week.Before(end); week = week.AddDate(0, 0, 7) {
		seed, err := assets.Demo(week)
		if err != nil {
			return out, err
		}
		if out.Halls == nil {
			out = seed
			out.Shows = nil
		}
		for _, sh := range seed.Shows {
			if sh.Starts.Before(end) {
				out.Shows = append(out.Shows, sh)
			}
		}
	}
	return out, nil
}
