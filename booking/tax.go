package booking

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
)

// VAT (sales tax). Prices are tax-inclusive, as a cinema's are: the tax
// part of a line of price p at rate r % is p × r / (100 + r), computed on
// each line by itself and rounded to the currency's unit half up (a half
// cent goes up: 0.15 at 20 % holds 0.025, which is 0.03), then summed per
// rate. A line taken back — a refund, a ticket exchanged for another —
// gives back exactly the tax its sale counted: the same price at the rate
// in force when it was sold, rounded the same way.
//
// A rate belongs to what is sold: a ticket type, or a category of items
// (TaxKey). Rates are never changed in place: a new rate is in force from
// a moment on (TaxRate.From), so a sale's tax is worked out from the rate
// in force when it was sold, whenever it is read, and changing a rate
// changes the sales from then on only. Nothing about tax is stored with a
// sale.

// Rate is a tax rate in hundredths of a percent: 2000 is 20 %, 550 is
// 5.5 %.
type Rate int64

// MaxRate is the highest rate (100 %).
const MaxRate Rate = 10000

// ParseRate reads a rate as a manager types it: "20", "5.5", "5,5",
// "20%", "20 %", at most two decimals, 0 to 100.
func ParseRate(s string) (Rate, error) {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	whole, frac, _ := strings.Cut(strings.Replace(t, ",", ".", 1), ".")
	bad := Errorf(EInvalid, "%q is not a tax rate: type a percentage from 0 to 100, like 20 or 5.5.", CleanLine(s, 20))
	if !allDigits(whole) || len(whole) > 3 || len(frac) > 2 || (frac != "" && !allDigits(frac)) || strings.HasSuffix(t, ".") {
		return 0, bad
	}
	w, _ := strconv.Atoi(whole)
	f := 0
	if frac != "" {
		f, _ = strconv.Atoi(frac)
		if len(frac) == 1 {
			f *= 10
		}
	}
	r := Rate(w*100 + f)
	if r > MaxRate {
		return 0, bad
	}
	return r, nil
}

// number is the rate as a number of percent: "20", "5.5", "7.25".
func (r Rate) number() string {
	s := strconv.FormatInt(int64(r/100), 10)
	switch f := r % 100; {
	case f == 0:
	case f%10 == 0:
		s += "." + strconv.FormatInt(int64(f/10), 10)
	default:
		s += "." + pad2(int(f))
	}
	return s
}

// String writes the rate in the plain form: "20 %", "5.5 %".
func (r Rate) String() string { return r.number() + " %" }

// Percent is the rate as a plain number for a program: "20", "5.5".
func (r Rate) Percent() string { return r.number() }

// TaxPart is the tax included in a tax-inclusive amount at rate r,
// rounded half up to unit (Currency.Unit: 1 cent, or a whole unit): the
// tax of a negative amount is the negative of its size's, so what is
// taken back matches what was counted.
func TaxPart(amount Money, r Rate, unit Money) Money {
	if r <= 0 || amount == 0 {
		return 0
	}
	if unit <= 0 {
		unit = 1
	}
	a := int64(amount.abs())
	num, den := a*int64(r), (int64(MaxRate)+int64(r))*int64(unit)
	q := num / den
	if 2*(num%den) >= den {
		q++
	}
	tax := Money(q) * unit
	if amount < 0 {
		return -tax
	}
	return tax
}

// TaxKind says what a rate is for.
type TaxKind string

const (
	TaxTicketType   TaxKind = "ticket type"
	TaxItemCategory TaxKind = "item category"
)

// ParseTaxKind reads a kind as typed: "ticket" or "ticket type", "item"
// or "item category".
func ParseTaxKind(s string) (TaxKind, error) {
	switch strings.ToLower(strings.Join(strings.Fields(s), " ")) {
	case "ticket", "ticket type", "type":
		return TaxTicketType, nil
	case "item", "item category", "category":
		return TaxItemCategory, nil
	}
	return "", Errorf(EInvalid, "A tax rate is for a ticket type or an item category, not %q.", CleanLine(s, 20))
}

// TaxKey is what a rate is for: a ticket type's code, or an item
// category.
type TaxKey struct {
	Kind TaxKind
	Code string
}

func (k TaxKey) String() string { return string(k.Kind) + " " + k.Code }

// TicketTax is the key of ticket type code's rate.
func TicketTax(code string) TaxKey { return TaxKey{Kind: TaxTicketType, Code: code} }

