package store

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"boxoffice/booking"
)

// The manager's changes to the programme beyond adding to it: editing and
// retiring a film, moving a show. Each checks what AddShow checks, inside
// its transaction, and writes one audit row. A film's edit and a show's
// move change facts every store caches (Programme): each tells the other
// stores in its transaction (ProgrammeChanged) and drops this store's
// copy once it committed.

// EditFilm changes a film's title, running time and rating. A longer
// running time must still fit every show of the film not yet over in its
// hall, cleaning included: EConflict naming the show and the clash.
// ENotFound for the film; EInvalid as for AddFilm, or for an edit that
// changes nothing.
func (s *Store) EditFilm(ctx context.Context, actor booking.Actor, f booking.Film) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	if err := booking.ValidateFilm(f); err != nil {
		return err
	}
	f = cleanFilm(f)
	err := apply(s, ctx, actor, Write{Op: "edit film"}, func(tx Tx) error {
		old, found, err := tx.FilmForUpdate(f.ID)
		if err != nil {
			return err
		}
		if !found {
			return errNoFilm(f.ID)
		}
		if old.Title == f.Title && old.Minutes == f.Minutes && old.Rating == f.Rating {
			return booking.Errorf(booking.EInvalid, "Nothing to change: %s is already so.", booking.Clean(f.Title))
		}
		if err := tx.UpdateFilm(f); err != nil {
			return err
		}
		if f.Minutes > old.Minutes {
			if err := filmShowsFit(tx, f.ID, f.Minutes); err != nil {
				return err
			}
		}
		if err := tx.ProgrammeChanged(ForgetFilm, f.ID); err != nil {
			return err
		}
		tx.Touch(0) // every counter's list and map show the new title
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditProgramme,
			Detail: fmt.Sprintf("edit film %d: %s, %d min, %s (was %s, %d min, %s)", f.ID, f.Title, f.Minutes, f.Rating, booking.Clean(old.Title), old.Minutes, booking.Clean(old.Rating))}, 0)
	})
	if err == nil {
		s.prog.Forget(ForgetFilm, f.ID)
	}
	return err
}

// filmShowsFit checks, after a film's running time grew to minutes, that
// none of its shows still on sale overlaps another in its hall.
func filmShowsFit(tx Tx, filmID int64, minutes int) error {
	shows, err := tx.FilmShowsForUpdate(filmID, tx.Now().Add(-booking.MaxSalesClose))
	if err != nil {
		return err
	}
	for _, sh := range shows {
		at := sh.Starts.In(tx.Now().Location())
		err := hallFree(tx, sh.HallID, at, minutes, sh.ID)
		if booking.ErrorCode(err) == booking.EConflict {
			return booking.Errorf(booking.EConflict, "At %d minutes the show %d at %s would overlap: %s", minutes, sh.ID, at.Format("Mon 02 Jan 15:04"), booking.ErrorMessage(err))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// RetireFilm takes a film off the programme: its shows stay, it gets no
// new ones and the add-show choice leaves it out. ENotFound; EConflict
// when it is retired already (the film's row is locked first, so two
// managers retiring it at once are told so once).
func (s *Store) RetireFilm(ctx context.Context, actor booking.Actor, filmID int64) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	return apply(s, ctx, actor, Write{Op: "retire film"}, func(tx Tx) error {
		f, found, err := tx.FilmForUpdate(filmID)
		if err != nil {
			return err
		}
		if !found {
			return errNoFilm(filmID)
		}
		if f.Retired {
			return booking.Errorf(booking.EConflict, "%s is retired already.", booking.Clean(f.Title))
		}
		if err := tx.MarkFilmRetired(filmID); err != nil {
			return err
		}
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditProgramme, Detail: fmt.Sprintf("retire film %d: %s", filmID, booking.Clean(f.Title))}, 0)
	})
}

// MoveShow moves a show to a new start, and to another hall when hallID
// is neither 0 nor its own. The hall must be free for the film's running
// time plus Cleaning (hallFree, the check AddShow makes) and the start in
// the future; a show that started or admitted anyone stays where it is.
// Its bookings keep their seats, so only a show nobody has booked or
// holds seats of may change hall: for that move the sale path's claims
// are held off first (LockSeatClaims, as a block takes them), so no hold
// can claim a seat of the old hall while the move checks there is none.
// ENotFound for the show or hall; EInvalid for a start in the past or
// nothing to change; EConflict for an overlap, a started show, an
// admitted ticket or bookings in the way of a new hall.
func (s *Store) MoveShow(ctx context.Context, actor booking.Actor, showID int64, starts time.Time, hallID int64) error {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return err
	}
	err := apply(s, ctx, actor, Write{Op: "move show"}, func(tx Tx) error {
		old, found, err := tx.ShowSlot(showID)
		if err != nil {
			return err
		}
		if !found {
			return ErrNoShow(showID)
		}
		to := cmp.Or(hallID, old.HallID)
		if to != old.HallID {
			if err := tx.LockSeatClaims(); err != nil {
				return err
			}
		}
		if old, found, err = tx.ShowSlotForUpdate(showID); err != nil {
			return err
		}
		if !found {
			return ErrNoShow(showID)
		}
		if to == old.HallID && old.Starts.Unix() == starts.Unix() {
			return booking.Errorf(booking.EInvalid, "The show is at that time in that hall already.")
		}
		if err := movable(tx, old, to != old.HallID); err != nil {
			return err
		}
		if err := notPast(tx, starts); err != nil {
			return err
		}
		capacity, err := hallSeats(tx, to)
		if err != nil {
			return err
		}
		if err := hallFree(tx, to, starts, old.Minutes, showID); err != nil {
			return err
		}
		if err := tx.MoveShowTo(showID, to, starts, capacity); err != nil {
			return err
		}
		if err := tx.ProgrammeChanged(ForgetShow, showID); err != nil {
			return err
		}
		tx.Touch(showID)
		tx.Touch(0) // the start and hall every list shows
		loc := tx.Now().Location()
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditProgramme, ShowID: showID,
			Detail: fmt.Sprintf("move show %d from %s in hall %d to %s in hall %d", showID,
				old.Starts.In(loc).Format("2006-01-02 15:04"), old.HallID, starts.In(loc).Format("2006-01-02 15:04"), to)}, 0)
	})
	if err == nil {
		s.prog.Forget(ForgetShow, showID)
	}
	return err
}

// movable refuses to move a show that started or admitted anyone, and to
// take one with bookings or held seats to another hall: their seats are
// that hall's.
func movable(tx Tx, sh ShowSlot, newHall bool) error {
	if sh.Starts.Unix() <= tx.Now().Unix() {
		return booking.Errorf(booking.EConflict, "The show started at %s: it cannot move.", sh.Starts.In(tx.Now().Location()).Format("Mon 02 Jan 15:04"))
	}
	admitted, booked, err := tx.ShowUse(sh.ID)
	if err != nil {
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
