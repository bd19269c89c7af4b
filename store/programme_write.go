package store

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"boxoffice/booking"
)

// Building the programme: halls, films and shows. A hall is never
// double-booked: a show and every other show of its hall, each with its
// running time plus booking.Cleaning, must not overlap. The hall's row is
// read with HallSeatsForUpdate first, so on PostgreSQL two managers (on
// two servers) scheduling one hall take turns and the second sees the
// first's show; no sale locks a hall's row.

// ProgrammeTx is what the programme's writes ask of a transaction.
type ProgrammeTx interface {
	// InsertHall writes hall h at site with its seats, its name and
	// labels as given; taken is true, and nothing written, when a hall of
	// that name exists.
	InsertHall(h booking.Hall, site int64) (id int64, taken bool, err error)
	// InsertFilm writes a film as given and returns its id.
	InsertFilm(f booking.Film) (int64, error)
	// FilmForUpdate reads a film, retired or not, and locks its row;
	// found is false when there is none.
	FilmForUpdate(filmID int64) (f booking.Film, found bool, err error)
	// UpdateFilm sets a film's title, running time and rating.
	UpdateFilm(f booking.Film) error
	// MarkFilmRetired marks a film retired.
	MarkFilmRetired(filmID int64) error
	// HallSeatsForUpdate reads how many seats a hall has, 0 when there is
	// no such hall, and locks the hall's row, so two writes scheduling
	// one hall take turns.
	HallSeatsForUpdate(hallID int64) (int, error)
	// HallClash reads the earliest show of slot.HallID, other than
	// slot.Except, that starts after slot.Since and before slot.To and
	// whose running time plus slot.Gap ends after slot.From; found is
	// false when there is none.
	HallClash(slot HallSlot) (c Clash, found bool, err error)
	// InsertShow schedules a film in a hall and returns the show's id.
	InsertShow(filmID, hallID int64, starts time.Time, capacity int) (int64, error)
	// ShowSlot reads where and when a show plays and its film's running
	// time; found is false when there is no such show.
	ShowSlot(showID int64) (s ShowSlot, found bool, err error)
	// ShowSlotForUpdate is ShowSlot with the show's row locked.
	ShowSlotForUpdate(showID int64) (s ShowSlot, found bool, err error)
	// ShowUse reads whether a ticket of the show was admitted, and
	// whether it has a booking or a live claim.
	ShowUse(showID int64) (admitted, booked bool, err error)
	// MoveShowTo sets a show's hall, start and capacity.
	MoveShowTo(showID, hallID int64, starts time.Time, capacity int) error
	// FilmShowsForUpdate reads the shows of a film that start after
	// after, in start order (their Minutes unset), and locks the rows of
	// their halls (as HallSeatsForUpdate), so a show scheduled meanwhile
	// is seen.
	FilmShowsForUpdate(filmID int64, after time.Time) ([]ShowSlot, error)
	// ProgrammeChanged tells every other store on the database, as this
	// transaction commits, to drop what it cached of a show's facts
	// (kind ForgetShow) or a film's shows' (ForgetFilm). A driver whose
	// other stores hear every commit anyway does nothing.
	ProgrammeChanged(kind string, id int64) error
}

// CatalogueReads are the programme's lists, read outside a transaction.
type CatalogueReads interface {
	// ReadHallIDs lists the halls' ids by name.
	ReadHallIDs(ctx context.Context) ([]int64, error)
	// ReadFilms lists the films, retired ones too, by title.
	ReadFilms(ctx context.Context) ([]booking.Film, error)
}

// HallSlot is a span of a hall's time, as HallClash asks about it.
type HallSlot struct {
	HallID   int64
	From, To time.Time     // the span wanted
	Since    time.Time     // no show starting before it can reach From
	Gap      time.Duration // the time a hall needs between two shows
	Except   int64         // a show not to count (0: none)
}

// Clash is the show in the way of a slot.
type Clash struct {
	Title  string
	Starts time.Time
}

// errNoFilm refuses an id that names no film.
func errNoFilm(id int64) error { return booking.Errorf(booking.ENotFound, "There is no film %d.", id) }

// hallName is a hall's name as stored and said.
func hallName(name string) string { return booking.CleanLine(name, 60) }

// cleanFilm is f with its title and rating as stored.
func cleanFilm(f booking.Film) booking.Film {
	f.Title, f.Rating = booking.CleanLine(f.Title, 120), booking.CleanLine(f.Rating, 8)
	return f
}

// validHall refuses a hall that cannot be stored.
func validHall(h booking.Hall) error {
	if len(h.Seats) == 0 {
		return booking.Errorf(booking.EInvalid, "A hall needs seats.")
	}
	return nil
}

// addHall writes hall h (validHall) at site inside tx.
func addHall(tx Tx, h booking.Hall, site int64) (int64, error) {
	h.Name = hallName(h.Name)
	id, taken, err := tx.InsertHall(h, site)
	if err == nil && taken {
		err = booking.Errorf(booking.EConflict, "There is already a hall called %s.", h.Name)
	}
	return id, err
}

