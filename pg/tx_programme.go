package pg

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// The programme's queries (store.ProgrammeTx, store.CatalogueReads). A
// …ForUpdate query locks what it reads: a film's row, a hall's row (no
// sale locks one), a show's row.

// InsertHall writes a hall at its site, and its seats in one COPY on the
// transaction's connection; taken when the name is.
func (t *tx) InsertHall(h booking.Hall, site int64) (int64, bool, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO halls (name, rows, width, site_id) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING RETURNING id`,
		h.Name, strings.Join(h.Rows, " "), h.Width, site).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, true, nil
	}
	if err != nil {
		return 0, false, err
	}
	rows := make([][]any, len(h.Seats))
	for i, seat := range h.Seats {
		rows[i] = []any{id, seat.Label, seat.RowTag, seat.Number, seat.Row, seat.Col, seat.Kind.String(), seat.Blocked}
	}
	_, err = t.conn.CopyFrom(t.ctx, pgx.Identifier{"seats"}, []string{"hall_id", "label", "row_tag", "number", "row_idx", "col", "kind", "blocked"}, pgx.CopyFromRows(rows))
	return id, false, err
}

// InsertFilm writes a film.
func (t *tx) InsertFilm(f booking.Film) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO films (title, minutes, rating) VALUES ($1, $2, $3) RETURNING id`, f.Title, f.Minutes, f.Rating).Scan(&id)
	return id, err
}

// FilmForUpdate reads a film and locks its row.
func (t *tx) FilmForUpdate(filmID int64) (booking.Film, bool, error) {
	f := booking.Film{ID: filmID}
	err := t.QueryRow(t.ctx, `SELECT title, minutes, rating, retired FROM films WHERE id = $1 FOR UPDATE`, filmID).Scan(&f.Title, &f.Minutes, &f.Rating, &f.Retired)
	if errors.Is(err, pgx.ErrNoRows) {
		return f, false, nil
	}
	return f, err == nil, err
}

// UpdateFilm sets a film's title, running time and rating.
func (t *tx) UpdateFilm(f booking.Film) error {
	_, err := t.Exec(t.ctx, `UPDATE films SET title = $1, minutes = $2, rating = $3 WHERE id = $4`, f.Title, f.Minutes, f.Rating, f.ID)
	return err
}

// MarkFilmRetired marks a film retired.
func (t *tx) MarkFilmRetired(filmID int64) error {
	_, err := t.Exec(t.ctx, `UPDATE films SET retired = true WHERE id = $1`, filmID)
	return err
}

// HallSeatsForUpdate counts a hall's seats and locks the hall's row.
func (t *tx) HallSeatsForUpdate(hallID int64) (int, error) {
	var n int
	err := t.QueryRow(t.ctx, `SELECT (SELECT count(*) FROM seats WHERE hall_id = h.id) FROM halls h WHERE h.id = $1 FOR UPDATE`, hallID).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return n, err
}

