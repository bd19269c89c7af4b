package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// The books' queries on SQLite (store.ReturnsTx, ReturnsReads, BooksTx,
// BooksReads), on 0048_books.sql.

var _ booking.Books = (*Store)(nil)

// InsertFilmHire appends a hire to the film's history.
func (w *wtx) InsertFilmHire(h booking.FilmHire) error {
	_, err := w.exec(`INSERT INTO film_hire (film_id, week, rate, set_by, set_at) VALUES (?, ?, ?, ?, ?)`,
		h.Film, h.Week, int64(h.Rate), h.SetBy, h.SetAt.UnixMilli())
	return err
}

// ReturnFilm reads a film and its first show's start (shows_by_film).
func (d driver) ReturnFilm(ctx context.Context, filmID int64) (booking.Film, time.Time, bool, error) {
	var f booking.Film
	var first sql.NullInt64
	err := d.s.readRow(ctx, `SELECT f.id, f.title, f.minutes, f.rating, f.retired,
		(SELECT min(s.starts_at) FROM shows s WHERE s.film_id = f.id) FROM films f WHERE f.id = ?`, filmID).
		Scan(&f.ID, &f.Title, &f.Minutes, &f.Rating, &f.Retired, &first)
	if isNoRows(err) {
		return f, time.Time{}, false, nil
	}
	if err != nil {
		return f, time.Time{}, false, d.s.translate("film", err)
	}
	var at time.Time
	if first.Valid {
		at = time.Unix(first.Int64, 0)
	}
	return f, at, true, nil
}

// FilmHires lists a film's hires, oldest first.
func (d driver) FilmHires(ctx context.Context, filmID int64) ([]booking.FilmHire, error) {
	rows, err := d.s.readRows(ctx, `SELECT film_id, week, rate, set_by, set_at FROM film_hire WHERE film_id = ? ORDER BY id LIMIT ?`, filmID, store.MaxFilmHires)
	if err != nil {
		return nil, d.s.translate("film hire", err)
	}
	defer rows.Close()
	var out []booking.FilmHire
	for rows.Next() {
		var h booking.FilmHire
		var at int64
		if err := rows.Scan(&h.Film, &h.Week, &h.Rate, &h.SetBy, &at); err != nil {
			return nil, d.s.translate("film hire", err)
		}
		h.SetAt = time.UnixMilli(at)
		out = append(out, h)
	}
	return out, d.s.translate("film hire", rows.Err())
}

// qReturnShows lists a film's shows of a window (shows_by_film) with their
// hall and house seats (seat_blocks_by_show).
const qReturnShows = `SELECT s.id, s.starts_at, h.name,
	(SELECT count(*) FROM seat_blocks b WHERE b.show_id = s.id AND b.kind = 'house')
	FROM shows s JOIN halls h ON h.id = s.hall_id
	WHERE s.film_id = ? AND s.starts_at >= ? AND s.starts_at < ? AND s.status <> 'cancelled'
	ORDER BY s.starts_at, s.id`

// ReturnShows lists the film's shows of the window.
func (d driver) ReturnShows(ctx context.Context, q store.ReturnWindow) ([]booking.ReturnRow, error) {
	w := store.ReportWindow{From: q.From, To: q.To, Site: q.Site}
	return reportRows(d, ctx, "distributor return", w, qReturnShows, []any{q.Film, q.From.Unix(), q.To.Unix()}, func(rows *sql.Rows) (booking.ReturnRow, error) {
		var r booking.ReturnRow
		var starts int64
		err := rows.Scan(&r.Show, &starts, &r.Hall, &r.House)
		r.Starts = time.Unix(starts, 0)
		return r, err
	})
}

