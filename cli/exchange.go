package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"boxoffice/booking"
)

// exchange: tickets of a booking moved to other seats of its show or of
// another, the difference paid or paid back.

const exchangeLong = `Moves tickets of a booking to new seats in one go: the new seats are
sold, the old ones come free, the moved tickets stop admitting ("This
ticket was exchanged" at the door) and a new booking is printed with new
tickets, each keeping its type at the new show's prices. Without
--tickets every ticket of the booking moves; --seats names one new seat
for each, in order. The difference is paid (dearer) or paid back
(cheaper) by --pay; cash goes through the open shift. --to-show defaults
to the booking's own show. The same --key again answers with the first
exchange. A taken seat exits 3 naming what is free next to it.`

func exchangeCommand() *command {
	return &command{name: "exchange", args: "NUMBER --seats G7,G8 [--pay cash|card] [--tendered AMOUNT] [--key K] [--json]\nNUMBER --to-show ID --seats G7 [--tickets SEAT|CODE,...] [--reason R] [...]",
		short: "move a booking to other seats of its show\nmove some tickets to another show; the difference paid or paid back", long: exchangeLong, json: machine, flags: exchangeFlags}
}

// exchangeInput is the exchange command line as typed.
type exchangeInput struct {
	seats, tickets, pay, tendered, key, reason string
	toShow                                     int64
}

func exchangeFlags(fs *flag.FlagSet) runFunc {
	f := &exchangeInput{}
	fs.StringVar(&f.seats, "seats", "", "the new `SEATS`, comma separated, one for each ticket moved")
	fs.Int64Var(&f.toShow, "to-show", 0, "the show `ID` to move to (default: the booking's own)")
	fs.StringVar(&f.tickets, "tickets", "", "the tickets to move, by seat or code, comma separated (default: all)")
	fs.StringVar(&f.pay, "pay", "", "how the difference is paid or paid back: `cash|card` (default: the way the booking was paid)")
	fs.StringVar(&f.tendered, "tendered", "", "the cash handed over for a dearer exchange, an `AMOUNT` (default: exact money)")
	fs.StringVar(&f.key, "key", "", "idempotency `KEY`: the same key again returns the same exchange")
	fs.StringVar(&f.reason, "reason", "", "why (kept in the audit trail)")
	return func(c *env, pos []string) error {
		req, err := parseExchange(pos, f)
		if err != nil {
			return err
		}
		return c.withStore(func(st backend) error {
			actor := booking.System
			actor.Terminal = "cli"
			if req.Method == "" {
				// Money going back to a card customer goes to the card,
				// never into cash by default.
				b, err := st.Booking(c.ctx, actor, req.Number)
				if err != nil {
					return err
				}
				req.Method = booking.Card
				if paid, ok := b.PaidBy(); ok {
					req.Method = paid
				}
			}
			res, err := st.Exchange(c.ctx, actor, req)
			if err != nil {
				return err
			}
			c.print(exchangeView{res})
			return nil
		})
	}
}

// parseExchange checks the command line before the store is opened.
func parseExchange(pos []string, f *exchangeInput) (booking.ExchangeRequest, error) {
	if len(pos) != 1 {
		return booking.ExchangeRequest{}, usagef("usage: boxoffice exchange NUMBER --seats G7,G8 [--to-show ID] [--tickets G5,G6]")
	}
	req := booking.ExchangeRequest{Number: pos[0], ToShow: f.toShow, Seats: commaList(f.seats), Tickets: commaList(f.tickets),
		Method: booking.PayMethod(f.pay), IdempotencyKey: f.key, Reason: f.reason}
	if req.Method == "" && f.tendered != "" {
		req.Method = booking.Cash // cash handed over is a cash payment
	}
	if req.Method != "" && req.Method != booking.Cash && req.Method != booking.Card {
		return req, usagef("--pay must be cash or card")
	}
	if f.tendered != "" {
		m, err := booking.ParseMoney(f.tendered)
		if err != nil {
			return req, usagef("--tendered: %s", booking.ErrorMessage(err))
		}
		req.Tendered = m
	}
	if req.IdempotencyKey == "" {
		req.IdempotencyKey = "cli-" + randomID()
	}
	check := req
	if check.Method == "" {
		check.Method = booking.Card // decided from the booking once the store is open
	}
	if err := check.Validate(); err != nil {
		return req, usagef("%s", booking.ErrorMessage(err))
	}
	return req, nil
}

// commaList splits "G7, g8" into ["G7", "G8"]; "" is none.
func commaList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// exchangeView is an exchange done: the difference, then the new booking.
type exchangeView struct{ res *booking.ExchangeResult }

// exchangeJSON is an exchange as --json prints it.
type exchangeJSON struct {
	From       any    `json:"from"`
	To         any    `json:"to"`
	Credit     string `json:"credit"`
	Difference string `json:"difference"`
}

func (v exchangeView) jsonValue() any {
	return exchangeJSON{From: bookingView{v.res.From}.jsonValue(), To: bookingView{v.res.To}.jsonValue(),
		Credit: v.res.Credit.String(), Difference: v.res.Difference.Signed()}
}

func (v exchangeView) writeText(w io.Writer) {
	r := v.res
	var moved []string
	for _, t := range r.From.Tickets {
		if t.ExchangedTo == r.To.Number {
			moved = append(moved, t.Seat.Label)
		}
	}
	fmt.Fprintf(w, "Exchanged %s %s → %s %s\n", r.From.Number, strings.Join(moved, " "), r.To.Number, strings.Join(r.To.SeatLabels(), " "))
	switch method := string(r.To.Payments[0].Method); {
	case r.Difference > 0:
		fmt.Fprintf(w, "Difference %s paid by %s\n", r.Difference.Signed(), method)
	case r.Difference < 0:
		fmt.Fprintf(w, "Difference %s paid back by %s\n", r.Difference.Signed(), method)
	default:
		fmt.Fprintln(w, "Difference none")
	}
	bookingView{r.To}.writeText(w)
}