// maxTaxCode bounds a rate's code, as a ticket type's.
const maxTaxCode = 30

// Validate refuses a key of an unknown kind or without a code of 1 to 30
// printable characters.
func (k TaxKey) Validate() error {
	if k.Kind != TaxTicketType && k.Kind != TaxItemCategory {
		return Errorf(EInvalid, "A tax rate is for a ticket type or an item category.")
	}
	c := CleanLine(k.Code, maxTaxCode)
	if c == "" || c != k.Code {
		return Errorf(EInvalid, "A %s is 1 to %d printable characters, without spaces around.", k.Kind, maxTaxCode)
	}
	return nil
}

// TaxRate is one rate as it was set: in force for its key from From on,
// until a later one for the same key.
type TaxRate struct {
	ID    int64
	Key   TaxKey
	Rate  Rate
	From  time.Time
	SetBy string
	SetAt time.Time
}

// Validate refuses a rate of a bad key, out of range or without a start.
func (r TaxRate) Validate() error {
	if err := r.Key.Validate(); err != nil {
		return err
	}
	if r.Rate < 0 || r.Rate > MaxRate {
		return Errorf(EInvalid, "A tax rate is 0 to 100 %%.")
	}
	if r.From.IsZero() {
		return Errorf(EInvalid, "A tax rate needs the moment it is in force from.")
	}
	return nil
}

// ErrRateInPast refuses a rate from a moment already gone: it would
// change the tax of sales already made.
func ErrRateInPast(from, now time.Time) error {
	return Errorf(EInvalid, "A new rate cannot be in force from %s, before now (%s): that would change sales already made.",
		from.Format("2006-01-02 15:04"), now.In(from.Location()).Format("2006-01-02 15:04"))
}

// TaxRates are every rate ever set, in any order: the history a sale's
// tax is read from.
type TaxRates []TaxRate

// At is the rate in force for k at t: the one with the latest From not
// after t (of two from the same moment, the one set last); 0 when none.
func (rs TaxRates) At(k TaxKey, t time.Time) Rate {
	var best *TaxRate
	for i := range rs {
		r := &rs[i]
		if r.Key != k || r.From.After(t) {
			continue
		}
		if best == nil || r.From.After(best.From) || r.From.Equal(best.From) && r.ID > best.ID {
			best = r
		}
	}
	if best == nil {
		return 0
	}
	return best.Rate
}

// Current lists the rate in force at now for every key that has one, and
// the next one already set to come, by key: what a manager reads.
func (rs TaxRates) Current(now time.Time) []TaxRate {
	seen := map[TaxKey]bool{}
	var out []TaxRate
	for _, r := range rs {
		if seen[r.Key] {
			continue
		}
		seen[r.Key] = true
		cur := TaxRate{Key: r.Key, Rate: -1}
		var next *TaxRate
		for i := range rs {
			x := rs[i]
			if x.Key != r.Key {
				continue
			}
			if !x.From.After(now) {
				if cur.Rate < 0 || x.From.After(cur.From) || x.From.Equal(cur.From) && x.ID > cur.ID {
					cur = x
				}
			} else if next == nil || x.From.Before(next.From) || x.From.Equal(next.From) && x.ID > next.ID {
				next = &rs[i]
			}
		}
		if cur.Rate >= 0 {
			out = append(out, cur)
		}
		if next != nil {
			out = append(out, *next)
		}
	}
	slices.SortStableFunc(out, func(a, b TaxRate) int {
		if c := strings.Compare(a.Key.String(), b.Key.String()); c != 0 {
			return c
		}
		return a.From.Compare(b.From)
	})
	return out
}

// Breaks are the moments any rate comes into force, in order, once each:
// between two of them every key's rate stays the same, so sales can be
// added up by the span they fall in and the rate read once a span.
func (rs TaxRates) Breaks() []time.Time {
	out := make([]time.Time, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.From)
	}
	slices.SortFunc(out, time.Time.Compare)
	return slices.CompactFunc(out, time.Time.Equal)
}

// Span is the start of the span of breaks that n of them begin before or
// at (what a driver counted for a sale): the zero time for n = 0, before
// any rate, when every rate is 0.
func Span(breaks []time.Time, n int) time.Time {
	if n <= 0 || n > len(breaks) {
		return time.Time{}
	}
	return breaks[n-1]
}

