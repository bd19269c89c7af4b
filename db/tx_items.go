package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// Concessions on SQLite (the store's ItemsTx and ItemReads): one writer
// runs one write at a time, so a read a rule then acts on needs no lock;
// the stock guard and the line's compare-and-set are what keep a second
// process writing the same file honest. Migration 0040 has the schema.

const (
	qItemRow = `SELECT id, code, name, category, price, stock, retired FROM items`
	// qTakeStock takes qty off an item on sale that has that many left,
	// in one statement: an item without a count (NULL) keeps none.
	qTakeStock = `UPDATE items SET stock = stock - ?1 WHERE code = ?2 AND retired = 0 AND (stock IS NULL OR stock >= ?1)
		RETURNING id, code, name, category, price, stock, retired`
	qItemOrderRow = `SELECT o.id, o.number, o.idem_key, coalesce(o.booking_id, 0), o.total, o.staff, o.terminal, p.method
		FROM item_orders o JOIN item_payments p ON p.order_id = o.id AND p.kind = 'sale'`
	qItemLines = `SELECT id, item_id, code, name, category, qty, price, refunded_at FROM item_lines WHERE order_id = ? ORDER BY id`
	// qItemTallies adds up item payments by their lines' category: sales
	// through the lines of their order, refunds through their line. %s
	// is the payments' condition, with its arguments twice.
	qItemTallies = `SELECT l.category, p.kind, sum(l.qty), sum(l.qty * l.price)
		FROM item_payments p JOIN item_lines l ON l.order_id = p.order_id
		WHERE p.kind = 'sale' AND %[1]s GROUP BY l.category
		UNION ALL SELECT l.category, p.kind, sum(l.qty), sum(p.amount)
		FROM item_payments p JOIN item_lines l ON l.id = p.line_id
		WHERE p.kind = 'refund' AND %[1]s GROUP BY l.category`
)

// scanItem reads one row of qItemRow.
func scanItem(r scanner) (booking.Item, error) {
	var it booking.Item
	var stock sql.NullInt64
	err := r.Scan(&it.ID, &it.Code, &it.Name, &it.Category, &it.Price, &stock, &it.Retired)
	if stock.Valid {
		n := int(stock.Int64)
		it.Stock = &n
	}
	return it, err
}

// nullStock stores an unlimited stock as NULL.
func nullStock(n *int) sql.NullInt64 {
	if n == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: int64(*n), Valid: true}
}

// item reads one item by query; found is false when none.
func (w *wtx) item(query string, args ...any) (booking.Item, bool, error) {
	it, err := scanItem(w.queryRow(query, args...))
	if isNoRows(err) {
		return it, false, nil
	}
	return it, err == nil, err
}

// TakeStock takes qty off an item's stock by one guarded statement.
func (w *wtx) TakeStock(code string, qty int) (booking.Item, bool, error) {
	return w.item(qTakeStock, qty, code)
}

// ItemByCode reads an item.
func (w *wtx) ItemByCode(code string) (booking.Item, bool, error) {
	return w.item(qItemRow+` WHERE code = ?`, code)
}

// ItemForUpdate reads an item (one writer: nothing to lock).
func (w *wtx) ItemForUpdate(code string) (booking.Item, bool, error) { return w.ItemByCode(code) }

