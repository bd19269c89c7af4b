// Package paper lays out what a box office prints — tickets, receipts,
// the Z report of a closed shift — as ESC/POS jobs for the counter's
// thermal printer (package escpos) and as PDF tickets, and sends jobs to a
// printer with a deadline. It reads booking values only; it never calls
// the store, so a slow printer can never hold a transaction.
package paper

import (
	"fmt"
	"strings"
	"time"

	"boxoffice/booking"
	"boxoffice/escpos"
)

// Width is the characters of a line in the printer's normal font on an
// 80 mm roll (font A, 48 columns); a 58 mm roll wraps longer lines itself.
const Width = 42

// Layout is what every printout shares: the cinema's settings (its
// name, address, tax id, currency, locale, zone and receipt footer) and
// its tax rates, read from the store before a job is laid out.
type Layout struct {
	// Cinema heads every ticket and receipt over the settings' name (the
	// --cinema override); the settings' name, else DefaultCinema, when
	// empty.
	Cinema string
	// Loc is the zone show times are printed in, over the settings' zone;
	// the settings' zone (else time.Local) when nil.
	Loc *time.Location
	// Settings are the site's settings; nil prints as a cinema that set
	// nothing (plain amounts, no address, no footer).
	Settings *booking.Cinema
	// Rates are the tax rates, for a receipt's tax lines; none prints
	// none.
	Rates booking.TaxRates
	// Drawer says the printer opens the counter's cash drawer (ESC p) on
	// a job that moves cash: a cash sale or refund, a float count, a "no
	// sale" (booking.Books.TerminalDrawer).
	Drawer bool
}

// DefaultCinema heads printouts when no cinema name is set.
const DefaultCinema = "Box Office"

func (l Layout) cinema() string {
	if c := booking.CleanLine(l.Cinema, Width); c != "" {
		return c
	}
	if l.Settings != nil {
		if c := booking.CleanLine(l.Settings.Name, Width); c != "" {
			return c
		}
	}
	return DefaultCinema
}

func (l Layout) loc() *time.Location {
	switch {
	case l.Loc != nil:
		return l.Loc
	case l.Settings != nil:
		return l.Settings.Location()
	}
	return time.Local
}

// format is the settings' formatter (the plain one without settings).
func (l Layout) format() booking.Formatter { return l.Settings.Formatter() }

// money is an amount as printouts write it: "12,50 €".
func (l Layout) money(m booking.Money) string { return l.format().Money(m) }

// when is a time as printouts write it.
func (l Layout) when(t time.Time) string { return l.format().DateTime(t.In(l.loc())) }

// taxLabel names the tax ("VAT").
func (l Layout) taxLabel() string {
	if l.Settings != nil && l.Settings.TaxLabel != "" {
		return l.Settings.TaxLabel
	}
	return "VAT"
}

// taxLines is one line a rate of rows (the untaxed left out): the tax
// with its rate on the left, the amount net of it on the right — "VAT
// 20 % 2,08 €   net 10,42 €".
func (l Layout) taxLines(d *escpos.Doc, rows []booking.TaxRow) {
	for _, r := range booking.Taxed(rows) {
		d.Line(l.row(l.taxLabel()+" "+l.format().Rate(r.Rate)+" "+l.money(r.Tax), "net "+l.money(r.Net)))
	}
}

// head is the cinema's name, then its address and tax id when set, each
// line centred.
func (l Layout) head(d *escpos.Doc, title string) {
	d.Align(escpos.Center).Bold(true).Line(l.cinema())
	if st := l.Settings; st != nil {
		d.Bold(false)
		for _, line := range st.Address {
			d.Line(clip(line, Width))
		}
		if st.TaxID != "" {
			d.Line(clip(l.taxLabel()+" no. "+st.TaxID, Width))
		}
		d.Bold(true)
	}
	d.Line(title).Bold(false)
}

// footer is the receipt footer's lines, centred, when set.
func (l Layout) footer(d *escpos.Doc) {
	if l.Settings == nil || len(l.Settings.Footer) == 0 {
		return
	}
	d.Align(escpos.Center)
	for _, line := range l.Settings.Footer {
		d.Line(clip(line, Width))
	}
	d.Align(escpos.Left)
}

// begin starts a job: the printer reset and, where the currency's sign
// is one the plain ASCII every printer shares lacks (€, £), the code page
// that has it.
func (l Layout) begin(d *escpos.Doc) {
	d.Init()
	if l.signs() {
		d.CurrencySigns()
	}
}

