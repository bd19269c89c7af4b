package cli

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"boxoffice/booking"
	"boxoffice/paper"
)

// The cinema's books (docs/books.md): film hire and the distributor
// return, the day close, the cash drawer, and the ID check of a sale.

const dayLong = `A day is closed once every shift opened on it is closed: the close adds the
shifts' Z reports up — takings by method, the floats, the count, the cash to
bank (the count less the floats that stay in the drawers), the variance and
the tax by rate — and keeps the result. A day is closed once (a second close
exits 3); day report prints the kept report again, unchanged. --printer or
--terminal prints it on a receipt printer; --csv and --json export it.`

func dayCommand() *command {
	return &command{name: "day", long: dayLong, json: machine,
		missing: "usage: boxoffice day close [DATE] | day report DATE",
		subs: []*command{
			{name: "close", args: "[DATE] [--printer URL | --terminal NAME] [--csv | --json]", short: "close a day once its shifts are closed", long: dayLong, flags: dayFlags(true)},
			{name: "report", args: "DATE [--printer URL | --terminal NAME] [--csv | --json]", short: "a closed day's report, as it was kept", long: dayLong, flags: dayFlags(false)},
		}}
}

func dayFlags(closing bool) func(fs *flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		var t target
		t.bind(fs)
		csv := fs.Bool("csv", false, "print CSV: a header row, the rows, a totals row")
		return func(c *env, pos []string) error { return c.day(pos, closing, t, *csv) }
	}
}

// dayArg reads a day, today when none is given and allowed.
func (c *env) dayArg(pos []string, optional bool) (time.Time, error) {
	switch {
	case len(pos) == 0 && optional:
		return booking.DayStart(c.now().In(time.Local)), nil
	case len(pos) != 1:
		return time.Time{}, usagef("name one day, YYYY-MM-DD")
	}
	d, err := time.ParseInLocation(time.DateOnly, pos[0], time.Local)
	if err != nil {
		return time.Time{}, usagef("%q is not a day like 2026-12-01", booking.CleanLine(pos[0], 20))
	}
	return d, nil
}

func (c *env) day(pos []string, closing bool, t target, csv bool) error {
	d, err := c.dayArg(pos, closing)
	if err != nil {
		return err
	}
	if csv && c.jsonOut {
		return usagef("--csv or --json, not both")
	}
	printing := t.url != "" || t.terminal != ""
	var rep *booking.DayReport
	var p booking.Printer
	var l paper.Layout
	err = c.withStore(func(st backend) error {
		site, _, err := c.site(st)
		if err != nil {
			return err
		}
		if printing {
			if p, err = t.resolve(c, st); err != nil {
				return err
			}
		}
		l = c.printLayout(st, t.layout(), site.ID)
		if closing {
			rep, err = st.CloseDay(c.ctx, booking.System, d, site.ID)
		} else {
			rep, err = st.DayReport(c.ctx, booking.System, d, site.ID)
		}
		return err
	})
	if err != nil {
		return err
	}
	sheet := &reportTable{ReportSheet: booking.DaySheet(rep)}
	switch {
	case csv:
		err = sheet.writeCSV(c.stdout)
	default:
		c.print(sheet)
	}
	if err != nil || !printing {
		return err
	}
	if err := paper.Send(c.ctx, p, l.DayReportJob(rep), 0); err != nil {
		return err
	}
	c.say("Printed the day close of %s on %s.", rep.Day.Format(time.DateOnly), p)
	return nil
}

// counterLayout is the local counter's layout: its own printer opens the
// cash drawer, as no registered terminal can turn that off.
func counterLayout(l paper.Layout) paper.Layout {
	l.Drawer = true
	return l
}

// layoutFor is base with the site's settings and the tax rates.
func (c *env) layoutFor(st backend, base paper.Layout, site int64) (paper.Layout, error) {
	cin, err := st.Cinema(c.ctx, booking.System, site)
	if err != nil {
		return base, err
	}
	rates, err := st.TaxRates(c.ctx, booking.System)
	base.Settings, base.Rates = cin, rates
	return base, err
}

