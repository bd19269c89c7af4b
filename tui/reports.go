package tui

import (
	"context"
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The reports screen (managers, ctrl+r): one report at a time over a
// period of days ending on a chosen day, drawn as a table no wider than
// the window; occupancy carries a bar a row. tab changes the report, b
// what it adds up by, p the period, ← → move it, e saves it as a CSV file
// in the data folder's exports (reports_export.go).

// reportKind is which report the screen shows.
type reportKind int

const (
	reportTakings reportKind = iota
	reportOccupancy
	reportRefunds
	reportShifts
	reportNoShows
	reportReservations
	reportVouchers
	// reportDistributor is a film's week for its distributor; b steps
	// through the films (reports_books.go).
	reportDistributor
	numReportKinds
)

var reportNames = [numReportKinds]string{"Takings", "Occupancy", "Refunds", "Shifts", "No-shows", "Reservations", "Vouchers", "Returns"}

// reportBys are the ways each report adds up; nil for one way only.
var reportBys = [numReportKinds][]string{
	reportTakings:   {"day", "film", "show", "method", "clerk"},
	reportOccupancy: {"show", "hall"},
}

// reportPeriod is how many days a report covers, ending on its day.
type reportPeriod int

const (
	periodDay reportPeriod = iota
	periodWeek
	periodMonth
	periodYear
	numPeriods
)

var periodNames = [numPeriods]string{"day", "week", "month", "year"}

// reportsState is the report on screen and what it was asked for.
type reportsState struct {
	back   screen
	kind   reportKind
	by     int // index into reportBys[kind]
	period reportPeriod
	end    time.Time // the last day
	table  *reportTable
	// sheet is the same report as the CSV export writes it.
	sheet  *booking.ReportSheet
	busy   bool
	seq    int
	offset int    // the first row shown
	note   string // what the last export did, said above the table
	// exporting is set while a CSV file is being written.
	exporting bool
	// films are the films the distributor return steps through (by).
	films []booking.Film
}

// reportTable is a report as the screen draws it: cells already cleaned
// and formatted, by the command that read it.
type reportTable struct {
	head  []string
	rows  [][]string
	total []string
	// bars are the occupancy of each row, 0..100, drawn as a bar; nil for
	// other reports.
	bars     []float64
	totalBar float64
	empty    string // what to say when there are no rows
	// cut are the columns of names that may be shortened to fit the
	// window; figures never are.
	cut []int
}

type reportMsg struct {
	seq   int
	table *reportTable
	sheet *booking.ReportSheet
	films []booking.Film // the films read for the distributor return
	err   error
}

// openReports shows the reports screen, at the takings of the week to
// today the first time.
func (m *Model) openReports() tea.Cmd {
	r := &m.reports
	if r.end.IsZero() {
		*r = reportsState{period: periodWeek, end: dayOf(m.now()), seq: r.seq}
	}
	r.back = m.returnScreen()
	m.screen = screenReports
	m.setInfo("")
	return m.loadReportCmd()
}

// span is the range the report covers.
func (r *reportsState) span() booking.ReportRange {
	from := r.end
	if r.kind == reportDistributor { // always a week
		return booking.ReportRange{From: r.end.AddDate(0, 0, -(booking.ReturnDays - 1)), To: r.end}
	}
	switch r.period {
	case periodWeek:
		from = r.end.AddDate(0, 0, -6)
	case periodMonth:
		from = r.end.AddDate(0, -1, 1)
	case periodYear:
		from = r.end.AddDate(-1, 0, 1)
	}
	return booking.ReportRange{From: from, To: r.end}
}

// step moves the period back (-1) or on (+1) by its own length.
func (r *reportsState) step(dir int) {
	switch r.period {
	case periodDay:
		r.end = r.end.AddDate(0, 0, dir)
	case periodWeek:
		r.end = r.end.AddDate(0, 0, 7*dir)
	case periodMonth:
		r.end = r.end.AddDate(0, dir, 0)
	case periodYear:
		r.end = r.end.AddDate(dir, 0, 0)
	}
}

func (r *reportsState) byName() string {
	if r.kind == reportDistributor {
		return r.filmName()
	}
	if bys := reportBys[r.kind]; len(bys) > 0 {
		return bys[r.by%len(bys)]
	}
	return ""
}

func (m *Model) loadReportCmd() tea.Cmd {
	if m.clerk == nil {
		return nil
	}
	r := &m.reports
	r.seq++
	// The last answer goes: under the new title it would read as the
	// new report's until that one arrives.
	r.busy, r.table, r.sheet = true, nil, nil
	store, actor, seq := m.store, m.actor(), r.seq
	kind, by, span := r.kind, r.byName(), r.span()
	if kind == reportDistributor {
		return m.distributorCmd(seq, span)
	}
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		var t *reportTable
		var sh *booking.ReportSheet
		var err error
		switch kind {
		case reportTakings:
			var rep *booking.TakingsReport
			rep, err = store.ReportTakings(ctx, actor, booking.TakingsQuery{ReportRange: span, By: booking.TakingsBy(by)})
			t, sh = takingsTable(rep), booking.TakingsSheet(rep)
		case reportOccupancy:
			var rep *booking.OccupancyReport
			rep, err = store.ReportOccupancy(ctx, actor, booking.OccupancyQuery{ReportRange: span, By: booking.OccupancyBy(by)})
			t, sh = occupancyTable(rep), booking.OccupancySheet(rep)
		case reportRefunds:
			var rep *booking.RefundsReport
			rep, err = store.ReportRefunds(ctx, actor, span)
			t, sh = refundsTable(rep), booking.RefundsSheet(rep)
		case reportShifts:
			var rep *booking.ShiftsReport
			rep, err = store.ReportShifts(ctx, actor, span)
			t, sh = shiftsTable(rep), booking.ShiftsSheet(rep)
		case reportReservations:
			var rep *booking.ReservationsReport
			rep, err = store.ReportReservations(ctx, actor, span)
			t, sh = reservationsTable(rep), booking.ReservationsSheet(rep)
		case reportVouchers:
			var rep *booking.VoucherReport
			rep, err = store.ReportVouchers(ctx, actor, span)
			t, sh = vouchersTable(rep), booking.VouchersSheet(rep)
		default:
			var rep *booking.NoShowsReport
			rep, err = store.ReportNoShows(ctx, actor, span)
			t, sh = noShowsTable(rep), booking.NoShowsSheet(rep)
		}
		return reportMsg{seq: seq, table: t, sheet: sh, err: err}, err
	})
}