// InsertItem adds an item unless its code is taken.
func (w *wtx) InsertItem(it booking.Item) (int64, bool, error) {
	var id int64
	err := w.queryRow(`INSERT INTO items (code, name, category, price, stock, created_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (code) DO NOTHING RETURNING id`, it.Code, it.Name, it.Category, it.Price, nullStock(it.Stock), w.nowMS()).Scan(&id)
	if isNoRows(err) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// SetItemStock sets an item's stock.
func (w *wtx) SetItemStock(itemID int64, stock *int) error {
	_, err := w.exec(`UPDATE items SET stock = ? WHERE id = ?`, nullStock(stock), itemID)
	return err
}

// ReturnStock puts n back on an item's stock.
func (w *wtx) ReturnStock(itemID int64, n int) error {
	_, err := w.exec(`UPDATE items SET stock = stock + ? WHERE id = ?`, n, itemID)
	return err
}

// SetItemPrice sets an item's price.
func (w *wtx) SetItemPrice(itemID int64, price booking.Money) error {
	_, err := w.exec(`UPDATE items SET price = ? WHERE id = ?`, price, itemID)
	return err
}

// RetireItem retires an item by compare-and-set.
func (w *wtx) RetireItem(itemID int64) (bool, error) {
	res, err := w.exec(`UPDATE items SET retired = 1 WHERE id = ? AND retired = 0`, itemID)
	return changedOne(res, err)
}

// KeyedItemOrder finds the order a key made.
func (w *wtx) KeyedItemOrder(key string) (int64, bool, error) {
	var id int64
	err := w.queryRow(`SELECT id FROM item_orders WHERE idem_key = ?`, key).Scan(&id)
	if isNoRows(err) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// InsertItemOrder writes an order; SQLite keeps no site (one cinema).
func (w *wtx) InsertItemOrder(o store.ItemOrderRow) (int64, error) {
	var id int64
	err := w.queryRow(`INSERT INTO item_orders (number, idem_key, booking_id, total, staff, terminal, at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		o.Number, o.Key, nullID(o.BookingID), o.Total, o.Staff, o.Terminal, w.nowMS()).Scan(&id)
	return id, err
}

// InsertItemLine writes one line of an order.
func (w *wtx) InsertItemLine(orderID int64, l store.ItemLineRow) (int64, error) {
	var id int64
	err := w.queryRow(`INSERT INTO item_lines (order_id, item_id, code, name, category, qty, price) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		orderID, l.ItemID, l.Code, l.Name, l.Category, l.Qty, l.Price).Scan(&id)
	return id, err
}

// InsertItemPayment writes one payment of an order; 0040's unique
// indexes refuse a second sale of an order and a second refund of a line,
// its trigger cash outside an open shift of its person.
func (w *wtx) InsertItemPayment(p store.ItemPaymentRow) (int64, error) {
	var id int64
	err := w.queryRow(`INSERT INTO item_payments (order_id, line_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id, approved_by)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		p.OrderID, nullID(p.LineID), string(p.Kind), string(p.Method), p.Amount, p.Tendered, p.Change, w.nowMS(), p.Staff, p.Terminal,
		nullID(p.ShiftID), p.ApprovedBy).Scan(&id)
	return id, err
}

// ItemOrderForUpdate reads an order and how it was paid.
func (w *wtx) ItemOrderForUpdate(number string) (store.ItemOrderRow, bool, error) {
	var o store.ItemOrderRow
	err := w.queryRow(qItemOrderRow+` WHERE o.number = ?`, number).Scan(&o.ID, &o.Number, &o.Key, &o.BookingID, &o.Total, &o.Staff, &o.Terminal, &o.Method)
	if isNoRows(err) {
		return o, false, nil
	}
	return o, err == nil, err
}

// ItemOrderLines reads an order's lines.
func (w *wtx) ItemOrderLines(orderID int64) ([]store.ItemLineRow, error) {
	rows, err := w.query(qItemLines, orderID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.ItemLineRow
	for rows.Next() {
		l, err := scanLine(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, store.ItemLineRow{ID: l.ID, ItemID: l.ItemID, Code: l.Code, Name: l.Name, Category: l.Category,
			Qty: l.Qty, Price: l.Price, Refunded: l.Refunded()})
	}
	return out, rows.Err()
}

// scanLine reads one row of qItemLines.
func scanLine(r scanner) (booking.ItemOrderLine, error) {
	var l booking.ItemOrderLine
	var refunded sql.NullInt64
	err := r.Scan(&l.ID, &l.ItemID, &l.Code, &l.Name, &l.Category, &l.Qty, &l.Price, &refunded)
	if refunded.Valid {
		l.RefundedAt = time.UnixMilli(refunded.Int64)
	}
	return l, err
}

// RefundItemLine marks a line refunded by compare-and-set.
func (w *wtx) RefundItemLine(lineID int64) (bool, error) {
	res, err := w.exec(`UPDATE item_lines SET refunded_at = ? WHERE id = ? AND refunded_at IS NULL`, w.nowMS(), lineID)
	return changedOne(res, err)
}

// ReadItems lists the items by code.
func (d driver) ReadItems(ctx context.Context, all bool) ([]booking.Item, error) {
	rows, err := d.s.readRows(ctx, qItemRow+` WHERE ? OR retired = 0 ORDER BY code`, all)
	if err != nil {
		return nil, d.s.translate("items", err)
	}
	defer rows.Close()
	out := []booking.Item{}
	for rows.Next() {
		it, err := scanItem(rows)
		if err != nil {
			return nil, d.s.translate("items", err)
		}
		out = append(out, it)
	}
	return out, d.s.translate("items", rows.Err())
}

// ItemOrderIDByNumber finds an order by number.
func (d driver) ItemOrderIDByNumber(ctx context.Context, number string) (int64, bool, error) {
	return d.orderID(ctx, `SELECT id FROM item_orders WHERE number = ?`, number)
}

// ItemOrderIDByKey finds the order a key made.
func (d driver) ItemOrderIDByKey(ctx context.Context, key string) (int64, bool, error) {
	return d.orderID(ctx, `SELECT id FROM item_orders WHERE idem_key = ?`, key)
}

func (d driver) orderID(ctx context.Context, query string, arg any) (int64, bool, error) {
	var id int64
	err := d.s.readRow(ctx, query, arg).Scan(&id)
	if isNoRows(err) {
		return 0, false, nil
	}
	return id, err == nil, d.s.translate("item order", err)
}

// The reads of one order, in one read transaction (ReadItemOrder).
const (
	qOrderHead     = `SELECT id, number, total, staff, terminal, at FROM item_orders WHERE id = ?`
	qOrderPayments = `SELECT id, coalesce(line_id, 0), kind, method, amount, tendered, change_due, at, staff, terminal, coalesce(shift_id, 0), approved_by
		FROM item_payments WHERE order_id = ? ORDER BY id`
)

// ReadItemOrder reads an order, its lines and payments in one snapshot.
func (d driver) ReadItemOrder(ctx context.Context, id int64) (*booking.ItemOrder, bool, error) {
	var o *booking.ItemOrder
	err := d.s.inReport(ctx, []string{qOrderHead, qItemLines, qOrderPayments}, func(tx *sql.Tx) error {
		var err error
		o, err = d.s.readOrder(ctx, tx, id)
		return err
	})
	if isNoRows(err) {
		return nil, false, nil
	}
	return o, err == nil, d.s.translate("item order", err)
}

func (s *Store) readOrder(ctx context.Context, tx *sql.Tx, id int64) (*booking.ItemOrder, error) {
	st, err := s.readStmt(ctx, qOrderHead)
	if err != nil {
		return nil, err
	}
	o := &booking.ItemOrder{}
	var at int64
	if err := tx.StmtContext(ctx, st).QueryRowContext(ctx, id).Scan(&o.ID, &o.Number, &o.Total, &o.SoldBy, &o.Terminal, &at); err != nil {
		return nil, err
	}
	o.At = time.UnixMilli(at)
	rows, err := s.txRows(ctx, tx, qItemLines, id)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		l, err := scanLine(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		o.Lines = append(o.Lines, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if rows, err = s.txRows(ctx, tx, qOrderPayments, id); err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var p booking.ItemPayment
		var at int64
		if err := rows.Scan(&p.ID, &p.LineID, &p.Kind, &p.Method, &p.Amount, &p.Tendered, &p.Change, &at, &p.Staff, &p.Terminal, &p.ShiftID, &p.ApprovedBy); err != nil {
			return nil, err
		}
		p.At = time.UnixMilli(at)
		o.Payments = append(o.Payments, p)
	}
	return o, rows.Err()
}

// qItemTakings and qShiftItems are qItemTallies over a range of time
// (item_payments_by_at) and over a shift (item_payments_by_shift).
var (
	qItemTakings = fmt.Sprintf(qItemTallies, `p.at >= ?1 AND p.at < ?2`)
	qShiftItems  = fmt.Sprintf(qItemTallies, `p.shift_id = ?1`)
)

// ItemTakings adds up the item payments of a range; SQLite is one
// site, so w.Site is the main site or every site (oneSite).
func (d driver) ItemTakings(ctx context.Context, w store.ReportWindow) ([]store.ItemTallyRow, error) {
	if err := oneSite(w.Site); err != nil {
		return nil, err
	}
	out, err := d.s.itemTallies(ctx, qItemTakings, w.From.UnixMilli(), w.To.UnixMilli())
	return out, d.s.translate("item takings", err)
}

// ShiftItems adds up a shift's item payments.
func (d driver) ShiftItems(ctx context.Context, shiftID int64) ([]store.ItemTallyRow, error) {
	out, err := d.s.itemTallies(ctx, qShiftItems, shiftID)
	return out, d.s.translate("shift items", err)
}

// itemTallies reads a qItemTallies statement.
func (s *Store) itemTallies(ctx context.Context, query string, args ...any) ([]store.ItemTallyRow, error) {
	rows, err := s.readRows(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.ItemTallyRow
	for rows.Next() {
		var r store.ItemTallyRow
		if err := rows.Scan(&r.Category, &r.Kind, &r.Qty, &r.Sum); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