// qReturnLines adds up the live tickets of a film's shows of a window by
// show, type, price and the span of rate changes (?4, a JSON array of unix
// milliseconds) their booking was made in: shows_by_film, bookings_by_show,
// then each booking's range of ticket ids.
const qReturnLines = `WITH brk(at) AS (SELECT value FROM json_each(?4))
	SELECT b.show_id, t.type_code, t.price, (SELECT count(*) FROM brk WHERE brk.at <= b.created_at), count(*)
	FROM shows s JOIN bookings b ON b.show_id = s.id
	CROSS JOIN tickets t ON t.id BETWEEN b.id * 32 AND b.id * 32 + 31
	WHERE s.film_id = ?1 AND s.starts_at >= ?2 AND s.starts_at < ?3 AND s.status <> 'cancelled'
		AND t.status IN ('issued', 'admitted')
	GROUP BY 1, 2, 3, 4`

// ReturnLines adds up the live tickets of the window's shows.
func (d driver) ReturnLines(ctx context.Context, q store.ReturnWindow) ([]store.ReturnLine, error) {
	js, err := breaksJSON(q.Breaks)
	if err != nil {
		return nil, err
	}
	w := store.ReportWindow{From: q.From, To: q.To, Site: q.Site}
	return reportRows(d, ctx, "distributor return", w, qReturnLines, []any{q.Film, q.From.Unix(), q.To.Unix(), js}, func(rows *sql.Rows) (store.ReturnLine, error) {
		var l store.ReturnLine
		err := rows.Scan(&l.Show, &l.Type, &l.Amount, &l.Span, &l.N)
		return l, err
	})
}

// breaksJSON is the rate breaks as SQLite's json_each reads them.
func breaksJSON(ts []time.Time) (string, error) {
	js, err := json.Marshal(store.BreakMillis(ts))
	return string(js), err
}

// DayClosed reads who closed a day and when.
func (w *wtx) DayClosed(site int64, day string) (string, time.Time, bool, error) {
	var by string
	var at int64
	err := w.queryRow(`SELECT closed_by, closed_at FROM day_closes WHERE site = ? AND day = ?`, site, day).Scan(&by, &at)
	if isNoRows(err) {
		return "", time.Time{}, false, nil
	}
	return by, time.UnixMilli(at), err == nil, err
}

// InsertDayClose keeps a day's report.
func (w *wtx) InsertDayClose(site int64, day, by string, at time.Time, report []byte) error {
	_, err := w.exec(`INSERT INTO day_closes (site, day, closed_by, closed_at, report) VALUES (?, ?, ?, ?, ?)`,
		site, day, by, at.UnixMilli(), string(report))
	return err
}

// UpdateTerminalDrawer sets whether a terminal's printer opens the drawer.
func (w *wtx) UpdateTerminalDrawer(name string, on bool) (booking.Terminal, bool, error) {
	t := booking.Terminal{Site: booking.MainSite}
	err := w.queryRow(`UPDATE terminals SET drawer = ? WHERE name = ? RETURNING id, name, printer`, on, name).Scan(&t.ID, &t.Name, &t.Printer)
	if isNoRows(err) {
		return t, false, nil
	}
	return t, err == nil, err
}

// ReadDayClose reads a closed day's report.
func (d driver) ReadDayClose(ctx context.Context, site int64, day string) ([]byte, bool, error) {
	var body string
	err := d.s.readRow(ctx, `SELECT report FROM day_closes WHERE site = ? AND day = ?`, site, day).Scan(&body)
	if isNoRows(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, d.s.translate("day report", err)
	}
	return []byte(body), true, nil
}

// ReadTerminalDrawer reads whether a terminal opens the drawer.
func (d driver) ReadTerminalDrawer(ctx context.Context, name string) (bool, bool, error) {
	var on bool
	err := d.s.readRow(ctx, `SELECT drawer FROM terminals WHERE name = ?`, name).Scan(&on)
	if isNoRows(err) {
		return false, false, nil
	}
	if err != nil {
		return false, false, d.s.translate("terminal", err)
	}
	return on, true, nil
}
