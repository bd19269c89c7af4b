package db

import (
	"context"
	"fmt"
	"time"

	"boxoffice/booking"
)

// The manager's changes to the programme beyond adding to it: editing and
// retiring a film, moving a show. Each checks what AddShow checks, inside
// its transaction, and writes one audit row.

// notPast refuses a start that is not after the transaction's clock.
func notPast(w *wtx, starts time.Time) error {
	if !starts.After(w.now) {
		return booking.Errorf(booking.EInvalid, "A show cannot start in the past (%s).", starts.In(w.now.Location()).Format("Mon 02 Jan 15:04"))
	}
	return nil
}

// EditFilm changes a film's title, running time and rating. A longer
// running time must still fit every show of the film not yet over in its
// hall, cleaning included: EConflict naming the show and the clash.
// ENotFound for the film; EInvalid as for AddFilm.
func (s *Store) EditFilm(ctx context.Context, actor booking.Actor, f booking.Film) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	if err := booking.ValidateFilm(f); err != nil {
		return err
	}
	title, rating := booking.CleanLine(f.Title, 120), booking.CleanLine(f.Rating, 8)
	return apply(s, ctx, actor, "edit film", func(w *wtx) error {
		var old booking.Film
		if err := w.queryRow(`SELECT title, minutes, rating FROM films WHERE id = ?`, f.ID).Scan(&old.Title, &old.Minutes, &old.Rating); err != nil {
			return notFoundAs(err, "There is no film %d.", f.ID)
		}
		if old.Title == title && old.Minutes == f.Minutes && old.Rating == rating {
			return booking.Errorf(booking.EInvalid, "Nothing to change: %s is already so.", booking.Clean(title))
		}
		if _, err := w.exec(`UPDATE films SET title = ?, minutes = ?, rating = ? WHERE id = ?`, title, f.Minutes, rating, f.ID); err != nil {
			return err
		}
		if f.Minutes > old.Minutes {
			if err := filmShowsFit(w, f.ID, f.Minutes); err != nil {
				return err
			}
		}
		w.touch(0) // every counter's list and map show the new title
		return w.audit(actor, booking.AuditEntry{Action: booking.AuditProgramme,
			Detail: fmt.Sprintf("edit film %d: %s, %d min, %s (was %s, %d min, %s)", f.ID, title, f.Minutes, rating, booking.Clean(old.Title), old.Minutes, booking.Clean(old.Rating))}, 0)
	})
}

// filmShowsFit checks, after the film's running time changed to minutes,
// that none of its shows still on sale overlaps another in its hall.
func filmShowsFit(w *wtx, filmID int64, minutes int) error {
	rows, err := w.query(`SELECT id, hall_id, starts_at FROM shows WHERE film_id = ? AND starts_at > ? ORDER BY starts_at`,
		filmID, w.now.Add(-booking.MaxSalesClose).Unix())
	if err != nil {
		return err
	}
	type live struct{ id, hall, at int64 }
	var shows []live
	for rows.Next() {
		var l live
		if err := rows.Scan(&l.id, &l.hall, &l.at); err != nil {
			rows.Close()
			return err
		}
		shows = append(shows, l)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, l := range shows {
		at := time.Unix(l.at, 0).In(w.now.Location())
		if err := hallFree(w, l.hall, at, minutes, l.id); err != nil {
			return booking.Errorf(booking.EConflict, "At %d minutes the show %d at %s would overlap: %s", minutes, l.id, at.Format("Mon 02 Jan 15:04"), booking.ErrorMessage(err))
		}
	}
	return nil
}

// RetireFilm takes a film off the programme: its shows stay, it gets no
// new ones and the add-show choice leaves it out. ENotFound; EConflict
// when it is retired already.
func (s *Store) RetireFilm(ctx context.Context, actor booking.Actor, filmID int64) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	return apply(s, ctx, actor, "retire film", func(w *wtx) error {
		var title string
		var retired bool
		if err := w.queryRow(`SELECT title, retired FROM films WHERE id = ?`, filmID).Scan(&title, &retired); err != nil {
			return notFoundAs(err, "There is no film %d.", filmID)
		}
		if retired {
			return booking.Errorf(booking.EConflict, "%s is retired already.", booking.Clean(title))
		}
		if _, err := w.exec(`UPDATE films SET retired = 1 WHERE id = ?`, filmID); err != nil {
			return err
		}
		return w.audit(actor, booking.AuditEntry{Action: booking.AuditProgramme, Detail: fmt.Sprintf("retire film %d: %s", filmID, booking.Clean(title))}, 0)
	})
}

