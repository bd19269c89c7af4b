package pg

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/store"
)

// A show's life's queries (store.ShowLifeTx, store.ShowLifeReads). The
// settling claims and moves are compare-and-set: PostgreSQL re-checks
// their conditions on the newest rows, so two servers sweeping at once
// move each booking once.

// ShowLife reads a show's status and sales close (lifeColumns).
func (t *tx) ShowLife(showID int64) (store.Life, bool, error) {
	var l store.Life
	var closeS int64
	err := t.QueryRow(t.ctx, `SELECT `+lifeColumns+` FROM shows s WHERE s.id = $1`, showID).Scan(&l.Status, &l.CancelReason, &closeS)
	if errors.Is(err, pgx.ErrNoRows) {
		return l, false, nil
	}
	l.SalesClose = time.Duration(closeS) * time.Second
	return l, err == nil, err
}

// SetDefaultSalesClose writes meta 'sales_close' in seconds.
func (t *tx) SetDefaultSalesClose(close time.Duration) error {
	_, err := t.Exec(t.ctx, `INSERT INTO meta (key, value) VALUES ('sales_close', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		strconv.Itoa(int(close.Seconds())))
	return err
}

// SetShowSalesClose sets a show's own sales close in seconds (NULL: none).
func (t *tx) SetShowSalesClose(showID int64, close *time.Duration) (bool, error) {
	var secs *int64
	if close != nil {
		v := int64(close.Seconds())
		secs = &v
	}
	tag, err := t.Exec(t.ctx, `UPDATE shows SET sales_close = $1 WHERE id = $2`, secs, showID)
	return tag.RowsAffected() == 1, err
}

// ClaimSettle marks a show settled by compare-and-set on settled_at.
func (t *tx) ClaimSettle(showID int64) (bool, error) {
	tag, err := t.Exec(t.ctx, `UPDATE shows SET settled_at = $1 WHERE id = $2 AND settled_at IS NULL`, t.nowMS(), showID)
	return tag.RowsAffected() == 1, err
}

// SettleBookings moves the show's confirmed bookings to completed or
// no_show. A booking's tickets are the 32 ids from its id * 32, counted
// booking by booking in a range of tickets_pkey: a scalar subquery, which
// PostgreSQL never turns into a join. As EXISTS it became a semi-join,
// which cannot size a range of computed ends and read every ticket of
// the history for each show settled (164 ms on a year).
func (t *tx) SettleBookings(showID int64) (int, error) {
	n := 0
	for _, q := range []string{
		`UPDATE bookings SET status = 'completed' WHERE show_id = $1 AND status = 'confirmed' AND
			(SELECT count(*) FROM tickets t WHERE t.id BETWEEN bookings.id * 32 AND bookings.id * 32 + 31 AND t.status = 'admitted') > 0`,
		`UPDATE bookings SET status = 'no_show' WHERE show_id = $1 AND status = 'confirmed'`,
	} {
		tag, err := t.Exec(t.ctx, q, showID)
		if err != nil {
			return 0, err
		}
		n += int(tag.RowsAffected())
	}
	return n, nil
}

// ReadUnsettled lists started shows never settled.
func (d driver) ReadUnsettled(ctx context.Context, startedBy time.Time, limit int) ([]store.ShowSlot, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT s.id, s.starts_at, f.minutes FROM shows s JOIN films f ON f.id = s.film_id
		WHERE s.settled_at IS NULL AND s.starts_at <= $1 ORDER BY s.starts_at LIMIT $2`, startedBy.Unix(), limit)
	if err != nil {
		return nil, d.s.translate("settle shows", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.ShowSlot, error) {
		var sl store.ShowSlot
		var at int64
		err := r.Scan(&sl.ID, &at, &sl.Minutes)
		sl.Starts = time.Unix(at, 0)
		return sl, err
	})
	return out, d.s.translate("settle shows", err)
}
