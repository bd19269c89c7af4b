package db

import (
	"context"
	"database/sql"
	"strconv"
	"time"

	"boxoffice/store"
)

// A show's life's queries (store.ShowLifeTx, store.ShowLifeReads).

// ShowLife reads a show's status and sales close (lifeColumns).
func (w *wtx) ShowLife(showID int64) (store.Life, bool, error) {
	var l store.Life
	var closeS int64
	err := w.queryRow(`SELECT `+lifeColumns+` FROM shows s WHERE s.id = ?`, showID).Scan(&l.Status, &l.CancelReason, &closeS)
	if isNoRows(err) {
		return l, false, nil
	}
	l.SalesClose = time.Duration(closeS) * time.Second
	return l, err == nil, err
}

// SetDefaultSalesClose writes meta 'sales_close' in seconds.
func (w *wtx) SetDefaultSalesClose(close time.Duration) error {
	_, err := w.exec(`INSERT INTO meta (key, value) VALUES ('sales_close', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		strconv.Itoa(int(close.Seconds())))
	return err
}

// SetShowSalesClose sets a show's own sales close in seconds (NULL: none).
func (w *wtx) SetShowSalesClose(showID int64, close *time.Duration) (bool, error) {
	var secs sql.NullInt64
	if close != nil {
		secs = sql.NullInt64{Int64: int64(close.Seconds()), Valid: true}
	}
	res, err := w.exec(`UPDATE shows SET sales_close = ? WHERE id = ?`, secs, showID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ClaimSettle marks a show settled by compare-and-set on settled_at.
func (w *wtx) ClaimSettle(showID int64) (bool, error) {
	res, err := w.exec(`UPDATE shows SET settled_at = ? WHERE id = ? AND settled_at IS NULL`, w.nowMS(), showID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SettleBookings moves the show's confirmed bookings to completed or
// no_show. A booking's tickets are the 32 ids from its id * 32.
func (w *wtx) SettleBookings(showID int64) (int, error) {
	n := 0
	for _, q := range []string{
		`UPDATE bookings SET status = 'completed' WHERE show_id = ? AND status = 'confirmed' AND EXISTS
			(SELECT 1 FROM tickets t WHERE t.id BETWEEN bookings.id * 32 AND bookings.id * 32 + 31 AND t.status = 'admitted')`,
		`UPDATE bookings SET status = 'no_show' WHERE show_id = ? AND status = 'confirmed'`,
	} {
		res, err := w.exec(q, showID)
		if err != nil {
			return 0, err
		}
		k, _ := res.RowsAffected()
		n += int(k)
	}
	return n, nil
}

// ReadUnsettled lists started shows never settled, through the partial
// index shows_to_settle.
func (d driver) ReadUnsettled(ctx context.Context, startedBy time.Time, limit int) ([]store.ShowSlot, error) {
	rows, err := d.s.readRows(ctx, `SELECT s.id, s.starts_at, f.minutes FROM shows s JOIN films f ON f.id = s.film_id
		WHERE s.settled_at IS NULL AND s.starts_at <= ? ORDER BY s.starts_at LIMIT ?`, startedBy.Unix(), limit)
	if err != nil {
		return nil, d.s.translate("settle shows", err)
	}
	defer rows.Close()
	var out []store.ShowSlot
	for rows.Next() {
		var sl store.ShowSlot
		var at int64
		if err := rows.Scan(&sl.ID, &at, &sl.Minutes); err != nil {
			return nil, d.s.translate("settle shows", err)
		}
		sl.Starts = time.Unix(at, 0)
		out = append(out, sl)
	}
	return out, d.s.translate("settle shows", rows.Err())
}
