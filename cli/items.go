package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"boxoffice/booking"
)

// item: the concessions — items with a price, a category and a stock
// count (or none), their stock-takes and restocks, and their sale alone
// at the counter as an order (docs/concessions.md).

const itemUsage = `usage: boxoffice item add CODE "NAME" PRICE [--stock N] [--category C] | item list | item stock CODE N --reason R | ` +
	`item restock CODE N --reason R | item price CODE PRICE | item retire CODE | item sell CODE:QTY... | item order NUMBER | item refund NUMBER [CODE...]`

const itemLong = `An item's CODE is what is typed to sell it (popcorn:2 sells two); its
stock is a count that never goes below zero, however many counters sell
at once, or unlimited when no --stock is given. A sale of items alone is
an order with a number of its own (IT-…), paid into the command line's
shift like a ticket sale; an item with too few left refuses the whole
sale with exit code 3 ("Popcorn: 0 left; 1 asked.") and nothing of it is
written. In --json, "stock" is null for an unlimited item.`

func itemCommand() *command {
	return &command{name: "item", json: machine, missing: itemUsage, subs: []*command{
		{name: "add", args: "CODE \"NAME\" PRICE [--stock N] [--category C]", short: "add an item to sell beside seats", long: itemLong, flags: itemAddFlags},
		{name: "list", args: "[--all] [--json]", short: "the items with their price and stock", long: itemLong, flags: itemListFlags},
		{name: "stock", args: "CODE N|unlimited --reason R", short: "set an item's stock to the count found (a stock-take)", flags: itemStockFlags(false)},
		{name: "restock", args: "CODE N --reason R", short: "add N to an item's stock (a delivery)", flags: itemStockFlags(true)},
		{name: "price", args: "CODE PRICE", short: "change an item's price; orders made keep theirs", run: (*env).itemPrice},
		{name: "retire", args: "CODE", short: "take an item off sale for good", run: (*env).itemRetire},
		{name: "sell", args: "CODE:QTY... [--pay cash|card] [--tendered AMOUNT] [--key KEY] [--json]", short: "sell items alone, as one order",
			long: itemLong, flags: itemSellFlags},
		{name: "order", args: "NUMBER [--json]", short: "look an order of items up", run: (*env).itemOrder},
		{name: "refund", args: "NUMBER [CODE...] [--reason R] [--json]", short: "refund an order's lines (all of them when no CODE is named)", flags: itemRefundFlags},
	}}
}

// itemActor is the command line selling or changing items: System at the
// terminal "cli", at --site's site when given.
func (c *env) itemActor(st backend) (booking.Actor, error) {
	actor := booking.System
	actor.Terminal = "cli"
	site, ok, err := c.site(st)
	if ok {
		actor.Site = site.ID
	}
	return actor, err
}

func itemAddFlags(fs *flag.FlagSet) runFunc {
	stock := fs.String("stock", "", "how many there are, `N` (default: unlimited)")
	category := fs.String("category", "", "the item's `CATEGORY`, e.g. snacks or drinks (what VAT rates will key on)")
	return func(c *env, pos []string) error {
		if len(pos) != 3 {
			return usagef(`usage: boxoffice item add CODE "NAME" PRICE [--stock N] [--category C]`)
		}
		price, err := booking.ParseMoney(pos[2])
		if err != nil {
			return usagef("PRICE: %s", booking.ErrorMessage(err))
		}
		it := booking.Item{Code: pos[0], Name: pos[1], Category: *category, Price: price}
		if *stock != "" {
			if it.Stock, err = booking.ParseItemStock(*stock); err != nil {
				return usagef("--stock: %s", booking.ErrorMessage(err))
			}
		}
		if it, err = booking.ValidItem(it); err != nil {
			return usagef("%s", booking.ErrorMessage(err))
		}
		return c.withStore(func(st backend) error {
			added, err := st.AddItem(c.ctx, booking.System, it)
			if err != nil {
				return err
			}
			c.print(itemView{added, "Added"})
			return nil
		})
	}
}