func (m *Model) onReport(msg reportMsg) tea.Cmd {
	r := &m.reports
	if msg.seq != r.seq {
		return nil // an older answer
	}
	r.busy = false
	if msg.err != nil {
		r.table = nil
		m.fail(msg.err)
		return nil
	}
	r.table, r.sheet, r.offset = msg.table, msg.sheet, 0
	if msg.films != nil {
		r.films = msg.films
	}
	return nil
}

// reportsScreen is the manager's reports (see reportsState).
type reportsScreen struct{}

func (reportsScreen) keys(m *Model, msg tea.KeyPressMsg) tea.Cmd {
	r := &m.reports
	k := m.keys
	switch {
	case key.Matches(msg, k.Back):
		return m.goBack(r.back)
	case key.Matches(msg, k.Up):
		r.offset = max(r.offset-1, 0)
		return nil
	case key.Matches(msg, k.Down):
		if r.table != nil {
			r.offset = min(r.offset+1, max(len(r.table.rows)-1, 0))
		}
		return nil
	case key.Matches(msg, k.ReportNext):
		r.kind, r.by = (r.kind+1)%numReportKinds, 0
	case key.Matches(msg, k.ReportPrev):
		r.kind, r.by = (r.kind+numReportKinds-1)%numReportKinds, 0
	case key.Matches(msg, k.ReportBy):
		if r.bys() < 2 {
			return nil
		}
		r.by = (r.by + 1) % r.bys()
	case key.Matches(msg, k.ReportPeriod):
		r.period = (r.period + 1) % numPeriods
	case key.Matches(msg, k.PrevDay):
		r.step(-1)
	case key.Matches(msg, k.NextDay):
		r.step(1)
	case key.Matches(msg, k.ReportExport):
		return m.exportReportCmd()
	default:
		return nil
	}
	m.setInfo("")
	r.note = ""
	return m.loadReportCmd()
}

func (reportsScreen) focus(*Model) *field { return nil }

// back brings find and the door opened from the reports back here.
func (reportsScreen) back(*Model) screen { return screenReports }

func (reportsScreen) help(m *Model) helpKeys {
	k := m.keys
	by := k.ReportBy
	if m.reports.bys() < 2 {
		by.SetEnabled(false)
	}
	earlier, later := says(k.PrevDay, "earlier"), says(k.NextDay, "later")
	export := k.ReportExport
	if m.reports.sheet == nil {
		export.SetEnabled(false)
	}
	return helpKeys{
		short: []key.Binding{k.ReportNext, by, says(k.ReportPeriod, "period"), earlier, later, export, k.Back, k.Help},
		full:  [][]key.Binding{{k.ReportNext, k.ReportPrev, by, k.ReportPeriod}, {earlier, later, k.Up, k.Down, export}, k.global()},
	}
}

// title says which report, by what, over which days.
func (r *reportsState) title() string {
	s := r.span()
	days := s.From.Format("Mon 2 Jan 2006")
	if !s.From.Equal(s.To) {
		days = s.From.Format("Mon 2 Jan") + " – " + s.To.Format("Mon 2 Jan 2006")
	}
	t := reportNames[r.kind]
	if by := r.byName(); by != "" {
		t += " by " + by
	}
	return fmt.Sprintf("%s · %s · %s", t, periodNames[r.period], days)
}
