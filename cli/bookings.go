package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"boxoffice/booking"
)

// booking, cancel and admit: a booking after the sale.

// booking looks a booking up by its number.
func (c *env) booking(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice booking NUMBER")
	}
	return c.withStore(func(st backend) error {
		b, err := st.Booking(c.ctx, booking.System, pos[0])
		if booking.ErrorCode(err) == booking.ENotFound {
			// Not a booking yet: a reservation still to pay has the
			// number its booking will have.
			if r, rerr := st.Reservation(c.ctx, booking.System, pos[0]); rerr == nil {
				c.print(reservationCard{r})
				return nil
			}
		}
		if err != nil {
			return err
		}
		c.print(bookingView{b})
		return nil
	})
}

// reservationCard is a reservation as `booking` shows it: what the
// customer reserved, until when, and that it is not paid.
type reservationCard struct{ r *booking.Reservation }

func (v reservationCard) jsonValue() any {
	out := reservationJSON(v.r)
	out["paid"] = v.r.Status == booking.ReservationPaid
	return out
}

func (v reservationCard) writeText(w io.Writer) {
	r := v.r
	state, pay := "reserved, not paid", fmt.Sprintf("by %s at the counter: boxoffice reservation pay %s --pay cash|card", r.CutOff.Format("15:04"), r.Number)
	if r.Status != booking.ReservationReserved {
		state, pay = string(r.Status)+", not paid", fmt.Sprintf("too late: it lapsed at %s and its seats went back on sale", r.CutOff.Format("15:04"))
	}
	fmt.Fprintf(w, "Reservation  %s (%s)\n", r.Number, state)
	fmt.Fprintf(w, "Show         %s — %s, %s\n", booking.Clean(r.Show.Film.Title), booking.Clean(r.Show.HallName), r.Show.Starts.Format("Mon 02 Jan 15:04"))
	fmt.Fprintf(w, "Seats        %s\n", seatLabelsOf(r.Seats))
	fmt.Fprintf(w, "Customer     %s, %s\n", booking.Clean(r.Name), booking.Clean(r.Phone))
	fmt.Fprintf(w, "Pay          %s\n", pay)
}

func cancelFlags(fs *flag.FlagSet) runFunc {
	reason := fs.String("reason", "", "why (kept with the booking)")
	return func(c *env, pos []string) error { return c.cancel(pos, *reason) }
}

// cancel cancels and refunds a booking.
func (c *env) cancel(pos []string, reason string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice cancel NUMBER [--reason R]")
	}
	return c.withStore(func(st backend) error {
		b, err := st.Cancel(c.ctx, booking.System, booking.CancelRequest{Number: pos[0], Reason: reason})
		if err != nil {
			return err
		}
		c.print(bookingView{b})
		return nil
	})
}

// admit scans a ticket code, or a booking's number, at the door.
func (c *env) admit(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice admit CODE|BO-NUMBER")
	}
	return c.withStore(func(st backend) error {
		actor := booking.System
		actor.Name = "door (cli)"
		res, err := st.Admit(c.ctx, actor, pos[0])
		if err != nil {
			return err
		}
		c.print(admissionView{res})
		return nil
	})
}

// admissionView is the tickets let in at the door by one scan.
type admissionView struct{ res *booking.Admission }

func (v admissionView) jsonValue() any {
	res := v.res
	seats := make([]map[string]string, len(res.Tickets))
	for i, t := range res.Tickets {
		seats[i] = map[string]string{"seat": booking.Clean(t.Seat.Label), "type": booking.Clean(t.Type)}
	}
	return map[string]any{"booking": res.Booking, "seat": booking.Clean(res.Ticket.Seat.Label), "type": booking.Clean(res.Ticket.Type),
		"admitted": seats, "kept": append([]string{}, res.Kept...),
		"film": booking.Clean(res.Show.Film.Title), "hall": booking.Clean(res.Show.HallName), "start": res.Show.Starts.Format(time.RFC3339)}
}

func (v admissionView) writeText(w io.Writer) {
	res := v.res
	what := make([]string, len(res.Tickets))
	for i, t := range res.Tickets {
		what[i] = fmt.Sprintf("%s (%s)", booking.Clean(t.Seat.Label), booking.Clean(t.Type))
	}
	seat := "seat"
	if len(what) > 1 {
		seat = fmt.Sprintf("%d seats", len(what))
	}
	fmt.Fprintf(w, "Admit: %s %s · %s · %s %s · %s\n", seat, strings.Join(what, ", "),
		booking.Clean(res.Show.Film.Title), booking.Clean(res.Show.HallName), res.Show.Starts.Format("15:04"), res.Booking)
	for _, k := range res.Kept {
		fmt.Fprintf(w, "  Not this time: %s\n", booking.Clean(k))
	}
}

// bookingView is a booking: what sell, booking and cancel answer.
type bookingView struct{ b *booking.Booking }

// bookingJSON is a booking as --json prints it.
type bookingJSON struct {
	Number   string                `json:"booking"`
	Status   booking.BookingStatus `json:"status"`
	ShowID   int64                 `json:"show"`
	Film     string                `json:"film"`
	Hall     string                `json:"hall"`
	Start    string                `json:"start"`
	Seats    []string              `json:"seats"`
	Total    string                `json:"total"`
	Change   string                `json:"change"`
	Customer string                `json:"customer,omitempty"`
	Phone    string                `json:"phone,omitempty"`
	Tickets  []ticketJSON          `json:"tickets"`
	Payments []paymentJSON         `json:"payments"`

	// ExchangedFrom is the booking an exchange moved these tickets from.
	ExchangedFrom string `json:"exchanged_from,omitempty"`

	// Voucher and Items are what the sale carried beside its seats
	// (vouchers.go).
	Voucher *voucherUseJSON `json:"voucher,omitempty"`
	Items   *saleItemsJSON  `json:"items,omitempty"`
}