// MoveShow moves a show to a new start, and to another hall when hallID
// is not 0 nor its own. The hall must be free for the film's running time
// plus Cleaning (hallFree, the check AddShow makes) and the start in the
// future; a show that started or admitted anyone stays where it is. Its
// bookings keep their seats, so only a show nobody has booked or holds
// seats of may change hall. ENotFound for the show or hall; EInvalid for
// a start in the past or nothing to change; EConflict for an overlap, a
// started show, an admitted ticket or bookings in the way of a new hall.
func (s *Store) MoveShow(ctx context.Context, actor booking.Actor, showID int64, starts time.Time, hallID int64) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	return apply(s, ctx, actor, "move show", func(w *wtx) error {
		var oldHall, oldAt int64
		var minutes int
		if err := w.queryRow(`SELECT s.hall_id, s.starts_at, f.minutes FROM shows s JOIN films f ON f.id = s.film_id WHERE s.id = ?`,
			showID).Scan(&oldHall, &oldAt, &minutes); err != nil {
			return notFoundAs(err, "There is no show %d.", showID)
		}
		if hallID == 0 {
			hallID = oldHall
		}
		if hallID == oldHall && oldAt == starts.Unix() {
			return booking.Errorf(booking.EInvalid, "The show is at that time in that hall already.")
		}
		if err := movable(w, showID, oldAt, hallID != oldHall); err != nil {
			return err
		}
		if err := notPast(w, starts); err != nil {
			return err
		}
		capacity, err := hallCapacity(w, hallID)
		if err != nil {
			return err
		}
		if err := hallFree(w, hallID, starts, minutes, showID); err != nil {
			return err
		}
		if _, err := w.exec(`UPDATE shows SET hall_id = ?, starts_at = ?, capacity = ? WHERE id = ?`, hallID, starts.Unix(), capacity, showID); err != nil {
			return err
		}
		w.touch(showID)
		w.touch(0) // the cached start and hall go everywhere (forgetTicketTypes)
		loc := w.now.Location()
		return w.audit(actor, booking.AuditEntry{Action: booking.AuditProgramme, ShowID: showID,
			Detail: fmt.Sprintf("move show %d from %s in hall %d to %s in hall %d", showID,
				time.Unix(oldAt, 0).In(loc).Format("2006-01-02 15:04"), oldHall, starts.In(loc).Format("2006-01-02 15:04"), hallID)}, 0)
	})
}

// movable refuses to move a show that started or admitted anyone, and to
// take one with bookings or held seats to another hall: their seats are
// that hall's.
func movable(w *wtx, showID, startsAt int64, newHall bool) error {
	if startsAt <= w.now.Unix() {
		return booking.Errorf(booking.EConflict, "The show started at %s: it cannot move.", time.Unix(startsAt, 0).In(w.now.Location()).Format("Mon 02 Jan 15:04"))
	}
	var admitted bool
	if err := w.queryRow(`SELECT EXISTS (SELECT 1 FROM bookings b JOIN tickets t ON t.id >= b.id * 32 AND t.id < b.id * 32 + 32
		WHERE b.show_id = ? AND t.status = 'admitted')`, showID).Scan(&admitted); err != nil {
		return err
	}
	if admitted {
		return booking.Errorf(booking.EConflict, "Tickets of the show were admitted already: it cannot move.")
	}
	if !newHall {
		return nil
	}
	var booked bool
	if err := w.queryRow(`SELECT EXISTS (SELECT 1 FROM bookings WHERE show_id = ?) OR EXISTS (SELECT 1 FROM seat_claims WHERE show_id = ? AND status IN ('held', 'sold'))`,
		showID, showID).Scan(&booked); err != nil {
		return err
	}
	if booked {
		return booking.Errorf(booking.EConflict, "The show has bookings or held seats: it can move to another time in its hall, not to another hall.")
	}
	return nil
}

// hallCapacity is the number of seats of a hall; ENotFound for none.
func hallCapacity(w *wtx, hallID int64) (int, error) {
	var n int
	if err := w.queryRow(`SELECT count(*) FROM seats WHERE hall_id = ?`, hallID).Scan(&n); err != nil || n == 0 {
		if err != nil && !isNoRows(err) {
			return 0, err
		}
		return 0, booking.Errorf(booking.ENotFound, "There is no hall %d.", hallID)
	}
	return n, nil
}
