package store

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"boxoffice/booking"
)

// The sale of items and its unwind (items.go has the items and the
// queries): a sale takes its lines' stock by guarded statements and
// writes the order with its payment; a refund moves each line to
// refunded once, then returns its stock and money.

// TakeItems takes lines (booking.NormalItemLines: one an item, in code
// order) off their items' stock in tx, each by one guarded statement
// (TakeStock), and returns them priced as the items are now. The first
// line the guard refuses stops it with why: ErrNoItem, ErrItemRetired or
// ErrSoldOut naming how many are left; the caller's transaction then
// rolls back and nothing of the sale stays.
//
// It is the stock half of every sale of items. A ticket checkout that
// sells items too calls SellItemsIn with its own transaction, so a sold
// out item refuses the whole checkout.
func TakeItems(tx Tx, lines []booking.ItemLine) ([]ItemLineRow, error) {
	out := make([]ItemLineRow, 0, len(lines))
	for _, l := range lines {
		it, ok, err := tx.TakeStock(l.Code, l.Qty)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, notTaken(tx, l)
		}
		out = append(out, ItemLineRow{ItemID: it.ID, Code: it.Code, Name: it.Name, Category: it.Category, Qty: l.Qty, Price: it.Price})
	}
	return out, nil
}

// notTaken says why the guard refused line l, reading the item as it is
// now.
func notTaken(tx Tx, l booking.ItemLine) error {
	it, found, err := tx.ItemByCode(l.Code)
	switch {
	case err != nil:
		return err
	case !found:
		return booking.ErrNoItem(l.Code)
	case it.Retired:
		return booking.ErrItemRetired(it.Name)
	case it.Stock == nil:
		// Unlimited and on sale, yet refused: the row changed between
		// the two statements (a stock-take meanwhile, on PostgreSQL).
		return booking.Errorf(booking.EConflict, "%s changed at another counter; try again.", it.Name)
	}
	return booking.ErrSoldOut(it.Name, *it.Stock, l.Qty)
}

// ItemSale is a sale of items inside a transaction (SellItemsIn): the
// lines (booking.NormalItemLines), how they are paid, the shift the
// payment goes into (ShiftFor) and the ticket sale they go with, if any.
type ItemSale struct {
	Lines     []booking.ItemLine
	Key       string // the order's idempotency key
	BookingID int64  // 0: items sold alone
	Method    booking.PayMethod
	ShiftID   int64
	// Expected, when set, is the total the clerk saw: another total is
	// refused (*booking.PriceChangedError).
	Expected *booking.Money
	// Pay works out, for the items' total, the cash handed over for them
	// and the change (booking.ItemSaleRequest.Payment), or refuses short
	// cash; nil for a card. A checkout that sells tickets too passes what
	// is left of the cash once the tickets took theirs.
	Pay func(total booking.Money) (tendered, change booking.Money, err error)
}

// SellItemsIn sells sale's items inside tx for actor: their stock taken
// (TakeItems), then the order, its lines, its payment and one audit row
// written. It returns the order's id. Any refusal leaves the caller to
// roll tx back: nothing of the sale, nor of what the caller wrote with
// it, stays.
func SellItemsIn(tx Tx, actor booking.Actor, sale ItemSale) (int64, error) {
	lines, err := TakeItems(tx, sale.Lines)
	if err != nil {
		return 0, err
	}
	var total booking.Money
	for _, l := range lines {
		total += l.amount()
	}
	if sale.Expected != nil && *sale.Expected != total {
		return 0, &booking.PriceChangedError{Expected: *sale.Expected, Total: total}
	}
	var tendered, change booking.Money
	if sale.Pay != nil {
		if tendered, change, err = sale.Pay(total); err != nil {
			return 0, err
		}
	}
	o := ItemOrderRow{Number: booking.NewOrderNumber(), Key: sale.Key, BookingID: sale.BookingID, Total: total,
		Staff: actor.Name, Terminal: actor.Terminal, Site: max(actor.Site, booking.MainSite)}
	id, err := tx.InsertItemOrder(o)
	if err != nil {
		return 0, err
	}
	what := make([]string, 0, len(lines))
	for _, l := range lines {
		if _, err := tx.InsertItemLine(id, l); err != nil {
			return 0, err
		}
		what = append(what, l.Code+" x"+strconv.Itoa(l.Qty))
	}
	_, err = tx.InsertItemPayment(ItemPaymentRow{OrderID: id, Kind: booking.PaymentSale, Method: sale.Method, Amount: total,
		Tendered: tendered, Change: change, Staff: actor.Name, Terminal: actor.Terminal, ShiftID: sale.ShiftID})
	if err != nil {
		return 0, err
	}
	detail := o.Number + " " + strings.Join(what, ", ")
	return id, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditSale, ShiftID: sale.ShiftID, Amount: total, Detail: detail}, sale.BookingID)
}

