package db

import (
	"strings"

	"boxoffice/booking"
	"boxoffice/store"
)

// ExchangeByKey reads the exchange an idempotency key made.
func (w *wtx) ExchangeByKey(key string) (store.ExchangeRow, bool, error) {
	x := store.ExchangeRow{Key: key}
	err := w.queryRow(`SELECT from_booking, to_booking, credit, difference FROM exchanges WHERE idem_key = ?`, key).Scan(&x.From, &x.To, &x.Credit, &x.Difference)
	if isNoRows(err) {
		return x, false, nil
	}
	return x, err == nil, err
}

// ReleaseOwnHold lets go of owner's live hold and its claims.
func (w *wtx) ReleaseOwnHold(holdID int64, owner string) error {
	res, err := w.exec(`UPDATE holds SET status = 'released' WHERE id = ? AND owner = ? AND status = 'held'`, holdID, owner)
	if released, err := changedOne(res, err); err != nil || !released {
		return err
	}
	_, err = w.exec(`UPDATE seat_claims SET status = 'released' WHERE hold_id = ? AND status = 'held'`, holdID)
	return err
}

// PricesOf reads the price table and a show's price list inside the
// transaction. An exchange is rare: it reads the table rather than share
// the sale path's copy.
func (w *wtx) PricesOf(showID int64) (*booking.PriceTable, string, error) {
	prices, err := loadPriceTable(w.query)
	if err != nil {
		return nil, "", err
	}
	var list string
	if err := w.queryRow(qShowList, showID).Scan(&list); err != nil {
		return nil, "", err
	}
	return prices, strings.ToLower(list), nil
}

// InsertExchange writes an exchange.
func (w *wtx) InsertExchange(x store.ExchangeRow) (int64, error) {
	var id int64
	err := w.queryRow(`INSERT INTO exchanges (idem_key, from_booking, to_booking, credit, difference, method, at, staff, terminal, approved_by)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, x.Key, x.From, x.To, x.Credit, x.Difference, string(x.Method), w.nowMS(),
		x.Staff, x.Terminal, x.Approver).Scan(&id)
	return id, err
}

// MarkExchanged marks the voided tickets with their exchange.
func (w *wtx) MarkExchanged(exchangeID int64, ticketIDs []int64) error {
	for _, id := range ticketIDs {
		if _, err := w.exec(`UPDATE tickets SET exchange_id = ? WHERE id = ?`, exchangeID, id); err != nil {
			return err
		}
	}
	return nil
}
