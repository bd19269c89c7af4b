package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"boxoffice/booking"
)

// reservation: pay-later reservations from the command line (issue 13):
// make one for a customer on the phone, find one, take its payment; and
// `report reservations`.

const reservationLong = `A reservation holds seats until its cut-off (30 minutes before the show by
default; serve --reserve-cutoff and kiosk --reserve-cutoff change it). Paying
turns it into a booking with the same number; at the cut-off it lapses and the
seats go back on sale. Customers make them at a kiosk (boxoffice kiosk, or serve
--kiosk over SSH); a clerk makes one for a customer on the phone.`

func reservationCommand() *command {
	return &command{name: "reservation", long: reservationLong, json: machine,
		missing: "usage: boxoffice reservation make|find|pay ...",
		subs: []*command{
			{name: "make", args: "SHOW SEAT... --name NAME --phone PHONE", short: "reserve seats for a customer on the phone", flags: reserveFlags},
			{name: "find", args: "NUMBER | PHONE", short: "find reservations by number (its QR) or phone", run: (*env).findReservations},
			{name: "pay", args: "NUMBER [--pay cash|card] [--tendered AMOUNT] [--key KEY]", short: "take payment: the reservation becomes a booking", flags: payFlags},
		}}
}

func reserveFlags(fs *flag.FlagSet) runFunc {
	name := fs.String("name", "", "the customer's `NAME`")
	phone := fs.String("phone", "", "the customer's `PHONE`")
	customer := fs.Int64("customer", 0, "the customer account `ID` the reservation belongs to (optional)")
	return func(c *env, pos []string) error { return c.reserve(pos, *name, *phone, *customer) }
}

// reserve holds the seats named and reserves them, checking the name and
// phone before anything is held.
func (c *env) reserve(pos []string, name, phone string, customer int64) error {
	if len(pos) < 2 {
		return usagef("usage: boxoffice reservation make SHOW SEAT... --name NAME --phone PHONE")
	}
	show, err := showArg(pos[0])
	if err != nil {
		return err
	}
	if err := (booking.ReserveRequest{HoldID: 1, Owner: "cli", Name: name, Phone: phone}).Validate(); err != nil {
		return usagef("%s", booking.ErrorMessage(err))
	}
	if customer < 0 {
		return usagef("--customer must be a customer id from `boxoffice customer find`")
	}
	return c.withStore(func(st backend) error {
		owner := "cli-reserve-" + randomID()
		h, err := st.Hold(c.ctx, booking.System, booking.HoldRequest{ShowID: show, Seats: pos[1:], Owner: owner})
		if err != nil {
			return err
		}
		r, err := st.Reserve(c.ctx, booking.System, booking.ReserveRequest{HoldID: h.ID, Owner: owner, Name: name, Phone: phone, CustomerID: customer})
		if err != nil {
			_, _ = st.ReleaseOwner(c.ctx, owner)
			return err
		}
		c.print(reservationView{r})
		return nil
	})
}

// findReservations lists the reservations of a number or phone.
func (c *env) findReservations(pos []string) error {
	if len(pos) == 0 {
		return usagef("usage: boxoffice reservation find NUMBER | PHONE")
	}
	return c.withStore(func(st backend) error {
		list, err := st.FindReservations(c.ctx, booking.System, strings.Join(pos, " "))
		if err != nil {
			return err
		}
		if len(list) == 0 {
			return booking.Errorf(booking.ENotFound, "No reservation found.")
		}
		c.print(reservationsView(list))
		return nil
	})
}

func payFlags(fs *flag.FlagSet) runFunc {
	f := &sellInput{}
	fs.StringVar(&f.pay, "pay", "cash", "how the customer pays: `cash|card`")
	fs.StringVar(&f.tendered, "tendered", "", "the cash handed over, an `AMOUNT` (default: exact money)")
	fs.StringVar(&f.key, "key", "", "idempotency `KEY`: the same key again returns the same booking")
	return func(c *env, pos []string) error { return c.payReservation(pos, f) }
}

// payReservation sells a reservation in one step.
func (c *env) payReservation(pos []string, f *sellInput) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice reservation pay NUMBER [--pay cash|card]")
	}
	pay, err := parsePayment(f)
	if err != nil {
		return err
	}
	return c.withStore(func(st backend) error {
		b, err := st.PayReservation(c.ctx, booking.System, booking.PayReservationRequest{Number: pos[0], Method: pay.Method,
			Tendered: pay.Tendered, IdempotencyKey: pay.IdempotencyKey})
		if err != nil {
			return err
		}
		c.print(bookingView{b})
		return nil
	})
}

// reservationView is one reservation.
type reservationView struct{ r *booking.Reservation }

func (v reservationView) jsonValue() any { return reservationJSON(v.r) }

func reservationJSON(r *booking.Reservation) map[string]any {
	seats := make([]string, len(r.Seats))
	for i, s := range r.Seats {
		seats[i] = s.Label
	}
	out := map[string]any{"number": r.Number, "status": string(r.Status), "source": string(r.Source), "name": r.Name, "phone": r.Phone,
		"show": r.Show.ID, "film": r.Show.Film.Title, "start": r.Show.Starts.Format(time.RFC3339), "seats": seats,
		"cutoff": r.CutOff.Format(time.RFC3339), "created_by": r.CreatedBy}
	if v := r.Voucher; v != nil {
		out["voucher"] = map[string]any{"code": v.Code, "discount": v.Discount.String(), "returned": v.Returned}
	}
	return out
}

func (v reservationView) writeText(w io.Writer) {
	r := v.r
	fmt.Fprintf(w, "%s  %s · %s %s · %s\n", r.Number, r.Status, booking.Clean(r.Show.Film.Title), r.Show.Starts.Format("Mon 2 Jan 15:04"),
		seatLabelsOf(r.Seats))
	fmt.Fprintf(w, "  %s, %s · pay by %s (%s, taken by %s)\n", booking.Clean(r.Name), booking.Clean(r.Phone), r.CutOff.Format("15:04"),
		r.Source, booking.Clean(r.CreatedBy))
	if v := r.Voucher; v != nil {
		back := ""
		if v.Returned {
			back = " (returned)"
		}
		fmt.Fprintf(w, "  voucher %s: -%s%s\n", booking.Clean(v.Code), v.Discount.String(), back)
	}
}

// reservationsView is a list of them.
type reservationsView []booking.Reservation

func (v reservationsView) jsonValue() any {
	out := make([]map[string]any, len(v))
	for i := range v {
		out[i] = reservationJSON(&v[i])
	}
	return out
}

func (v reservationsView) writeText(w io.Writer) {
	for i := range v {
		reservationView{&v[i]}.writeText(w)
	}
}

func seatLabelsOf(seats []booking.Seat) string {
	labels := make([]string, len(seats))
	for i, s := range seats {
		labels[i] = s.Label
	}
	return strings.Join(labels, " ")
}
