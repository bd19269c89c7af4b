package booking

import (
	"context"
	"strconv"
	"time"
)

// Distributor returns: the weekly report a cinema sends each film's
// distributor. It counts the shows of one film that start in a week of
// seven local days: the admissions of each (paid tickets, comps — tickets
// sold at 0.00 — and house seats held back for guests, the last two at
// no money), the gross box office, the tax in it at the rates in force
// when each ticket was sold, the net and the film hire owed on the net at
// the percentage agreed for the film (or for that week of its run).
//
// A ticket counts while it is live: one refunded or voided by a cancel
// drops out, one moved by an exchange counts at the show and price it was
// moved to. So on a week whose sales, refunds and exchanges were all taken
// within it, the return's paid admissions and gross are the takings
// report's tickets less refunded and net for the film.

// ReturnDays is the length of a return: one week.
const ReturnDays = 7

// MaxRunWeek is the highest week of a run a hire can be set for.
const MaxRunWeek = 104

// FilmHire is the film-hire percentage agreed for a film: for its whole
// run (Week 0) or one week of it (Week 1 is the seven days from the day
// of its first show), hundredths of a percent as Rate.
type FilmHire struct {
	Film  int64
	Week  int
	Rate  Rate
	SetBy string
	SetAt time.Time
}

// Validate refuses a hire that cannot be stored.
func (h FilmHire) Validate() error {
	if h.Film <= 0 {
		return Errorf(EInvalid, "Name the film by its number.")
	}
	if h.Week < 0 || h.Week > MaxRunWeek {
		return Errorf(EInvalid, "A week of the run is 1 to %d (or none for the whole run), not %d.", MaxRunWeek, h.Week)
	}
	if h.Rate < 0 || h.Rate > MaxRate {
		return Errorf(EInvalid, "Film hire is 0 to 100 %%.")
	}
	return nil
}

// HireFor is the hire in force for week of a run among hires (the last
// set wins): the week's own, else the run's, else 0 and false.
func HireFor(hires []FilmHire, week int) (Rate, bool) {
	var run, own *FilmHire
	for i := range hires {
		h := &hires[i]
		switch h.Week {
		case week:
			own = h
		case 0:
			run = h
		}
	}
	switch {
	case own != nil:
		return own.Rate, true
	case run != nil:
		return run.Rate, true
	}
	return 0, false
}

// RunWeek is the week of a run that starts on day: 1 for the seven days
// from the local day of the film's first show, and so on; 0 when day is
// before it.
func RunWeek(first, day time.Time) int {
	f := DayStart(first.In(day.Location()))
	d := DayStart(day)
	if d.Before(f) {
		return 0
	}
	n := 0
	for w := f; !w.After(d); w = w.AddDate(0, 0, ReturnDays) {
		n++
	}
	return n
}

// HireOwed is the film hire on net at r, rounded half up to unit.
func HireOwed(net Money, r Rate, unit Money) Money {
	if unit <= 0 {
		unit = 1
	}
	a, neg := int64(net), net < 0
	if neg {
		a = -a
	}
	num, den := a*int64(r), int64(MaxRate)*int64(unit)
	q := num / den
	if 2*(num%den) >= den {
		q++
	}
	if neg {
		q = -q
	}
	return Money(q) * unit
}

// ReturnQuery asks for the return of one film for the week starting on
// Week's local day, at Site (AllSites: every site).
type ReturnQuery struct {
	Film int64
	Week time.Time
	Site int64
}

// Range is the query's week as a report range.
func (q ReturnQuery) Range() ReportRange {
	d := DayStart(q.Week)
	return ReportRange{From: d, To: d.AddDate(0, 0, ReturnDays-1), Site: q.Site}
}

// ReturnRow is one show of a return, or a day's or the week's total.
type ReturnRow struct {
	Show   int64
	Starts time.Time
	Hall   string
	// Paid is the live tickets sold at a price; Comps those at 0.00;
	// House the house seats held back for the show.
	Paid, Comps, House int
	Gross, Tax, Net    Money
}

