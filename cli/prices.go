package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"boxoffice/booking"
)

// price: ticket types with their own prices, prices by seat kind and by
// price list, and which list a show sells at.

const priceUsage = `usage: boxoffice price set CODE "NAME" AMOUNT | price set CODE [--list L] [--seat KIND] AMOUNT | price list [--list L]`

const priceLong = `A ticket type's own price is what a standard seat costs. A price for a
seat kind (--seat premium) or on a price list (--list evening) overrides
it; a show sells at the list it is on (show price-list). For a seat of
kind K at a show on list L the first that is set wins: L's price for K,
L's standard price, the standing price for K, the type's own price. A
wheelchair or companion place never costs more than a standard seat of
the same type and list.`

func priceCommand() *command {
	return &command{name: "price", json: machine, missing: priceUsage,
		subs: []*command{
			{name: "set", args: "CODE \"NAME\" AMOUNT\nCODE [--list L] [--seat KIND] AMOUNT",
				short: "add a ticket type or change its price\nits price for a seat kind or on a price list", long: priceLong, flags: priceSetFlags},
			{name: "list", args: "[--list L] [--json]", short: "prices by ticket type and seat kind", long: priceLong, flags: priceListFlags},
		}}
}

func priceSetFlags(fs *flag.FlagSet) runFunc {
	list := fs.String("list", "", "the price `LIST` (\"evening\"); created when new")
	seat := fs.String("seat", "", "the seat `KIND`: standard, premium, wheelchair or companion")
	return func(c *env, pos []string) error { return c.priceSet(pos, *list, *seat) }
}

func (c *env) priceSet(pos []string, list, seat string) error {
	if list == "" && seat == "" {
		return c.priceSetType(pos)
	}
	if len(pos) != 2 {
		return usagef(priceUsage)
	}
	e := booking.PriceEntry{PriceKey: booking.PriceKey{Type: strings.ToLower(strings.TrimSpace(pos[0])), Kind: booking.Standard}}
	if seat != "" {
		kind, ok := booking.ParseSeatKind(strings.ToLower(seat))
		if !ok {
			return usagef("--seat must be standard, premium, wheelchair or companion")
		}
		e.Kind = kind
	}
	var err error
	if e.List, err = booking.ParseListName(list, true); err != nil {
		return usagef("--list: %s", booking.ErrorMessage(err))
	}
	if e.Amount, err = booking.ParseMoney(pos[1]); err != nil {
		return usagef("AMOUNT: %s", booking.ErrorMessage(err))
	}
	if err := e.Validate(); err != nil {
		return usagef("%s", booking.ErrorMessage(err))
	}
	return c.withStore(func(st backend) error {
		if err := st.SetPriceEntry(c.ctx, booking.System, e); err != nil {
			return err
		}
		where := "the standing list"
		if e.List != "" {
			where = "the " + e.List + " list"
		}
		c.say("%s on a %s seat now costs %s on %s.", e.Type, e.Kind, e.Amount.String(), where)
		return nil
	})
}

// priceSetType adds a ticket type or changes its own price.
func (c *env) priceSetType(pos []string) error {
	if len(pos) != 3 {
		return usagef(priceUsage)
	}
	amount, err := booking.ParseMoney(pos[2])
	if err != nil {
		return usagef("AMOUNT: %s", booking.ErrorMessage(err))
	}
	return c.withStore(func(st backend) error {
		if err := st.SetPrice(c.ctx, booking.System, booking.TicketType{Code: pos[0], Name: pos[1], Price: amount}); err != nil {
			return err
		}
		c.say("%s (%s) now costs %s.", booking.CleanLine(pos[1], 40), strings.ToLower(pos[0]), amount.String())
		return nil
	})
}

func priceListFlags(fs *flag.FlagSet) runFunc {
	list := fs.String("list", "", "the prices on price `LIST` (default: the standing list)")
	return func(c *env, pos []string) error { return c.priceList(pos, *list) }
}

