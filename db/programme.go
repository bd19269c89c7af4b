package db

import (
	"context"
	"fmt"
	"strings"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// Cleaning is booking.Cleaning, the gap a hall needs between two shows.
const Cleaning = booking.Cleaning

// insertHall writes a hall and its seats; the caller's transaction.
func insertHall(w *wtx, h booking.Hall) (int64, error) {
	var id int64
	err := w.queryRow(`INSERT INTO halls (name, rows, width) VALUES (?, ?, ?) RETURNING id`,
		booking.CleanLine(h.Name, 60), strings.Join(h.Rows, " "), h.Width).Scan(&id)
	if isConstraint(err) {
		return 0, booking.Errorf(booking.EConflict, "There is already a hall called %s.", booking.CleanLine(h.Name, 60))
	}
	if err != nil {
		return 0, err
	}
	for _, seat := range h.Seats {
		if _, err := w.exec(`INSERT INTO seats (hall_id, label, row_tag, number, row_idx, col, kind, blocked) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			id, seat.Label, seat.RowTag, seat.Number, seat.Row, seat.Col, seat.Kind.String(), seat.Blocked); err != nil {
			return 0, err
		}
	}
	return id, nil
}

func insertFilm(w *wtx, f booking.Film) (int64, error) {
	var id int64
	err := w.queryRow(`INSERT INTO films (title, minutes, rating) VALUES (?, ?, ?) RETURNING id`,
		booking.CleanLine(f.Title, 120), f.Minutes, booking.CleanLine(f.Rating, 8)).Scan(&id)
	return id, err
}

// AddHall adds a hall (parsed with booking.ParseLayout). EConflict when a
// hall of that name exists.
func (s *Store) AddHall(ctx context.Context, actor booking.Actor, h booking.Hall) (int64, error) {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return 0, err
	}
	if len(h.Seats) == 0 {
		return 0, booking.Errorf(booking.EInvalid, "A hall needs seats.")
	}
	if err := oneSite(h.Site); err != nil {
		return 0, err
	}
	return write(s, ctx, actor, "add hall", func(w *wtx) (int64, error) {
		id, err := insertHall(w, h)
		return id, auditDone(w, actor, booking.AuditEntry{Action: booking.AuditProgramme, Detail: "add hall " + h.Name}, err)
	})
}

// Halls lists the halls with their capacities.
func (s *Store) Halls(ctx context.Context, actor booking.Actor) ([]booking.Hall, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	ids, err := s.readIDs(ctx, `SELECT id FROM halls ORDER BY name`)
	if err != nil {
		return nil, err
	}
	out := make([]booking.Hall, 0, len(ids))
	for _, id := range ids {
		h, err := s.hall(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, *h)
	}
	return out, nil
}

// AddFilm adds a film to the programme.
func (s *Store) AddFilm(ctx context.Context, actor booking.Actor, f booking.Film) (int64, error) {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return 0, err
	}
	if err := booking.ValidateFilm(f); err != nil {
		return 0, err
	}
	return write(s, ctx, actor, "add film", func(w *wtx) (int64, error) {
		id, err := insertFilm(w, f)
		return id, auditDone(w, actor, booking.AuditEntry{Action: booking.AuditProgramme, Detail: "add film " + f.Title}, err)
	})
}

// Films lists the films.
func (s *Store) Films(ctx context.Context, actor booking.Actor) ([]booking.Film, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	rows, err := s.readRows(ctx, `SELECT id, title, minutes, rating, retired FROM films ORDER BY title`)
	if err != nil {
		return nil, s.translate("films", err)
	}
	defer rows.Close()
	var out []booking.Film
	for rows.Next() {
		var f booking.Film
		if err := rows.Scan(&f.ID, &f.Title, &f.Minutes, &f.Rating, &f.Retired); err != nil {
			return nil, s.translate("films", err)
		}
		out = append(out, f)
	}
	return out, s.translate("films", rows.Err())
}

// AddShow schedules a film in a hall. A hall is never double-booked: the
// new show and every other show of the hall, each with its running time
// plus Cleaning, must not overlap. ENotFound for the film or hall,
// EConflict for an overlap.
func (s *Store) AddShow(ctx context.Context, actor booking.Actor, filmID, hallID int64, starts time.Time) (int64, error) {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return 0, err
	}
	return write(s, ctx, actor, "add show", func(w *wtx) (int64, error) {
		var minutes, capacity int
		var title string
		var retired bool
		if err := w.queryRow(`SELECT title, minutes, retired FROM films WHERE id = ?`, filmID).Scan(&title, &minutes, &retired); err != nil {
			return 0, notFoundAs(err, "There is no film %d.", filmID)
		}
		if retired {
			return 0, booking.Errorf(booking.EInvalid, "%s is retired: it gets no new shows.", booking.Clean(title))
		}
		if err := w.queryRow(`SELECT count(*) FROM seats WHERE hall_id = ?`, hallID).Scan(&capacity); err != nil || capacity == 0 {
			return 0, booking.Errorf(booking.ENotFound, "There is no hall %d.", hallID)
		}
		if err := notPast(w, starts); err != nil {
			return 0, err
		}
		if err := hallFree(w, hallID, starts, minutes, 0); err != nil {
			return 0, err
		}
		var id int64
		err := w.queryRow(`INSERT INTO shows (film_id, hall_id, starts_at, capacity) VALUES (?, ?, ?, ?) RETURNING id`,
			filmID, hallID, starts.Unix(), capacity).Scan(&id)
		return id, auditDone(w, actor, booking.AuditEntry{Action: booking.AuditProgramme, ShowID: id, Detail: fmt.Sprintf("add show: film %d in hall %d at %s", filmID, hallID, starts.Format("2006-01-02 15:04"))}, err)
	})
}

// hallFree refuses a show of minutes starting at starts that would
// overlap another show of the hall, each with its running time plus
// Cleaning. except is a show not to count (the one being moved or
// re-timed), 0 for none.
func hallFree(w *wtx, hallID int64, starts time.Time, minutes int, except int64) error {
	start := starts.Unix()
	end := starts.Add(time.Duration(minutes)*time.Minute + Cleaning).Unix()
	var clash string
	var clashAt int64
	// Only a show that started at most the longest running time before
	// this one can overlap it: the range on shows_by_hall reads those
	// few, not the hall's whole history.
	earliest := start - int64((booking.MaxFilmMinutes*time.Minute+Cleaning)/time.Second)
	err := w.queryRow(`SELECT f.title, s.starts_at FROM shows s JOIN films f ON f.id = s.film_id
		WHERE s.hall_id = ? AND s.starts_at > ? AND s.starts_at < ? AND s.starts_at + (f.minutes * 60) + ? > ? AND s.id <> ?
		ORDER BY s.starts_at LIMIT 1`, hallID, earliest, end, int64(Cleaning/time.Second), start, except).Scan(&clash, &clashAt)
	switch {
	case err == nil:
		return booking.Errorf(booking.EConflict, "The hall is taken by %s at %s (with cleaning).",
			booking.Clean(clash), time.Unix(clashAt, 0).In(starts.Location()).Format("Mon 02 Jan 15:04"))
	case isNoRows(err):
		return nil
	}
	return err
}

// SetPrice adds or changes a ticket type. A changed price applies to
// sales from now on; tickets already sold keep the price they were sold at.
func (s *Store) SetPrice(ctx context.Context, actor booking.Actor, t booking.TicketType) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	code := strings.ToLower(strings.TrimSpace(t.Code))
	if code == "" || len(code) > 20 || strings.Trim(code, "abcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
		return booking.Errorf(booking.EInvalid, "A ticket type code is 1 to 20 lower-case letters, digits, - or _.")
	}
	name := booking.CleanLine(t.Name, 40)
	if name == "" {
		return booking.Errorf(booking.EInvalid, "A ticket type needs a name.")
	}
	if t.Price < 0 || t.Price > 100_000_00 {
		return booking.Errorf(booking.EInvalid, "A price is between 0.00 and 100000.00.")
	}
	err := apply(s, ctx, actor, "set price", func(w *wtx) error {
		_, err := w.exec(`INSERT INTO ticket_types (code, name, price, sort) VALUES (?, ?, ?, (SELECT coalesce(max(sort), 0) + 1 FROM ticket_types))
			ON CONFLICT (code) DO UPDATE SET name = excluded.name, price = excluded.price`, code, name, t.Price)
		if err != nil {
			return err
		}
		w.touch(0) // every open counter, here or in another process, reloads its prices
		return w.audit(actor, booking.AuditEntry{Action: booking.AuditPriceChange, Amount: t.Price, Detail: code + " " + name}, 0)
	})
	if err == nil {
		s.forgetTicketTypes()
	}
	return err
}

// forgetTicketTypes drops the cached price list, after a price change
// here or a commit noticed from another process.
func (s *Store) forgetTicketTypes() {
	s.hallsMu.Lock()
	s.ticketTypes = nil
	s.prices = nil
	s.typesGen++
	s.hallsMu.Unlock()
	// A moved show or an edited film publishes 0 too (and another
	// process's commit comes here through the poll): the programme facts
	// cached by showInfo go with the prices.
	s.prog.Forget(store.ForgetAll, 0)
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

// TopUpDemo keeps the demo cinema's programme rolling: for each day of
// seed that has no shows at all yet, it adds that day's shows, matching
// halls by name and films by title. A demo left for a week still has a
// week of shows ahead; days that have shows are left alone.
func (s *Store) TopUpDemo(ctx context.Context, seed booking.Seed) (int, error) {
	// Most opens find every day planned already: check with reads, so a
	// read-only command does not pay for a write transaction.
	missing := false
	for _, sh := range seed.Shows {
		day := booking.DayStart(sh.Starts)
		var n int
		if err := s.readRow(ctx, `SELECT count(*) FROM shows WHERE starts_at >= ? AND starts_at < ?`,
			day.Unix(), day.AddDate(0, 0, 1).Unix()).Scan(&n); err != nil {
			return 0, s.translate("top up demo", err)
		}
		if n == 0 {
			missing = true
			break
		}
	}
	if !missing {
		return 0, nil
	}
	return write(s, ctx, booking.System, "top up demo", func(w *wtx) (int, error) {
		n, err := topUp(w, seed)
		return n, auditCount(w, booking.System, booking.AuditProgramme, n, err, "%d demo shows added", n)
	})
}

// topUp adds, in the transaction, the shows of every day of seed that
// has none, and says how many.
func topUp(w *wtx, seed booking.Seed) (int, error) {
	hallIDs := make([]int64, len(seed.Halls))
	for i, h := range seed.Halls {
		if err := w.queryRow(`SELECT id FROM halls WHERE name = ?`, booking.CleanLine(h.Name, 60)).Scan(&hallIDs[i]); err != nil {
			return 0, notFoundAs(err, "The demo hall %s is gone.", h.Name)
		}
	}
	filmIDs := make([]int64, len(seed.Films))
	for i, f := range seed.Films {
		if err := w.queryRow(`SELECT id FROM films WHERE title = ? ORDER BY id LIMIT 1`, booking.CleanLine(f.Title, 120)).Scan(&filmIDs[i]); err != nil {
			return 0, notFoundAs(err, "The demo film %s is gone.", f.Title)
		}
	}
	added := 0
	busy := map[string]bool{}
	for _, sh := range seed.Shows {
		day := booking.DayStart(sh.Starts)
		key := day.Format("2006-01-02")
		if _, seen := busy[key]; !seen {
			var n int
			if err := w.queryRow(`SELECT count(*) FROM shows WHERE starts_at >= ? AND starts_at < ?`,
				day.Unix(), day.AddDate(0, 0, 1).Unix()).Scan(&n); err != nil {
				return 0, err
			}
			busy[key] = n > 0
		}
		if busy[key] {
			continue
		}
		if _, err := w.exec(`INSERT INTO shows (film_id, hall_id, starts_at, capacity) VALUES (?, ?, ?, ?)`,
			filmIDs[sh.Film], hallIDs[sh.Hall], sh.Starts.Unix(), len(seed.Halls[sh.Hall].Seats)); err != nil {
			return 0, err
		}
		added++
	}
	return added, nil
}
