package cli

import (
	"flag"
	"path/filepath"

	"boxoffice/booking"
	"boxoffice/paper"
)

// printer, print, booking --pdf and terminal printer: tickets and
// receipts on paper (issue 12).

const printerLong = `A printer is an ESC/POS thermal printer (Epson TM-series and compatibles):
  tcp://HOST[:PORT]   on the network (port 9100 when none is given)
  /dev/usb/lp0        a device on this machine
A job counts as printed once the printer answers its paper status request;
one that does not within a few seconds, or reports no paper, fails with a
message and can be printed again.`

func printerCommand() *command {
	return &command{name: "printer", long: printerLong,
		missing: "usage: boxoffice printer test --printer URL | --terminal NAME",
		subs: []*command{
			{name: "test", args: "--printer URL | --terminal NAME", short: "print a test page", long: printerLong, flags: printerTestFlags},
		}}
}

// target is where a command prints: --printer, or a registered
// terminal's printer by --terminal.
type target struct{ url, terminal, cinema string }

func (t *target) bind(fs *flag.FlagSet) {
	fs.StringVar(&t.url, "printer", "", "the printer `URL`: tcp://HOST[:PORT] or /dev/usb/lp0")
	fs.StringVar(&t.terminal, "terminal", "", "print on the printer of the registered terminal `NAME`")
	cinemaFlag(fs, &t.cinema)
}

// cinemaFlag binds --cinema, the name at the head of every printout.
func cinemaFlag(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "cinema", "", "the cinema's `NAME` at the head of tickets and receipts (default \""+paper.DefaultCinema+"\")")
}

// layout is what heads the printouts.
func (t target) layout() paper.Layout { return paper.Layout{Cinema: t.cinema} }

// resolve reads the printer URL, or looks the terminal's up.
func (t target) resolve(c *env, st backend) (booking.Printer, error) {
	switch {
	case t.url != "" && t.terminal != "":
		return booking.Printer{}, usagef("give --printer or --terminal, not both")
	case t.url != "":
		return booking.ParsePrinter(t.url)
	case t.terminal == "":
		return booking.Printer{}, usagef("say where to print: --printer URL or --terminal NAME")
	}
	list, err := st.ListTerminals(c.ctx, booking.System)
	if err != nil {
		return booking.Printer{}, err
	}
	for _, term := range list {
		if booking.CleanLine(t.terminal, 40) == term.Name || equalFoldASCII(t.terminal, term.Name) {
			if term.Printer == "" {
				return booking.Printer{}, booking.Errorf(booking.EInvalid, "Terminal %s has no printer (boxoffice terminal printer %s URL).", term.Name, term.Name)
			}
			return booking.ParsePrinter(term.Printer)
		}
	}
	return booking.Printer{}, booking.Errorf(booking.ENotFound, "No terminal called %s.", booking.CleanLine(t.terminal, 40))
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}

func printerTestFlags(fs *flag.FlagSet) runFunc {
	var t target
	t.bind(fs)
	return func(c *env, pos []string) error {
		if len(pos) > 0 {
			return usagef("usage: boxoffice printer test --printer URL | --terminal NAME")
		}
		return c.printerTest(t)
	}
}

// printerTest prints the test page.
func (c *env) printerTest(t target) error {
	if t.url != "" {
		// A printer named outright needs no data directory.
		p, err := t.resolve(c, nil)
		if err != nil {
			return err
		}
		return c.sendTest(p, t.layout())
	}
	return c.withStore(func(st backend) error {
		p, err := t.resolve(c, st)
		if err != nil {
			return err
		}
		return c.sendTest(p, c.printLayout(st, t.layout(), c.siteID(st)))
	})
}

func (c *env) sendTest(p booking.Printer, l paper.Layout) error {
	if err := paper.Send(c.ctx, p, l.TestJob(c.now(), p.String()), 0); err != nil {
		return err
	}
	c.say("Printed a test page on %s.", p)
	return nil
}

func printFlags(fs *flag.FlagSet) runFunc {
	var t target
	t.bind(fs)
	shift := fs.Int64("shift", 0, "print the report of shift `ID` (the Z report once it is closed) instead of a booking")
	return func(c *env, pos []string) error {
		switch {
		case *shift != 0 && len(pos) == 0:
			return c.printShift(*shift, t)
		case *shift != 0 || len(pos) != 1:
			return usagef("usage: boxoffice print BOOKING --printer URL | --terminal NAME, or print --shift ID --printer URL")
		}
		return c.printBooking(pos[0], t)
	}
}

