package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"boxoffice/booking"

	"golang.org/x/crypto/bcrypt"
)

// Empty reports whether the database was never seeded: a fresh file. A
// cinema created empty on purpose (init --no-demo) is not empty.
func (s *Store) Empty(ctx context.Context) (bool, error) {
	var n int
	if err := s.readRow(ctx, `SELECT count(*) FROM meta WHERE key = 'demo'`).Scan(&n); err != nil {
		return false, s.translate("empty", err)
	}
	return n == 0, nil
}

// IsDemo reports whether the database was seeded with the demo cinema.
func (s *Store) IsDemo(ctx context.Context) (bool, error) {
	var v string
	err := s.readRow(ctx, `SELECT value FROM meta WHERE key = 'demo'`).Scan(&v)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return false, nil
		}
		return false, s.translate("is demo", err)
	}
	return v == "1", nil
}

// Seed fills an empty database with halls, films, prices, shows and staff
// in one transaction; an empty Seed marks the database as a cinema of its
// own that will be set up by hand. Seeding a database that has halls is a conflict, so
// two processes starting on one new file seed it once.
func (s *Store) Seed(ctx context.Context, seed booking.Seed, demo bool) error {
	hashes := make([]string, len(seed.Staff))
	for i, st := range seed.Staff {
		if err := booking.ValidPIN(st.PIN); err != nil {
			return err
		}
		h, err := bcrypt.GenerateFromPassword([]byte(st.PIN), s.opts.PINCost)
		if err != nil {
			return s.translate("seed", err)
		}
		hashes[i] = string(h)
	}
	return apply(s, ctx, booking.System, "seed", func(w *wtx) error {
		var n int
		if err := w.queryRow(`SELECT (SELECT count(*) FROM halls) + (SELECT count(*) FROM meta WHERE key = 'demo')`).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return booking.Errorf(booking.EConflict, "The database already has a cinema.")
		}
		hallIDs := make([]int64, len(seed.Halls))
		for i, h := range seed.Halls {
			var err error
			if hallIDs[i], err = insertHall(w, h); err != nil {
				return err
			}
		}
		filmIDs := make([]int64, len(seed.Films))
		for i, f := range seed.Films {
			if err := booking.ValidateFilm(f); err != nil {
				return err
			}
			var err error
			if filmIDs[i], err = insertFilm(w, f); err != nil {
				return err
			}
		}
		for i, t := range seed.TicketTypes {
			if _, err := w.exec(`INSERT INTO ticket_types (code, name, price, sort) VALUES (?, ?, ?, ?)`,
				t.Code, booking.CleanLine(t.Name, 40), t.Price, i); err != nil {
				return err
			}
		}
		if err := seedPrices(w, seed.Prices); err != nil {
			return err
		}
		for _, sh := range seed.Shows {
			if sh.Film < 0 || sh.Film >= len(filmIDs) || sh.Hall < 0 || sh.Hall >= len(hallIDs) {
				return booking.Errorf(booking.EInvalid, "A show names a film or hall that is not in the seed.")
			}
			if _, err := w.exec(`INSERT INTO shows (film_id, hall_id, starts_at, capacity) VALUES (?, ?, ?, ?)`,
				filmIDs[sh.Film], hallIDs[sh.Hall], sh.Starts.Unix(), len(seed.Halls[sh.Hall].Seats)); err != nil {
				return err
			}
		}
		for i, st := range seed.Staff {
			if _, err := w.exec(`INSERT INTO staff (name, role, pin_hash, created_at) VALUES (?, ?, ?, ?)`,
				st.Name, roleName(st.Role), hashes[i], w.nowMS()); err != nil {
				return err
			}
		}
		flag := "0"
		if demo {
			flag = "1"
		}
		_, err := w.exec(`INSERT INTO meta (key, value) VALUES ('demo', ?)`, flag)
		return auditDone(w, booking.System, booking.AuditEntry{Action: booking.AuditProgramme, Detail: fmt.Sprintf("seed: %d halls, %d films, %d shows, %d staff", len(seed.Halls), len(seed.Films), len(seed.Shows), len(seed.Staff))}, err)
	})
}
