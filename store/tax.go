package store

import (
	"context"
	"strings"
	"time"

	"boxoffice/booking"
)

// Tax (booking.Taxes): rates by ticket type or item category, each in
// force from a moment on and never changed after, and the tax a range of
// days or a shift's money holds. Nothing about tax is stored with a sale:
// a line's tax is worked out when it is read, from its price and the rate
// in force when it was sold (booking.TaxRates.At), so the sale path needs
// no change, and a new rate changes the sales from then on only — the
// schema refuses a rate in force before it was set.
//
// The lines are added up in each engine's SQL by ticket type, price,
// whether they were sold or taken back, and the span of rate changes
// their sale falls in (TaxQuery.Breaks): within a span no rate changes,
// so the rate is read once a group, and a year's report hands over a few
// rows, not a row a ticket.

// TaxTx is what setting a rate asks of a transaction.
type TaxTx interface {
	// InsertTaxRate appends a rate to the history (its From no earlier
	// than its SetAt, which the schema checks) and returns its id.
	InsertTaxRate(r booking.TaxRate) (int64, error)
}

// TaxReads are tax's reads outside a transaction.
type TaxReads interface {
	// ReadTaxRates lists every rate ever set, oldest first.
	ReadTaxRates(ctx context.Context) (booking.TaxRates, error)
	// TaxLines adds up the ticket lines of q: each ticket of a sale
	// (counted when its booking's sale payment was taken, in that
	// payment's shift), each ticket refunded (when and in the shift its
	// refund was paid) and each ticket exchanged for another (when and in
	// the shift of the exchange's sale payment), the last two taken back
	// at their own sale's span. Grouped by key, price, back and span.
	TaxLines(ctx context.Context, q TaxQuery) ([]TaxLines, error)
}

// TaxQuery says which lines TaxLines adds up.
type TaxQuery struct {
	// From and To bound when a line counts, [From, To). With Shift set
	// they bound the shift's life, a day wider each way, so a driver
	// without an index of payments by shift can find them by time.
	From, To time.Time
	// Site keeps the lines to the shows of one site (0: every site).
	Site int64
	// Shift keeps them to the money of one shift (0: any).
	Shift int64
	// Breaks are the moments a rate came into force
	// (booking.TaxRates.Breaks): a line's Span is how many of them are
	// at or before its sale.
	Breaks []time.Time
}

// TaxLines is N lines of one key and amount, sold or taken back, whose
// sale falls in one span.
type TaxLines struct {
	Key    booking.TaxKey
	Amount booking.Money // one line's, tax included
	Back   bool
	Span   int
	N      int
}

// TaxRates lists every rate ever set.
func (s *Store) TaxRates(ctx context.Context, actor booking.Actor) (booking.TaxRates, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	return s.d.ReadTaxRates(ctx)
}

// SetTaxRate adds a rate in force from r.From (now when zero). READ
// COMMITTED: one insert; two managers setting the same key at once both
// stand, the one set last winning from the moment they share.
func (s *Store) SetTaxRate(ctx context.Context, actor booking.Actor, r booking.TaxRate) (*booking.TaxRate, error) {
	if err := booking.Authorize(actor, booking.ActionManageSettings); err != nil {
		return nil, err
	}
	r.Key.Code = strings.TrimSpace(r.Key.Code)
	if r.Key.Kind == booking.TaxTicketType {
		r.Key.Code = strings.ToLower(r.Key.Code)
	}
	from := r.From
	if from.IsZero() {
		from = s.d.Now() // checked for its shape only; the write takes its own now
	}
	check := r
	check.From = from
	if err := check.Validate(); err != nil {
		return nil, err
	}
	return write(s, ctx, actor, Write{Op: "set tax rate"}, func(tx Tx) (*booking.TaxRate, error) {
		now := tx.Now()
		switch {
		case r.From.IsZero():
			r.From = now
		case r.From.Before(now):
			return nil, booking.ErrRateInPast(r.From, now)
		}
		if r.Key.Kind == booking.TaxTicketType {
			ok, err := tx.TicketTypeExists(r.Key.Code)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, booking.Errorf(booking.EInvalid, "There is no ticket type %q.", r.Key.Code)
			}
		}
		r.SetBy, r.SetAt = actor.Name, now
		id, err := tx.InsertTaxRate(r)
		if err != nil {
			return nil, err
		}
		r.ID = id
		tx.Touch(0) // open counters print the new rate from its moment on
		detail := "tax rate " + r.Key.String() + ": " + r.Rate.String() + " from " + r.From.Format("2006-01-02 15:04")
		return &r, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditSettings, Detail: detail}, 0)
	})
}

// ReportTax adds up the tax of a range of days at its site by rate.
func (s *Store) ReportTax(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.TaxReport, error) {
	w, r, err := s.reportRange(ctx, actor, r)
	if err != nil {
		return nil, err
	}
	c, err := CinemaAt(s, ctx, r.Site)
	if err != nil {
		return nil, err
	}
	rows, err := s.taxRows(ctx, TaxQuery{From: w.From, To: w.To, Site: w.Site}, c.Currency.Unit())
	if err != nil {
		return nil, err
	}
	rep := &booking.TaxReport{From: w.From, To: reportTo(r), Rows: rows}
	rep.Totals()
	return rep, nil
}

// shiftTax is the tax of the money that went through shift sh, by rate.
// Its payments were taken while it was open; the day's margin each way
// covers counters whose clocks differ from the one that opened it.
func (s *Store) shiftTax(ctx context.Context, sh booking.Shift) ([]booking.TaxRow, error) {
	c, err := CinemaAt(s, ctx, booking.AllSites)
	if err != nil {
		return nil, err
	}
	end := sh.ClosedAt
	if end.IsZero() {
		end = s.d.Now()
	}
	q := TaxQuery{Shift: sh.ID, From: sh.OpenedAt.Add(-24 * time.Hour), To: end.Add(24 * time.Hour)}
	return s.taxRows(ctx, q, c.Currency.Unit())
}

// taxRows reads q's lines and adds them up by the rate each was sold at.
// The rates are read before the lines and again after: should a rate have
// been set in between (a sale after it may be among the lines, in a span
// its break was missing from), it reads both again.
func (s *Store) taxRows(ctx context.Context, q TaxQuery, unit booking.Money) ([]booking.TaxRow, error) {
	rates, err := s.d.ReadTaxRates(ctx)
	for try := 0; err == nil; try++ {
		q.Breaks = rates.Breaks()
		var lines []TaxLines
		if lines, err = s.d.TaxLines(ctx, q); err != nil {
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
		t := booking.NewTaxTally(unit)
		for _, l := range lines {
			t.Add(rates.At(l.Key, booking.Span(q.Breaks, l.Span)), l.Amount, l.N, l.Back)
		}
		return t.Rows(), nil
	}
	return nil, err
}