func itemListFlags(fs *flag.FlagSet) runFunc {
	all := fs.Bool("all", false, "retired items too")
	return func(c *env, pos []string) error {
		if len(pos) != 0 {
			return usagef("usage: boxoffice item list [--all] [--json]")
		}
		return c.withStore(func(st backend) error {
			list, err := st.Items(c.ctx, booking.System, *all)
			if err != nil {
				return err
			}
			c.print(itemListView(list))
			return nil
		})
	}
}

// itemStockFlags is item stock (a stock-take) or, restock, item restock.
func itemStockFlags(restock bool) func(fs *flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		reason := fs.String("reason", "", "why: a stock-take, a delivery, breakage (required)")
		return func(c *env, pos []string) error {
			usage := "usage: boxoffice item stock CODE N|unlimited --reason R"
			if restock {
				usage = "usage: boxoffice item restock CODE N --reason R"
			}
			if len(pos) != 2 {
				return usagef("%s", usage)
			}
			n, err := booking.ParseItemStock(pos[1])
			if err != nil {
				return usagef("N: %s", booking.ErrorMessage(err))
			}
			req := booking.StockRequest{Code: pos[0], N: n, Reason: *reason}
			if err := req.Validate(restock); err != nil {
				return usagef("%s", booking.ErrorMessage(err))
			}
			return c.withStore(func(st backend) error {
				change := st.StockTake
				if restock {
					change = st.Restock
				}
				sc, err := change(c.ctx, booking.System, req)
				if err != nil {
					return err
				}
				c.print(stockView{sc})
				return nil
			})
		}
	}
}

func (c *env) itemPrice(pos []string) error {
	if len(pos) != 2 {
		return usagef("usage: boxoffice item price CODE PRICE")
	}
	price, err := booking.ParseMoney(pos[1])
	if err != nil {
		return usagef("PRICE: %s", booking.ErrorMessage(err))
	}
	return c.withStore(func(st backend) error {
		it, err := st.SetItemPrice(c.ctx, booking.System, pos[0], price)
		if err != nil {
			return err
		}
		c.print(itemView{it, "Priced"})
		return nil
	})
}

func (c *env) itemRetire(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice item retire CODE")
	}
	return c.withStore(func(st backend) error {
		it, err := st.RetireItem(c.ctx, booking.System, pos[0])
		if err != nil {
			return err
		}
		c.print(itemView{it, "Retired"})
		return nil
	})
}

func itemSellFlags(fs *flag.FlagSet) runFunc {
	pay := fs.String("pay", "cash", "how the customer pays: `cash|card`")
	tendered := fs.String("tendered", "", "the cash handed over, an `AMOUNT` like 10 or 7.50 (default: exact money)")
	key := fs.String("key", "", "idempotency `KEY`: the same key again returns the same order")
	return func(c *env, pos []string) error {
		if len(pos) == 0 {
			return usagef("usage: boxoffice item sell CODE:QTY... [--pay cash|card] [--tendered AMOUNT]")
		}
		pr, err := parsePayment(&sellInput{pay: *pay, tendered: *tendered, key: *key})
		if err != nil {
			return err
		}
		req := booking.ItemSaleRequest{IdempotencyKey: pr.IdempotencyKey, Method: pr.Method, Tendered: pr.Tendered}
		for _, p := range pos {
			l, err := booking.ParseItemLine(p)
			if err != nil {
				return usagef("%s", booking.ErrorMessage(err))
			}
			req.Lines = append(req.Lines, l)
		}
		if err := req.Validate(); err != nil {
			return usagef("%s", booking.ErrorMessage(err))
		}
		return c.withStore(func(st backend) error {
			actor, err := c.itemActor(st)
			if err != nil {
				return err
			}
			o, err := st.SellItems(c.ctx, actor, req)
			if err != nil {
				return err
			}
			c.print(orderView{o})
			return nil
		})
	}
}

func (c *env) itemOrder(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice item order NUMBER [--json]")
	}
	return c.withStore(func(st backend) error {
		o, err := st.ItemOrder(c.ctx, booking.System, pos[0])
		if err != nil {
			return err
		}
		c.print(orderView{o})
		return nil
	})
}