// Admissions is every seat the show filled: paid, comps and house.
func (r ReturnRow) Admissions() int { return r.Paid + r.Comps + r.House }

// Add adds o's figures to r's.
func (r *ReturnRow) Add(o ReturnRow) {
	r.Paid += o.Paid
	r.Comps += o.Comps
	r.House += o.House
	r.Gross += o.Gross
	r.Tax += o.Tax
	r.Net += o.Net
}

// ReturnDay is one local day of a return with its shows.
type ReturnDay struct {
	Day   time.Time
	Shows []ReturnRow
	Total ReturnRow
}

// DistributorReturn is a film's week: its days, each with its shows (a
// day without a show is left out), the week's total, the hire agreed and
// what is owed.
type DistributorReturn struct {
	Film    Film
	From    time.Time // the week's first day
	To      time.Time // its last
	RunWeek int       // the week of the film's run (RunWeek), 0 before it
	Hire    Rate
	HireSet bool // false: no hire was agreed, Owed is 0
	Days    []ReturnDay
	Total   ReturnRow
	Owed    Money
}

// Totals adds the days and the week up and works out what is owed on
// the week's net (rounded once, not per show, as the trade does).
func (r *DistributorReturn) Totals(unit Money) {
	r.Total = ReturnRow{}
	for i := range r.Days {
		d := &r.Days[i]
		d.Total = ReturnRow{Starts: d.Day}
		for _, s := range d.Shows {
			d.Total.Add(s)
		}
		r.Total.Add(d.Total)
	}
	r.Owed = HireOwed(r.Total.Net, r.Hire, unit)
}

// DistributorSheet is a return as a sheet: a row a show, with its day.
func DistributorSheet(rep *DistributorReturn) *ReportSheet {
	if rep == nil {
		return nil
	}
	t := newSheet("distributor", rep.From, rep.To, "",
		SheetColumn{"day", "day"}, SheetColumn{"show", "show"}, SheetColumn{"starts", "starts"}, SheetColumn{"hall", "hall"},
		SheetColumn{"paid", "paid"}, SheetColumn{"comps", "comps"}, SheetColumn{"house", "house"},
		SheetColumn{"admissions", "admissions"}, SheetColumn{"gross", "gross"}, SheetColumn{"tax", "tax"},
		SheetColumn{"net", "net"}, SheetColumn{"hire_percent", "hire %"}, SheetColumn{"owed", "owed"})
	t.Report = "distributor-film-" + strconv.FormatInt(rep.Film.ID, 10)
	hire := any(nil)
	if rep.HireSet {
		hire = rep.Hire.Percent()
	}
	for _, d := range rep.Days {
		for _, s := range d.Shows {
			t.Rows = append(t.Rows, []any{d.Day.Format(time.DateOnly), s.Show, s.Starts.Format(sheetTime), s.Hall,
				s.Paid, s.Comps, s.House, s.Admissions(), s.Gross, s.Tax, s.Net, nil, nil})
		}
	}
	tot := rep.Total
	t.Total = map[string]any{"paid": tot.Paid, "comps": tot.Comps, "house": tot.House, "admissions": tot.Admissions(),
		"gross": tot.Gross, "tax": tot.Tax, "net": tot.Net, "hire_percent": hire, "owed": rep.Owed}
	return t
}

// Returns are the distributor returns and the film hire they use.
type Returns interface {
	// SetFilmHire sets the hire agreed for a film's run or one week of
	// it; returns from then on use it (the last set wins). Needs
	// ActionManageHalls. EInvalid for a bad hire; ENotFound for the film.
	SetFilmHire(ctx context.Context, actor Actor, h FilmHire) (*FilmHire, error)
	// DistributorReturn reports a film's week. Needs ActionViewReports.
	// ENotFound for the film; EInvalid for no week.
	DistributorReturn(ctx context.Context, actor Actor, q ReturnQuery) (*DistributorReturn, error)
}
