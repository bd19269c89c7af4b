package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"boxoffice/booking"
)

// sell: seats named or the best N, held, checked out and printed as a
// booking; nothing of the run stays held whatever happens.

var sellLong = `Holds the seats, then sells them in one checkout at the prices current
then: each seat by its kind and the show's price list (boxoffice help
price). Everything that can be refused without the database (the seats,
the ticket type, the money) is refused before a seat is held, with exit
code 2; cash short of the total is refused once the seats are priced,
with exit code 2 and nothing sold. --best keeps the party out of premium
seats unless --premium is given or nothing else fits them together. Seats
named that would leave a single empty seat between taken seats or an
aisle are refused, naming it, unless --allow-single is given (written to
the audit trail); the rule is off once a show is ` + strconv.Itoa(booking.SinglesRelaxPercent) + `% taken. The
same --key again answers with the booking the first run made. --part
METHOD[:AMOUNT], repeated, pays the sale in parts: --part card:10 --part
cash --tendered 20 takes 10.00 by card and the rest in cash from 20.00;
the part without an amount is the rest, change comes only from cash.`

// sellInput is the sell command line as typed.
type sellInput struct {
	typ, pay, tendered, key, name, phone string
	best, wheelchair                     int
	premium, allowSingle, idChecked      bool
	customer                             int64
	// voucher and items are what the sale carries beside its seats
	// (vouchers.go).
	voucher string
	items   itemFlags
	gift    giftCardInput // --card, --rest (giftcards.go)
	parts   tenderFlags   // --part (tender.go)
}

func sellInputOf(fs *flag.FlagSet) *sellInput {
	f := &sellInput{}
	fs.StringVar(&f.typ, "type", "adult", "the ticket `TYPE` of every seat: adult, child, senior, student")
	fs.StringVar(&f.pay, "pay", "cash", "how the customer pays: `cash|card`")
	fs.StringVar(&f.tendered, "tendered", "", "the cash handed over, an `AMOUNT` like 30 or 27.50 (default: exact money)")
	fs.StringVar(&f.key, "key", "", "idempotency `KEY`: the same key again returns the same booking")
	fs.StringVar(&f.name, "name", "", "the customer's `NAME`")
	fs.StringVar(&f.phone, "phone", "", "the customer's `PHONE`")
	fs.Int64Var(&f.customer, "customer", 0, "the customer account `ID` the sale belongs to (boxoffice customer find)")
	fs.IntVar(&f.best, "best", 0, "hold the best `N` seats together instead of naming them")
	fs.IntVar(&f.wheelchair, "wheelchair", 0, "with --best: how many (`W`) of the N are wheelchair places")
	fs.BoolVar(&f.premium, "premium", false, "with --best: premium seats may be chosen (without it, only when nothing else fits)")
	fs.BoolVar(&f.allowSingle, "allow-single", false, "with seats named: sell them even if they leave a single empty seat (written to the audit trail)")
	fs.StringVar(&f.voucher, "voucher", "", "a voucher `CODE` to take off the tickets")
	fs.Var(&f.items, "item", "sell `CODE:QTY` of an item on the same sale (repeatable)")
	giftCardFlags(fs, &f.gift)
	fs.Var(&f.parts, "part", "pay a `METHOD[:AMOUNT]` part of the sale, cash|card|giftcard (repeatable; the part without an amount is the rest)")
	fs.BoolVar(&f.idChecked, "id-checked", false, "the customer's ID was checked: needed for a film rated above the cinema's rating.id_above (written to the audit trail)")
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
	premium    bool
	// allowSingle is --allow-single: the single-seat rule's override.
	allowSingle bool
	// idChecked is --id-checked: the clerk checked ID for an age-rated film.
	idChecked bool
	typ       string
	req       booking.CheckoutRequest // without the hold
}

// parseSell checks the command line: everything that can be refused
// without the database is refused here (exit 2).
func parseSell(pos []string, f *sellInput) (*sellArgs, error) {
	if (f.best == 0 && len(pos) < 2) || (f.best != 0 && len(pos) != 1) {
		return nil, usagef("usage: boxoffice sell SHOW SEAT... (seats like G7), or boxoffice sell SHOW --best N")
	}
	if f.best < 0 || f.wheelchair < 0 || ((f.wheelchair > 0 || f.premium) && f.best == 0) {
		return nil, usagef("--best takes a party size; --wheelchair and --premium go with --best")
	}
	if f.allowSingle && f.best != 0 {
		return nil, usagef("--allow-single goes with seats named: --best never leaves a single seat unless nothing else fits")
	}
	a := &sellArgs{best: f.best, wheelchair: f.wheelchair, premium: f.premium, allowSingle: f.allowSingle, idChecked: f.idChecked, typ: strings.ToLower(strings.TrimSpace(f.typ))}
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
	if len(f.parts) > 0 {
		return tenderPayment(f)
	}
	if f.pay == string(booking.GiftCard) || f.gift != (giftCardInput{}) {
		return giftCardPayment(f)
	}
	method := booking.PayMethod(f.pay)
	if method != booking.Cash && method != booking.Card {
		return booking.CheckoutRequest{}, usagef("--pay must be cash or card")
	}
	if f.tendered != "" && method != booking.Cash {
		return booking.CheckoutRequest{}, usagef("--tendered is for cash payments")
	}
	tender, err := parseTendered(f.tendered)
	if err != nil {
		return booking.CheckoutRequest{}, err
	}
	return saleRequest(f, booking.CheckoutRequest{Method: method, Tendered: tender})
}

