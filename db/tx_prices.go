package db

import (
	"context"

	"boxoffice/booking"
)

// The price table's queries (store.PricesTx, store.PriceReads).

// UpsertTicketType adds a ticket type at the end, or changes one.
func (w *wtx) UpsertTicketType(t booking.TicketType) error {
	_, err := w.exec(`INSERT INTO ticket_types (code, name, price, sort) VALUES (?, ?, ?, (SELECT coalesce(max(sort), 0) + 1 FROM ticket_types))
		ON CONFLICT (code) DO UPDATE SET name = excluded.name, price = excluded.price`, t.Code, t.Name, t.Price)
	return err
}

// TicketTypeExists reports whether a ticket type has the code.
func (w *wtx) TicketTypeExists(code string) (bool, error) {
	var n int
	err := w.queryRow(`SELECT count(*) FROM ticket_types WHERE code = ?`, code).Scan(&n)
	return n > 0, err
}

// EnsurePriceList makes a price list unless it exists.
func (w *wtx) EnsurePriceList(name string) error {
	_, err := w.exec(`INSERT INTO price_lists (name) VALUES (?) ON CONFLICT (name) DO NOTHING`, name)
	return err
}

// PriceListExists reports whether a price list has the name.
func (w *wtx) PriceListExists(name string) (bool, error) {
	var n int
	err := w.queryRow(`SELECT count(*) FROM price_lists WHERE name = ?`, name).Scan(&n)
	return n > 0, err
}

// UpsertPrice sets what a ticket type costs on a seat kind and list.
func (w *wtx) UpsertPrice(e booking.PriceEntry) error {
	_, err := w.exec(`INSERT INTO prices (list, type_code, seat_kind, amount) VALUES (?, ?, ?, ?)
		ON CONFLICT (list, type_code, seat_kind) DO UPDATE SET amount = excluded.amount`, e.List, e.Type, e.Kind.String(), e.Amount)
	return err
}

// PutShowOnList sets a show's price list.
func (w *wtx) PutShowOnList(showID int64, list string) (bool, error) {
	res, err := w.exec(`UPDATE shows SET price_list = ? WHERE id = ?`, list, showID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ReadPriceTable is the cached price table (priceTable).
func (d driver) ReadPriceTable(ctx context.Context) (*booking.PriceTable, error) {
	return d.s.priceTable(ctx)
}