// HallClash reads the first show of a hall in the way of a slot.
func (t *tx) HallClash(slot store.HallSlot) (store.Clash, bool, error) {
	var c store.Clash
	var at int64
	err := t.QueryRow(t.ctx, `SELECT f.title, s.starts_at FROM shows s JOIN films f ON f.id = s.film_id
		WHERE s.hall_id = $1 AND s.starts_at > $2 AND s.starts_at < $3 AND s.starts_at + (f.minutes * 60) + $4 > $5 AND s.id <> $6
		ORDER BY s.starts_at LIMIT 1`, slot.HallID, slot.Since.Unix(), slot.To.Unix(), int64(slot.Gap/time.Second), slot.From.Unix(), slot.Except).Scan(&c.Title, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	c.Starts = time.Unix(at, 0)
	return c, err == nil, err
}

// InsertShow schedules a film in a hall.
func (t *tx) InsertShow(filmID, hallID int64, starts time.Time, capacity int) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO shows (film_id, hall_id, starts_at, capacity) VALUES ($1, $2, $3, $4) RETURNING id`,
		filmID, hallID, starts.Unix(), capacity).Scan(&id)
	return id, err
}

// showSlot reads where and when a show plays, its row locked when lock.
func (t *tx) showSlot(showID int64, lock string) (store.ShowSlot, bool, error) {
	sl := store.ShowSlot{ID: showID}
	var at int64
	err := t.QueryRow(t.ctx, `SELECT s.hall_id, s.starts_at, f.minutes FROM shows s JOIN films f ON f.id = s.film_id WHERE s.id = $1`+lock,
		showID).Scan(&sl.HallID, &at, &sl.Minutes)
	if errors.Is(err, pgx.ErrNoRows) {
		return sl, false, nil
	}
	sl.Starts = time.Unix(at, 0)
	return sl, err == nil, err
}

// ShowSlot reads where and when a show plays.
func (t *tx) ShowSlot(showID int64) (store.ShowSlot, bool, error) { return t.showSlot(showID, "") }

// ShowSlotForUpdate reads where and when a show plays and locks the
// show's row (not its film's).
func (t *tx) ShowSlotForUpdate(showID int64) (store.ShowSlot, bool, error) {
	return t.showSlot(showID, ` FOR UPDATE OF s`)
}

// ShowUse reads whether a show admitted anyone or has bookings or live
// claims, in one statement. A booking's tickets are the 32 ids from its
// id * 32.
func (t *tx) ShowUse(showID int64) (admitted, booked bool, err error) {
	err = t.QueryRow(t.ctx, `SELECT EXISTS (SELECT 1 FROM bookings b JOIN tickets t ON t.id >= b.id * 32 AND t.id < b.id * 32 + 32
		WHERE b.show_id = $1 AND t.status = 'admitted'),
		EXISTS (SELECT 1 FROM bookings WHERE show_id = $1) OR EXISTS (SELECT 1 FROM seat_claims WHERE show_id = $1 AND status IN ('held', 'sold'))`,
		showID).Scan(&admitted, &booked)
	return admitted, booked, err
}

// MoveShowTo sets a show's hall, start and capacity.
func (t *tx) MoveShowTo(showID, hallID int64, starts time.Time, capacity int) error {
	_, err := t.Exec(t.ctx, `UPDATE shows SET hall_id = $1, starts_at = $2, capacity = $3 WHERE id = $4`, hallID, starts.Unix(), capacity, showID)
	return err
}

// FilmShowsForUpdate reads a film's shows starting after after and locks
// their halls' rows, in id order (as HallSeatsForUpdate locks one).
func (t *tx) FilmShowsForUpdate(filmID int64, after time.Time) ([]store.ShowSlot, error) {
	var out []store.ShowSlot
	err := eachRow(t.ctx, t, `SELECT id, hall_id, starts_at FROM shows WHERE film_id = $1 AND starts_at > $2 ORDER BY starts_at`,
		[]any{filmID, after.Unix()}, func(r pgx.Rows) error {
			var sl store.ShowSlot
			var at int64
			if err := r.Scan(&sl.ID, &sl.HallID, &at); err != nil {
				return err
			}
			sl.Starts = time.Unix(at, 0)
			out = append(out, sl)
			return nil
		})
	if err != nil || len(out) == 0 {
		return out, err
	}
	halls := make([]int64, len(out))
	for i, sl := range out {
		halls[i] = sl.HallID
	}
	_, err = t.Exec(t.ctx, `SELECT 1 FROM halls WHERE id = ANY($1) ORDER BY id FOR UPDATE`, halls)
	return out, err
}

// programmePrefix begins the name of a schema's programme channel; the
// schema's name ends it (programmeChannel).
const programmePrefix = "boxoffice_programme:"

// ProgrammeChanged sends the edit ("film 3", "show 7") on the schema's
// programme channel (programme_cache.go): every store's listener, this
// one's too, drops what it names. Inside the transaction, unlike the
// repaints: pg_notify is delivered at COMMIT or never, so no store drops
// its cache for a change that rolled back, nor before the change can be
// read; a programme edit is rare enough to take the commit lock that
// costs.
func (t *tx) ProgrammeChanged(kind string, id int64) error {
	_, err := t.Exec(t.ctx, `SELECT pg_notify($1 || current_schema(), $2)`, programmePrefix, kind+" "+strconv.FormatInt(id, 10))
	return err
}

// ReadHallIDs lists the halls' ids by name.
func (d driver) ReadHallIDs(ctx context.Context) ([]int64, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT id FROM halls ORDER BY name`)
	if err != nil {
		return nil, d.s.translate("halls", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	return ids, d.s.translate("halls", err)
}

// ReadFilms lists the films by title.
func (d driver) ReadFilms(ctx context.Context) ([]booking.Film, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT id, title, minutes, rating, retired FROM films ORDER BY title`)
	if err != nil {
		return nil, d.s.translate("films", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Film, error) {
		var f booking.Film
		return f, r.Scan(&f.ID, &f.Title, &f.Minutes, &f.Rating, &f.Retired)
	})
	return out, d.s.translate("films", err)
}