// checkType refuses a ticket type the store does not have before a seat
// is held.
func checkType(a *sellArgs, types []booking.TicketType) error {
	var codes []string
	for _, t := range types {
		codes = append(codes, t.Code)
		if t.Code == a.typ {
			return nil
		}
	}
	return usagef("unknown ticket type %q (%s)", booking.CleanLine(a.typ, 20), strings.Join(codes, ", "))
}

// checkCash refuses cash short of the least the sale can cost before a
// seat is held: the named seats as the checkout would price them, or for
// --best N times the cheapest kind of seat the party may be given.
func (c *env) checkCash(st backend, actor booking.Actor, a *sellArgs) error {
	if a.req.Tendered == 0 || extrasPriced(a.req) || len(a.req.Tender) > 0 {
		return nil // items, a voucher or a sale in parts: priced or split at the checkout
	}
	m, err := st.SeatMap(c.ctx, actor, a.showID, "")
	if err != nil {
		return err
	}
	seats, n := floorSeats(m.Hall, a)
	if len(seats) == 0 || len(seats) > booking.MaxSeatsPerSale {
		return nil // unknown seats or too many: the hold says so
	}
	req := booking.QuoteRequest{ShowID: a.showID, Types: map[string]string{}}
	for _, s := range seats {
		req.SeatIDs = append(req.SeatIDs, s.ID)
		req.Types[s.Label] = a.typ
	}
	q, err := st.Quote(c.ctx, actor, req)
	if err != nil {
		return err
	}
	floor := q.Total
	if a.best > 0 {
		least := q.Lines[0].Amount
		for _, l := range q.Lines {
			least = min(least, l.Amount)
		}
		floor = booking.Money(n) * least
	}
	if a.req.Tendered < floor {
		return usagef("%s tendered is less than the total %s", a.req.Tendered.String(), floor.String())
	}
	return nil
}

// floorSeats is what checkCash prices: the seats named, or one seat of
// each kind the best n may be given, with n.
func floorSeats(h *booking.Hall, a *sellArgs) ([]booking.Seat, int) {
	var out []booking.Seat
	if a.best == 0 {
		for _, l := range a.seats {
			s, ok := h.SeatByLabel(l)
			if !ok {
				return nil, 0
			}
			out = append(out, s)
		}
		return out, len(out)
	}
	seen := map[booking.SeatKind]bool{}
	for _, s := range h.Seats {
		if !seen[s.Kind] && (a.wheelchair > 0 || !s.Kind.Accessible()) {
			seen[s.Kind] = true
			out = append(out, s)
		}
	}
	return out, a.best
}

// quoteSale prices the seats held as the checkout will (each by its kind
// and the show's price list) and refuses short cash, so the checkout
// sends the total the command saw and the store refuses it if a price
// changes in between.
func (c *env) quoteSale(st backend, actor booking.Actor, a *sellArgs, hold *booking.Hold, types map[string]string) (booking.Money, error) {
	ids := make([]int64, len(hold.Seats))
	for i, s := range hold.Seats {
		ids[i] = s.ID
	}
	q, err := st.Quote(c.ctx, actor, booking.QuoteRequest{ShowID: hold.ShowID, SeatIDs: ids, Types: types})
	if err != nil {
		return 0, err
	}
	if a.req.Tendered > 0 && len(a.req.Tender) == 0 && a.req.Tendered < q.Total && !extrasPriced(a.req) {
		return 0, usagef("%s tendered is less than the total %s", a.req.Tendered.String(), q.Total.String())
	}
	return q.Total, nil
}

func (c *env) sell(pos []string, f *sellInput) error {
	a, err := parseSell(pos, f)
	if err != nil {
		return err
	}
	return c.withStore(func(st backend) error {
		b, err := c.sellOn(st, a)
		if err == nil {
			err = sameSale(a, b) // a key used before for another sale
		}
		if err != nil {
			return err
		}
		c.print(bookingView{b})
		return nil
	})
}

// sellOn holds and sells a's seats on st.
func (c *env) sellOn(st backend, a *sellArgs) (*booking.Booking, error) {
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
	if err := checkType(a, types); err != nil {
		return nil, err
	}
	if err := c.checkCash(st, actor, a); err != nil {
		return nil, err
	}
	if err := c.checkID(st, actor, a); err != nil {
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
	var b *booking.Booking
	req.ExpectedTotal, err = c.quoteSale(st, actor, a, hold, req.Types)
	if err == nil {
		b, err = st.Checkout(c.ctx, actor, req)
	}
	// Whatever happened, nothing of this run stays held: after a sale the
	// release is a no-op, after a failure it gives the seats back.
	st.Release(context.WithoutCancel(c.ctx), actor, hold.ID, owner)
	return b, err
}

// hold holds the seats a names, or the best a.best.
func (c *env) hold(st backend, actor booking.Actor, a *sellArgs, owner string) (*booking.Hold, error) {
	if a.best == 0 {
		hold, err := st.Hold(c.ctx, actor, booking.HoldRequest{ShowID: a.showID, Seats: a.seats, Owner: owner, ByHand: true, AllowSingle: a.allowSingle})
		var singles *booking.SingleSeatsError
		if errors.As(err, &singles) {
			// The store's words, and what to type instead.
			return nil, booking.Errorf(booking.EConflict, "%s Sell %s, or add --allow-single to sell these anyway (written to the audit trail).",
				singles.Message(), strings.Join(booking.Labels(singles.Fill()), " "))
		}
		return hold, err
	}
	hold, err := st.HoldBest(c.ctx, actor, booking.HoldBestRequest{ShowID: a.showID, N: a.best, Wheelchair: a.wheelchair, Premium: a.premium, Owner: owner})
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