type ticketJSON struct {
	Seat        string               `json:"seat"`
	Type        string               `json:"type"`
	Price       string               `json:"price"`
	PriceSource string               `json:"price_source"`
	Status      booking.TicketStatus `json:"status"`
	Code        string               `json:"code"`
	// ExchangedTo is the booking holding this void ticket's replacement.
	ExchangedTo string `json:"exchanged_to,omitempty"`
}

type paymentJSON struct {
	Kind     booking.PaymentKind `json:"kind"`
	Method   string              `json:"method"`
	Amount   string              `json:"amount"`
	Tendered string              `json:"tendered"`
	Change   string              `json:"change"`
	// Exchange marks the difference of the exchange that made the
	// booking: its sale, or the refund of a difference paid back.
	Exchange bool `json:"exchange,omitempty"`
}

func (v bookingView) jsonValue() any {
	b := v.b
	out := bookingJSON{
		Number: b.Number, Status: b.Status, ShowID: b.Show.ID, Film: booking.Clean(b.Show.Film.Title),
		Hall: booking.Clean(b.Show.HallName), Start: b.Show.Starts.Format(time.RFC3339), Seats: b.SeatLabels(),
		Total: b.Total.String(), Change: b.Change().String(), Customer: booking.Clean(b.Customer), Phone: booking.Clean(b.Phone),
		ExchangedFrom: b.ExchangedFrom,
	}
	out.Voucher, out.Items = saleExtrasJSON(b)
	for _, t := range b.Tickets {
		out.Tickets = append(out.Tickets, ticketJSON{t.Seat.Label, t.Type, t.Price.String(), booking.Clean(t.PriceSource), t.Status, t.Code, t.ExchangedTo})
	}
	for _, p := range b.Payments {
		out.Payments = append(out.Payments, paymentJSON{p.Kind, string(p.Method), p.Amount.String(), p.Tendered.String(), p.Change.String(), b.ExchangePayment(p)})
	}
	return out
}

func (v bookingView) writeText(w io.Writer) {
	b := v.b
	fmt.Fprintf(w, "Booking  %s (%s)\n", b.Number, b.Status)
	fmt.Fprintf(w, "Show     %s — %s, %s\n", booking.Clean(b.Show.Film.Title), booking.Clean(b.Show.HallName), b.Show.Starts.Format("Mon 02 Jan 15:04"))
	fmt.Fprintf(w, "Seats    %s\n", strings.Join(b.SeatLabels(), " "))
	if b.Customer != "" || b.Phone != "" {
		fmt.Fprintf(w, "Customer %s %s\n", booking.Clean(b.Customer), booking.Clean(b.Phone))
	}
	fmt.Fprintf(w, "Total    %s\n", b.Total.String())
	for _, p := range b.Payments {
		switch {
		case b.ExchangePayment(p) && p.Kind == booking.PaymentRefund:
			fmt.Fprintf(w, "Exchange %s paid back by %s%s\n", p.Amount.String(), p.Method, refundOf(b, p))
		case b.ExchangePayment(p):
			fmt.Fprintf(w, "Exchange %s difference paid by %s\n", p.Amount.String(), p.Method)
		case p.Kind == booking.PaymentRefund:
			fmt.Fprintf(w, "Refund   %s by %s%s\n", p.Amount.String(), p.Method, refundOf(b, p))
		case p.Method == booking.Cash:
			fmt.Fprintf(w, "Paid     %s cash, change due %s\n", p.Tendered.String(), p.Change.String())
		default:
			fmt.Fprintf(w, "Paid     %s by %s\n", p.Amount.String(), p.Method)
		}
	}
	writeSaleExtras(w, b)
	if b.Status == booking.BookingCancelled {
		fmt.Fprintf(w, "Cancelled by %s", booking.Clean(b.CancelledBy))
		if b.ApprovedBy != "" {
			fmt.Fprintf(w, ", approved by %s", booking.Clean(b.ApprovedBy))
		}
		if b.Reason != "" {
			fmt.Fprintf(w, ": %s", booking.Clean(b.Reason))
		}
		fmt.Fprintln(w)
	}
	if b.ExchangedFrom != "" {
		fmt.Fprintf(w, "Exchanged from %s\n", b.ExchangedFrom)
	}
	fmt.Fprintln(w, "Tickets")
	for _, t := range b.Tickets {
		fmt.Fprintf(w, "  %-5s %-8s %7s  %-8s %s%s%s\n", t.Seat.Label, t.Type, t.Price.String(), t.Status, t.Code, priceFrom(t.PriceSource), exchangedTo(t))
	}
}

// priceFrom says after a ticket where its price came from: "  (premium
// seat)", or nothing for the ticket type's own price.
func priceFrom(source string) string {
	if source == "" {
		return ""
	}
	return "  (" + booking.Clean(source) + ")"
}

// exchangedTo says after a ticket an exchange voided where it went:
// "  → BO-…", or nothing.
func exchangedTo(t booking.Ticket) string {
	if t.ExchangedTo == "" {
		return ""
	}
	return "  → " + t.ExchangedTo
}
