package db

import (
	"context"
	"strings"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// The programme's queries (store.ProgrammeTx, store.CatalogueReads). One
// writer runs at a time, so a …ForUpdate query is a plain read here.

// InsertHall writes a hall and its seats; taken when the name is.
func (w *wtx) InsertHall(h booking.Hall, _ int64) (int64, bool, error) {
	var id int64
	err := w.queryRow(`INSERT INTO halls (name, rows, width) VALUES (?, ?, ?) RETURNING id`,
		h.Name, strings.Join(h.Rows, " "), h.Width).Scan(&id)
	if isConstraint(err) {
		return 0, true, nil
	}
	if err != nil {
		return 0, false, err
	}
	for _, seat := range h.Seats {
		if _, err := w.exec(`INSERT INTO seats (hall_id, label, row_tag, number, row_idx, col, kind, blocked) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			id, seat.Label, seat.RowTag, seat.Number, seat.Row, seat.Col, seat.Kind.String(), seat.Blocked); err != nil {
			return 0, false, err
		}
	}
	return id, false, nil
}

// InsertFilm writes a film.
func (w *wtx) InsertFilm(f booking.Film) (int64, error) {
	var id int64
	err := w.queryRow(`INSERT INTO films (title, minutes, rating) VALUES (?, ?, ?) RETURNING id`, f.Title, f.Minutes, f.Rating).Scan(&id)
	return id, err
}

// FilmForUpdate reads a film.
func (w *wtx) FilmForUpdate(filmID int64) (booking.Film, bool, error) {
	f := booking.Film{ID: filmID}
	err := w.queryRow(`SELECT title, minutes, rating, retired FROM films WHERE id = ?`, filmID).Scan(&f.Title, &f.Minutes, &f.Rating, &f.Retired)
	if isNoRows(err) {
		return f, false, nil
	}
	return f, err == nil, err
}

// UpdateFilm sets a film's title, running time and rating.
func (w *wtx) UpdateFilm(f booking.Film) error {
	_, err := w.exec(`UPDATE films SET title = ?, minutes = ?, rating = ? WHERE id = ?`, f.Title, f.Minutes, f.Rating, f.ID)
	return err
}

// MarkFilmRetired marks a film retired.
func (w *wtx) MarkFilmRetired(filmID int64) error {
	_, err := w.exec(`UPDATE films SET retired = 1 WHERE id = ?`, filmID)
	return err
}

// HallSeatsForUpdate counts a hall's seats.
func (w *wtx) HallSeatsForUpdate(hallID int64) (int, error) {
	var n int
	err := w.queryRow(`SELECT count(*) FROM seats WHERE hall_id = ?`, hallID).Scan(&n)
	return n, err
}

// HallClash reads the first show of a hall in the way of a slot: a range
// of shows_by_hall from slot.Since, not the hall's whole history.
func (w *wtx) HallClash(slot store.HallSlot) (store.Clash, bool, error) {
	var c store.Clash
	var at int64
	err := w.queryRow(`SELECT f.title, s.starts_at FROM shows s JOIN films f ON f.id = s.film_id
		WHERE s.hall_id = ? AND s.starts_at > ? AND s.starts_at < ? AND s.starts_at + (f.minutes * 60) + ? > ? AND s.id <> ?
		ORDER BY s.starts_at LIMIT 1`, slot.HallID, slot.Since.Unix(), slot.To.Unix(), int64(slot.Gap/time.Second), slot.From.Unix(), slot.Except).Scan(&c.Title, &at)
	if isNoRows(err) {
		return c, false, nil
	}
	c.Starts = time.Unix(at, 0)
	return c, err == nil, err
}

// InsertShow schedules a film in a hall.
func (w *wtx) InsertShow(filmID, hallID int64, starts time.Time, capacity int) (int64, error) {
	var id int64
	err := w.queryRow(`INSERT INTO shows (film_id, hall_id, starts_at, capacity) VALUES (?, ?, ?, ?) RETURNING id`,
		filmID, hallID, starts.Unix(), capacity).Scan(&id)
	return id, err
}

// ShowSlot reads where and when a show plays.
func (w *wtx) ShowSlot(showID int64) (store.ShowSlot, bool, error) {
	sl := store.ShowSlot{ID: showID}
	var at int64
	err := w.queryRow(`SELECT s.hall_id, s.starts_at, f.minutes FROM shows s JOIN films f ON f.id = s.film_id WHERE s.id = ?`,
		showID).Scan(&sl.HallID, &at, &sl.Minutes)
	if isNoRows(err) {
		return sl, false, nil
	}
	sl.Starts = time.Unix(at, 0)
	return sl, err == nil, err
}

// ShowSlotForUpdate is ShowSlot.
func (w *wtx) ShowSlotForUpdate(showID int64) (store.ShowSlot, bool, error) {
	return w.ShowSlot(showID)
}

// ShowUse reads whether a show admitted anyone or has bookings or live
// claims. A booking's tickets are the 32 ids from its id * 32.
func (w *wtx) ShowUse(showID int64) (admitted, booked bool, err error) {
	if err := w.queryRow(`SELECT EXISTS (SELECT 1 FROM bookings b JOIN tickets t ON t.id >= b.id * 32 AND t.id < b.id * 32 + 32
		WHERE b.show_id = ? AND t.status = 'admitted')`, showID).Scan(&admitted); err != nil {
		return false, false, err
	}
	err = w.queryRow(`SELECT EXISTS (SELECT 1 FROM bookings WHERE show_id = ?) OR EXISTS (SELECT 1 FROM seat_claims WHERE show_id = ? AND status IN ('held', 'sold'))`,
		showID, showID).Scan(&booked)
	return admitted, booked, err
}

// MoveShowTo sets a show's hall, start and capacity.
func (w *wtx) MoveShowTo(showID, hallID int64, starts time.Time, capacity int) error {
	_, err := w.exec(`UPDATE shows SET hall_id = ?, starts_at = ?, capacity = ? WHERE id = ?`, hallID, starts.Unix(), capacity, showID)
	return err
}

// FilmShowsForUpdate reads a film's shows starting after after.
func (w *wtx) FilmShowsForUpdate(filmID int64, after time.Time) ([]store.ShowSlot, error) {
	rows, err := w.query(`SELECT id, hall_id, starts_at FROM shows WHERE film_id = ? AND starts_at > ? ORDER BY starts_at`, filmID, after.Unix())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.ShowSlot
	for rows.Next() {
		var sl store.ShowSlot
		var at int64
		if err := rows.Scan(&sl.ID, &sl.HallID, &at); err != nil {
			return nil, err
		}
		sl.Starts = time.Unix(at, 0)
		out = append(out, sl)
	}
	return out, rows.Err()
}

// ProgrammeChanged does nothing: every store on the file hears every
// commit (the writer's own, and another process's through the poll of
// data_version), and a change to show 0 drops its whole programme cache
// (forgetTicketTypes).
func (w *wtx) ProgrammeChanged(string, int64) error { return nil }

// ReadHallIDs lists the halls' ids by name.
func (d driver) ReadHallIDs(ctx context.Context) ([]int64, error) {
	return d.s.readIDs(ctx, `SELECT id FROM halls ORDER BY name`)
}

// ReadFilms lists the films by title.
func (d driver) ReadFilms(ctx context.Context) ([]booking.Film, error) {
	rows, err := d.s.readRows(ctx, `SELECT id, title, minutes, rating, retired FROM films ORDER BY title`)
	if err != nil {
		return nil, d.s.translate("films", err)
	}
	defer rows.Close()
	var out []booking.Film
	for rows.Next() {
		var f booking.Film
		if err := rows.Scan(&f.ID, &f.Title, &f.Minutes, &f.Rating, &f.Retired); err != nil {
			return nil, d.s.translate("films", err)
		}
		out = append(out, f)
	}
	return out, d.s.translate("films", rows.Err())
}

// readIDs runs a one-column query on the read pool.
func (s *Store) readIDs(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := s.readRows(ctx, query, args...)
	if err != nil {
		return nil, s.translate("read ids", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, s.translate("read ids", err)
		}
		out = append(out, id)
	}
	return out, s.translate("read ids", rows.Err())
}
