package pg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// Concessions on PostgreSQL (the store's ItemsTx and ItemReads), READ
// COMMITTED: a sale's guarded UPDATE of an item waits for any other
// writer of that row and is re-checked on its newest version, so stock
// never goes below zero however many servers sell; a stock-take, a
// restock, a price change and a refund read the row they act on FOR
// UPDATE. Migration 0025 has the schema.

const (
	qItemRow = `SELECT id, code, name, category, price, stock, retired FROM items`
	// qTakeStock takes $1 off an item on sale that has that many left, in
	// one statement: an item without a count (NULL) keeps none.
	qTakeStock = `UPDATE items SET stock = stock - $1 WHERE code = $2 AND NOT retired AND (stock IS NULL OR stock >= $1)
		RETURNING id, code, name, category, price, stock, retired`
	qItemOrderRow = `SELECT o.id, o.number, o.idem_key, coalesce(o.booking_id, 0), o.total, o.staff, o.terminal, o.site_id, p.method
		FROM item_orders o JOIN item_payments p ON p.order_id = o.id AND p.kind = 'sale'`
	qItemLines = `SELECT id, item_id, code, name, category, qty, price, refunded_at FROM item_lines WHERE order_id = $1 ORDER BY id`
	// qItemTallies adds up item payments by their lines' category: sales
	// through the lines of their order, refunds through their line. %s
	// is the payments' condition.
	qItemTallies = `SELECT l.category, p.kind, sum(l.qty)::bigint, sum(l.qty * l.price)::bigint
		FROM item_payments p JOIN item_lines l ON l.order_id = p.order_id JOIN item_orders o ON o.id = p.order_id
		WHERE p.kind = 'sale' AND %[1]s GROUP BY l.category, p.kind
		UNION ALL SELECT l.category, p.kind, sum(l.qty)::bigint, sum(p.amount)::bigint
		FROM item_payments p JOIN item_lines l ON l.id = p.line_id JOIN item_orders o ON o.id = p.order_id
		WHERE p.kind = 'refund' AND %[1]s GROUP BY l.category, p.kind`
)

// shiftPayments is every payment that belongs to a shift: the bookings',
// the orders' (item_payments) and the gift cards sold (giftcard_moves). A shift's money, its cash-up and the
// shifts report read it (PostgreSQL takes a condition on shift_id into
// every part, each through its index by shift).
const shiftPayments = `(SELECT shift_id, kind, method, amount FROM payments
	UNION ALL SELECT shift_id, kind, method, amount FROM item_payments
	UNION ALL SELECT shift_id, 'issue', method, amount FROM giftcard_moves WHERE kind = 'issue')`

// scanItem reads one row of qItemRow.
func scanItem(r pgx.Row) (booking.Item, error) {
	var it booking.Item
	var stock *int64
	err := r.Scan(&it.ID, &it.Code, &it.Name, &it.Category, &it.Price, &stock, &it.Retired)
	if stock != nil {
		n := int(*stock)
		it.Stock = &n
	}
	return it, err
}

