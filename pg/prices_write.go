package pg

import (
	"context"
	"strings"

	"boxoffice/booking"
)

// Prices and a show's sales on PostgreSQL, as SQLite's (db/prices.go,
// db/showlife.go). READ COMMITTED throughout: each is one upsert or one
// compare-free update of a row no sale locks, and the price generation
// the triggers move makes every server's next sale read the new table.

// SetPriceEntry sets what a ticket type costs on a seat kind and/or a
// price list, creating the list when it is new.
func (s *Store) SetPriceEntry(ctx context.Context, actor booking.Actor, e booking.PriceEntry) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	e.Type = strings.ToLower(strings.TrimSpace(e.Type))
	e.List = strings.ToLower(strings.TrimSpace(e.List))
	if err := e.Validate(); err != nil {
		return err
	}
	_, err := inTx(s, ctx, "set price", txMode{}, func(t *tx) (struct{}, error) {
		if err := checkActor(t, actor); err != nil {
			return struct{}{}, err
		}
		var n int
		if err := t.QueryRow(t.ctx, `SELECT count(*) FROM ticket_types WHERE code = $1`, e.Type).Scan(&n); err != nil {
			return struct{}{}, err
		}
		if n == 0 {
			return struct{}{}, booking.Errorf(booking.EInvalid, "There is no ticket type %q; add it with its own price first.", booking.CleanLine(e.Type, 20))
		}
		if e.List != "" {
			if _, err := t.Exec(t.ctx, `INSERT INTO price_lists (name) VALUES ($1) ON CONFLICT (name) DO NOTHING`, e.List); err != nil {
				return struct{}{}, err
			}
		}
		if _, err := t.Exec(t.ctx, `INSERT INTO prices (list, type_code, seat_kind, amount) VALUES ($1, $2, $3, $4)
			ON CONFLICT (list, type_code, seat_kind) DO UPDATE SET amount = excluded.amount`, e.List, e.Type, e.Kind.String(), e.Amount); err != nil {
			return struct{}{}, err
		}
		t.touch(0) // every open counter re-prices
		return struct{}{}, audit(t, actor, booking.AuditEntry{Action: booking.AuditPriceChange, Amount: e.Amount, Detail: e.Describe()}, 0)
	})
	return err
}

// SetShowPriceList puts a show on a price list ("" for the standing one).
func (s *Store) SetShowPriceList(ctx context.Context, actor booking.Actor, showID int64, list string) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	list, err := booking.ParseListName(list, true)
	if err != nil {
		return err
	}
	_, err = inTx(s, ctx, "set show price list", txMode{}, func(t *tx) (struct{}, error) {
		if err := checkActor(t, actor); err != nil {
			return struct{}{}, err
		}
		if list != "" {
			var n int
			if err := t.QueryRow(t.ctx, `SELECT count(*) FROM price_lists WHERE name = $1`, list).Scan(&n); err != nil {
				return struct{}{}, err
			}
			if n == 0 {
				return struct{}{}, booking.Errorf(booking.ENotFound, "There is no price list %q: set a price on it first.", list)
			}
		}
		tag, err := t.Exec(t.ctx, `UPDATE shows SET price_list = $1 WHERE id = $2`, list, showID)
		if err != nil {
			return struct{}{}, err
		}
		if tag.RowsAffected() != 1 {
			return struct{}{}, booking.Errorf(booking.ENotFound, "There is no show %d.", showID)
		}
		t.touch(0) // a counter with this show's checkout open quotes it again
		detail := "show on the standing list"
		if list != "" {
			detail = "show on the " + list + " list"
		}
		return struct{}{}, audit(t, actor, booking.AuditEntry{Action: booking.AuditPriceChange, ShowID: showID, Detail: detail}, 0)
	})
	return err
}