// printShift prints a shift's report: the Z report of a closed shift, an
// X report of an open one.
func (c *env) printShift(id int64, t target) error {
	var z *booking.ShiftReport
	var p booking.Printer
	var l paper.Layout
	err := c.withStore(func(st backend) error {
		var err error
		if p, err = t.resolve(c, st); err != nil {
			return err
		}
		if z, err = st.ShiftReport(c.ctx, booking.System, id); err != nil {
			return err
		}
		l = c.printLayout(st, t.layout(), c.siteID(st))
		return nil
	})
	if err != nil {
		return err
	}
	if err := paper.Send(c.ctx, p, l.ZReportJob(z), 0); err != nil {
		return err
	}
	what := "the X report (the shift is open)"
	if z.Final {
		what = "the Z report"
	}
	c.say("Printed %s of shift %d on %s.", what, z.Shift.ID, p)
	return nil
}

// printBooking prints a booking's tickets (their current codes) and its
// sale's receipt again, marked DUPLICATE with the refunds made since. The
// booking is read first and the store closed before the printer is
// touched: a slow printer holds nothing.
func (c *env) printBooking(number string, t target) error {
	var b *booking.Booking
	var p booking.Printer
	var l paper.Layout
	if t.url != "" {
		var err error
		if p, err = booking.ParsePrinter(t.url); err != nil {
			return err
		}
	}
	err := c.withStore(func(st backend) error {
		var err error
		if p.None() {
			if p, err = t.resolve(c, st); err != nil {
				return err
			}
		}
		if b, err = st.Booking(c.ctx, booking.System, number); err != nil {
			return err
		}
		l = c.printLayout(st, t.layout(), c.siteID(st))
		return nil
	})
	if err != nil {
		return err
	}
	job, err := l.ReprintJob(b)
	if err != nil {
		return err
	}
	if err := paper.Send(c.ctx, p, job, 0); err != nil {
		return err
	}
	c.say("Printed %d ticket(s) and a duplicate receipt of %s on %s.", len(paper.Printable(b)), b.Number, p)
	return nil
}

func bookingFlags(fs *flag.FlagSet) runFunc {
	pdf := fs.String("pdf", "", "also write the tickets as a PDF to `FILE` (never over an existing file)")
	var cinema string
	cinemaFlag(fs, &cinema)
	return func(c *env, pos []string) error {
		if *pdf == "" {
			return c.booking(pos)
		}
		return c.bookingPDF(pos, *pdf, paper.Layout{Cinema: cinema})
	}
}

// bookingPDF writes a booking's printable tickets to a new PDF file.
func (c *env) bookingPDF(pos []string, file string, l paper.Layout) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice booking NUMBER --pdf FILE")
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return booking.Errorf(booking.EInvalid, "%s is not a file name.", booking.CleanLine(file, 200))
	}
	return c.withStore(func(st backend) error {
		b, err := st.Booking(c.ctx, booking.System, pos[0])
		if err != nil {
			return err
		}
		if err := c.printLayout(st, l, c.siteID(st)).WritePDF(abs, b); err != nil {
			return err
		}
		if c.jsonOut {
			c.printJSON(map[string]any{"booking": b.Number, "pdf": abs, "tickets": len(paper.Printable(b))})
			return nil
		}
		c.say("Wrote %d ticket(s) of %s to %s.", len(paper.Printable(b)), b.Number, abs)
		return nil
	})
}

func terminalPrinterCmd() *command {
	return &command{name: "printer", args: "NAME URL | NAME none", short: "set where a counter device prints (none: PDF tickets)",
		long: printerLong, run: (*env).terminalPrinter}
}

// terminalPrinter sets or clears a terminal's printer.
func (c *env) terminalPrinter(pos []string) error {
	if len(pos) != 2 {
		return usagef("usage: boxoffice terminal printer NAME URL (or none)")
	}
	url := pos[1]
	if url == "none" {
		url = ""
	}
	if _, err := booking.ParsePrinter(url); err != nil {
		return err
	}
	return c.withStore(func(st backend) error {
		t, err := st.SetTerminalPrinter(c.ctx, booking.System, pos[0], url)
		if err != nil {
			return err
		}
		if t.Printer == "" {
			c.say("Terminal %s has no printer: its sessions get PDF tickets.", t.Name)
		} else {
			c.say("Terminal %s prints on %s.", t.Name, t.Printer)
		}
		return nil
	})
}

// pdfDirIn is the serve command's --pdf-dir, or tickets/ in the data dir.
// A relative --pdf-dir is made absolute here, so the path a session shows
// names the file whatever directory the server was started in.
func (sc serveConfig) pdfDirIn(dir dataDir) string {
	if sc.pdfDir == "" {
		return filepath.Join(string(dir), "tickets")
	}
	if abs, err := filepath.Abs(sc.pdfDir); err == nil {
		return abs
	}
	return sc.pdfDir
}