// item reads one item by query; found is false when none.
func (t *tx) item(query string, args ...any) (booking.Item, bool, error) {
	it, err := scanItem(t.QueryRow(t.ctx, query, args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return it, false, nil
	}
	return it, err == nil, err
}

// TakeStock takes qty off an item's stock by one guarded statement.
func (t *tx) TakeStock(code string, qty int) (booking.Item, bool, error) {
	return t.item(qTakeStock, qty, code)
}

// ItemByCode reads an item as it is now, in a statement of its own.
func (t *tx) ItemByCode(code string) (booking.Item, bool, error) {
	return t.item(qItemRow+` WHERE code = $1`, code)
}

// ItemForUpdate reads and locks an item.
func (t *tx) ItemForUpdate(code string) (booking.Item, bool, error) {
	return t.item(qItemRow+` WHERE code = $1 FOR UPDATE`, code)
}

// InsertItem adds an item unless its code is taken; ON CONFLICT DO
// NOTHING, so the transaction lives on.
func (t *tx) InsertItem(it booking.Item) (int64, bool, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO items (code, name, category, price, stock, created_at) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (code) DO NOTHING RETURNING id`, it.Code, it.Name, it.Category, it.Price, it.Stock, t.nowMS()).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// SetItemStock sets an item's stock.
func (t *tx) SetItemStock(itemID int64, stock *int) error {
	_, err := t.Exec(t.ctx, `UPDATE items SET stock = $1 WHERE id = $2`, stock, itemID)
	return err
}

// ReturnStock puts n back on an item's stock.
func (t *tx) ReturnStock(itemID int64, n int) error {
	_, err := t.Exec(t.ctx, `UPDATE items SET stock = stock + $1 WHERE id = $2`, n, itemID)
	return err
}

// SetItemPrice sets an item's price.
func (t *tx) SetItemPrice(itemID int64, price booking.Money) error {
	_, err := t.Exec(t.ctx, `UPDATE items SET price = $1 WHERE id = $2`, price, itemID)
	return err
}

// RetireItem retires an item by compare-and-set.
func (t *tx) RetireItem(itemID int64) (bool, error) {
	tag, err := t.Exec(t.ctx, `UPDATE items SET retired = true WHERE id = $1 AND NOT retired`, itemID)
	return tag.RowsAffected() == 1, err
}

// KeyedItemOrder finds the order a key made.
func (t *tx) KeyedItemOrder(key string) (int64, bool, error) {
	var id int64
	err := t.QueryRow(t.ctx, `SELECT id FROM item_orders WHERE idem_key = $1`, key).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// InsertItemOrder writes an order at its site.
func (t *tx) InsertItemOrder(o store.ItemOrderRow) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO item_orders (number, idem_key, booking_id, total, staff, terminal, site_id, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
		o.Number, o.Key, nullID(o.BookingID), o.Total, o.Staff, o.Terminal, o.Site, t.nowMS()).Scan(&id)
	return id, err
}

// InsertItemLine writes one line of an order.
func (t *tx) InsertItemLine(orderID int64, l store.ItemLineRow) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO item_lines (order_id, item_id, code, name, category, qty, price) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		orderID, l.ItemID, l.Code, l.Name, l.Category, l.Qty, l.Price).Scan(&id)
	return id, err
}

// InsertItemPayment writes one payment of an order; 0025's unique indexes
// refuse a second sale of an order and a second refund of a line, its
// CHECK and trigger cash outside an open shift.
func (t *tx) InsertItemPayment(p store.ItemPaymentRow) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO item_payments (order_id, line_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id, approved_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
		p.OrderID, nullID(p.LineID), string(p.Kind), string(p.Method), p.Amount, p.Tendered, p.Change, t.nowMS(), p.Staff, p.Terminal,
		nullID(p.ShiftID), p.ApprovedBy).Scan(&id)
	return id, err
}

// ItemOrderForUpdate reads and locks an order, with how it was paid.
func (t *tx) ItemOrderForUpdate(number string) (store.ItemOrderRow, bool, error) {
	var o store.ItemOrderRow
	err := t.QueryRow(t.ctx, qItemOrderRow+` WHERE o.number = $1 FOR UPDATE OF o`, number).
		Scan(&o.ID, &o.Number, &o.Key, &o.BookingID, &o.Total, &o.Staff, &o.Terminal, &o.Site, &o.Method)
	if errors.Is(err, pgx.ErrNoRows) {
		return o, false, nil
	}
	return o, err == nil, err
}

// ItemOrderLines reads an order's lines as they are now.
func (t *tx) ItemOrderLines(orderID int64) ([]store.ItemLineRow, error) {
	rows, err := t.Query(t.ctx, qItemLines, orderID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.ItemLineRow, error) {
		l, err := scanLine(r)
		return store.ItemLineRow{ID: l.ID, ItemID: l.ItemID, Code: l.Code, Name: l.Name, Category: l.Category,
			Qty: l.Qty, Price: l.Price, Refunded: l.Refunded()}, err
	})
}

// scanLine reads one row of qItemLines.
func scanLine(r pgx.Row) (booking.ItemOrderLine, error) {
	var l booking.ItemOrderLine
	var refunded *int64
	err := r.Scan(&l.ID, &l.ItemID, &l.Code, &l.Name, &l.Category, &l.Qty, &l.Price, &refunded)
	if refunded != nil {
		l.RefundedAt = time.UnixMilli(*refunded)
	}
	return l, err
}

// RefundItemLine marks a line refunded by compare-and-set, which
// PostgreSQL re-checks on the newest version of the row.
func (t *tx) RefundItemLine(lineID int64) (bool, error) {
	tag, err := t.Exec(t.ctx, `UPDATE item_lines SET refunded_at = $1 WHERE id = $2 AND refunded_at IS NULL`, t.nowMS(), lineID)
	return tag.RowsAffected() == 1, err
}

// ReadItems lists the items by code.
func (d driver) ReadItems(ctx context.Context, all bool) ([]booking.Item, error) {
	rows, err := d.s.pool.Query(ctx, qItemRow+` WHERE $1 OR NOT retired ORDER BY code`, all)
	if err != nil {
		return nil, d.s.translate("items", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Item, error) { return scanItem(r) })
	if out == nil {
		out = []booking.Item{}
	}
	return out, d.s.translate("items", err)
}

// ItemOrderIDByNumber finds an order by number.
func (d driver) ItemOrderIDByNumber(ctx context.Context, number string) (int64, bool, error) {
	return d.orderID(ctx, `SELECT id FROM item_orders WHERE number = $1`, number)
}

// ItemOrderIDByKey finds the order a key made.
func (d driver) ItemOrderIDByKey(ctx context.Context, key string) (int64, bool, error) {
	return d.orderID(ctx, `SELECT id FROM item_orders WHERE idem_key = $1`, key)
}

func (d driver) orderID(ctx context.Context, query string, arg any) (int64, bool, error) {
	var id int64
	err := d.s.pool.QueryRow(ctx, query, arg).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, d.s.translate("item order", err)
}

// ReadItemOrder reads an order, its lines and payments in one read-only
// REPEATABLE READ transaction, so the three agree.
func (d driver) ReadItemOrder(ctx context.Context, id int64) (*booking.ItemOrder, bool, error) {
	o := &booking.ItemOrder{}
	err := pgx.BeginTxFunc(ctx, d.s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var at int64
		if err := tx.QueryRow(ctx, `SELECT id, number, total, staff, terminal, at FROM item_orders WHERE id = $1`, id).
			Scan(&o.ID, &o.Number, &o.Total, &o.SoldBy, &o.Terminal, &at); err != nil {
			return err
		}
		o.At = time.UnixMilli(at)
		rows, err := tx.Query(ctx, qItemLines, id)
		if err != nil {
			return err
		}
		if o.Lines, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.ItemOrderLine, error) { return scanLine(r) }); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT id, coalesce(line_id, 0), kind, method, amount, tendered, change_due, at, staff, terminal, coalesce(shift_id, 0), approved_by
			FROM item_payments WHERE order_id = $1 ORDER BY id`, id)
		if err != nil {
			return err
		}
		o.Payments, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.ItemPayment, error) {
			var p booking.ItemPayment
			var at int64
			err := r.Scan(&p.ID, &p.LineID, &p.Kind, &p.Method, &p.Amount, &p.Tendered, &p.Change, &at, &p.Staff, &p.Terminal, &p.ShiftID, &p.ApprovedBy)
			p.At = time.UnixMilli(at)
			return p, err
		})
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	return o, err == nil, d.s.translate("item order", err)
}

