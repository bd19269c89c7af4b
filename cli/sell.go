package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"strings"

	"boxoffice/booking"
	"boxoffice/db"
)

// sell: seats named or the best N, held, checked out and printed as a
// booking; nothing of the run stays held whatever happens.

const sellLong = `Holds the seats, then sells them in one checkout at the prices current
then. Everything that can be refused without the database (the seats, the
ticket type, the money) is refused before a seat is held, with exit code 2.
The same --key again answers with the booking the first run made.`

// sellInput is the sell command line as typed.
type sellInput struct {
	typ, pay, tendered, key, name, phone string
	best, wheelchair                     int
}

func sellInputOf(fs *flag.FlagSet) *sellInput {
	f := &sellInput{}
	fs.StringVar(&f.typ, "type", "adult", "the ticket `TYPE` of every seat: adult, child, senior, student")
	fs.StringVar(&f.pay, "pay", "cash", "how the customer pays: `cash|card`")
	fs.StringVar(&f.tendered, "tendered", "", "the cash handed over, an `AMOUNT` like 30 or 27.50 (default: exact money)")
	fs.StringVar(&f.key, "key", "", "idempotency `KEY`: the same key again returns the same booking")
	fs.StringVar(&f.name, "name", "", "the customer's `NAME`")
	fs.StringVar(&f.phone, "phone", "", "the customer's `PHONE`")
	fs.IntVar(&f.best, "best", 0, "hold the best `N` seats together instead of naming them")
	fs.IntVar(&f.wheelchair, "wheelchair", 0, "with --best: how many (`W`) of the N are wheelchair places")
	return f
}

func sellFlags(fs *flag.FlagSet) runFunc {
	f := sellInputOf(fs)
	return func(c *env, pos []string) error { return c.sell(pos, f) }
}

// sellArgs is a `sell` command line, checked before anything is written.
type sellArgs struct {
	showID     int64
	seats      []string // labels, upper case, each once; empty with best
	best       int
	wheelchair int
	typ        string
	req        booking.CheckoutRequest // without the hold
}

// parseSell checks the command line: everything that can be refused
// without the database is refused here (exit 2).
func parseSell(pos []string, f *sellInput) (*sellArgs, error) {
	if (f.best == 0 && len(pos) < 2) || (f.best != 0 && len(pos) != 1) {
		return nil, usagef("usage: boxoffice sell SHOW SEAT... (seats like G7), or boxoffice sell SHOW --best N")
	}
	if f.best < 0 || f.wheelchair < 0 || (f.wheelchair > 0 && f.best == 0) {
		return nil, usagef("--best takes a party size; --wheelchair goes with --best")
	}
	a := &sellArgs{best: f.best, wheelchair: f.wheelchair, typ: strings.ToLower(strings.TrimSpace(f.typ))}
	var err error
	if a.showID, err = showArg(pos[0]); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, l := range pos[1:] {
		if l = strings.ToUpper(strings.TrimSpace(l)); !seen[l] {
			seen[l] = true
			a.seats = append(a.seats, l)
		}
	}
	if a.req, err = parsePayment(f); err != nil {
		return nil, err
	}
	return a, nil
}

// parsePayment reads how the customer pays and who they are.
func parsePayment(f *sellInput) (booking.CheckoutRequest, error) {
	method := booking.PayMethod(f.pay)
	if method != booking.Cash && method != booking.Card {
		return booking.CheckoutRequest{}, usagef("--pay must be cash or card")
	}
	var tender booking.Money
	if f.tendered != "" {
		if method != booking.Cash {
			return booking.CheckoutRequest{}, usagef("--tendered is for cash payments")
		}
		var err error
		if tender, err = booking.ParseMoney(f.tendered); err != nil {
			return booking.CheckoutRequest{}, usagef("--tendered: %s", booking.ErrorMessage(err))
		}
	}
	key := f.key
	if key == "" {
		key = "cli-" + randomID()
	}
	req := booking.CheckoutRequest{IdempotencyKey: key, Customer: f.name, Phone: f.phone, Method: method, Tendered: tender, CheckTotal: true}
	if err := req.Validate(); err != nil {
		return booking.CheckoutRequest{}, usagef("%s", booking.ErrorMessage(err))
	}
	return req, nil
}

// priceSale checks the ticket type against the prices the store has now
// and returns its price, so an unknown type or short cash is refused
// before a seat is held. The checkout then sends the total and the store
// refuses it if a price changes in between.
func priceSale(a *sellArgs, types []booking.TicketType) (booking.Money, error) {
	var codes []string
	for _, t := range types {
		codes = append(codes, t.Code)
		if t.Code == a.typ {
			n := max(len(a.seats), a.best)
			total := booking.Money(n) * t.Price
			if a.req.Tendered > 0 && a.req.Tendered < total {
				return 0, usagef("%s tendered is less than the total %s", a.req.Tendered.String(), total.String())
			}
			return t.Price, nil
		}
	}
	return 0, usagef("unknown ticket type %q (%s)", booking.CleanLine(a.typ, 20), strings.Join(codes, ", "))
}

func (c *env) sell(pos []string, f *sellInput) error {
	a, err := parseSell(pos, f)
	if err != nil {
		return err
	}
	return c.withStore(func(st *db.Store) error {
		b, err := c.sellOn(st, a)
		if err != nil {
			return err
		}
		c.print(bookingView{b})
		return nil
	})
}

// sellOn holds and sells a's seats on st.
func (c *env) sellOn(st *db.Store, a *sellArgs) (*booking.Booking, error) {
	owner := "cli-" + randomID()
	actor := booking.System
	actor.Terminal = "cli"
	// A retried command with the same key lands on the booking the first
	// run made, even though its seats now read as sold.
	if b, err := st.BookingByKey(c.ctx, actor, a.req.IdempotencyKey); err == nil {
		return b, nil
	}
	types, err := st.TicketTypes(c.ctx)
	if err != nil {
		return nil, err
	}
	price, err := priceSale(a, types)
	if err != nil {
		return nil, err
	}
	hold, err := c.hold(st, actor, a, owner)
	if err != nil {
		if b, err2 := st.BookingByKey(c.ctx, actor, a.req.IdempotencyKey); err2 == nil {
			return b, nil // a concurrent run with this key won
		}
		return nil, err
	}
	req := a.req
	req.HoldID, req.Owner = hold.ID, owner
	req.Types = make(map[string]string, len(hold.Seats))
	for _, s := range hold.Seats {
		req.Types[s.Label] = a.typ
	}
	req.ExpectedTotal = booking.Money(len(hold.Seats)) * price
	b, err := st.Checkout(c.ctx, actor, req)
	// Whatever happened, nothing of this run stays held: after a sale the
	// release is a no-op, after a failure it gives the seats back.
	st.Release(context.WithoutCancel(c.ctx), actor, hold.ID, owner)
	return b, err
}

// hold holds the seats a names, or the best a.best.
func (c *env) hold(st *db.Store, actor booking.Actor, a *sellArgs, owner string) (*booking.Hold, error) {
	if a.best == 0 {
		return st.Hold(c.ctx, actor, booking.HoldRequest{ShowID: a.showID, Seats: a.seats, Owner: owner})
	}
	hold, err := st.HoldBest(c.ctx, actor, booking.HoldBestRequest{ShowID: a.showID, N: a.best, Wheelchair: a.wheelchair, Owner: owner})
	if err == nil && !hold.Together {
		fmt.Fprintf(c.stderr, "boxoffice: no %d seats are free together; selling the best split: %s\n", a.best, strings.Join(booking.Labels(hold.Seats), " "))
	}
	return hold, err
}

func randomID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
