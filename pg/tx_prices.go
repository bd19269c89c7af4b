package pg

import (
	"context"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// The price table's queries (store.PricesTx, store.PriceReads). Each
// write is one upsert or one update of a row no sale locks; the price
// generation the triggers move makes every server's next sale read the
// new table.

// UpsertTicketType adds a ticket type at the end, or changes one.
func (t *tx) UpsertTicketType(ty booking.TicketType) error {
	_, err := t.Exec(t.ctx, `INSERT INTO ticket_types (code, name, price, sort) VALUES ($1, $2, $3, (SELECT coalesce(max(sort), 0) + 1 FROM ticket_types))
		ON CONFLICT (code) DO UPDATE SET name = excluded.name, price = excluded.price`, ty.Code, ty.Name, ty.Price)
	return err
}

// TicketTypeExists reports whether a ticket type has the code.
func (t *tx) TicketTypeExists(code string) (bool, error) {
	var n int
	err := t.QueryRow(t.ctx, `SELECT count(*) FROM ticket_types WHERE code = $1`, code).Scan(&n)
	return n > 0, err
}

// EnsurePriceList makes a price list unless it exists.
func (t *tx) EnsurePriceList(name string) error {
	_, err := t.Exec(t.ctx, `INSERT INTO price_lists (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, name)
	return err
}

// PriceListExists reports whether a price list has the name.
func (t *tx) PriceListExists(name string) (bool, error) {
	var n int
	err := t.QueryRow(t.ctx, `SELECT count(*) FROM price_lists WHERE name = $1`, name).Scan(&n)
	return n > 0, err
}

// UpsertPrice sets what a ticket type costs on a seat kind and list.
func (t *tx) UpsertPrice(e booking.PriceEntry) error {
	_, err := t.Exec(t.ctx, `INSERT INTO prices (list, type_code, seat_kind, amount) VALUES ($1, $2, $3, $4)
		ON CONFLICT (list, type_code, seat_kind) DO UPDATE SET amount = excluded.amount`, e.List, e.Type, e.Kind.String(), e.Amount)
	return err
}

// PutShowOnList sets a show's price list.
func (t *tx) PutShowOnList(showID int64, list string) (bool, error) {
	tag, err := t.Exec(t.ctx, `UPDATE shows SET price_list = $1 WHERE id = $2`, list, showID)
	return tag.RowsAffected() == 1, err
}

// ReadPriceTable reads the whole price table in one batch (one implicit
// transaction, so one moment). No copy is kept: another server's change
// would have to reach this one before its next read.
func (d driver) ReadPriceTable(ctx context.Context) (*booking.PriceTable, error) {
	pt := &booking.PriceTable{Entries: map[booking.PriceKey]booking.Money{}}
	b := &pgx.Batch{}
	queuePriceTable(b, pt)
	b.Queue(`SELECT name, label FROM price_lists ORDER BY name`).Query(func(rows pgx.Rows) error {
		var err error
		pt.Lists, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.PriceList, error) {
			var l booking.PriceList
			return l, r.Scan(&l.Name, &l.Label)
		})
		return err
	})
	if err := d.s.pool.SendBatch(ctx, b).Close(); err != nil {
		return nil, d.s.translate("prices", err)
	}
	return pt, nil
}