// SellItems sells items alone at the counter.
func (s *Store) SellItems(ctx context.Context, actor booking.Actor, req booking.ItemSaleRequest) (*booking.ItemOrder, error) {
	if err := booking.Authorize(actor, booking.ActionSell); err != nil {
		return nil, err
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	lines, _ := booking.NormalItemLines(req.Lines)
	key := strings.TrimSpace(req.IdempotencyKey)
	id, err := write(s, ctx, actor, Write{Op: "sell items"}, func(tx Tx) (int64, error) {
		if id, found, err := tx.KeyedItemOrder(key); err != nil || found {
			return id, err
		}
		shift, err := ShiftFor(tx, actor, req.Method, req.OpenFloat)
		if err != nil {
			return 0, err
		}
		sale := ItemSale{Lines: lines, Key: key, Method: req.Method, ShiftID: shift, Pay: req.Payment}
		if req.CheckTotal {
			sale.Expected = &req.ExpectedTotal
		}
		return SellItemsIn(tx, actor, sale)
	})
	if err != nil {
		// A run with the same key that committed first made the order,
		// and the engine refused this one's second order of the key.
		if booking.ErrorCode(err) == booking.EConflict {
			if id, found, rerr := s.d.ItemOrderIDByKey(ctx, key); rerr == nil && found {
				return s.committedOrder(ctx, id)
			}
		}
		return nil, err
	}
	return s.committedOrder(ctx, id)
}

// committedOrder reads the order a committed write made or changed, as
// the answer to that write (committed).
func (s *Store) committedOrder(ctx context.Context, id int64) (*booking.ItemOrder, error) {
	return committed(ctx, func(ctx context.Context) (*booking.ItemOrder, error) { return s.loadOrder(ctx, id) })
}

// loadOrder reads order id whole.
func (s *Store) loadOrder(ctx context.Context, id int64) (*booking.ItemOrder, error) {
	o, found, err := s.d.ReadItemOrder(ctx, id)
	if err == nil && !found {
		err = booking.Errorf(booking.ENotFound, "Not found.")
	}
	return o, err
}

// ItemOrder looks an order up by number.
func (s *Store) ItemOrder(ctx context.Context, actor booking.Actor, number string) (*booking.ItemOrder, error) {
	if err := booking.Authorize(actor, booking.ActionViewBooking); err != nil {
		return nil, err
	}
	number = booking.NormalizeOrderNumber(number)
	id, found, err := s.d.ItemOrderIDByNumber(ctx, number)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, booking.ErrNoOrder(number)
	}
	return s.loadOrder(ctx, id)
}

// RefundItems refunds lines of an order, each once. The order is read
// locked first, so two refunds of one order take turns; each line moves
// to refunded by compare-and-set before its stock and money go back.
func (s *Store) RefundItems(ctx context.Context, actor booking.Actor, req booking.ItemRefundRequest) (*booking.ItemOrder, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	number := booking.NormalizeOrderNumber(req.Number)
	ok, err := Approve(s, ctx, actor, booking.ActionRefund, req.Approver, req.Addr, "refund of "+number)
	if err != nil {
		return nil, err
	}
	var codes []string
	for _, c := range req.Codes {
		if c, _ = booking.ParseItemCode(c); !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	reason := booking.CleanLine(req.Reason, 200)
	id, err := write(s, ctx, actor, Write{Op: "refund items"}, func(tx Tx) (int64, error) {
		o, found, err := tx.ItemOrderForUpdate(number)
		if err != nil {
			return 0, err
		}
		if !found {
			return 0, booking.ErrNoOrder(number)
		}
		lines, err := refundLines(tx, o, codes)
		if err != nil {
			return 0, err
		}
		shift, err := ShiftFor(tx, actor, o.Method, req.OpenFloat)
		if err != nil {
			return 0, err
		}
		var back booking.Money
		for _, l := range lines {
			if err := refundLine(tx, actor, ok.Name, o, l, shift); err != nil {
				return 0, err
			}
			back += l.amount()
		}
		detail := o.Number + " " + lineCodes(lines)
		if reason != "" {
			detail += ": " + reason
		}
		return o.ID, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditRefund, ShiftID: shift, Amount: back, Detail: detail}, o.BookingID)
	})
	if err != nil {
		return nil, err
	}
	return s.committedOrder(ctx, id)
}

