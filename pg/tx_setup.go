package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// Seeding and the demo's top-up (store.SetupTx, store.SetupReads). Seed
// marks the database with meta 'demo': '1' for the demo cinema, '0' for
// one set up by hand.

// CinemaExists reports whether the database has a hall or was seeded.
func (t *tx) CinemaExists() (bool, error) {
	var n int
	err := t.QueryRow(t.ctx, `SELECT (SELECT count(*) FROM halls) + (SELECT count(*) FROM meta WHERE key = 'demo')`).Scan(&n)
	return n > 0, err
}

// InsertTicketType writes a ticket type at position sort.
func (t *tx) InsertTicketType(ty booking.TicketType, sort int) error {
	_, err := t.Exec(t.ctx, `INSERT INTO ticket_types (code, name, price, sort) VALUES ($1, $2, $3, $4)`, ty.Code, ty.Name, ty.Price, sort)
	return err
}

// InsertSeedStaff writes a member of staff.
func (t *tx) InsertSeedStaff(name string, role booking.Role, pinHash string) error {
	_, err := t.Exec(t.ctx, `INSERT INTO staff (name, role, pin_hash, created_at) VALUES ($1, $2, $3, $4)`, name, role.String(), pinHash, t.nowMS())
	return err
}

// MarkSeeded writes meta 'demo'.
func (t *tx) MarkSeeded(demo bool) error {
	flag := "0"
	if demo {
		flag = "1"
	}
	_, err := t.Exec(t.ctx, `INSERT INTO meta (key, value) VALUES ('demo', $1)`, flag)
	return err
}

// HallByName reads a hall's id by its name.
func (t *tx) HallByName(name string) (int64, bool, error) {
	var id int64
	err := t.QueryRow(t.ctx, `SELECT id FROM halls WHERE name = $1`, name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// FilmByTitle reads the first film of a title.
func (t *tx) FilmByTitle(title string) (int64, bool, error) {
	var id int64
	err := t.QueryRow(t.ctx, `SELECT id FROM films WHERE title = $1 ORDER BY id LIMIT 1`, title).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// qShowsBetween counts the shows starting in a span.
const qShowsBetween = `SELECT count(*) FROM shows WHERE starts_at >= $1 AND starts_at < $2`

// CountShowsBetween counts the shows starting in [from, to).
func (t *tx) CountShowsBetween(from, to time.Time) (int, error) {
	var n int
	err := t.QueryRow(t.ctx, qShowsBetween, from.Unix(), to.Unix()).Scan(&n)
	return n, err
}

// ReadShowsBetween counts the shows starting in [from, to), on the pool.
func (d driver) ReadShowsBetween(ctx context.Context, from, to time.Time) (int, error) {
	var n int
	err := d.s.pool.QueryRow(ctx, qShowsBetween, from.Unix(), to.Unix()).Scan(&n)
	return n, d.s.translate("top up demo", err)
}

// ReadSeedMark reads meta 'demo'.
func (d driver) ReadSeedMark(ctx context.Context) (demo, seeded bool, err error) {
	var v string
	err = d.s.pool.QueryRow(ctx, `SELECT value FROM meta WHERE key = 'demo'`).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, false, nil
	}
	return v == "1", err == nil, d.s.translate("setup", err)
}

// ReadHasSales reports whether any booking was ever made.
func (d driver) ReadHasSales(ctx context.Context) (bool, error) {
	var sold bool
	err := d.s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM bookings)`).Scan(&sold)
	return sold, d.s.translate("has sales", err)
}