func (c *env) priceList(pos []string, list string) error {
	if len(pos) != 0 {
		return usagef(priceUsage)
	}
	name, err := booking.ParseListName(list, true)
	if err != nil {
		return usagef("--list: %s", booking.ErrorMessage(err))
	}
	return c.withStore(func(st backend) error {
		t, err := st.Prices(c.ctx, booking.System)
		if err != nil {
			return err
		}
		if name != "" && !hasList(t, name) {
			return booking.Errorf(booking.ENotFound, "There is no price list %q.", name)
		}
		c.print(priceView{t, name})
		return nil
	})
}

func hasList(t *booking.PriceTable, name string) bool {
	for _, l := range t.Lists {
		if l.Name == name {
			return true
		}
	}
	return false
}

// priceView is every ticket type's price on each seat kind, on one list.
type priceView struct {
	t    *booking.PriceTable
	list string
}

type priceJSON struct {
	Code  string          `json:"code"`
	Name  string          `json:"name"`
	Price string          `json:"price"`
	List  string          `json:"list"`
	Seats []seatPriceJSON `json:"seats"`
}

type seatPriceJSON struct {
	Kind   string `json:"kind"`
	Price  string `json:"price"`
	Source string `json:"source"`
}

var seatKinds = []booking.SeatKind{booking.Standard, booking.Premium, booking.Wheelchair, booking.Companion}

func (v priceView) jsonValue() any {
	out := make([]priceJSON, 0, len(v.t.Types))
	for _, ty := range v.t.Types {
		p := priceJSON{Code: ty.Code, Name: booking.Clean(ty.Name), Price: ty.Price.String(), List: v.list}
		for _, k := range seatKinds {
			got, _ := booking.PriceFor(v.t, v.list, ty.Code, k)
			p.Seats = append(p.Seats, seatPriceJSON{k.String(), got.Amount.String(), got.Source})
		}
		out = append(out, p)
	}
	return out
}

func (v priceView) writeText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CODE\tNAME\tSTANDARD\tPREMIUM\tWHEELCHAIR\tCOMPANION")
	for _, ty := range v.t.Types {
		cells := []string{ty.Code, booking.Clean(ty.Name)}
		for _, k := range seatKinds {
			got, _ := booking.PriceFor(v.t, v.list, ty.Code, k)
			mark := ""
			if got.Source != "" {
				mark = "*"
			}
			cells = append(cells, got.Amount.String()+mark)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	if v.list != "" {
		fmt.Fprintf(w, "On the %s list; * is a price set for the list or the seat kind.\n", v.list)
	} else if len(v.t.Entries) > 0 {
		fmt.Fprintln(w, "* is a price set for the seat kind.")
	}
	if len(v.t.Lists) > 0 {
		names := make([]string, len(v.t.Lists))
		for i, l := range v.t.Lists {
			names[i] = l.Name
		}
		fmt.Fprintf(w, "Price lists: %s (boxoffice price list --list L).\n", strings.Join(names, ", "))
	}
}

// showPriceList puts a show on a price list; "standing" (or "") is the
// usual prices.
func (c *env) showPriceList(pos []string) error {
	if len(pos) != 2 {
		return usagef(showUsage)
	}
	show, err := showArg(pos[0])
	if err != nil {
		return err
	}
	list := pos[1]
	if strings.EqualFold(strings.TrimSpace(list), "standing") {
		list = ""
	}
	if list, err = booking.ParseListName(list, true); err != nil {
		return usagef("LIST: %s", booking.ErrorMessage(err))
	}
	return c.withStore(func(st backend) error {
		if err := st.SetShowPriceList(c.ctx, booking.System, show, list); err != nil {
			return err
		}
		if list == "" {
			c.say("Show %d now sells at the standing prices.", show)
		} else {
			c.say("Show %d now sells on the %s list.", show, list)
		}
		return nil
	})
}

// checkList refuses, before anything is written, a price list nobody has
// set a price on.
func checkList(c *env, st backend, list string) error {
	if list == "" {
		return nil
	}
	t, err := st.Prices(c.ctx, booking.System)
	if err != nil {
		return err
	}
	if !hasList(t, list) {
		return booking.Errorf(booking.ENotFound, "There is no price list %q: set a price on it first (boxoffice price set CODE --list %s AMOUNT).", list, list)
	}
	return nil
}

// onList says which list a show is on, after its start: " on the evening
// list", or nothing for the standing list.
func onList(list string) string {
	if list == "" {
		return ""
	}
	return " on the " + list + " list"
}
