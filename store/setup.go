package store

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/crypto/bcrypt"

	"boxoffice/booking"
)

// A cinema's setup: the seed that fills a new database, the demo's
// rolling week, and what a starting server asks of a database (never
// seeded? the demo? any sales?).

// SetupTx is what seeding and the demo's top-up ask of a transaction.
type SetupTx interface {
	// CinemaExists reports whether the database has a hall or was seeded
	// (a cinema created empty on purpose too).
	CinemaExists() (bool, error)
	// InsertTicketType writes a ticket type at position sort of the list.
	InsertTicketType(t booking.TicketType, sort int) error
	// InsertSeedStaff writes a member of staff with a PIN hash.
	InsertSeedStaff(name string, role booking.Role, pinHash string) error
	// MarkSeeded records that the database was seeded, with the demo
	// cinema or as a cinema of its own.
	MarkSeeded(demo bool) error
	// HallByName reads a hall's id by its name; found is false when
	// there is none.
	HallByName(name string) (id int64, found bool, err error)
	// FilmByTitle reads the first film of a title; found is false when
	// there is none.
	FilmByTitle(title string) (id int64, found bool, err error)
	// CountShowsBetween counts the shows starting at or after from and
	// before to.
	CountShowsBetween(from, to time.Time) (int, error)
}

// SetupReads are the setup's reads outside a transaction.
type SetupReads interface {
	// ReadSeedMark reads the mark Seed leaves: seeded is false when the
	// database was never seeded.
	ReadSeedMark(ctx context.Context) (demo, seeded bool, err error)
	// ReadHasSales reports whether any booking was ever made.
	ReadHasSales(ctx context.Context) (bool, error)
	// ReadShowsBetween counts the shows starting at or after from and
	// before to.
	ReadShowsBetween(ctx context.Context, from, to time.Time) (int, error)
}

// Empty reports whether the database was never seeded: a fresh one. A
// cinema created empty on purpose (init --no-demo) is not empty.
func (s *Store) Empty(ctx context.Context) (bool, error) {
	_, seeded, err := s.d.ReadSeedMark(ctx)
	return !seeded && err == nil, err
}

// IsDemo reports whether the database was seeded with the demo cinema.
func (s *Store) IsDemo(ctx context.Context) (bool, error) {
	demo, _, err := s.d.ReadSeedMark(ctx)
	return demo, err
}

// HasSales reports whether any booking was ever made.
func (s *Store) HasSales(ctx context.Context) (bool, error) {
	return s.d.ReadHasSales(ctx)
}

// Seed fills an empty database with halls, films, ticket types, prices,
// shows and staff in one transaction; an empty Seed marks the database as
// a cinema of its own that will be set up by hand. Seeding a database that
// has a cinema is a conflict, so two servers or processes starting on one
// new database seed it once (SERIALIZABLE: on PostgreSQL the loser's
// serialization failure is retried and then finds the cinema).
func (s *Store) Seed(ctx context.Context, seed booking.Seed, demo bool) error {
	hashes := make([]string, len(seed.Staff))
	for i, st := range seed.Staff {
		if err := booking.ValidPIN(st.PIN); err != nil {
			return err
		}
		h, err := bcrypt.GenerateFromPassword([]byte(st.PIN), s.opts.PINCost)
		if err != nil {
			return err
		}
		hashes[i] = string(h)
	}
	return apply(s, ctx, booking.System, Write{Op: "seed", Isolation: Serializable}, func(tx Tx) error {
		exists, err := tx.CinemaExists()
		if err != nil {
			return err
		}
		if exists {
			return booking.Errorf(booking.EConflict, "The database already has a cinema.")
		}
		if err := seedIn(tx, seed, hashes); err != nil {
			return err
		}
		if err := tx.MarkSeeded(demo); err != nil {
			return err
		}
		return Audit(tx, booking.System, booking.AuditEntry{Action: booking.AuditProgramme,
			Detail: fmt.Sprintf("seed: %d halls, %d films, %d shows, %d staff", len(seed.Halls), len(seed.Films), len(seed.Shows), len(seed.Staff))}, 0)
	})
}

