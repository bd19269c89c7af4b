package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// The books' queries on PostgreSQL (store.ReturnsTx, ReturnsReads,
// BooksTx, BooksReads), on 0033_books.sql.

var _ booking.Books = (*Store)(nil)

// InsertFilmHire appends a hire to the film's history.
func (t *tx) InsertFilmHire(h booking.FilmHire) error {
	_, err := t.Exec(t.ctx, `INSERT INTO film_hire (film_id, week, rate, set_by, set_at) VALUES ($1, $2, $3, $4, $5)`,
		h.Film, h.Week, int64(h.Rate), h.SetBy, h.SetAt.UnixMilli())
	return err
}

// ReturnFilm reads a film and its first show's start (shows_by_film).
func (d driver) ReturnFilm(ctx context.Context, filmID int64) (booking.Film, time.Time, bool, error) {
	var f booking.Film
	var first *int64
	err := d.s.pool.QueryRow(ctx, `SELECT f.id, f.title, f.minutes, f.rating, f.retired,
		(SELECT min(s.starts_at) FROM shows s WHERE s.film_id = f.id) FROM films f WHERE f.id = $1`, filmID).
		Scan(&f.ID, &f.Title, &f.Minutes, &f.Rating, &f.Retired, &first)
	if errors.Is(err, pgx.ErrNoRows) {
		return f, time.Time{}, false, nil
	}
	if err != nil {
		return f, time.Time{}, false, d.s.translate("film", err)
	}
	var at time.Time
	if first != nil {
		at = time.Unix(*first, 0)
	}
	return f, at, true, nil
}

// FilmHires lists a film's hires, oldest first.
func (d driver) FilmHires(ctx context.Context, filmID int64) ([]booking.FilmHire, error) {
	return reportRows(d, ctx, "film hire", `SELECT film_id, week, rate, set_by, set_at FROM film_hire WHERE film_id = $1 ORDER BY id LIMIT $2`,
		[]any{filmID, store.MaxFilmHires}, func(rows pgx.Rows) (booking.FilmHire, error) {
			var h booking.FilmHire
			var at int64
			err := rows.Scan(&h.Film, &h.Week, &h.Rate, &h.SetBy, &at)
			h.SetAt = time.UnixMilli(at)
			return h, err
		})
}

// pqReturnShows lists a film's shows of a window (shows_by_film) at a site
// with their hall and house seats.
const pqReturnShows = `SELECT s.id, s.starts_at, h.name,
	(SELECT count(*) FROM seat_blocks b WHERE b.show_id = s.id AND b.kind = 'house')
	FROM shows s JOIN halls h ON h.id = s.hall_id
	WHERE s.film_id = $1 AND s.starts_at >= $2 AND s.starts_at < $3 AND s.status <> 'cancelled'
		AND ($4::bigint = 0 OR h.site_id = $4)
	ORDER BY s.starts_at, s.id`

// ReturnShows lists the film's shows of the window.
func (d driver) ReturnShows(ctx context.Context, q store.ReturnWindow) ([]booking.ReturnRow, error) {
	return reportRows(d, ctx, "distributor return", pqReturnShows, []any{q.Film, q.From.Unix(), q.To.Unix(), q.Site}, func(rows pgx.Rows) (booking.ReturnRow, error) {
		var r booking.ReturnRow
		var starts, house int64
		err := rows.Scan(&r.Show, &starts, &r.Hall, &house)
		r.Starts, r.House = time.Unix(starts, 0), int(house)
		return r, err
	})
}

// pqReturnLines adds up the live tickets of a film's shows of a window by
// show, type, price and the span of rate changes ($5, unix milliseconds)
// their booking was made in. A live ticket's seat has the show's sold
// claim (seat_claims_one_live), which names its booking: no index of
// bookings by show is kept for this one report.
const pqReturnLines = `SELECT c.show_id, t.type_code, t.price,
	(SELECT count(*) FROM unnest($5::bigint[]) AS brk(at) WHERE brk.at <= b.created_at), count(*)
	FROM shows s JOIN halls h ON h.id = s.hall_id
	JOIN seat_claims c ON c.show_id = s.id AND c.status IN ('held', 'sold') AND c.booking_id IS NOT NULL
	JOIN bookings b ON b.id = c.booking_id
	JOIN tickets t ON t.id BETWEEN b.id * 32 AND b.id * 32 + 31 AND t.seat_id = c.seat_id
	WHERE s.film_id = $1 AND s.starts_at >= $2 AND s.starts_at < $3 AND s.status <> 'cancelled'
		AND ($4::bigint = 0 OR h.site_id = $4) AND t.status IN ('issued', 'admitted')
	GROUP BY 1, 2, 3, 4`

// ReturnLines adds up the live tickets of the window's shows.
func (d driver) ReturnLines(ctx context.Context, q store.ReturnWindow) ([]store.ReturnLine, error) {
	breaks := store.BreakMillis(q.Breaks)
	return reportRows(d, ctx, "distributor return", pqReturnLines, []any{q.Film, q.From.Unix(), q.To.Unix(), q.Site, breaks}, func(rows pgx.Rows) (store.ReturnLine, error) {
		var l store.ReturnLine
		var span, n int64
		err := rows.Scan(&l.Show, &l.Type, &l.Amount, &span, &n)
		l.Span, l.N = int(span), int(n)
		return l, err
	})
}

// DayClosed reads who closed a day and when.
func (t *tx) DayClosed(site int64, day string) (string, time.Time, bool, error) {
	var by string
	var at int64
	err := t.QueryRow(t.ctx, `SELECT closed_by, closed_at FROM day_closes WHERE site = $1 AND day = $2`, site, day).Scan(&by, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", time.Time{}, false, nil
	}
	return by, time.UnixMilli(at), err == nil, err
}

// InsertDayClose keeps a day's report.
func (t *tx) InsertDayClose(site int64, day, by string, at time.Time, report []byte) error {
	_, err := t.Exec(t.ctx, `INSERT INTO day_closes (site, day, closed_by, closed_at, report) VALUES ($1, $2, $3, $4, $5)`,
		site, day, by, at.UnixMilli(), string(report))
	return err
}

// UpdateTerminalDrawer sets whether a terminal's printer opens the drawer.
func (t *tx) UpdateTerminalDrawer(name string, on bool) (booking.Terminal, bool, error) {
	var term booking.Terminal
	v := 0
	if on {
		v = 1
	}
	err := t.QueryRow(t.ctx, `UPDATE terminals SET drawer = $1 WHERE lower(name) = lower($2) RETURNING id, name, printer, site_id`, v, name).
		Scan(&term.ID, &term.Name, &term.Printer, &term.Site)
	if errors.Is(err, pgx.ErrNoRows) {
		return term, false, nil
	}
	return term, err == nil, err
}

// ReadDayClose reads a closed day's report.
func (d driver) ReadDayClose(ctx context.Context, site int64, day string) ([]byte, bool, error) {
	var body string
	err := d.s.pool.QueryRow(ctx, `SELECT report FROM day_closes WHERE site = $1 AND day = $2`, site, day).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, d.s.translate("day report", err)
	}
	return []byte(body), true, nil
}

// ReadTerminalDrawer reads whether a terminal opens the drawer.
func (d driver) ReadTerminalDrawer(ctx context.Context, name string) (bool, bool, error) {
	var on int16
	err := d.s.pool.QueryRow(ctx, `SELECT drawer FROM terminals WHERE lower(name) = lower($1)`, name).Scan(&on)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, false, nil
	}
	if err != nil {
		return false, false, d.s.translate("terminal", err)
	}
	return on == 1, true, nil
}