// filmHireCmd is `film hire FILM PERCENT [--week N]`.
func filmHireCmd() *command {
	return &command{name: "hire", args: "FILM PERCENT [--week N]", short: "the film hire agreed with its distributor (the run, or one week of it)",
		flags: func(fs *flag.FlagSet) runFunc {
			week := fs.Int("week", 0, "only for week `N` of the film's run (1: the seven days from its first show)")
			return func(c *env, pos []string) error { return c.filmHire(pos, *week) }
		}}
}

func (c *env) filmHire(pos []string, week int) error {
	if len(pos) != 2 {
		return usagef("usage: boxoffice film hire FILM PERCENT [--week N]")
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return usagef("FILM is a film's number (boxoffice film list)")
	}
	rate, err := booking.ParseRate(strings.TrimSuffix(strings.TrimSpace(pos[1]), "%"))
	if err != nil {
		return usagef("%s", booking.ErrorMessage(err))
	}
	h := booking.FilmHire{Film: id, Week: week, Rate: rate}
	if err := h.Validate(); err != nil {
		return usagef("%s", booking.ErrorMessage(err))
	}
	return c.withStore(func(st backend) error {
		got, err := st.SetFilmHire(c.ctx, booking.System, h)
		if err != nil {
			return err
		}
		what := "its whole run"
		if got.Week > 0 {
			what = "week " + strconv.Itoa(got.Week) + " of its run"
		}
		c.say("Film %d pays %s film hire for %s.", got.Film, got.Rate, what)
		return nil
	})
}

// reportDistributorCmd is `report distributor --film ID --week DATE`.
func reportDistributorCmd() *command {
	return &command{name: "distributor", args: "--film ID --week DATE [--csv | --json] [--pdf FILE]",
		short: "a film's week for its distributor: admissions, tax, net, hire owed",
		flags: func(fs *flag.FlagSet) runFunc {
			film := fs.Int64("film", 0, "the film's `ID` (boxoffice film list)")
			week := fs.String("week", "", "the first `DAY` of the week, YYYY-MM-DD (default today)")
			csv := fs.Bool("csv", false, "print CSV: a header row, a row a show, a totals row")
			pdf := fs.String("pdf", "", "also write the return as a printable PDF to `FILE` (never over an existing file)")
			var cinema string
			cinemaFlag(fs, &cinema)
			return func(c *env, pos []string) error {
				return c.reportDistributor(pos, *film, *week, *csv, paper.Layout{Cinema: cinema}, *pdf)
			}
		}}
}

func (c *env) reportDistributor(pos []string, film int64, week string, csv bool, base paper.Layout, pdf string) error {
	if len(pos) > 0 || film <= 0 {
		return usagef("usage: boxoffice report distributor --film ID --week DATE")
	}
	if csv && c.jsonOut {
		return usagef("--csv or --json, not both")
	}
	d, err := c.dayArg(strings.Fields(week), true)
	if err != nil {
		return err
	}
	return c.withStore(func(st backend) error {
		site, _, err := c.site(st)
		if err != nil {
			return err
		}
		rep, err := st.DistributorReturn(c.ctx, booking.System, booking.ReturnQuery{Film: film, Week: d, Site: site.ID})
		if err != nil {
			return err
		}
		if pdf != "" {
			l := c.printLayout(st, base, site.ID)
			if err := writePDFFile(pdf, func(f *os.File) error { return l.ReturnPDF(f, rep) }); err != nil {
				return err
			}
		}
		t := &reportTable{ReportSheet: booking.DistributorSheet(rep)}
		if csv {
			return t.writeCSV(c.stdout)
		}
		c.print(t)
		return nil
	})
}

