package cli

import (
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"boxoffice/booking"
)

// voucher: promo codes for an amount or a percentage off a sale's
// tickets, used a number of times (docs/vouchers.md); sell --voucher
// redeems one.

const voucherUsage = `usage: boxoffice voucher add CODE (--off AMOUNT | --percent N) [--uses N] [--until DATE] [--film ID] [--show ID] [--type CODE] | voucher list [--json] | voucher retire CODE`

const voucherLong = `A voucher's CODE (3 to 24 letters, digits, - or _, any case typed) is
what the customer gives at the checkout: sell … --voucher CODE. It takes
--off AMOUNT off the sale's tickets, shared over them to the penny, or
--percent N off each ticket, rounded half up per ticket; each ticket is
stored at what was paid for it, so a refund, the VAT and the takings are
net of the discount. It may be used --uses times (once by default), until
the end of the day --until (YYYY-MM-DD), and be kept to one film, one
show or one ticket type. A code used up, expired or retired refuses the
sale with exit code 3 and nothing of it is written; cancelling the
booking gives the use back, once.`

func voucherCommand() *command {
	return &command{name: "voucher", json: machine, missing: voucherUsage, subs: []*command{
		{name: "add", args: "CODE (--off AMOUNT | --percent N) [--uses N] [--until DATE] [--film ID] [--show ID] [--type CODE]",
			short: "add a voucher or promo code", long: voucherLong, flags: voucherAddFlags},
		{name: "list", args: "[--json]", short: "the vouchers with their uses left", long: voucherLong, run: (*env).voucherList},
		{name: "retire", args: "CODE", short: "stop a voucher being accepted; its uses stay", run: (*env).voucherRetire},
	}}
}

func voucherAddFlags(fs *flag.FlagSet) runFunc {
	off := fs.String("off", "", "an `AMOUNT` off the sale's tickets, like 2.50")
	percent := fs.Int("percent", 0, "`N` percent off each ticket, 1 to 100")
	uses := fs.Int("uses", 1, "how many times (`N`) it may be used")
	until := fs.String("until", "", "the last `DATE` it is accepted, YYYY-MM-DD (default: no end)")
	film := fs.Int64("film", 0, "only for the film with this `ID`")
	show := fs.Int64("show", 0, "only for the show with this `ID`")
	typ := fs.String("type", "", "only for tickets of this type `CODE`, like child")
	return func(c *env, pos []string) error {
		if len(pos) != 1 {
			return usagef("%s", voucherUsage)
		}
		v := booking.Voucher{Code: pos[0], Percent: *percent, Uses: *uses, FilmID: *film, ShowID: *show, TicketType: *typ}
		if *uses < 1 {
			return usagef("--uses is 1 to %d", booking.MaxVoucherUses)
		}
		var err error
		if *off != "" {
			if v.Off, err = booking.ParseMoney(*off); err != nil {
				return usagef("--off: %s", booking.ErrorMessage(err))
			}
		}
		if *until != "" {
			if v.Until, err = booking.ParseVoucherUntil(*until, time.Local); err != nil {
				return usagef("--until: %s", booking.ErrorMessage(err))
			}
		}
		if v, err = booking.ValidVoucher(v); err != nil {
			return usagef("%s", booking.ErrorMessage(err))
		}
		return c.withStore(func(st backend) error {
			added, err := st.AddVoucher(c.ctx, booking.System, v)
			if err != nil {
				return err
			}
			c.print(voucherView{added, "Added"})
			return nil
		})
	}
}

func (c *env) voucherList(pos []string) error {
	if len(pos) != 0 {
		return usagef("usage: boxoffice voucher list [--json]")
	}
	return c.withStore(func(st backend) error {
		list, err := st.ListVouchers(c.ctx, booking.System)
		if err != nil {
			return err
		}
		c.print(voucherListView(list))
		return nil
	})
}

func (c *env) voucherRetire(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice voucher retire CODE")
	}
	return c.withStore(func(st backend) error {
		v, err := st.RetireVoucher(c.ctx, booking.System, pos[0])
		if err != nil {
			return err
		}
		c.print(voucherView{v, "Retired"})
		return nil
	})
}

// voucherJSON is a voucher as --json prints it: off is "" for a
// percentage, percent 0 for an amount, until "" for no end.
type voucherJSON struct {
	Code       string `json:"code"`
	Off        string `json:"off"`
	Percent    int    `json:"percent"`
	Uses       int    `json:"uses"`
	UsesLeft   int    `json:"uses_left"`
	Until      string `json:"until"`
	FilmID     int64  `json:"film_id"`
	ShowID     int64  `json:"show_id"`
	TicketType string `json:"ticket_type"`
	Retired    bool   `json:"retired"`
}

func voucherJSONOf(v booking.Voucher) voucherJSON {
	out := voucherJSON{Code: v.Code, Percent: v.Percent, Uses: v.Uses, UsesLeft: v.UsesLeft, FilmID: v.FilmID, ShowID: v.ShowID,
		TicketType: booking.Clean(v.TicketType), Retired: v.Retired}
	if v.Off > 0 {
		out.Off = v.Off.String()
	}
	out.Until = v.LastDay()
	return out
}

