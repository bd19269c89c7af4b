package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
)

// maxHistoryDays bounds --demo-history: ten years of business.
const maxHistoryDays = 3660

// demoHistory gives a new demo cinema days of past business (init
// --demo-history): the demo programme for each past day, then the day's
// sales, cancellations and waiting lists played through the store. It
// refuses a data dir that holds sales before it writes anything, and
// closes the store while it plays: the store's own sweeper, on the real
// clock, would expire the simulated morning's holds under it.
func (c *cli) demoHistory(o *opened, days int) int {
	ctx := c.ctx
	if !o.demo {
		o.store.Close()
		return c.usageErr("--demo-history needs the demo cinema (not --no-demo)")
	}
	if sold, err := o.store.HasSales(ctx); err != nil || sold {
		o.store.Close()
		if err == nil {
			err = booking.Errorf(booking.EConflict, "This data directory already holds sales: history goes into a new one.")
		}
		return c.fail(err)
	}
	o.store.Close()
	fmt.Fprintf(c.stdout, "Playing %d days of business…\n", days)
	stats, err := playHistory(ctx, o.dir, days, c.now(), func(day int) {
		if (day+1)%30 == 0 {
			fmt.Fprintf(c.stdout, "  %d days\n", day+1)
		}
	})
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.stdout, "%d bookings (%d cancelled and refunded), %d customers who changed their mind, %d waiting (%d told, %d called) in %.1fs.\n",
		stats.Bookings, stats.Cancelled, stats.Abandoned, stats.Waiting, stats.Told, stats.Called, stats.Elapsed.Seconds())
	return c.checkHistory()
}

// playHistory adds the past programme to the demo cinema in dir (closed,
// without sales) and plays days of business on it.
func playHistory(ctx context.Context, dir string, days int, today time.Time, progress func(int)) (db.HistoryStats, error) {
	past, err := pastProgramme(today, days)
	if err != nil {
		return db.HistoryStats{}, err
	}
	key, _, err := loadTicketKeys(dir)
	if err != nil {
		return db.HistoryStats{}, err
	}
	path := filepath.Join(dir, dbFile)
	s, err := db.Open(path, db.Options{TicketKey: key, SweepInterval: -1, PollInterval: -1})
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
	return db.GenerateHistory(ctx, path, db.HistoryOptions{
		Days: days, Today: today, Seed: 1, TicketKey: key, Progress: progress,
		Actor: booking.Actor{Name: assets.DemoUser, Role: booking.RoleManager, Terminal: "history"},
	})
}

// checkHistory reopens the data dir and checks every invariant of what
// was generated.
func (c *cli) checkHistory() int {
	o, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()
	problems, err := o.store.CheckInvariants(c.ctx)
	if err != nil {
		return c.fail(err)
	}
	for _, p := range problems {
		fmt.Fprintf(c.stderr, "boxoffice: %s\n", p)
	}
	if len(problems) > 0 {
		return exitInternal
	}
	fmt.Fprintln(c.stdout, "Checked: every seat sold once, sold counts, tickets, payments and refunds agree.")
	return exitOK
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