// Printable lists the tickets of b that can go to the door: the issued
// ones, with their current codes. Used, refunded and void tickets never
// print again.
func Printable(b *booking.Booking) []booking.Ticket {
	var out []booking.Ticket
	for _, t := range b.Tickets {
		if t.Status == booking.TicketIssued && t.Code != "" {
			out = append(out, t)
		}
	}
	return out
}

// ErrNothingToPrint is the error for a booking without an issued ticket.
var ErrNothingToPrint = booking.Errorf(booking.EInvalid, "This booking has no ticket to print: every ticket is used, refunded or cancelled.")

// Tickets adds every printable ticket of b, each cut from the next.
func (l Layout) Tickets(d *escpos.Doc, b *booking.Booking) error {
	ts := Printable(b)
	if len(ts) == 0 {
		return ErrNothingToPrint
	}
	for _, t := range ts {
		l.ticket(d, b, t)
	}
	return nil
}

// ticket is one ticket: what the door and the customer read, then the
// native QR code of its current code with the code as text under it.
func (l Layout) ticket(d *escpos.Doc, b *booking.Booking, t booking.Ticket) {
	sh := b.Show
	d.Align(escpos.Center).Bold(true).Size(2, 2).Line(l.cinema()).Size(1, 1)
	d.Line(clip(sh.Film.Title, Width)).Bold(false)
	if r := booking.CleanLine(sh.Film.Rating, 8); r != "" {
		d.Line("Rating " + r)
	}
	d.Line(clip("Hall "+sh.HallName, Width))
	d.Line(l.when(sh.Starts))
	d.Bold(true).Size(2, 2).Line(SeatText(t.Seat)).Size(1, 1).Bold(false)
	d.Line(clip(TypeName(t.Type)+"  "+l.money(t.Price), Width))
	d.Line(clip("Booking "+b.Number, Width))
	d.QR(t.Code, 6, escpos.ECMedium)
	for _, part := range chunks(booking.Clean(t.Code), 32) {
		d.Line(part)
	}
	d.Feed(3).Cut()
}

// SeatText is a seat as a ticket names it: "Row G  Seat 7".
func SeatText(s booking.Seat) string {
	row := booking.CleanLine(s.RowTag, 8)
	if row == "" || s.Number == 0 {
		return "Seat " + booking.CleanLine(s.Label, 12)
	}
	return fmt.Sprintf("Row %s  Seat %d", row, s.Number)
}

// TypeName is a ticket type code as a person reads it ("adult" → "Adult").
func TypeName(code string) string {
	c := booking.CleanLine(code, 20)
	if c == "" {
		return "Ticket"
	}
	return strings.ToUpper(c[:1]) + c[1:]
}

// clip cleans s and cuts it to n characters.
func clip(s string, n int) string { return booking.CleanLine(s, n) }

// chunks cuts s into pieces of at most n bytes (s is ASCII: a ticket code).
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// row is a line with left on the left and right on the right, Width
// wide, as the printer will print it: in plain ASCII, the currency signs
// kept (one column each) where the job selected the page with them.
func (l Layout) row(left, right string) string {
	lt, rt := l.printed(left), l.printed(right)
	gap := Width - len(lt) - len(rt)
	if gap < 1 {
		lt = lt[:max(Width-len(rt)-1, 0)]
		gap = 1
	}
	return string(lt) + strings.Repeat(" ", gap) + string(rt)
}

// printed is s cleaned as the printer prints it, a rune a column.
func (l Layout) printed(s string) []rune {
	s = booking.Clean(s)
	if !l.signs() {
		return []rune(escpos.Printable(s))
	}
	var out []rune
	for _, part := range strings.SplitAfter(s, "") {
		if escpos.NeedsSigns(part) {
			out = append(out, []rune(part)...)
		} else {
			out = append(out, []rune(escpos.Printable(part))...)
		}
	}
	return out
}

// signs reports whether the layout's jobs select the page with the
// currency's sign (begin).
func (l Layout) signs() bool {
	return l.Settings != nil && escpos.NeedsSigns(l.Settings.Currency.Symbol)
}

// wrap cleans s and breaks it into lines of at most n characters, at
// spaces where it can (a reason someone typed: at most a few lines).
func wrap(s string, n int) []string {
	words := strings.Fields(escpos.Printable(booking.Clean(s)))
	var out []string
	line := ""
	for _, w := range words {
		for len(w) > n { // a word longer than a line
			if line != "" {
				out, line = append(out, line), ""
			}
			out, w = append(out, w[:n]), w[n:]
		}
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= n:
			line += " " + w
		default:
			out, line = append(out, line), w
		}
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// rule is a line across the paper.
func rule() string { return strings.Repeat("-", Width) }
