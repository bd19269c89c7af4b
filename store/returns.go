package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"boxoffice/booking"
)

// Distributor returns (booking.Returns): a film's week of shows with the
// live tickets of each, added up here from each engine's grouped rows, and
// the film hire agreed for the week.

// ReturnsTx is what setting a film's hire asks of a transaction.
type ReturnsTx interface {
	// InsertFilmHire appends a hire to the film's history.
	InsertFilmHire(h booking.FilmHire) error
}

// ReturnsReads are the returns' reads outside a transaction.
type ReturnsReads interface {
	// ReturnFilm reads a film and the start of its first show (zero
	// when it has none); found is false when there is no such film.
	ReturnFilm(ctx context.Context, filmID int64) (f booking.Film, first time.Time, found bool, err error)
	// FilmHires lists the hires set for a film, oldest first.
	FilmHires(ctx context.Context, filmID int64) ([]booking.FilmHire, error)
	// ReturnShows lists the film's shows starting in [From, To) at Site
	// (0: every site) with their hall and their house seats, by start;
	// cancelled shows are left out (their tickets were refunded).
	ReturnShows(ctx context.Context, q ReturnWindow) ([]booking.ReturnRow, error)
	// ReturnLines adds up the live (issued or admitted) tickets of the
	// same shows by show, ticket type, price and the span of rate
	// changes (q.Breaks) the sale of their booking falls in.
	ReturnLines(ctx context.Context, q ReturnWindow) ([]ReturnLine, error)
}

// MaxFilmHires bounds what a read of a film's hires hands over: far more
// than a film's deal is ever changed.
const MaxFilmHires = 10000

// BreakMillis is the moments rates came into force as unix
// milliseconds, as both engines bind them beside a line's sale time.
func BreakMillis(ts []time.Time) []int64 {
	out := make([]int64, len(ts))
	for i, t := range ts {
		out[i] = t.UnixMilli()
	}
	return out
}

// ReturnWindow is the film and time a return reads.
type ReturnWindow struct {
	Film     int64
	From, To time.Time
	Site     int64
	Breaks   []time.Time
}

// ReturnLine is N live tickets of one show, type and price whose sale
// falls in one span of rates.
type ReturnLine struct {
	Show   int64
	Type   string
	Amount booking.Money
	Span   int
	N      int
}

// SetFilmHire appends the hire agreed for a film or a week of its run.
// READ COMMITTED: one insert; of two set at once the later is in force.
func (s *Store) SetFilmHire(ctx context.Context, actor booking.Actor, h booking.FilmHire) (*booking.FilmHire, error) {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return nil, err
	}
	if err := h.Validate(); err != nil {
		return nil, err
	}
	return write(s, ctx, actor, Write{Op: "set film hire"}, func(tx Tx) (*booking.FilmHire, error) {
		f, found, err := tx.FilmForUpdate(h.Film)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, errNoFilm(h.Film)
		}
		h.SetBy, h.SetAt = actor.Name, tx.Now()
		if err := tx.InsertFilmHire(h); err != nil {
			return nil, err
		}
		week := "the run"
		if h.Week > 0 {
			week = fmt.Sprintf("week %d", h.Week)
		}
		detail := fmt.Sprintf("film hire %d %s, %s: %s", f.ID, booking.CleanLine(f.Title, 60), week, h.Rate)
		return &h, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditFilmHire, Detail: detail}, 0)
	})
}

// DistributorReturn reports a film's week.
func (s *Store) DistributorReturn(ctx context.Context, actor booking.Actor, q booking.ReturnQuery) (*booking.DistributorReturn, error) {
	if q.Week.IsZero() {
		return nil, booking.Errorf(booking.EInvalid, "A return needs the first day of its week.")
	}
	w, r, err := s.reportRange(ctx, actor, q.Range())
	if err != nil {
		return nil, err
	}
	f, first, found, err := s.d.ReturnFilm(ctx, q.Film)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errNoFilm(q.Film)
	}
	c, err := CinemaAt(s, ctx, r.Site)
	if err != nil {
		return nil, err
	}
	rep := &booking.DistributorReturn{Film: f, From: r.Start(), To: reportTo(r)}
	if !first.IsZero() {
		rep.RunWeek = booking.RunWeek(first, rep.From)
	}
	hires, err := s.d.FilmHires(ctx, f.ID)
	if err != nil {
		return nil, err
	}
	rep.Hire, rep.HireSet = booking.HireFor(hires, rep.RunWeek)
	shows, err := s.returnShows(ctx, ReturnWindow{Film: f.ID, From: w.From, To: w.To, Site: w.Site}, c.Currency.Unit())
	if err != nil {
		return nil, err
	}
	loc := r.From.Location()
	for _, sh := range shows {
		sh.Starts = sh.Starts.In(loc)
		day := booking.DayStart(sh.Starts)
		if n := len(rep.Days); n == 0 || !rep.Days[n-1].Day.Equal(day) {
			rep.Days = append(rep.Days, booking.ReturnDay{Day: day})
		}
		d := &rep.Days[len(rep.Days)-1]
		d.Shows = append(d.Shows, sh)
	}
	rep.Totals(c.Currency.Unit())
	return rep, nil
}

// returnShows reads the week's shows and adds their tickets up, the tax
// of each at the rate in force when it was sold (read again should a
// rate be set meanwhile, as taxRows does).
func (s *Store) returnShows(ctx context.Context, q ReturnWindow, unit booking.Money) ([]booking.ReturnRow, error) {
	rates, err := s.d.ReadTaxRates(ctx)
	for try := 0; err == nil; try++ {
		q.Breaks = rates.Breaks()
		var shows []booking.ReturnRow
		var lines []ReturnLine
		if shows, err = s.d.ReturnShows(ctx, q); err != nil {
			break
		}
		if lines, err = s.d.ReturnLines(ctx, q); err != nil {
			break
		}
		var after booking.TaxRates
		if after, err = s.d.ReadTaxRates(ctx); err != nil {
			break
		}
		if len(after) != len(rates) && try < 3 {
			rates = after
			continue
		}
		return addReturnLines(shows, lines, rates, q.Breaks, unit), nil
	}
	return nil, err
}

// addReturnLines puts each line's tickets into its show: paid or comps,
// gross, tax and net.
func addReturnLines(shows []booking.ReturnRow, lines []ReturnLine, rates booking.TaxRates, breaks []time.Time, unit booking.Money) []booking.ReturnRow {
	for _, l := range lines {
		i := slices.IndexFunc(shows, func(r booking.ReturnRow) bool { return r.Show == l.Show })
		if i < 0 {
			continue // a show that started after the shows were read
		}
		r := &shows[i]
		if l.Amount == 0 {
			r.Comps += l.N
			continue
		}
		rate := rates.At(booking.TicketTax(l.Type), booking.Span(breaks, l.Span))
		gross := l.Amount * booking.Money(l.N)
		tax := booking.TaxPart(l.Amount, rate, unit) * booking.Money(l.N)
		r.Paid += l.N
		r.Gross += gross
		r.Tax += tax
		r.Net += gross - tax
	}
	return shows
}