// AddHall adds a hall (parsed with booking.ParseLayout) at its site (the
// main site when none). EConflict when a hall of that name exists.
func (s *Store) AddHall(ctx context.Context, actor booking.Actor, h booking.Hall) (int64, error) {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return 0, err
	}
	if err := validHall(h); err != nil {
		return 0, err
	}
	site := cmp.Or(h.Site, booking.MainSite)
	return write(s, ctx, actor, Write{Op: "add hall"}, func(tx Tx) (int64, error) {
		if _, err := tx.SiteName(site); err != nil {
			return 0, err
		}
		id, err := addHall(tx, h, site)
		if err != nil {
			return 0, err
		}
		return id, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditProgramme, Detail: "add hall " + h.Name}, 0)
	})
}

// Halls lists the halls with their seats, by name.
func (s *Store) Halls(ctx context.Context, actor booking.Actor) ([]booking.Hall, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	ids, err := s.d.ReadHallIDs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]booking.Hall, 0, len(ids))
	for _, id := range ids {
		h, err := s.prog.Hall(ctx, id)
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
	return write(s, ctx, actor, Write{Op: "add film"}, func(tx Tx) (int64, error) {
		id, err := tx.InsertFilm(cleanFilm(f))
		if err != nil {
			return 0, err
		}
		return id, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditProgramme, Detail: "add film " + f.Title}, 0)
	})
}

// Films lists the films, retired ones too, by title.
func (s *Store) Films(ctx context.Context, actor booking.Actor) ([]booking.Film, error) {
	if err := booking.Authorize(actor, booking.ActionViewShows); err != nil {
		return nil, err
	}
	return s.d.ReadFilms(ctx)
}

// AddShow schedules a film in a hall, never double-booking the hall
// (hallFree). ENotFound for the film or hall; EInvalid for a retired film
// or a start in the past; EConflict for an overlap.
func (s *Store) AddShow(ctx context.Context, actor booking.Actor, filmID, hallID int64, starts time.Time) (int64, error) {
	if err := booking.Authorize(actor, booking.ActionManageHalls); err != nil {
		return 0, err
	}
	return write(s, ctx, actor, Write{Op: "add show"}, func(tx Tx) (int64, error) {
		// The film first, then the hall, as EditFilm takes them: a longer
		// running time and a new show of the film take turns.
		f, found, err := tx.FilmForUpdate(filmID)
		if err != nil {
			return 0, err
		}
		if !found {
			return 0, errNoFilm(filmID)
		}
		if f.Retired {
			return 0, booking.Errorf(booking.EInvalid, "%s is retired: it gets no new shows.", booking.Clean(f.Title))
		}
		capacity, err := hallSeats(tx, hallID)
		if err != nil {
			return 0, err
		}
		if err := notPast(tx, starts); err != nil {
			return 0, err
		}
		if err := hallFree(tx, hallID, starts, f.Minutes, 0); err != nil {
			return 0, err
		}
		id, err := tx.InsertShow(filmID, hallID, starts, capacity)
		if err != nil {
			return 0, err
		}
		told, err := tellWatchers(tx, filmID, id) // the film's watchlist (watchlist.go)
		if err != nil {
			return 0, err
		}
		return id, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditProgramme, ShowID: id,
			Detail: fmt.Sprintf("add show: film %d in hall %d at %s", filmID, hallID, starts.Format("2006-01-02 15:04")) + told}, 0)
	})
}

// hallSeats is the number of seats of a hall, its row locked
// (HallSeatsForUpdate); ENotFound when there is no such hall.
func hallSeats(tx Tx, hallID int64) (int, error) {
	n, err := tx.HallSeatsForUpdate(hallID)
	if err == nil && n == 0 {
		err = booking.Errorf(booking.ENotFound, "There is no hall %d.", hallID)
	}
	return n, err
}

// notPast refuses a start that is not after the transaction's clock.
func notPast(tx Tx, starts time.Time) error {
	if !starts.After(tx.Now()) {
		return booking.Errorf(booking.EInvalid, "A show cannot start in the past (%s).", starts.In(tx.Now().Location()).Format("Mon 02 Jan 15:04"))
	}
	return nil
}

// hallFree refuses a show of minutes starting at starts that would
// overlap another show of the hall, each with its running time plus
// booking.Cleaning. except is a show not to count (the one being moved or
// re-timed), 0 for none.
func hallFree(tx Tx, hallID int64, starts time.Time, minutes int, except int64) error {
	// Only a show that started at most the longest running time before
	// this one can overlap it: the query reads those few, not the hall's
	// whole history.
	c, found, err := tx.HallClash(HallSlot{
		HallID: hallID, From: starts, To: starts.Add(time.Duration(minutes)*time.Minute + booking.Cleaning),
		Since: starts.Add(-(booking.MaxFilmMinutes*time.Minute + booking.Cleaning)), Gap: booking.Cleaning, Except: except,
	})
	if err != nil || !found {
		return err
	}
	return booking.Errorf(booking.EConflict, "The hall is taken by %s at %s (with cleaning).",
		booking.Clean(c.Title), c.Starts.In(starts.Location()).Format("Mon 02 Jan 15:04"))
}
