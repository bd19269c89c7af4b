package pg

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// Editing the programme, as db's manage.go: a film's title, running time
// and rating, and a show's time and hall. Each store caches a show's
// programme facts (showInfo), so each of these writes also tells every
// store on the database to drop what it cached of them (notifyProgramme,
// programme_cache.go), in the transaction, so the word goes out as it
// commits; this store drops its own at once after the commit.

// EditFilm changes a film's title, running time and rating. A longer
// running time must still fit every show of the film not yet over in its
// hall, cleaning included. READ COMMITTED with the film's row locked, and
// for a longer running time the halls of its shows (as AddShow locks a
// hall), so a show scheduled meanwhile is seen.
func (s *Store) EditFilm(ctx context.Context, actor booking.Actor, f booking.Film) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	if err := booking.ValidateFilm(f); err != nil {
		return err
	}
	title, rating := booking.CleanLine(f.Title, 120), booking.CleanLine(f.Rating, 8)
	_, err := inTx(s, ctx, "edit film", txMode{iso: pgx.ReadCommitted}, func(t *tx) (struct{}, error) {
		if err := checkActor(t, actor); err != nil {
			return struct{}{}, err
		}
		var old booking.Film
		err := t.QueryRow(t.ctx, `SELECT title, minutes, rating FROM films WHERE id = $1 FOR UPDATE`, f.ID).Scan(&old.Title, &old.Minutes, &old.Rating)
		if errors.Is(err, pgx.ErrNoRows) {
			return struct{}{}, booking.Errorf(booking.ENotFound, "There is no film %d.", f.ID)
		}
		if err != nil {
			return struct{}{}, err
		}
		if old.Title == title && old.Minutes == f.Minutes && old.Rating == rating {
			return struct{}{}, booking.Errorf(booking.EInvalid, "Nothing to change: %s is already so.", booking.Clean(title))
		}
		if _, err := t.Exec(t.ctx, `UPDATE films SET title = $1, minutes = $2, rating = $3 WHERE id = $4`, title, f.Minutes, rating, f.ID); err != nil {
			return struct{}{}, err
		}
		if f.Minutes > old.Minutes {
			if err := filmShowsFit(t, f.ID, f.Minutes); err != nil {
				return struct{}{}, err
			}
		}
		if err := notifyProgramme(t, s, "film", f.ID); err != nil {
			return struct{}{}, err
		}
		t.touch(0) // every counter's list and map show the new title
		return struct{}{}, audit(t, actor, booking.AuditEntry{Action: booking.AuditProgramme,
			Detail: fmt.Sprintf("edit film %d: %s, %d min, %s (was %s, %d min, %s)", f.ID, title, f.Minutes, rating, booking.Clean(old.Title), old.Minutes, booking.Clean(old.Rating))}, 0)
	})
	if err == nil {
		s.forgetProgramme("film", f.ID)
	}
	return err
}

// filmShowsFit checks, after the film's running time changed to minutes,
// that none of its shows still on sale overlaps another in its hall.
func filmShowsFit(t *tx, filmID int64, minutes int) error {
	type live struct{ id, hall, at int64 }
	var shows []live
	err := eachRow(t.ctx, t, `SELECT id, hall_id, starts_at FROM shows WHERE film_id = $1 AND starts_at > $2 ORDER BY starts_at`,
		[]any{filmID, t.now.Add(-booking.MaxSalesClose).Unix()}, func(r pgx.Rows) error {
			var l live
			if err := r.Scan(&l.id, &l.hall, &l.at); err != nil {
				return err
			}
			shows = append(shows, l)
			return nil
		})
	if err != nil || len(shows) == 0 {
		return err
	}
	halls := make([]int64, len(shows))
	for i, l := range shows {
		halls[i] = l.hall
	}
	if _, err := t.Exec(t.ctx, `SELECT 1 FROM halls WHERE id = ANY($1) ORDER BY id FOR UPDATE`, halls); err != nil {
		return err
	}
	for _, l := range shows {
		at := time.Unix(l.at, 0).In(t.now.Location())
		if err := hallFree(t, l.hall, at, minutes, l.id); err != nil {
			return booking.Errorf(booking.EConflict, "At %d minutes the show %d at %s would overlap: %s", minutes, l.id, at.Format("Mon 02 Jan 15:04"), booking.ErrorMessage(err))
		}
	}
	return nil
}

