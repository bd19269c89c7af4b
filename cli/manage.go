package cli

import (
	"flag"
	"strconv"
	"time"

	"boxoffice/booking"
)

// film edit, film retire and show move: the programme changed after it
// was set, by the same store calls as the manager screens.

const filmEditUsage = `usage: boxoffice film edit ID [--title "TITLE"] [--minutes N] [--rating R]`

func filmEditFlags(fs *flag.FlagSet) runFunc {
	title := fs.String("title", "", "the new `TITLE`")
	minutes := fs.Int("minutes", 0, "the new running time in `MINUTES`, trailers included")
	rating := fs.String("rating", "", "the new age `RATING`, like 12A")
	return func(c *env, pos []string) error {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if len(pos) != 1 || len(set) == 0 {
			return usagef(filmEditUsage)
		}
		id, err := strconv.ParseInt(pos[0], 10, 64)
		if err != nil || id <= 0 {
			return usagef("%q is not a film id (boxoffice film list)", booking.CleanLine(pos[0], 20))
		}
		return c.withStore(func(st backend) error {
			f, err := c.findFilm(st, id)
			if err != nil {
				return err
			}
			if set["title"] {
				f.Title = *title
			}
			if set["minutes"] {
				f.Minutes = *minutes
			}
			if set["rating"] {
				f.Rating = *rating
			}
			if err := st.EditFilm(c.ctx, booking.System, f); err != nil {
				return err
			}
			c.say("Film %d is now %s (%d min, %s).", id, booking.CleanLine(f.Title, 120), f.Minutes, ratingText(f.Rating))
			return nil
		})
	}
}

// ratingText is a rating as printed, "no rating" for none.
func ratingText(r string) string {
	if r = booking.CleanLine(r, 8); r != "" {
		return r
	}
	return "no rating"
}

// findFilm is film id as the store has it.
func (c *env) findFilm(st backend, id int64) (booking.Film, error) {
	films, err := st.Films(c.ctx, booking.System)
	if err != nil {
		return booking.Film{}, err
	}
	for _, f := range films {
		if f.ID == id {
			return f, nil
		}
	}
	return booking.Film{}, booking.Errorf(booking.ENotFound, "There is no film %d.", id)
}

func (c *env) filmRetire(pos []string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice film retire ID")
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return usagef("%q is not a film id (boxoffice film list)", booking.CleanLine(pos[0], 20))
	}
	return c.withStore(func(st backend) error {
		if err := st.RetireFilm(c.ctx, booking.System, id); err != nil {
			return err
		}
		c.say("Film %d is retired: its shows stay, it gets no new ones.", id)
		return nil
	})
}

const showMoveUsage = `usage: boxoffice show move ID --at "2026-12-05 20:00" [--hall NAME]`

func showMoveFlags(fs *flag.FlagSet) runFunc {
	at := fs.String("at", "", "the new start, local `TIME`, like \"2026-12-05 20:00\"")
	hall := fs.String("hall", "", "the new hall's `NAME` or id; the same hall when not given")
	return func(c *env, pos []string) error {
		if len(pos) != 1 || *at == "" {
			return usagef(showMoveUsage)
		}
		id, err := strconv.ParseInt(pos[0], 10, 64)
		if err != nil || id <= 0 {
			return usagef("%q is not a show id (boxoffice shows)", booking.CleanLine(pos[0], 20))
		}
		starts, err := time.ParseInLocation("2006-01-02 15:04", *at, time.Local)
		if err != nil {
			return usagef(`--at %q is not a time like "2026-12-05 20:00"`, booking.CleanLine(*at, 30))
		}
		return c.withStore(func(st backend) error {
			var hallID int64
			if *hall != "" {
				if hallID, err = c.findHall(st, *hall); err != nil {
					return err
				}
			}
			if err := st.MoveShow(c.ctx, booking.System, id, starts, hallID); err != nil {
				return err
			}
			c.say("Moved show %d to %s; its bookings keep their seats.", id, starts.Format("Mon 02 Jan 2006 15:04"))
			return nil
		})
	}
}
