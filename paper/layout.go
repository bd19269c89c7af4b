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

// Layout is what every printout shares.
type Layout struct {
	// Cinema heads every ticket and receipt; DefaultCinema when empty.
	Cinema string
	// Loc is the cinema's time zone for show times; time.Local when nil.
	Loc *time.Location
}

// DefaultCinema heads printouts when no cinema name is set.
const DefaultCinema = "Box Office"

func (l Layout) cinema() string {
	if c := booking.CleanLine(l.Cinema, Width); c != "" {
		return c
	}
	return DefaultCinema
}

func (l Layout) loc() *time.Location {
	if l.Loc == nil {
		return time.Local
	}
	return l.Loc
}

// when is a time as printouts write it.
func (l Layout) when(t time.Time) string { return t.In(l.loc()).Format("Mon 2 Jan 2006 15:04") }

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
	d.Line(clip(TypeName(t.Type)+"  "+t.Price.String(), Width))
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

// row is a line with left on the left and right on the right, Width wide.
func row(left, right string) string {
	left, right = escpos.Printable(booking.Clean(left)), escpos.Printable(booking.Clean(right))
	gap := Width - len(left) - len(right)
	if gap < 1 {
		left = left[:max(Width-len(right)-1, 0)]
		gap = 1
	}
	return left + strings.Repeat(" ", gap) + right
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
