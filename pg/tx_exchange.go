package pg

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// ExchangeByKey reads the exchange an idempotency key made.
func (t *tx) ExchangeByKey(key string) (store.ExchangeRow, bool, error) {
	x := store.ExchangeRow{Key: key}
	err := t.QueryRow(t.ctx, `SELECT from_booking, to_booking, credit, difference FROM exchanges WHERE idem_key = $1`, key).Scan(&x.From, &x.To, &x.Credit, &x.Difference)
	if errors.Is(err, pgx.ErrNoRows) {
		return x, false, nil
	}
	return x, err == nil, err
}

// ReleaseOwnHold lets go of owner's live hold and its claims.
func (t *tx) ReleaseOwnHold(holdID int64, owner string) error {
	tag, err := t.Exec(t.ctx, `UPDATE holds SET status = 'released' WHERE id = $1 AND owner = $2 AND status = 'held'`, holdID, owner)
	if err != nil || tag.RowsAffected() != 1 {
		return err
	}
	_, err = t.Exec(t.ctx, `UPDATE seat_claims SET status = 'released' WHERE hold_id = $1 AND status = 'held'`, holdID)
	return err
}

// PricesOf reads the price table and a show's price list inside t.
func (t *tx) PricesOf(showID int64) (*booking.PriceTable, string, error) {
	prices, err := priceTable(t)
	if err != nil {
		return nil, "", err
	}
	var list string
	if err := t.QueryRow(t.ctx, `SELECT price_list FROM shows WHERE id = $1`, showID).Scan(&list); err != nil {
		return nil, "", err
	}
	return prices, strings.ToLower(list), nil
}

// InsertExchange writes an exchange.
func (t *tx) InsertExchange(x store.ExchangeRow) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO exchanges (idem_key, from_booking, to_booking, credit, difference, method, at, staff, terminal, approved_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`, x.Key, x.From, x.To, x.Credit, x.Difference, string(x.Method), t.nowMS(),
		x.Staff, x.Terminal, x.Approver).Scan(&id)
	return id, err
}

// MarkExchanged marks the voided tickets with their exchange.
func (t *tx) MarkExchanged(exchangeID int64, ticketIDs []int64) error {
	_, err := t.Exec(t.ctx, `UPDATE tickets SET exchange_id = $1 WHERE id = ANY($2)`, exchangeID, ticketIDs)
	return err
}