// refundLines are the lines of o to refund: those of codes, or every one
// still standing when codes is empty. A line refunded already is a
// stale refusal, as a ticket's is.
func refundLines(tx Tx, o ItemOrderRow, codes []string) ([]ItemLineRow, error) {
	all, err := tx.ItemOrderLines(o.ID)
	if err != nil {
		return nil, err
	}
	var out []ItemLineRow
	if len(codes) == 0 {
		for _, l := range all {
			if !l.Refunded {
				out = append(out, l)
			}
		}
		if len(out) == 0 {
			return nil, &booking.StaleError{What: "Order " + o.Number, Current: "refunded"}
		}
		return out, nil
	}
	for _, c := range codes {
		i := slices.IndexFunc(all, func(l ItemLineRow) bool { return l.Code == c })
		if i < 0 {
			return nil, booking.Errorf(booking.EInvalid, "%s is not on %s.", c, o.Number)
		}
		if all[i].Refunded {
			return nil, &booking.StaleError{What: all[i].Name + " on " + o.Number, Current: "refunded"}
		}
		out = append(out, all[i])
	}
	return out, nil
}

// refundLine moves line l of o to refunded by compare-and-set, then puts
// its stock back and pays its money back by the way o was paid: a line
// whose move lost was refunded meanwhile, and nothing goes back twice.
func refundLine(tx Tx, actor booking.Actor, approver string, o ItemOrderRow, l ItemLineRow, shift int64) error {
	moved, err := tx.RefundItemLine(l.ID)
	if err != nil {
		return err
	}
	if !moved {
		return &booking.StaleError{What: l.Name + " on " + o.Number, Current: "refunded"}
	}
	if err := tx.ReturnStock(l.ItemID, l.Qty); err != nil {
		return err
	}
	_, err = tx.InsertItemPayment(ItemPaymentRow{OrderID: o.ID, LineID: l.ID, Kind: booking.PaymentRefund, Method: o.Method,
		Amount: l.amount(), Staff: actor.Name, Terminal: actor.Terminal, ShiftID: shift, ApprovedBy: approver})
	return err
}

// lineCodes names lines for the audit trail: "popcorn x2 cola x1".
func lineCodes(lines []ItemLineRow) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Code + " x" + strconv.Itoa(l.Qty)
	}
	return strings.Join(out, " ")
}

// ReportItemTakings adds up the items sold and refunded in the range by
// category.
func (s *Store) ReportItemTakings(ctx context.Context, actor booking.Actor, r booking.ReportRange) (*booking.ItemTakingsReport, error) {
	w, r, err := s.reportRange(ctx, actor, r)
	if err != nil {
		return nil, err
	}
	rows, err := s.d.ItemTakings(ctx, w)
	if err != nil {
		return nil, err
	}
	rep := &booking.ItemTakingsReport{From: w.From, To: reportTo(r), Rows: tallies(rows)}
	rep.Totals()
	return rep, nil
}

// tallies folds rows into one tally a category, by category, the one
// without last.
func tallies(rows []ItemTallyRow) []booking.ItemTally {
	var out []booking.ItemTally
	at := map[string]int{}
	for _, r := range rows {
		i, ok := at[r.Category]
		if !ok {
			i = len(out)
			at[r.Category] = i
			out = append(out, booking.ItemTally{Category: r.Category})
		}
		if r.Kind == booking.PaymentSale {
			out[i].Sold, out[i].Sales = out[i].Sold+r.Qty, out[i].Sales+r.Sum
		} else {
			out[i].Refunded, out[i].Refunds = out[i].Refunded+r.Qty, out[i].Refunds+r.Sum
		}
	}
	slices.SortFunc(out, func(a, b booking.ItemTally) int {
		if (a.Category == "") != (b.Category == "") {
			if a.Category == "" {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Category, b.Category)
	})
	return out
}

// shiftItems adds the items of shift id to its report r, and on an X
// report the items on sale that are running low.
func (s *Store) shiftItems(ctx context.Context, r *booking.ShiftReport) error {
	rows, err := s.d.ShiftItems(ctx, r.Shift.ID)
	if err != nil {
		return err
	}
	r.Items = tallies(rows)
	if r.Final {
		return nil
	}
	items, err := s.d.ReadItems(ctx, false)
	if err != nil {
		return err
	}
	for _, it := range items {
		if it.Low() {
			r.LowStock = append(r.LowStock, it)
		}
	}
	return nil
}
