package db

import (
	"context"
	"time"

	"boxoffice/store"
)

// The items of ticket sales on SQLite (the store's SaleItemsTx and
// SaleItemsReads), through 0053's index of orders by booking.

const qBookingItems = `SELECT o.booking_id, o.number, p.method, p.tendered, p.change_due, l.id, l.item_id, l.code, l.name, l.category, l.qty, l.price, l.refunded_at
	FROM item_orders o JOIN item_payments p ON p.order_id = o.id AND p.kind = 'sale' JOIN item_lines l ON l.order_id = o.id
	WHERE o.booking_id IN (SELECT value FROM json_each(?)) ORDER BY o.id, l.id`

// BookingItemOrders reads a booking's orders of items (one writer:
// nothing to lock).
func (w *wtx) BookingItemOrders(bookingID int64) ([]store.ItemOrderRow, error) {
	rows, err := w.query(qItemOrderRow+` WHERE o.booking_id = ? ORDER BY o.id`, bookingID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.ItemOrderRow
	for rows.Next() {
		var o store.ItemOrderRow
		if err := rows.Scan(&o.ID, &o.Number, &o.Key, &o.BookingID, &o.Total, &o.Staff, &o.Terminal, &o.Method); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// BookingItems reads the items sold with bookings.
func (d driver) BookingItems(ctx context.Context, ids []int64) ([]store.SaleItemRow, error) {
	rows, err := d.s.readRows(ctx, qBookingItems, idList(ids))
	if err != nil {
		return nil, d.s.translate("booking items", err)
	}
	defer rows.Close()
	var out []store.SaleItemRow
	for rows.Next() {
		var r store.SaleItemRow
		var refunded *int64
		l := &r.Line
		if err := rows.Scan(&r.BookingID, &r.Order, &r.Method, &r.Tendered, &r.Change, &l.ID, &l.ItemID, &l.Code, &l.Name, &l.Category, &l.Qty, &l.Price, &refunded); err != nil {
			return nil, d.s.translate("booking items", err)
		}
		if refunded != nil {
			l.RefundedAt = time.UnixMilli(*refunded)
		}
		out = append(out, r)
	}
	return out, d.s.translate("booking items", rows.Err())
}
