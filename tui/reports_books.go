package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
)

// The distributor return on the reports screen: the week ending on the
// screen's day for one film, b stepping through the films by title, e
// exporting the same sheet as `boxoffice report distributor --csv`.

// bys is how many ways the report on show adds up.
func (r *reportsState) bys() int {
	if r.kind == reportDistributor {
		return len(r.films)
	}
	return len(reportBys[r.kind])
}

// filmName is the film the return is of, "" before the films are read.
func (r *reportsState) filmName() string {
	if len(r.films) == 0 {
		return ""
	}
	return booking.CleanLine(r.films[r.by%len(r.films)].Title, 40)
}

// distributorCmd reads the films (the first time) and the return of the
// one chosen for the week span ends.
func (m *Model) distributorCmd(seq int, span booking.ReportRange) tea.Cmd {
	store, actor, films, by := m.store, m.actor(), m.reports.films, m.reports.by
	return m.call(func(ctx context.Context) (tea.Msg, error) {
		if len(films) == 0 {
			var err error
			if films, err = store.Films(ctx, actor); err != nil {
				return reportMsg{seq: seq, err: err}, err
			}
		}
		if len(films) == 0 {
			return reportMsg{seq: seq, table: &reportTable{empty: "No film is on the programme."}, films: films}, nil
		}
		f := films[by%len(films)]
		rep, err := store.DistributorReturn(ctx, actor, booking.ReturnQuery{Film: f.ID, Week: span.From})
		return reportMsg{seq: seq, table: distributorTable(rep), sheet: booking.DistributorSheet(rep), films: films}, err
	})
}

// distributorTable is a return as the screen draws it: a row a show,
// then the week with the hire owed.
func distributorTable(rep *booking.DistributorReturn) *reportTable {
	if rep == nil {
		return nil
	}
	t := &reportTable{head: []string{"Show", "Hall", "Paid", "Comps", "House", "Gross", "Tax", "Net"},
		empty: "The film has no show this week.", cut: []int{0, 1}}
	row := func(a, b string, x booking.ReturnRow) []string {
		return []string{a, b, reportCount(x.Paid), reportCount(x.Comps), reportCount(x.House), reportMoney(x.Gross), reportMoney(x.Tax), reportMoney(x.Net)}
	}
	for _, d := range rep.Days {
		for _, s := range d.Shows {
			t.rows = append(t.rows, row(s.Starts.Format(reportStamp), booking.CleanLine(s.Hall, 20), s))
		}
	}
	owed := "no hire set"
	if rep.HireSet {
		owed = rep.Hire.String() + " owed " + reportMoney(rep.Owed)
	}
	t.total = row("Total", owed, rep.Total)
	return t
}