// writePDFFile writes a file that must not exist yet, removing what it
// wrote when write fails.
func writePDFFile(name string, write func(*os.File) error) error {
	abs, err := filepath.Abs(name)
	if err != nil {
		return booking.Errorf(booking.EInvalid, "%s is not a file name.", booking.CleanLine(name, 200))
	}
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return booking.Errorf(booking.EConflict, "%s exists already; name a new file.", booking.CleanLine(abs, 200))
	}
	if err != nil {
		return booking.Errorf(booking.EInvalid, "%s cannot be written.", booking.CleanLine(abs, 200))
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(abs)
	}
	return err
}

// terminalDrawerCmd is `terminal drawer NAME on|off`.
func terminalDrawerCmd() *command {
	return &command{name: "drawer", args: "NAME on|off", short: "whether a counter's printer opens its cash drawer", run: (*env).terminalDrawer}
}

func (c *env) terminalDrawer(pos []string) error {
	if len(pos) != 2 || (pos[1] != "on" && pos[1] != "off") {
		return usagef("usage: boxoffice terminal drawer NAME on|off")
	}
	return c.withStore(func(st backend) error {
		t, err := st.SetTerminalDrawer(c.ctx, booking.System, pos[0], pos[1] == "on")
		if err != nil {
			return err
		}
		c.say("Terminal %s: the printer opens the cash drawer %s.", t.Name, map[bool]string{true: "on cash", false: "never"}[pos[1] == "on"])
		return nil
	})
}

// drawerCommand is `drawer open --reason R`: a "no sale".
func drawerCommand() *command {
	return &command{name: "drawer", missing: "usage: boxoffice drawer open --reason R [--printer URL | --terminal NAME]",
		subs: []*command{{name: "open", args: "--reason R [--printer URL | --terminal NAME]", short: "open the cash drawer without a sale (audited)",
			flags: func(fs *flag.FlagSet) runFunc {
				var t target
				t.bind(fs)
				reason := fs.String("reason", "", "why the drawer is opened (`R`), written to the audit trail")
				return func(c *env, pos []string) error { return c.drawerOpen(pos, *reason, t) }
			}}}}
}

func (c *env) drawerOpen(pos []string, reason string, t target) error {
	if len(pos) > 0 {
		return usagef("usage: boxoffice drawer open --reason R")
	}
	why, err := booking.DrawerReason(reason)
	if err != nil {
		return usagef("%s", booking.ErrorMessage(err))
	}
	printing := t.url != "" || t.terminal != ""
	var p booking.Printer
	var l paper.Layout
	err = c.withStore(func(st backend) error {
		if printing {
			if p, err = t.resolve(c, st); err != nil {
				return err
			}
			l = c.printLayout(st, t.layout(), c.siteID(st))
			if l.Drawer, err = st.TerminalDrawer(c.ctx, booking.System, t.terminal); err != nil {
				return err
			}
		}
		return st.OpenDrawer(c.ctx, booking.System, why)
	})
	if err != nil || !printing {
		if err == nil {
			c.say("No sale recorded: %s.", why)
		}
		return err
	}
	if err := paper.Send(c.ctx, p, l.DrawerJob("No sale: "+why, booking.System.Name, c.now()), 0); err != nil {
		return err
	}
	c.say("No sale recorded and the drawer opened on %s: %s.", p, why)
	return nil
}

// checkID refuses a sale of a film rated above the cinema's ID age
// without --id-checked, and records the check when it was made.
func (c *env) checkID(st backend, actor booking.Actor, a *sellArgs) error {
	sh, err := st.Show(c.ctx, actor, a.showID)
	if err != nil {
		return err
	}
	halls, err := st.Halls(c.ctx, actor)
	if err != nil {
		return err
	}
	site := booking.AllSites
	for _, h := range halls {
		if h.ID == sh.HallID {
			site = h.Site // the show's site's age, as the store reads it
		}
	}
	cin, err := st.Cinema(c.ctx, actor, site)
	if err != nil {
		return err
	}
	switch {
	case !booking.NeedsID(sh.Film.Rating, cin.IDAbove):
		return nil
	case !a.idChecked:
		return booking.ErrIDNotChecked(sh.Film)
	}
	return st.ConfirmID(c.ctx, actor, a.showID)
}
