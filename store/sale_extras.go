package store

import (
	"context"

	"boxoffice/booking"
)

// What a ticket sale may carry beside its seats: a voucher
// (vouchers.go) and items (items_sale.go), written in the sale's own
// transaction so a used-up voucher or a sold-out item refuses the whole
// sale, and undone by the booking's cancel once.

// SaleItemsTx is what the items of a ticket sale ask of a transaction.
type SaleItemsTx interface {
	// BookingItemOrders reads the orders of items sold with a booking,
	// with how each was paid, their rows locked, in id order; none when
	// the sale had no items.
	BookingItemOrders(bookingID int64) ([]ItemOrderRow, error)
}

// SaleItemsReads are the reads of the items of ticket sales.
type SaleItemsReads interface {
	// BookingItems reads the lines of the items sold with the bookings
	// ids, each with its order's number and sale payment, in order and
	// line id order; none for a booking without items.
	BookingItems(ctx context.Context, ids []int64) ([]SaleItemRow, error)
}

// SaleItemRow is one line of items sold with a booking, with its order.
type SaleItemRow struct {
	BookingID        int64
	Order            string
	Method           booking.PayMethod
	Tendered, Change booking.Money
	Line             booking.ItemOrderLine
}

// saleExtras reports whether a checkout carries a voucher or items: it
// is sold on the checked path (sell), which prices and writes them.
func saleExtras(req booking.CheckoutRequest) bool {
	return req.Voucher != "" || len(req.Items) > 0
}

// voucherQuote takes req's voucher, if any, off quote inside tx
// (takeVoucher), and returns quote net of it with the use to write.
func voucherQuote(tx Tx, req booking.CheckoutRequest, show booking.Show, quote *booking.Quote) (*booking.Quote, *RedemptionRow, error) {
	if req.Voucher == "" {
		return quote, nil, nil
	}
	lines, use, err := takeVoucher(tx, req.Voucher, show, quote.Lines)
	if err != nil {
		return quote, nil, err
	}
	net := *quote
	net.Lines, net.Total = lines, quote.Total-use.Discount
	return &net, &use, nil
}

// ticketPayment is what the tickets' payment of a sale of total takes:
// req.Payment, except that on a cash sale with items the tickets take
// exactly their total and the items' payment the rest of the cash and
// gives the change (itemsPayment). A sale paid in parts has its cash
// checked against the cash part alone (payTender), not the total: a
// counter that names Method beside its Tender is not refused 20.00
// handed over for the 15.00 cash of a 25.00 sale.
func ticketPayment(req booking.CheckoutRequest, total booking.Money) (tendered, change booking.Money, err error) {
	if len(req.Tender) > 0 {
		return 0, 0, nil
	}
	if len(req.Items) == 0 || req.Method != booking.Cash {
		return req.Payment(total)
	}
	return total, 0, nil
}

// itemsPayment works out the items' payment of a sale whose tickets
// took tickets of the cash: short cash is refused naming the whole
// total.
func itemsPayment(req booking.CheckoutRequest, tickets booking.Money) func(booking.Money) (booking.Money, booking.Money, error) {
	if req.Method != booking.Cash {
		return nil
	}
	return func(items booking.Money) (booking.Money, booking.Money, error) {
		if req.Tendered == 0 {
			return items, 0, nil // exact money
		}
		if req.Tendered < tickets+items {
			return 0, 0, booking.Errorf(booking.EInvalid, "%s tendered is less than the total %s.", req.Tendered.String(), (tickets + items).String())
		}
		rest := req.Tendered - tickets
		return rest, rest - items, nil
	}
}

// sellExtras writes, once the sale's booking b exists, the voucher's use
// and the items sold on it, and puts both on b.
func sellExtras(tx Tx, actor booking.Actor, req booking.CheckoutRequest, b *booking.Booking, use *RedemptionRow, shiftID int64) error {
	if use != nil {
		use.BookingID, use.Staff = b.ID, actor.Name
		if err := tx.InsertRedemption(*use); err != nil {
			return err
		}
		b.Voucher = &booking.VoucherUse{Code: use.Code, Discount: use.Discount}
	}
	if len(req.Items) == 0 {
		return nil
	}
	lines, err := booking.NormalItemLines(req.Items)
	if err != nil {
		return err
	}
	sale := ItemSale{Lines: lines, Key: b.Number + "/items", BookingID: b.ID, Method: req.Method, ShiftID: shiftID, Pay: itemsPayment(req, b.Total)}
	_, err = SellItemsIn(tx, actor, sale)
	return err
}

// unwindExtras gives back, in a cancel's unwind that claimed booking
// b's status, its voucher's use and its items: each standing line
// refunded once (refundLine), by the way its order was paid, into
// shift.
func unwindExtras(tx Tx, actor booking.Actor, approver string, b BookingRow, shift int64) error {
	if err := returnVoucher(tx, b.ID); err != nil {
		return err
	}
	orders, err := tx.BookingItemOrders(b.ID)
	if err != nil {
		return err
	}
	for _, o := range orders {
		lines, err := tx.ItemOrderLines(o.ID)
		if err != nil {
			return err
		}
		var back booking.Money
		var done []ItemLineRow
		for _, l := range lines {
			if l.Refunded {
				continue
			}
			if err := refundLine(tx, actor, approver, o, l, shift); err != nil {
				return err
			}
			back += l.amount()
			done = append(done, l)
		}
		if len(done) == 0 {
			continue
		}
		detail := o.Number + " " + lineCodes(done) + ": with " + b.Number
		if err := Audit(tx, actor, booking.AuditEntry{Action: booking.AuditRefund, ShiftID: shift, Amount: back, Detail: detail}, b.ID); err != nil {
			return err
		}
	}
	return nil
}

// loadExtras puts on each of bookings the voucher it used and the items
// sold with it.
func loadExtras(s *Store, ctx context.Context, bookings []booking.Booking) error {
	ids := make([]int64, len(bookings))
	for i, b := range bookings {
		ids[i] = b.ID
	}
	uses, err := s.d.VoucherUses(ctx, ids)
	if err != nil {
		return err
	}
	rows, err := s.d.BookingItems(ctx, ids)
	if err != nil {
		return err
	}
	items := map[int64]*booking.SaleItems{}
	for _, r := range rows {
		if items[r.BookingID] == nil {
			items[r.BookingID] = &booking.SaleItems{Order: r.Order, Method: r.Method, Tendered: r.Tendered, Change: r.Change}
		}
		items[r.BookingID].Lines = append(items[r.BookingID].Lines, r.Line)
	}
	byID := map[int64]booking.VoucherUse{}
	for _, u := range uses {
		byID[u.BookingID] = u.VoucherUse
	}
	for i := range bookings {
		if u, ok := byID[bookings[i].ID]; ok {
			bookings[i].Voucher = &u
		}
		bookings[i].Items = items[bookings[i].ID]
	}
	return nil
}
