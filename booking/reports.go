package booking

import (
	"context"
	"time"
)

// Reports add up what the box office did over a range of the cinema's
// local days (time.Local, or the location of the range's dates): money
// taken and refunded, seats filled, shifts and their cash variance, and
// bookings nobody came for. They only read; a report never writes.

// MaxReportDays is the longest range one report covers: a year and a day,
// so a whole year (a leap one too) fits.
const MaxReportDays = 366

// ReportRange is a range of local days, From and To both included. Only
// their dates count: the days start at midnight in From's location.
type ReportRange struct {
	From, To time.Time
	// Site keeps the report to one site of a chain (AllSites, 0: every
	// site): a payment counts at its booking's show's hall's site, a show
	// at its hall's, a shift at the site it was opened at.
	Site int64
}

// Validate refuses a range that ends before it starts or covers more than
// MaxReportDays.
func (r ReportRange) Validate() error {
	if r.From.IsZero() || r.To.IsZero() {
		return Errorf(EInvalid, "A report needs the first and the last day.")
	}
	days := r.Days()
	if len(days) == 0 {
		return Errorf(EInvalid, "The last day (%s) is before the first (%s).", r.To.Format(time.DateOnly), r.From.Format(time.DateOnly))
	}
	if len(days) > MaxReportDays {
		return Errorf(EInvalid, "A report covers at most %d days; %s to %s is %d.", MaxReportDays,
			r.From.Format(time.DateOnly), r.To.Format(time.DateOnly), len(days))
	}
	return nil
}

// Days is the start of every local day of the range, in order; a day is
// 23 or 25 hours long where the clocks change.
func (r ReportRange) Days() []time.Time {
	first := DayStart(r.From)
	last := DayStart(r.To.In(r.From.Location()))
	var out []time.Time
	for d := first; !d.After(last) && len(out) <= MaxReportDays; d = d.AddDate(0, 0, 1) {
		out = append(out, d)
	}
	return out
}

// Start and End bound the range: the first day's midnight and the
// midnight after the last day.
func (r ReportRange) Start() time.Time { return DayStart(r.From) }
func (r ReportRange) End() time.Time {
	return DayStart(r.To.In(r.From.Location())).AddDate(0, 0, 1)
}

