package db

import (
	"context"
	"database/sql"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// The film watchlist's queries (store.WatchTx, store.WatchReads).

// FilmNextShow reads a film's next show not cancelled, through
// shows_by_film.
func (w *wtx) FilmNextShow(filmID int64, after time.Time) (time.Time, bool, error) {
	var starts int64
	err := w.queryRow(`SELECT starts_at FROM shows WHERE film_id = ? AND starts_at > ? AND status <> 'cancelled' ORDER BY starts_at LIMIT 1`,
		filmID, after.Unix()).Scan(&starts)
	if isNoRows(err) {
		return time.Time{}, false, nil
	}
	return time.Unix(starts, 0), err == nil, err
}

// InsertWatch writes a watch; film_watchers_waiting refuses a second
// untold one of a phone (ON CONFLICT DO NOTHING: no row back).
func (w *wtx) InsertWatch(r store.WatchRow) (int64, bool, error) {
	var id int64
	err := w.queryRow(`INSERT INTO film_watchers (film_id, customer_id, name, phone, phone_key, email, created_at, created_by)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id`,
		r.FilmID, nullID(r.CustomerID), r.Name, r.Phone, r.PhoneKey, r.Email, w.nowMS(), r.CreatedBy).Scan(&id)
	if isNoRows(err) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// MarkWatchersToCall tells a film's untold watchers, each by
// compare-and-set (notified_at IS NULL), through film_watchers_waiting.
func (w *wtx) MarkWatchersToCall(filmID, showID int64) (int, error) {
	return w.updated(`UPDATE film_watchers SET notified_at = ?, show_id = ? WHERE film_id = ? AND notified_at IS NULL AND phone_key <> ''`,
		w.nowMS(), showID, filmID)
}

// MarkWatchCalledBy claims a call, by compare-and-set.
func (w *wtx) MarkWatchCalledBy(id int64, by string) (bool, error) {
	return w.updatedOne(`UPDATE film_watchers SET called_at = ?, called_by = ? WHERE id = ? AND notified_at IS NOT NULL AND called_at IS NULL`,
		w.nowMS(), by, id)
}

// ReadWatch reads a watch's name and calls.
func (w *wtx) ReadWatch(id int64) (booking.FilmWatch, bool, error) {
	f := booking.FilmWatch{ID: id}
	var told, called *int64
	err := w.queryRow(`SELECT film_id, name, notified_at, called_at, called_by FROM film_watchers WHERE id = ?`, id).
		Scan(&f.FilmID, &f.Name, &told, &called, &f.CalledBy)
	if isNoRows(err) {
		return f, false, nil
	}
	f.NotifiedAt, f.CalledAt = msTime(told), msTime(called)
	return f, err == nil, err
}

// watchColumns are the columns scanWatch reads, of film_watchers w.
const watchColumns = `w.id, w.film_id, w.customer_id, w.name, w.phone, w.email, w.created_at, w.created_by, w.notified_at, w.show_id, w.called_at, w.called_by`

// scanWatch reads a row of watchColumns and then extra.
func scanWatch(r interface{ Scan(...any) error }, extra ...any) (booking.FilmWatch, error) {
	var f booking.FilmWatch
	var customer, show sql.NullInt64
	var created int64
	var told, called *int64
	err := r.Scan(append([]any{&f.ID, &f.FilmID, &customer, &f.Name, &f.Phone, &f.Email, &created, &f.CreatedBy, &told, &show, &called, &f.CalledBy}, extra...)...)
	f.CustomerID, f.ShowID = customer.Int64, show.Int64
	f.CreatedAt, f.NotifiedAt, f.CalledAt = time.UnixMilli(created), msTime(told), msTime(called)
	return f, err
}

// ReadWatchCalls lists the watchers to call, through
// film_watchers_to_call.
func (d driver) ReadWatchCalls(ctx context.Context, limit int) ([]booking.FilmWatch, error) {
	rows, err := d.s.readRows(ctx, `SELECT `+watchColumns+` FROM film_watchers w
		WHERE w.notified_at IS NOT NULL AND w.called_at IS NULL AND w.phone_key <> '' ORDER BY w.notified_at, w.id LIMIT ?`, limit)
	if err != nil {
		return nil, d.s.translate("watch calls", err)
	}
	defer rows.Close()
	var out []booking.FilmWatch
	for rows.Next() {
		f, err := scanWatch(rows)
		if err != nil {
			return nil, d.s.translate("watch calls", err)
		}
		out = append(out, f)
	}
	return out, d.s.translate("watch calls", rows.Err())
}

// CustomerWatches lists a customer's newest watches with their film's
// title.
func (d driver) CustomerWatches(ctx context.Context, customerID int64, limit int) ([]booking.FilmWatch, error) {
	rows, err := d.s.readRows(ctx, `SELECT `+watchColumns+`, f.title FROM film_watchers w JOIN films f ON f.id = w.film_id
		WHERE w.customer_id = ? ORDER BY w.id DESC LIMIT ?`, customerID, limit)
	if err != nil {
		return nil, d.s.translate("customer watches", err)
	}
	defer rows.Close()
	var out []booking.FilmWatch
	for rows.Next() {
		var title string
		f, err := scanWatch(rows, &title)
		if err != nil {
			return nil, d.s.translate("customer watches", err)
		}
		f.Film = booking.Film{ID: f.FilmID, Title: title}
		out = append(out, f)
	}
	return out, d.s.translate("customer watches", rows.Err())
}

// FilmWatches lists a film's watches, through film_watchers_by_film.
func (d driver) FilmWatches(ctx context.Context, filmID int64, limit int) ([]booking.FilmWatch, error) {
	rows, err := d.s.readRows(ctx, `SELECT `+watchColumns+` FROM film_watchers w WHERE w.film_id = ? ORDER BY w.id LIMIT ?`, filmID, limit)
	if err != nil {
		return nil, d.s.translate("film watches", err)
	}
	defer rows.Close()
	var out []booking.FilmWatch
	for rows.Next() {
		f, err := scanWatch(rows)
		if err != nil {
			return nil, d.s.translate("film watches", err)
		}
		out = append(out, f)
	}
	return out, d.s.translate("film watches", rows.Err())
}