// MoveShow moves a show to starts and, when hallID is neither 0 nor its
// own, to that hall. READ COMMITTED with the show's row and the hall's
// locked (as AddShow locks it), and for a new hall the sale path's tables
// locked against writes first (blockLockSQL, as a block takes them), so
// no hold can claim a seat of the old hall while the move checks the
// show has none.
func (s *Store) MoveShow(ctx context.Context, actor booking.Actor, showID int64, starts time.Time, hallID int64) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	_, err := inTx(s, ctx, "move show", txMode{iso: pgx.ReadCommitted}, func(t *tx) (struct{}, error) {
		var oldHall, oldAt int64
		var minutes int
		err := t.QueryRow(t.ctx, `SELECT s.hall_id, s.starts_at, f.minutes FROM shows s JOIN films f ON f.id = s.film_id WHERE s.id = $1`,
			showID).Scan(&oldHall, &oldAt, &minutes)
		if errors.Is(err, pgx.ErrNoRows) {
			return struct{}{}, booking.Errorf(booking.ENotFound, "There is no show %d.", showID)
		}
		if err != nil {
			return struct{}{}, err
		}
		if hallID == 0 {
			hallID = oldHall
		}
		if hallID != oldHall {
			if _, err := t.Exec(t.ctx, blockLockSQL); err != nil {
				return struct{}{}, err
			}
		}
		if err := checkActor(t, actor); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, s.moveShow(t, actor, showID, starts, hallID, minutes)
	})
	if err == nil {
		s.forgetProgramme("show", showID)
	}
	return err
}

// moveShow is MoveShow's work once the sale path is locked (for a new
// hall): the show's row is read again under its own lock.
func (s *Store) moveShow(t *tx, actor booking.Actor, showID int64, starts time.Time, hallID int64, minutes int) error {
	var oldHall, oldAt int64
	if err := t.QueryRow(t.ctx, `SELECT hall_id, starts_at FROM shows WHERE id = $1 FOR UPDATE`, showID).Scan(&oldHall, &oldAt); err != nil {
		return err
	}
	if hallID == oldHall && oldAt == starts.Unix() {
		return booking.Errorf(booking.EInvalid, "The show is at that time in that hall already.")
	}
	if err := movable(t, showID, oldAt, hallID != oldHall); err != nil {
		return err
	}
	if !starts.After(t.now) {
		return booking.Errorf(booking.EInvalid, "A show cannot start in the past (%s).", starts.In(t.now.Location()).Format("Mon 02 Jan 15:04"))
	}
	var capacity int
	err := t.QueryRow(t.ctx, `SELECT (SELECT count(*) FROM seats WHERE hall_id = h.id) FROM halls h WHERE h.id = $1 FOR UPDATE`, hallID).Scan(&capacity)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && capacity == 0) {
		return booking.Errorf(booking.ENotFound, "There is no hall %d.", hallID)
	}
	if err != nil {
		return err
	}
	if err := hallFree(t, hallID, starts, minutes, showID); err != nil {
		return err
	}
	if _, err := t.Exec(t.ctx, `UPDATE shows SET hall_id = $1, starts_at = $2, capacity = $3 WHERE id = $4`, hallID, starts.Unix(), capacity, showID); err != nil {
		return err
	}
	if err := notifyProgramme(t, s, "show", showID); err != nil {
		return err
	}
	t.touch(showID)
	t.touch(0) // the start and hall every list shows
	loc := t.now.Location()
	return audit(t, actor, booking.AuditEntry{Action: booking.AuditProgramme, ShowID: showID,
		Detail: fmt.Sprintf("move show %d from %s in hall %d to %s in hall %d", showID,
			time.Unix(oldAt, 0).In(loc).Format("2006-01-02 15:04"), oldHall, starts.In(loc).Format("2006-01-02 15:04"), hallID)}, 0)
}

// movable refuses to move a show that started or admitted anyone, and to
// take one with bookings or held seats to another hall: their seats are
// that hall's.
func movable(t *tx, showID, startsAt int64, newHall bool) error {
	if startsAt <= t.now.Unix() {
		return booking.Errorf(booking.EConflict, "The show started at %s: it cannot move.", time.Unix(startsAt, 0).In(t.now.Location()).Format("Mon 02 Jan 15:04"))
	}
	var admitted, booked bool
	if err := t.QueryRow(t.ctx, `SELECT EXISTS (SELECT 1 FROM bookings b JOIN tickets t ON t.id >= b.id * 32 AND t.id < b.id * 32 + 32
		WHERE b.show_id = $1 AND t.status = 'admitted'),
		EXISTS (SELECT 1 FROM bookings WHERE show_id = $1) OR EXISTS (SELECT 1 FROM seat_claims WHERE show_id = $1 AND status IN ('held', 'sold'))`,
		showID).Scan(&admitted, &booked); err != nil {
		return err
	}
	if admitted {
		return booking.Errorf(booking.EConflict, "Tickets of the show were admitted already: it cannot move.")
	}
	if newHall && booked {
		return booking.Errorf(booking.EConflict, "The show has bookings or held seats: it can move to another time in its hall, not to another hall.")
	}
	return nil
}
