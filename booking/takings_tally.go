package booking

import (
	"cmp"
	"slices"
	"strconv"
	"time"
)

// TakingsTally adds a takings report up as a store reads its payments:
// a row per key in the order first seen (by day, every day of the range,
// taken or not), the shows named and, by film, folded into their films;
// then the report in its order. Both stores add up through it, so they
// give the same report row for row.
type TakingsTally struct {
	q      TakingsQuery
	rows   map[string]*TakingsRow
	order  []string
	starts map[string]int64 // a show's key -> its start (unix seconds)
	films  map[string]*TakingsRow
	byFilm []string // films' keys in the order first named
}

// NewTakingsTally starts the tally of q.
func NewTakingsTally(q TakingsQuery) *TakingsTally {
	t := &TakingsTally{q: q, rows: map[string]*TakingsRow{}, starts: map[string]int64{}, films: map[string]*TakingsRow{}}
	if q.By == ByDay {
		for _, d := range q.Days() {
			t.Row(d.Format(time.DateOnly)).Label = d.Format("Mon 2 Jan 2006")
		}
	}
	return t
}

// Row is key's row, made when first asked for.
func (t *TakingsTally) Row(key string) *TakingsRow {
	r, ok := t.rows[key]
	if !ok {
		r = &TakingsRow{Key: key}
		t.rows[key] = r
		t.order = append(t.order, key)
	}
	return r
}

// ShowIDs are the shows a report by show or film has rows for, to name
// with NameShow; none for the other reports.
func (t *TakingsTally) ShowIDs() []int64 {
	if t.q.By != ByShow && t.q.By != ByFilm {
		return nil
	}
	ids := make([]int64, 0, len(t.rows))
	for _, k := range t.order {
		if id, err := strconv.ParseInt(k, 10, 64); err == nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// NameShow labels show's row (title · hall · start, in the range's
// location) and, in a report by film, adds it to its film's row. Call it
// once the show's row is added up.
func (t *TakingsTally) NameShow(show, film int64, title, hall string, starts int64) {
	key := strconv.FormatInt(show, 10)
	r, ok := t.rows[key]
	if !ok {
		return
	}
	r.Label = title + " · " + hall + " · " + time.Unix(starts, 0).In(t.q.From.Location()).Format("Mon 2 Jan 15:04")
	t.starts[key] = starts
	if t.q.By != ByFilm {
		return
	}
	fk := strconv.FormatInt(film, 10)
	f, ok := t.films[fk]
	if !ok {
		f = &TakingsRow{Key: fk, Label: title}
		t.films[fk] = f
		t.byFilm = append(t.byFilm, fk)
	}
	f.Add(*r)
}

// Report is the rows in order — days by date, films by title, shows by
// start, methods and clerks by name — with their net and the total.
func (t *TakingsTally) Report() *TakingsReport {
	q := t.q
	rows, order := t.rows, t.order
	if q.By == ByFilm {
		rows, order = t.films, t.byFilm
	}
	rep := &TakingsReport{From: q.Start(), To: DayStart(q.To.In(q.From.Location())), By: q.By, Rows: []TakingsRow{}}
	for _, k := range order {
		r := *rows[k]
		r.Net = r.Sales - r.Refunds
		if r.Label == "" {
			r.Label = r.Key // a method or a clerk names itself
		}
		rep.Rows = append(rep.Rows, r)
	}
	switch q.By {
	case ByFilm:
		slices.SortFunc(rep.Rows, func(a, b TakingsRow) int { return cmp.Or(cmp.Compare(a.Label, b.Label), cmpNumericKeys(a.Key, b.Key)) })
	case ByShow:
		slices.SortFunc(rep.Rows, func(a, b TakingsRow) int {
			return cmp.Or(cmp.Compare(t.starts[a.Key], t.starts[b.Key]), cmp.Compare(a.Label, b.Label), cmpNumericKeys(a.Key, b.Key))
		})
	case ByMethod, ByClerk:
		slices.SortFunc(rep.Rows, func(a, b TakingsRow) int { return cmp.Compare(a.Key, b.Key) })
	}
	rep.Totals()
	return rep
}

// cmpNumericKeys orders numeric keys (ids) as numbers.
func cmpNumericKeys(a, b string) int {
	x, _ := strconv.ParseInt(a, 10, 64)
	y, _ := strconv.ParseInt(b, 10, 64)
	return cmp.Compare(x, y)
}
