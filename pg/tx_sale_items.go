package pg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/store"
)

// The items of ticket sales on PostgreSQL (the store's SaleItemsTx and
// SaleItemsReads), through 0038's index of orders by booking.

// BookingItemOrders reads and locks a booking's orders of items, so an
// order's refunds take turns.
func (t *tx) BookingItemOrders(bookingID int64) ([]store.ItemOrderRow, error) {
	rows, err := t.Query(t.ctx, qItemOrderRow+` WHERE o.booking_id = $1 ORDER BY o.id FOR UPDATE OF o`, bookingID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.ItemOrderRow, error) {
		var o store.ItemOrderRow
		err := r.Scan(&o.ID, &o.Number, &o.Key, &o.BookingID, &o.Total, &o.Staff, &o.Terminal, &o.Site, &o.Method)
		return o, err
	})
}

// BookingItems reads the items sold with bookings.
func (d driver) BookingItems(ctx context.Context, ids []int64) ([]store.SaleItemRow, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT o.booking_id, o.number, p.method, p.tendered, p.change_due,
		l.id, l.item_id, l.code, l.name, l.category, l.qty, l.price, l.refunded_at
		FROM item_orders o JOIN item_payments p ON p.order_id = o.id AND p.kind = 'sale' JOIN item_lines l ON l.order_id = o.id
		WHERE o.booking_id = ANY($1) ORDER BY o.id, l.id`, ids)
	if err != nil {
		return nil, d.s.translate("booking items", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.SaleItemRow, error) {
		var r store.SaleItemRow
		var refunded *int64
		l := &r.Line
		err := row.Scan(&r.BookingID, &r.Order, &r.Method, &r.Tendered, &r.Change, &l.ID, &l.ItemID, &l.Code, &l.Name, &l.Category, &l.Qty, &l.Price, &refunded)
		if refunded != nil {
			l.RefundedAt = time.UnixMilli(*refunded)
		}
		return r, err
	})
	return out, d.s.translate("booking items", err)
}
