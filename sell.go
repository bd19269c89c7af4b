package main

import (
	"context"
	"fmt"
	"strings"

	"boxoffice/booking"
)

// sellArgs is a `sell` command line, checked before anything is written.
type sellArgs struct {
	showID     int64
	seats      []string // labels, upper case, each once; empty with best
	best       int
	wheelchair int
	typ        string
	req        booking.CheckoutRequest // without the hold
}

// parseSell reads and checks the command line: everything that can be
// refused without the database is refused here (exit 2).
func (c *cli) parseSell(args []string) (*sellArgs, int) {
	fs := c.flags("sell")
	typ := fs.String("type", "adult", "ticket type for every seat (adult, child, senior, student)")
	pay := fs.String("pay", "cash", "cash or card")
	tendered := fs.String("tendered", "", "cash handed over, like 30 or 27.50 (default: exact money)")
	key := fs.String("key", "", "idempotency key: the same key again returns the same booking")
	name := fs.String("name", "", "customer name")
	phone := fs.String("phone", "", "customer phone")
	best := fs.Int("best", 0, "hold the best N seats instead of naming them")
	wheelchair := fs.Int("wheelchair", 0, "with --best: how many of the N are wheelchair places")
	fs.BoolVar(&c.jsonOut, "json", false, "machine output")
	pos, err := c.parse(fs, args)
	if err != nil {
		return nil, c.usageErr("%v", err)
	}
	if (*best == 0 && len(pos) < 2) || (*best != 0 && len(pos) != 1) {
		return nil, c.usageErr("usage: boxoffice sell SHOW SEAT... (seats like G7), or boxoffice sell SHOW --best N")
	}
	if *best < 0 || *wheelchair < 0 || (*wheelchair > 0 && *best == 0) {
		return nil, c.usageErr("--best takes a party size; --wheelchair goes with --best")
	}
	a := &sellArgs{best: *best, wheelchair: *wheelchair, typ: strings.ToLower(strings.TrimSpace(*typ))}
	var ok bool
	if a.showID, ok = parseShowID(pos[0]); !ok {
		return nil, c.usageErr("SHOW must be a show id from `boxoffice shows`, not %q", booking.CleanLine(pos[0], 20))
	}
	seen := map[string]bool{}
	for _, l := range pos[1:] {
		if l = strings.ToUpper(strings.TrimSpace(l)); !seen[l] {
			seen[l] = true
			a.seats = append(a.seats, l)
		}
	}
	method := booking.PayMethod(*pay)
	if method != booking.Cash && method != booking.Card {
		return nil, c.usageErr("--pay must be cash or card")
	}
	var tender int64
	if *tendered != "" {
		if method != booking.Cash {
			return nil, c.usageErr("--tendered is for cash payments")
		}
		if tender, err = booking.ParseMoney(*tendered); err != nil {
			return nil, c.usageErr("--tendered: %s", booking.ErrorMessage(err))
		}
	}
	if *key == "" {
		*key = "cli-" + randomID()
	}
	a.req = booking.CheckoutRequest{IdempotencyKey: *key, Customer: *name, Phone: *phone, Method: method, Tendered: tender, CheckTotal: true}
	if err := a.req.Validate(); err != nil {
		return nil, c.usageErr("%s", booking.ErrorMessage(err))
	}
	return a, exitOK
}

// priceSale checks the ticket type against the prices the store has now and
// works out the total, so an unknown type or short cash is refused before
// a seat is held. The checkout then sends that total and the store
// refuses it if a price changes in between.
func (c *cli) priceSale(a *sellArgs, types []booking.TicketType) (int64, int) {
	var codes []string
	for _, t := range types {
		codes = append(codes, t.Code)
		if t.Code == a.typ {
			n := max(len(a.seats), a.best)
			total := int64(n) * t.Price
			if a.req.Tendered > 0 && a.req.Tendered < total {
				return 0, c.usageErr("%s tendered is less than the total %s", booking.FormatMoney(a.req.Tendered), booking.FormatMoney(total))
			}
			return t.Price, exitOK
		}
	}
	return 0, c.usageErr("unknown ticket type %q (%s)", booking.CleanLine(a.typ, 20), strings.Join(codes, ", "))
}

func (c *cli) sell(args []string) int {
	a, code := c.parseSell(args)
	if a == nil {
		return code
	}
	o, err := c.open(false)
	if err != nil {
		return c.fail(err)
	}
	defer o.store.Close()
	owner := "cli-" + randomID()
	actor := booking.System
	actor.Terminal = "cli"
	// A retried command with the same key lands on the booking the first
	// run made, even though its seats now read as sold.
	if b, err := o.store.BookingByKey(c.ctx, actor, a.req.IdempotencyKey); err == nil {
		return c.printBooking(b)
	}
	types, err := o.store.TicketTypes(c.ctx)
	if err != nil {
		return c.fail(err)
	}
	price, code := c.priceSale(a, types)
	if code != exitOK {
		return code
	}
	var hold *booking.Hold
	if a.best > 0 {
		hold, err = o.store.HoldBest(c.ctx, actor, booking.HoldBestRequest{ShowID: a.showID, N: a.best, Wheelchair: a.wheelchair, Owner: owner})
		if err == nil && !hold.Together {
			fmt.Fprintf(c.stderr, "boxoffice: no %d seats are free together; selling the best split: %s\n", a.best, strings.Join(booking.Labels(hold.Seats), " "))
		}
	} else {
		hold, err = o.store.Hold(c.ctx, actor, booking.HoldRequest{ShowID: a.showID, Seats: a.seats, Owner: owner})
	}
	if err != nil {
		if b, err2 := o.store.BookingByKey(c.ctx, actor, a.req.IdempotencyKey); err2 == nil {
			return c.printBooking(b) // a concurrent run with this key won
		}
		return c.fail(err)
	}
	req := a.req
	req.HoldID, req.Owner = hold.ID, owner
	req.Types = make(map[string]string, len(hold.Seats))
	for _, s := range hold.Seats {
		req.Types[s.Label] = a.typ
	}
	req.ExpectedTotal = int64(len(hold.Seats)) * price
	b, err := o.store.Checkout(c.ctx, actor, req)
	// Whatever happened, nothing of this run stays held: after a sale the
	// release is a no-op, after a failure it gives the seats back.
	o.store.Release(context.WithoutCancel(c.ctx), actor, hold.ID, owner)
	if err != nil {
		return c.fail(err)
	}
	return c.printBooking(b)
}