func itemRefundFlags(fs *flag.FlagSet) runFunc {
	reason := fs.String("reason", "", "why (kept in the audit trail)")
	return func(c *env, pos []string) error {
		if len(pos) == 0 {
			return usagef("usage: boxoffice item refund NUMBER [CODE...] [--reason R]")
		}
		req := booking.ItemRefundRequest{Number: pos[0], Codes: pos[1:], Reason: *reason}
		if err := req.Validate(); err != nil {
			return usagef("%s", booking.ErrorMessage(err))
		}
		return c.withStore(func(st backend) error {
			actor, err := c.itemActor(st)
			if err != nil {
				return err
			}
			o, err := st.RefundItems(c.ctx, actor, req)
			if err != nil {
				return err
			}
			c.print(orderView{o})
			return nil
		})
	}
}

// itemJSON is an item as --json prints it; Stock is null for an item
// without a count.
type itemJSON struct {
	Code     string `json:"code"`
	Name     string `json:"name"`
	Category string `json:"category"`
	Price    string `json:"price"`
	Stock    *int   `json:"stock"`
	Retired  bool   `json:"retired"`
}

func itemJSONOf(it booking.Item) itemJSON {
	return itemJSON{Code: it.Code, Name: booking.Clean(it.Name), Category: booking.Clean(it.Category), Price: it.Price.String(), Stock: it.Stock, Retired: it.Retired}
}

// itemView is one item after a change, said as verb ("Added").
type itemView struct {
	it   *booking.Item
	verb string
}

func (v itemView) jsonValue() any { return itemJSONOf(*v.it) }

func (v itemView) writeText(w io.Writer) {
	it := v.it
	fmt.Fprintf(w, "%s %s: %s, %s, stock %s.\n", v.verb, it.Code, booking.Clean(it.Name), it.Price.String(), it.StockText())
}

// itemListView is item list's answer.
type itemListView []booking.Item

func (v itemListView) jsonValue() any {
	out := make([]itemJSON, 0, len(v))
	for _, it := range v {
		out = append(out, itemJSONOf(it))
	}
	return out
}