// qItemTakings and qShiftItems are qItemTallies over a range of time at a
// site ($3, 0 for every site) and over a shift.
var (
	qItemTakings = fmt.Sprintf(qItemTallies, `p.at >= $1 AND p.at < $2 AND ($3::bigint = 0 OR o.site_id = $3)`)
	qShiftItems  = fmt.Sprintf(qItemTallies, `p.shift_id = $1`)
)

// ItemTakings adds up the item payments of a range at a site.
func (d driver) ItemTakings(ctx context.Context, w store.ReportWindow) ([]store.ItemTallyRow, error) {
	return d.itemTallies(ctx, "item takings", qItemTakings, w.From.UnixMilli(), w.To.UnixMilli(), w.Site)
}

// ShiftItems adds up a shift's item payments.
func (d driver) ShiftItems(ctx context.Context, shiftID int64) ([]store.ItemTallyRow, error) {
	return d.itemTallies(ctx, "shift items", qShiftItems, shiftID)
}

// itemTallies reads a qItemTallies statement: one statement, so one
// snapshot.
func (d driver) itemTallies(ctx context.Context, op, query string, args ...any) ([]store.ItemTallyRow, error) {
	rows, err := d.s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, d.s.translate(op, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.ItemTallyRow, error) {
		var t store.ItemTallyRow
		return t, r.Scan(&t.Category, &t.Kind, &t.Qty, &t.Sum)
	})
	return out, d.s.translate(op, err)
}