// voucherView is one voucher after a change, said as verb ("Added").
type voucherView struct {
	v    *booking.Voucher
	verb string
}

func (v voucherView) jsonValue() any { return voucherJSONOf(*v.v) }

func (v voucherView) writeText(w io.Writer) {
	x := v.v
	fmt.Fprintf(w, "%s %s: %s, %d of %d uses left, for %s", v.verb, x.Code, x.OffText(), x.UsesLeft, x.Uses, x.LimitText())
	if u := x.LastDay(); u != "" {
		fmt.Fprintf(w, ", until %s", u)
	}
	fmt.Fprintln(w, ".")
}

// voucherListView is voucher list's answer.
type voucherListView []booking.Voucher

func (v voucherListView) jsonValue() any {
	out := make([]voucherJSON, 0, len(v))
	for _, x := range v {
		out = append(out, voucherJSONOf(x))
	}
	return out
}

func (v voucherListView) writeText(w io.Writer) {
	if len(v) == 0 {
		fmt.Fprintln(w, "No vouchers: add one with boxoffice voucher add CODE --off AMOUNT.")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CODE\tOFF\tUSES LEFT\tUNTIL\tFOR\t")
	for _, x := range v {
		left := fmt.Sprintf("%d of %d", x.UsesLeft, x.Uses)
		if x.Retired {
			left += " (retired)"
		}
		until := x.LastDay()
		if until == "" {
			until = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", x.Code, x.OffText(), left, until, x.LimitText())
	}
	tw.Flush()
}

// voucherUseJSON is the voucher a sale used, in a booking's --json.
type voucherUseJSON struct {
	Code     string `json:"code"`
	Discount string `json:"discount"`
	Returned bool   `json:"returned"`
}

// saleItemsJSON are the items sold on a sale, in a booking's --json.
type saleItemsJSON struct {
	Order    string          `json:"order"`
	Total    string          `json:"total"`
	Method   string          `json:"method"`
	Tendered string          `json:"tendered"`
	Change   string          `json:"change"`
	Lines    []orderLineJSON `json:"lines"`
}

// saleExtrasJSON is b's voucher and items for its --json, nil for none.
func saleExtrasJSON(b *booking.Booking) (*voucherUseJSON, *saleItemsJSON) {
	var v *voucherUseJSON
	if u := b.Voucher; u != nil {
		v = &voucherUseJSON{Code: u.Code, Discount: u.Discount.String(), Returned: u.Returned}
	}
	var it *saleItemsJSON
	if s := b.Items; s != nil {
		it = &saleItemsJSON{Order: s.Order, Total: s.Total().String(), Method: string(s.Method), Tendered: s.Tendered.String(), Change: s.Change.String()}
		for _, l := range s.Lines {
			it.Lines = append(it.Lines, orderLineJSON{l.Code, booking.Clean(l.Name), booking.Clean(l.Category), l.Qty, l.Price.String(), l.Amount().String(), l.Refunded()})
		}
	}
	return v, it
}

// writeSaleExtras prints b's voucher and items under its total: the
// total is the tickets' net of the voucher; the items are paid apart.
func writeSaleExtras(w io.Writer, b *booking.Booking) {
	if u := b.Voucher; u != nil {
		returned := ""
		if u.Returned {
			returned = " (use given back)"
		}
		fmt.Fprintf(w, "Voucher  %s: %s off the tickets%s\n", u.Code, u.Discount.String(), returned)
	}
	s := b.Items
	if s == nil {
		return
	}
	fmt.Fprintf(w, "Items    %s, %s\n", s.Order, s.Total().String())
	for _, l := range s.Lines {
		refunded := ""
		if l.Refunded() {
			refunded = "  refunded"
		}
		fmt.Fprintf(w, "  %-8s %-20s %2d x %7s %8s%s\n", l.Code, booking.CleanLine(l.Name, 20), l.Qty, l.Price.String(), l.Amount().String(), refunded)
	}
	if s.Method == booking.Cash {
		fmt.Fprintf(w, "Items paid %s cash, change due %s\n", s.Tendered.String(), s.Change.String())
	}
}

// itemFlags is sell's repeatable --item CODE:QTY.
type itemFlags []booking.ItemLine

func (f *itemFlags) String() string { return fmt.Sprint(len(*f), " items") }

// Set reads one --item, refusing a bad one at once.
func (f *itemFlags) Set(s string) error {
	l, err := booking.ParseItemLine(s)
	if err != nil {
		return fmt.Errorf("%s", booking.ErrorMessage(err))
	}
	if len(*f) >= booking.MaxItemLines {
		return fmt.Errorf("at most %d --item", booking.MaxItemLines)
	}
	*f = append(*f, l)
	return nil
}

// extrasPriced reports whether a sale's cash can be checked only by the
// store: a voucher lowers the tickets and items add to them, both priced
// in the sale's transaction (short cash is refused there, exit 2).
func extrasPriced(req booking.CheckoutRequest) bool {
	return req.Voucher != "" || len(req.Items) > 0
}

// itemsTendered is the cash handed over for b's items beside its
// tickets' (a cash sale with items splits it), 0 without items.
func itemsTendered(b *booking.Booking) booking.Money {
	if b.Items == nil {
		return 0
	}
	return b.Items.Tendered
}