// seedIn writes seed inside tx, its staff with the PIN hashes given.
func seedIn(tx Tx, seed booking.Seed, hashes []string) error {
	hallIDs := make([]int64, len(seed.Halls))
	for i, h := range seed.Halls {
		if err := validHall(h); err != nil {
			return err
		}
		var err error
		if hallIDs[i], err = addHall(tx, h, booking.MainSite); err != nil {
			return err
		}
	}
	filmIDs := make([]int64, len(seed.Films))
	for i, f := range seed.Films {
		if err := booking.ValidateFilm(f); err != nil {
			return err
		}
		var err error
		if filmIDs[i], err = tx.InsertFilm(cleanFilm(f)); err != nil {
			return err
		}
	}
	for i, t := range seed.TicketTypes {
		t.Name = booking.CleanLine(t.Name, 40)
		if err := tx.InsertTicketType(t, i); err != nil {
			return err
		}
	}
	for _, e := range seed.Prices {
		if err := setPriceEntry(tx, e); err != nil {
			return err
		}
	}
	for _, sh := range seed.Shows {
		if sh.Film < 0 || sh.Film >= len(filmIDs) || sh.Hall < 0 || sh.Hall >= len(hallIDs) {
			return booking.Errorf(booking.EInvalid, "A show names a film or hall that is not in the seed.")
		}
		if _, err := tx.InsertShow(filmIDs[sh.Film], hallIDs[sh.Hall], sh.Starts, len(seed.Halls[sh.Hall].Seats)); err != nil {
			return err
		}
	}
	for i, st := range seed.Staff {
		if err := tx.InsertSeedStaff(st.Name, st.Role, hashes[i]); err != nil {
			return err
		}
	}
	return nil
}

// TopUpDemo keeps the demo cinema's programme rolling: for each day of
// seed that has no shows at all yet, it adds that day's shows, matching
// halls by name and films by title. A demo left for a week still has a
// week of shows ahead; days that have shows are left alone.
func (s *Store) TopUpDemo(ctx context.Context, seed booking.Seed) (int, error) {
	// Most opens find every day planned already: that is decided with
	// reads, so a read-only command takes no write transaction.
	missing := false
	for _, sh := range seed.Shows {
		day := booking.DayStart(sh.Starts)
		n, err := s.d.ReadShowsBetween(ctx, day, day.AddDate(0, 0, 1))
		if err != nil {
			return 0, err
		}
		if n == 0 {
			missing = true
			break
		}
	}
	if !missing {
		return 0, nil
	}
	// SERIALIZABLE: two servers opening at once must not both find a day
	// empty and both plan it; the loser is retried and finds it planned.
	return write(s, ctx, booking.System, Write{Op: "top up demo", Isolation: Serializable}, func(tx Tx) (int, error) {
		n, err := topUp(tx, seed)
		if err != nil || n == 0 {
			return n, err
		}
		return n, Audit(tx, booking.System, booking.AuditEntry{Action: booking.AuditProgramme, Detail: fmt.Sprintf("%d demo shows added", n)}, 0)
	})
}

// topUp adds, inside tx, the shows of every day of seed that has none,
// and says how many.
func topUp(tx Tx, seed booking.Seed) (int, error) {
	hallIDs := make([]int64, len(seed.Halls))
	for i, h := range seed.Halls {
		id, found, err := tx.HallByName(hallName(h.Name))
		if err != nil {
			return 0, err
		}
		if !found {
			return 0, booking.Errorf(booking.ENotFound, "The demo hall %s is gone.", h.Name)
		}
		hallIDs[i] = id
	}
	filmIDs := make([]int64, len(seed.Films))
	for i, f := range seed.Films {
		id, found, err := tx.FilmByTitle(cleanFilm(f).Title)
		if err != nil {
			return 0, err
		}
		if !found {
			return 0, booking.Errorf(booking.ENotFound, "The demo film %s is gone.", f.Title)
		}
		filmIDs[i] = id
	}
	added := 0
	planned := map[string]bool{}
	for _, sh := range seed.Shows {
		day := booking.DayStart(sh.Starts)
		key := day.Format("2006-01-02")
		if _, seen := planned[key]; !seen {
			n, err := tx.CountShowsBetween(day, day.AddDate(0, 0, 1))
			if err != nil {
				return 0, err
			}
			planned[key] = n > 0
		}
		if planned[key] {
			continue
		}
		if _, err := tx.InsertShow(filmIDs[sh.Film], hallIDs[sh.Hall], sh.Starts, len(seed.Halls[sh.Hall].Seats)); err != nil {
			return 0, err
		}
		added++
	}
	return added, nil
}
