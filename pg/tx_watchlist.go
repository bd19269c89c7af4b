package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// The film watchlist's queries (store.WatchTx, store.WatchReads).

var _ booking.Watchlist = (*Store)(nil)

// FilmNextShow reads a film's next show not cancelled, from the shows to
// come (shows_by_start).
func (t *tx) FilmNextShow(filmID int64, after time.Time) (time.Time, bool, error) {
	var starts int64
	err := t.QueryRow(t.ctx, `SELECT starts_at FROM shows WHERE starts_at > $1 AND film_id = $2 AND status <> 'cancelled' ORDER BY starts_at LIMIT 1`,
		after.Unix(), filmID).Scan(&starts)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	return time.Unix(starts, 0), err == nil, err
}

// InsertWatch writes a watch; film_watchers_waiting refuses a second
// untold one of a phone.
func (t *tx) InsertWatch(r store.WatchRow) (int64, bool, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO film_watchers (film_id, customer_id, name, phone, phone_key, email, created_at, created_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING id`,
		r.FilmID, nullID(r.CustomerID), r.Name, r.Phone, r.PhoneKey, r.Email, t.nowMS(), r.CreatedBy).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// MarkWatchersToCall tells a film's untold watchers, each by
// compare-and-set: a second transaction at once waits for the first's
// row locks, re-checks notified_at IS NULL on the rows it committed, and
// marks none of them.
func (t *tx) MarkWatchersToCall(filmID, showID int64) (int, error) {
	return t.changed(`UPDATE film_watchers SET notified_at = $1, show_id = $2 WHERE film_id = $3 AND notified_at IS NULL AND phone_key <> ''`,
		t.nowMS(), showID, filmID)
}

// MarkWatchCalledBy claims a call, by compare-and-set.
func (t *tx) MarkWatchCalledBy(id int64, by string) (bool, error) {
	return t.changedOne(`UPDATE film_watchers SET called_at = $1, called_by = $2 WHERE id = $3 AND notified_at IS NOT NULL AND called_at IS NULL`,
		t.nowMS(), by, id)
}

// ReadWatch reads a watch's name and calls.
func (t *tx) ReadWatch(id int64) (booking.FilmWatch, bool, error) {
	f := booking.FilmWatch{ID: id}
	var told, called *int64
	err := t.QueryRow(t.ctx, `SELECT film_id, name, notified_at, called_at, called_by FROM film_watchers WHERE id = $1`, id).
		Scan(&f.FilmID, &f.Name, &told, &called, &f.CalledBy)
	if errors.Is(err, pgx.ErrNoRows) {
		return f, false, nil
	}
	f.NotifiedAt, f.CalledAt = msTime(told), msTime(called)
	return f, err == nil, err
}

// qWatch selects the columns pgWatch reads, of film_watchers w.
const qWatch = `SELECT w.id, w.film_id, coalesce(w.customer_id, 0), w.name, w.phone, w.email, w.created_at, w.created_by,
	w.notified_at, coalesce(w.show_id, 0), w.called_at, w.called_by`

// pgWatch reads a row of qWatch and then extra.
func pgWatch(r pgx.Row, extra ...any) (booking.FilmWatch, error) {
	var f booking.FilmWatch
	var created int64
	var told, called *int64
	err := r.Scan(append([]any{&f.ID, &f.FilmID, &f.CustomerID, &f.Name, &f.Phone, &f.Email, &created, &f.CreatedBy, &told, &f.ShowID, &called, &f.CalledBy}, extra...)...)
	f.CreatedAt, f.NotifiedAt, f.CalledAt = time.UnixMilli(created), msTime(told), msTime(called)
	return f, err
}

// ReadWatchCalls lists the watchers to call, through
// film_watchers_to_call.
func (d driver) ReadWatchCalls(ctx context.Context, limit int) ([]booking.FilmWatch, error) {
	rows, err := d.s.pool.Query(ctx, qWatch+` FROM film_watchers w
		WHERE w.notified_at IS NOT NULL AND w.called_at IS NULL AND w.phone_key <> '' ORDER BY w.notified_at, w.id LIMIT $1`, limit)
	if err != nil {
		return nil, d.s.translate("watch calls", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.FilmWatch, error) { return pgWatch(r) })
	return out, d.s.translate("watch calls", err)
}

// CustomerWatches lists a customer's newest watches with their film's
// title.
func (d driver) CustomerWatches(ctx context.Context, customerID int64, limit int) ([]booking.FilmWatch, error) {
	rows, err := d.s.pool.Query(ctx, qWatch+`, f.title FROM film_watchers w JOIN films f ON f.id = w.film_id
		WHERE w.customer_id = $1 ORDER BY w.id DESC LIMIT $2`, customerID, limit)
	if err != nil {
		return nil, d.s.translate("customer watches", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.FilmWatch, error) {
		var title string
		f, err := pgWatch(r, &title)
		f.Film = booking.Film{ID: f.FilmID, Title: title}
		return f, err
	})
	return out, d.s.translate("customer watches", err)
}

// FilmWatches lists a film's watches, through film_watchers_by_film.
func (d driver) FilmWatches(ctx context.Context, filmID int64, limit int) ([]booking.FilmWatch, error) {
	rows, err := d.s.pool.Query(ctx, qWatch+` FROM film_watchers w WHERE w.film_id = $1 ORDER BY w.id LIMIT $2`, filmID, limit)
	if err != nil {
		return nil, d.s.translate("film watches", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.FilmWatch, error) { return pgWatch(r) })
	return out, d.s.translate("film watches", err)
}