// TaxRow is one rate's money: what was sold and taken back at it, the
// tax included and the amount net of it. A receipt, a shift's Z report
// and the tax report all add up in it.
type TaxRow struct {
	Rate Rate
	// Sales and Returns are the tax-inclusive amounts of the lines sold
	// and taken back (refunded, or exchanged for other tickets), both
	// positive; Gross is Sales − Returns.
	Sales, Returns, Gross Money
	// Tax is the tax of the lines sold less that of the lines taken
	// back, each line's computed by itself; Net is Gross − Tax.
	Tax, Net Money
	// Sold and Back count the lines.
	Sold, Back int
}

// TaxTally adds lines up by rate.
type TaxTally struct {
	unit Money
	rows map[Rate]*TaxRow
}

// NewTaxTally adds up in unit (Currency.Unit).
func NewTaxTally(unit Money) *TaxTally { return &TaxTally{unit: unit, rows: map[Rate]*TaxRow{}} }

// Add counts n lines of amount each at rate r: sold, or taken back when
// back is set.
func (t *TaxTally) Add(r Rate, amount Money, n int, back bool) {
	row := t.rows[r]
	if row == nil {
		row = &TaxRow{Rate: r}
		t.rows[r] = row
	}
	gross, tax := amount*Money(n), TaxPart(amount, r, t.unit)*Money(n)
	if back {
		row.Returns += gross
		row.Gross -= gross
		row.Tax -= tax
		row.Back += n
	} else {
		row.Sales += gross
		row.Gross += gross
		row.Tax += tax
		row.Sold += n
	}
	row.Net = row.Gross - row.Tax
}

// Rows are the rates' rows, lowest rate first.
func (t *TaxTally) Rows() []TaxRow {
	out := make([]TaxRow, 0, len(t.rows))
	for _, r := range t.rows {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b TaxRow) int { return int(a.Rate - b.Rate) })
	return out
}

// Taxed is rows without the untaxed (0 %) one: what a receipt or a Z
// report prints, so a cinema that set no rate prints no tax line.
func Taxed(rows []TaxRow) []TaxRow {
	return slices.DeleteFunc(slices.Clone(rows), func(r TaxRow) bool { return r.Rate == 0 })
}

// TaxLine is one line of a sale as tax sees it: what it is, its amount
// and when it was sold.
type TaxLine struct {
	Key    TaxKey
	Amount Money
	SoldAt time.Time
	// Back marks a line taken back (a refund).
	Back bool
}

// Tally adds lines up by the rate in force for each when it was sold.
func (rs TaxRates) Tally(lines []TaxLine, unit Money) []TaxRow {
	t := NewTaxTally(unit)
	for _, l := range lines {
		t.Add(rs.At(l.Key, l.SoldAt), l.Amount, 1, l.Back)
	}
	return t.Rows()
}

// TaxReport is the tax of a range of days, by rate: every ticket sold,
// refunded or exchanged in the range, on the day it happened, at the rate
// in force when it was sold.
type TaxReport struct {
	From, To time.Time
	Rows     []TaxRow
	Total    TaxRow // Rate is meaningless here
}

// Totals adds the rows up into Total.
func (r *TaxReport) Totals() {
	var t TaxRow
	for _, row := range r.Rows {
		t.Sales += row.Sales
		t.Returns += row.Returns
		t.Gross += row.Gross
		t.Tax += row.Tax
		t.Net += row.Net
		t.Sold += row.Sold
		t.Back += row.Back
	}
	r.Total = t
}

// Taxes are the cinema's tax rates and what they add up to.
type Taxes interface {
	// TaxRates lists every rate ever set, oldest first. Needs
	// ActionViewShows: a counter prints them on receipts.
	TaxRates(ctx context.Context, actor Actor) (TaxRates, error)
	// SetTaxRate sets r.Key's rate from r.From on (now when zero), for
	// sales from then on; a rate already in force stays for the sales
	// before. Needs ActionManageSettings. EInvalid for a bad rate
	// (TaxRate.Validate), a From before now (ErrRateInPast) or a ticket
	// type nobody made.
	SetTaxRate(ctx context.Context, actor Actor, r TaxRate) (*TaxRate, error)
	// ReportTax adds up the tax of the range by rate. Needs
	// ActionViewReports. EInvalid for a bad range.
	ReportTax(ctx context.Context, actor Actor, r ReportRange) (*TaxReport, error)
}