// DayStart is the midnight that starts t's day in t's location.
func DayStart(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

// TakingsBy is what a takings report adds up by.
type TakingsBy string

const (
	ByDay    TakingsBy = "day"
	ByFilm   TakingsBy = "film"
	ByShow   TakingsBy = "show"
	ByMethod TakingsBy = "method"
	ByClerk  TakingsBy = "clerk"
)

// TakingsBys lists the ways to add takings up, the default first.
func TakingsBys() []TakingsBy { return []TakingsBy{ByDay, ByFilm, ByShow, ByMethod, ByClerk} }

// ParseTakingsBy reads a --by value; "" is by day.
func ParseTakingsBy(s string) (TakingsBy, error) {
	if s == "" {
		return ByDay, nil
	}
	for _, b := range TakingsBys() {
		if string(b) == s {
			return b, nil
		}
	}
	return "", Errorf(EInvalid, "Takings add up by day, film, show, method or clerk, not %q.", CleanLine(s, 20))
}

// TakingsQuery asks for the takings of a range, added up by one key.
type TakingsQuery struct {
	ReportRange
	By TakingsBy
}

// TakingsRow is the money of one key (a day "2026-12-01", a film, a show,
// a payment method, a clerk) over the range. A payment counts on the day
// it was taken, for the show of its booking, by the method it went by and
// for the person who took or paid it out: a refund on Tuesday of a
// Monday sale lowers Tuesday's net, and the refunding clerk's.
type TakingsRow struct {
	Key   string
	Label string
	// Sales is the money taken by sales; Refunds what refunds paid out;
	// Net is Sales − Refunds.
	Sales   Money
	Refunds Money
	Net     Money
	// Tickets is the tickets the sales sold; Refunded the tickets the
	// refunds paid back.
	Tickets  int
	Refunded int
}

// Add adds o's figures to r's.
func (r *TakingsRow) Add(o TakingsRow) {
	r.Sales += o.Sales
	r.Refunds += o.Refunds
	r.Net += o.Net
	r.Tickets += o.Tickets
	r.Refunded += o.Refunded
}

// TakingsReport is the takings of a range with their total.
type TakingsReport struct {
	From  time.Time
	To    time.Time
	By    TakingsBy
	Rows  []TakingsRow
	Total TakingsRow
}

// Totals sets the report's total from its rows.
func (r *TakingsReport) Totals() {
	r.Total = TakingsRow{Key: "total", Label: "Total"}
	for _, row := range r.Rows {
		r.Total.Add(row)
	}
}

// RefundRow is one refund paid out. A refund since refunds went ticket by
// ticket is for one seat and names its approver itself; an older refund
// of a whole booking has no seat, and its approver is the booking's.
type RefundRow struct {
	At      time.Time
	Booking string
	Show    string
	Starts  time.Time
	// Seat is the refunded ticket's seat; "" for a whole booking.
	Seat   string
	Amount Money
	Method PayMethod
	// By paid it out; ApprovedBy approved it ("" when By needed nobody).
	By         string
	ApprovedBy string
	// Reason is why: the reason given with the refund (a cancel's, for
	// the refunds of a cancel), or for a refund made before refunds kept
	// their own, the booking's cancel reason; "" when none was given.
	Reason string
}

// RefundsReport is the refunds paid out over a range, oldest first.
type RefundsReport struct {
	From  time.Time
	To    time.Time
	Rows  []RefundRow
	Count int
	Total Money
}

// Totals sets the report's count and total from its rows.
func (r *RefundsReport) Totals() {
	r.Count, r.Total = len(r.Rows), 0
	for _, row := range r.Rows {
		r.Total += row.Amount
	}
}

// OccupancyBy is what an occupancy report is per.
type OccupancyBy string

const (
	PerShow OccupancyBy = "show"
	PerHall OccupancyBy = "hall"
)

// ParseOccupancyBy reads a --by value; "" is per show.
func ParseOccupancyBy(s string) (OccupancyBy, error) {
	switch OccupancyBy(s) {
	case "", PerShow:
		return PerShow, nil
	case PerHall:
		return PerHall, nil
	}
	return "", Errorf(EInvalid, "Occupancy is per show or per hall, not %q.", CleanLine(s, 20))
}

// OccupancyQuery asks for the occupancy of the shows starting in a range.
type OccupancyQuery struct {
	ReportRange
	By OccupancyBy
}

// OccupancyRow is how full one show was, or the shows of one hall over the
// range: the seats sold and not refunded against the seats there were.
type OccupancyRow struct {
	Key    string
	Label  string
	Hall   string
	Starts time.Time // per show only
	// Shows is how many shows the row covers (1 per show).
	Shows    int
	Capacity int
	Sold     int
}

// Percent is the share of the seats sold, 0..100, one decimal.
func (r OccupancyRow) Percent() float64 {
	if r.Capacity == 0 {
		return 0
	}
	return float64(r.Sold*1000/r.Capacity) / 10
}

// OccupancyReport is the occupancy of a range with its total.
type OccupancyReport struct {
	From  time.Time
	To    time.Time
	By    OccupancyBy
	Rows  []OccupancyRow
	Total OccupancyRow
}

// Totals sets the report's total from its rows.
func (r *OccupancyReport) Totals() {
	r.Total = OccupancyRow{Key: "total", Label: "Total"}
	for _, row := range r.Rows {
		r.Total.Shows += row.Shows
		r.Total.Capacity += row.Capacity
		r.Total.Sold += row.Sold
	}
}

// ShiftRow is one person's shift opened in the range, with the cash it
// should hold and, once closed, what was counted and the variance.
type ShiftRow struct {
	ID       int64
	Staff    string
	Terminal string
	Status   string // open, closed
	OpenedAt time.Time
	ClosedAt *time.Time
	Float    Money
	// CashSales and CashRefunds are the shift's cash payments; Card its
	// card sales less card refunds.
	CashSales   Money
	CashRefunds Money
	Card        Money
	// Expected is float + cash sales − cash refunds: as recorded at the
	// close, or as it stands for an open shift.
	Expected Money
	// Counted and Variance (counted − expected) are set once closed.
	Counted  *Money
	Variance *Money
}

// ShiftsReport is the shifts opened in a range, oldest first, with the
// totals of their cash and the net variance of the closed ones.
type ShiftsReport struct {
	From  time.Time
	To    time.Time
	Rows  []ShiftRow
	Total ShiftTotal
}

// ShiftTotal adds the shifts of a report up. Expected is every shift's;
// Counted and Variance are the closed ones', so Variance is not Counted −
// Expected while a shift is open.
type ShiftTotal struct {
	Shifts      int
	Open        int
	Float       Money
	CashSales   Money
	CashRefunds Money
	Card        Money
	Expected    Money
	Counted     Money
	Variance    Money
}

// Totals sets the report's total from its rows.
func (r *ShiftsReport) Totals() {
	t := ShiftTotal{Shifts: len(r.Rows)}
	for _, row := range r.Rows {
		t.Float += row.Float
		t.CashSales += row.CashSales
		t.CashRefunds += row.CashRefunds
		t.Card += row.Card
		t.Expected += row.Expected
		if row.Counted == nil {
			t.Open++
			continue
		}
		t.Counted += *row.Counted
		t.Variance += *row.Variance
	}
	r.Total = t
}

// NoShowRow is a booking nobody came for: its show started in the range
// and it was marked no_show.
type NoShowRow struct {
	Booking  string
	Show     string
	Hall     string
	Starts   time.Time
	Customer string
	Tickets  int
	Total    Money
}

// NoShowsReport is the no-shows of a range, by show start.
type NoShowsReport struct {
	From  time.Time
	To    time.Time
	Rows  []NoShowRow
	Count int
	// Tickets and Total are the seats and money of the bookings.
	Tickets int
	Total   Money
}

// Totals sets the report's totals from its rows.
func (r *NoShowsReport) Totals() {
	r.Count, r.Tickets, r.Total = len(r.Rows), 0, 0
	for _, row := range r.Rows {
		r.Tickets += row.Tickets
		r.Total += row.Total
	}
}

// Reports reads what the box office did over a range of local days. Every
// method needs ActionViewReports, reads on the store's read side and
// writes nothing; each returns EInvalid for a range that fails
// ReportRange.Validate (or an unknown By), and a report of nothing is an
// empty one, not an error.
type Reports interface {
	// ReportTakings adds up the sale and refund payments taken in the
	// range by q.By (TakingsRow says which payment counts where), by key.
	ReportTakings(ctx context.Context, actor Actor, q TakingsQuery) (*TakingsReport, error)
	// ReportRefunds lists the refunds paid out in the range with who paid
	// and who approved each.
	ReportRefunds(ctx context.Context, actor Actor, r ReportRange) (*RefundsReport, error)
	// ReportOccupancy is how full the shows starting in the range are, per
	// show (by start) or per hall (by name).
	ReportOccupancy(ctx context.Context, actor Actor, q OccupancyQuery) (*OccupancyReport, error)
	// ReportShifts lists the shifts opened in the range with their
	// variance.
	ReportShifts(ctx context.Context, actor Actor, r ReportRange) (*ShiftsReport, error)
	// ReportNoShows lists the bookings marked no_show whose show started
	// in the range.
	ReportNoShows(ctx context.Context, actor Actor, r ReportRange) (*NoShowsReport, error)
}