func (v itemListView) writeText(w io.Writer) {
	if len(v) == 0 {
		fmt.Fprintln(w, `No items: add one with boxoffice item add CODE "NAME" PRICE.`)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CODE\tNAME\tCATEGORY\tPRICE\tSTOCK\t")
	for _, it := range v {
		stock := it.StockText()
		switch {
		case it.Retired:
			stock += " (retired)"
		case it.Low():
			stock += " (low)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", it.Code, booking.CleanLine(it.Name, 40), booking.CategoryName(booking.Clean(it.Category)), it.Price.String(), stock)
	}
	tw.Flush()
}

// stockView is an item's stock after a stock-take or a restock.
type stockView struct{ c *booking.StockChange }

func (v stockView) jsonValue() any {
	return map[string]any{"item": itemJSONOf(v.c.Item), "was": v.c.Was, "difference": v.c.Difference()}
}

func (v stockView) writeText(w io.Writer) {
	c := v.c
	fmt.Fprintf(w, "%s: stock %s, was %s", c.Item.Code, c.Item.StockText(), booking.StockText(c.Was))
	if c.Was != nil && c.Item.Stock != nil {
		fmt.Fprintf(w, " (%+d)", c.Difference())
	}
	fmt.Fprintln(w, ".")
}

// orderView is an order of items, as sold or refunded.
type orderView struct{ o *booking.ItemOrder }

type orderLineJSON struct {
	Code     string `json:"code"`
	Name     string `json:"name"`
	Category string `json:"category"`
	Qty      int    `json:"qty"`
	Price    string `json:"price"`
	Amount   string `json:"amount"`
	Refunded bool   `json:"refunded"`
}

func (v orderView) jsonValue() any {
	o := v.o
	lines := make([]orderLineJSON, 0, len(o.Lines))
	for _, l := range o.Lines {
		lines = append(lines, orderLineJSON{l.Code, booking.Clean(l.Name), booking.Clean(l.Category), l.Qty, l.Price.String(), l.Amount().String(), l.Refunded()})
	}
	payments := make([]paymentJSON, 0, len(o.Payments))
	for _, p := range o.Payments {
		payments = append(payments, paymentJSON{p.Kind, string(p.Method), p.Amount.String(), p.Tendered.String(), p.Change.String(), false})
	}
	return map[string]any{"order": o.Number, "total": o.Total.String(), "change": o.Change().String(), "method": o.Method(),
		"sold_by": booking.Clean(o.SoldBy), "at": o.At.Format(time.RFC3339), "lines": lines, "payments": payments}
}

func (v orderView) writeText(w io.Writer) {
	o := v.o
	fmt.Fprintf(w, "Order    %s\n", o.Number)
	for _, l := range o.Lines {
		refunded := ""
		if l.Refunded() {
			refunded = "  refunded"
		}
		fmt.Fprintf(w, "  %-8s %-20s %2d x %7s %8s%s\n", l.Code, booking.CleanLine(l.Name, 20), l.Qty, l.Price.String(), l.Amount().String(), refunded)
	}
	fmt.Fprintf(w, "Total    %s\n", o.Total.String())
	for _, p := range o.Payments {
		switch {
		case p.Kind == booking.PaymentRefund:
			fmt.Fprintf(w, "Refund   %s by %s\n", p.Amount.String(), p.Method)
		case p.Method == booking.Cash:
			fmt.Fprintf(w, "Paid     %s cash, change due %s\n", p.Tendered.String(), p.Change.String())
		default:
			fmt.Fprintf(w, "Paid     %s by card\n", p.Amount.String())
		}
	}
}

// withItems adds the items sold in the range to a takings table, when
// any were: their table by category, and the net of tickets and items.
func (c *env) withItems(st backend, t *reportTable, r booking.ReportRange) (*reportTable, error) {
	rep, err := st.ReportItemTakings(c.ctx, booking.System, r)
	if err != nil || len(rep.Rows) == 0 {
		return t, err
	}
	t.items = sheet(booking.ItemTakingsSheet(rep))
	return t, nil
}

// netWithItems is the net of a takings table's tickets and items.
func (t *reportTable) netWithItems() booking.Money {
	tickets, _ := t.Total["net"].(booking.Money)
	items, _ := t.items.Total["net"].(booking.Money)
	return tickets + items
}

// writeItemsText prints the items' table of a takings report and the
// net of the two, after the tickets'.
func (t *reportTable) writeItemsText(w io.Writer) {
	if t.items == nil {
		return
	}
	fmt.Fprintln(w)
	t.items.writeText(w)
	fmt.Fprintf(w, "\nnet, tickets and items: %s\n", t.netWithItems())
}

// writeItemsCSV prints the items' table after the tickets', a blank line
// between.
func (t *reportTable) writeItemsCSV(w io.Writer) error {
	if t.items == nil {
		return nil
	}
	fmt.Fprintln(w)
	return t.items.writeCSV(w)
}

// itemsJSON adds the items' table and the net of the two to a takings
// report's JSON.
func (t *reportTable) itemsJSON(out map[string]any) {
	if t.items != nil {
		out["items"] = t.items.jsonValue()
		out["net_with_items"] = t.netWithItems().String()
	}
}

// itemShiftLines are the items of an X or Z report as its lines: a line
// a category ("items snacks": "3 sold, 13.50"), and on an X report the
// items running low.
func itemShiftLines(r *booking.ShiftReport) [][2]string {
	var out [][2]string
	for _, t := range r.Items {
		v := fmt.Sprintf("%d sold, %s", t.Sold, t.Sales.String())
		if t.Refunded > 0 {
			v += fmt.Sprintf("; %d refunded, %s", t.Refunded, t.Refunds.String())
		}
		out = append(out, [2]string{"items_" + strings.ReplaceAll(booking.CategoryName(booking.Clean(t.Category)), " ", "_"), v})
	}
	if len(r.LowStock) > 0 {
		low := make([]string, len(r.LowStock))
		for i, it := range r.LowStock {
			low[i] = it.Code + " " + it.StockText()
		}
		out = append(out, [2]string{"low_stock", strings.Join(low, ", ")})
	}
	return out
}
