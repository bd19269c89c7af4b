package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"boxoffice/booking"
)

// report: the takings, refunds, occupancy, shifts and no-shows of a range
// of the cinema's local days, as a table for a person, --csv for a
// spreadsheet (a header row of the names JSON uses too, the rows, then a
// totals row whose first cell is "total") or --json for a program (the rows and the same totals).

const reportLong = `Every report covers the local days --from to --to, both included (today when
neither is given; --to is --from when only that is). At most 366 days.

  takings    the money taken and paid back, with the tickets: --by day (default),
             film, show, method or clerk. A payment counts on the day it was
             taken, for the person who took it: a refund on Tuesday of a
             Monday sale lowers Tuesday's net and the refunding clerk's.
  refunds    every refund paid out, with who paid it and who approved it.
  occupancy  the seats sold of the shows starting in the range, --by show
             (default) or hall.
  shifts     the shifts opened in the range: float, cash, expected, counted
             and the variance.
  noshows    the bookings marked no_show whose show started in the range.
  reservations  the reservations made in the range, by kiosk and counter:
             taken, paid, lapsed and still reserved.
  vouchers   every voucher redeemed in the range: its booking, who sold it,
             the discount, and whether a cancel gave the use back.

--csv prints a header row, one row a line and a last row of totals whose
first cell is "total"; --json prints the rows and the same totals.`

func reportCommand() *command {
	sub := func(name, args, short string, kind reportKind) *command {
		return &command{name: name, args: args, short: short, flags: reportFlags(kind)}
	}
	return &command{name: "report", long: reportLong,
		json: "print the rows and totals as JSON", missing: "usage: boxoffice report takings|refunds|occupancy|shifts|noshows|reservations --from D --to D, or report shift ID",
		subs: []*command{
			sub("takings", "[--from D] [--to D] [--by day|film|show|method|clerk] [--csv | --json]", "the money taken and refunded", reportTakings),
			sub("refunds", "[--from D] [--to D] [--csv | --json]", "every refund with who approved it", reportRefunds),
			sub("occupancy", "[--from D] [--to D] [--by show|hall] [--csv | --json]", "the seats sold per show or hall", reportOccupancy),
			sub("shifts", "[--from D] [--to D] [--csv | --json]", "the shifts with their cash variance", reportShifts),
			sub("noshows", "[--from D] [--to D] [--csv | --json]", "the bookings nobody came for", reportNoShows),
			reportShiftCommand(),
			// kiosk
			sub("reservations", "[--from D] [--to D] [--csv | --json]", "reservations taken, paid and lapsed", reportReservations),
			sub("vouchers", "[--from D] [--to D] [--csv | --json]", "the vouchers redeemed and their discounts", reportVouchers),
			// The books: a film's week for its distributor.
			reportDistributorCmd(),
			// The tax by rate (settings.go).
			reportTaxCmd(),
		}}
}

// reportKind names one report.
type reportKind int

const (
	reportTakings reportKind = iota
	reportRefunds
	reportOccupancy
	reportShifts
	reportNoShows
	// kiosk
	reportReservations
	reportVouchers
)

// reportArgs are a report's flags.
type reportArgs struct {
	kind     reportKind
	from, to string
	by       string
	csv      bool
}

func reportFlags(kind reportKind) func(fs *flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		a := &reportArgs{kind: kind}
		fs.StringVar(&a.from, "from", "", "the first `DAY`, YYYY-MM-DD (default today)")
		fs.StringVar(&a.to, "to", "", "the last `DAY`, YYYY-MM-DD (default the first)")
		fs.BoolVar(&a.csv, "csv", false, "print CSV: a header row, the rows, a totals row")
		switch kind {
		case reportTakings:
			fs.StringVar(&a.by, "by", "day", "add up by `KEY`: day, film, show, method or clerk")
		case reportOccupancy:
			fs.StringVar(&a.by, "by", "show", "per `KEY`: show or hall")
		}
		return func(c *env, pos []string) error { return c.runReport(pos, a) }
	}
}

// reportRange reads --from and --to as local days.
func (c *env) reportRange(a *reportArgs) (booking.ReportRange, error) {
	day := func(flagName, s string, def time.Time) (time.Time, error) {
		if s == "" {
			return def, nil
		}
		t, err := time.ParseInLocation(time.DateOnly, s, time.Local)
		if err != nil {
			return time.Time{}, usagef("--%s %q is not a day like 2026-12-01", flagName, booking.CleanLine(s, 20))
		}
		return t, nil
	}
	from, err := day("from", a.from, booking.DayStart(c.now().In(time.Local)))
	if err != nil {
		return booking.ReportRange{}, err
	}
	to, err := day("to", a.to, from)
	if err != nil {
		return booking.ReportRange{}, err
	}
	r := booking.ReportRange{From: from, To: to}
	return r, r.Validate()
}

// runReport runs one report and prints it in the form asked for. Every
// value is checked before the store opens.
func (c *env) runReport(pos []string, a *reportArgs) error {
	if len(pos) > 0 {
		return usagef("report takes no arguments, only --from, --to and --by")
	}
	if a.csv && c.jsonOut {
		return usagef("--csv or --json, not both")
	}
	r, err := c.reportRange(a)
	if err != nil {
		return err
	}
	run, err := reportRunner(a, &r)
	if err != nil {
		return err
	}
	return c.withStore(func(st backend) error {
		site, _, err := c.site(st)
		if err != nil {
			return err
		}
		r.Site = site.ID // 0 without --site: every site
		t, err := run(c, st)
		if err != nil {
			return err
		}
		if a.csv {
			return t.writeCSV(c.stdout)
		}
		c.print(t)
		return nil
	})
}

// reportRunner returns the store call of a report, its --by checked.
func reportRunner(a *reportArgs, r *booking.ReportRange) (func(*env, backend) (*reportTable, error), error) {
	switch a.kind {
	case reportTakings:
		by, err := booking.ParseTakingsBy(a.by)
		if err != nil {
			return nil, usagef("%s", booking.ErrorMessage(err))
		}
		return func(c *env, st backend) (*reportTable, error) {
			rep, err := st.ReportTakings(c.ctx, booking.System, booking.TakingsQuery{ReportRange: *r, By: by})
			if err != nil {
				return nil, err
			}
			t, err := c.withItems(st, sheet(booking.TakingsSheet(rep)), *r) // concessions (items.go)
			if err != nil {
				return nil, err
			}
			return c.withGiftCards(st, t, *r) // gift cards (giftcards.go)
		}, nil
	case reportOccupancy:
		by, err := booking.ParseOccupancyBy(a.by)
		if err != nil {
			return nil, usagef("%s", booking.ErrorMessage(err))
		}
		return func(c *env, st backend) (*reportTable, error) {
			rep, err := st.ReportOccupancy(c.ctx, booking.System, booking.OccupancyQuery{ReportRange: *r, By: by})
			return sheet(booking.OccupancySheet(rep)), err
		}, nil
	case reportRefunds:
		return func(c *env, st backend) (*reportTable, error) {
			rep, err := st.ReportRefunds(c.ctx, booking.System, *r)
			return sheet(booking.RefundsSheet(rep)), err
		}, nil
	case reportShifts:
		return func(c *env, st backend) (*reportTable, error) {
			rep, err := st.ReportShifts(c.ctx, booking.System, *r)
			return sheet(booking.ShiftsSheet(rep)), err
		}, nil
	case reportVouchers:
		return func(c *env, st backend) (*reportTable, error) {
			rep, err := st.ReportVouchers(c.ctx, booking.System, *r)
			if err != nil {
				return nil, err
			}
			return sheet(booking.VouchersSheet(rep)), nil
		}, nil
	case reportReservations:
		return func(c *env, st backend) (*reportTable, error) {
			rep, err := st.ReportReservations(c.ctx, booking.System, *r)
			return sheet(booking.ReservationsSheet(rep)), err
		}, nil
	}
	return func(c *env, st backend) (*reportTable, error) {
		rep, err := st.ReportNoShows(c.ctx, booking.System, *r)
		return sheet(booking.NoShowsSheet(rep)), err
	}, nil
}

// reportTable is a report as the command line prints it: the sheet
// (booking.ReportSheet, which the counter's reports screen exports too),
// as text, CSV or JSON, and for takings the items sold beside the tickets
// (nil when none).
type reportTable struct {
	*booking.ReportSheet
	items *reportTable
	// cards are the gift cards of a takings report (nil when none).
	cards *booking.GiftCardReport
}

// sheet wraps a report's sheet, nil for nil.
func sheet(s *booking.ReportSheet) *reportTable {
	if s == nil {
		return nil
	}
	return &reportTable{ReportSheet: s}
}

// cellJSON is a cell as JSON carries it: money as the string "12.50" (as
// every amount the command line prints), counts as numbers.
func cellJSON(v any) any {
	switch x := v.(type) {
	case booking.Money:
		return x.String()
	case string:
		return booking.CleanLine(x, 200)
	}
	return v
}

// heads is the text's header; the CSV's is the sheet's keys, the names
// JSON uses.
func (t *reportTable) heads() []string {
	out := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		out[i] = strings.ToUpper(col.Head)
	}
	return out
}

// writeCSV prints the sheet, then the items' sheet when there is one.
func (t *reportTable) writeCSV(w io.Writer) error {
	if err := t.WriteCSV(w); err != nil {
		return err
	}
	return t.writeItemsCSV(w)
}

func (t *reportTable) writeText(w io.Writer) {
	fmt.Fprintf(w, "%s, %s to %s", t.Report, t.From.Format("Mon 2 Jan 2006"), t.To.Format("Mon 2 Jan 2006"))
	if t.By != "" {
		fmt.Fprintf(w, ", by %s", t.By)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	line := func(cells []string) { fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t") }
	line(t.heads())
	for _, row := range t.Rows {
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = booking.SheetCell(v)
		}
		line(cells)
	}
	line(t.TotalRow())
	tw.Flush()
	t.writeItemsText(w)
	t.writeCardsText(w)
}

func (t *reportTable) jsonValue() any {
	rows := make([]map[string]any, 0, len(t.Rows))
	for _, row := range t.Rows {
		m := map[string]any{}
		for i, v := range row {
			m[t.Columns[i].Key] = cellJSON(v)
		}
		rows = append(rows, m)
	}
	total := map[string]any{}
	for k, v := range t.Total {
		total[k] = cellJSON(v)
	}
	out := map[string]any{"report": t.Report, "from": t.From.Format(time.DateOnly), "to": t.To.Format(time.DateOnly),
		"rows": rows, "count": len(rows), "total": total}
	if t.By != "" {
		out["by"] = t.By
	}
	t.itemsJSON(out)
	t.cardsJSON(out)
	return out
}
