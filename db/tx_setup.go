package db

import (
	"context"
	"time"

	"boxoffice/booking"
)

// Seeding and the demo's top-up (store.SetupTx, store.SetupReads). Seed
// marks the file with meta 'demo': '1' for the demo cinema, '0' for one
// set up by hand.

// CinemaExists reports whether the file has a hall or was seeded.
func (w *wtx) CinemaExists() (bool, error) {
	var n int
	err := w.queryRow(`SELECT (SELECT count(*) FROM halls) + (SELECT count(*) FROM meta WHERE key = 'demo')`).Scan(&n)
	return n > 0, err
}

// InsertTicketType writes a ticket type at position sort.
func (w *wtx) InsertTicketType(t booking.TicketType, sort int) error {
	_, err := w.exec(`INSERT INTO ticket_types (code, name, price, sort) VALUES (?, ?, ?, ?)`, t.Code, t.Name, t.Price, sort)
	return err
}

// InsertSeedStaff writes a member of staff.
func (w *wtx) InsertSeedStaff(name string, role booking.Role, pinHash string) error {
	_, err := w.exec(`INSERT INTO staff (name, role, pin_hash, created_at) VALUES (?, ?, ?, ?)`, name, roleName(role), pinHash, w.nowMS())
	return err
}

// MarkSeeded writes meta 'demo'.
func (w *wtx) MarkSeeded(demo bool) error {
	flag := "0"
	if demo {
		flag = "1"
	}
	_, err := w.exec(`INSERT INTO meta (key, value) VALUES ('demo', ?)`, flag)
	return err
}

// HallByName reads a hall's id by its name.
func (w *wtx) HallByName(name string) (int64, bool, error) {
	var id int64
	err := w.queryRow(`SELECT id FROM halls WHERE name = ?`, name).Scan(&id)
	if isNoRows(err) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// FilmByTitle reads the first film of a title.
func (w *wtx) FilmByTitle(title string) (int64, bool, error) {
	var id int64
	err := w.queryRow(`SELECT id FROM films WHERE title = ? ORDER BY id LIMIT 1`, title).Scan(&id)
	if isNoRows(err) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// qShowsBetween counts the shows starting in a span.
const qShowsBetween = `SELECT count(*) FROM shows WHERE starts_at >= ? AND starts_at < ?`

// CountShowsBetween counts the shows starting in [from, to).
func (w *wtx) CountShowsBetween(from, to time.Time) (int, error) {
	var n int
	err := w.queryRow(qShowsBetween, from.Unix(), to.Unix()).Scan(&n)
	return n, err
}

// ReadShowsBetween counts the shows starting in [from, to), on the read
// pool.
func (d driver) ReadShowsBetween(ctx context.Context, from, to time.Time) (int, error) {
	var n int
	err := d.s.readRow(ctx, qShowsBetween, from.Unix(), to.Unix()).Scan(&n)
	return n, d.s.translate("top up demo", err)
}

// ReadSeedMark reads meta 'demo'.
func (d driver) ReadSeedMark(ctx context.Context) (demo, seeded bool, err error) {
	var v string
	err = d.s.readRow(ctx, `SELECT value FROM meta WHERE key = 'demo'`).Scan(&v)
	if isNoRows(err) {
		return false, false, nil
	}
	return v == "1", err == nil, d.s.translate("setup", err)
}

// ReadHasSales reports whether any booking was ever made.
func (d driver) ReadHasSales(ctx context.Context) (bool, error) {
	var sold bool
	err := d.s.readRow(ctx, `SELECT EXISTS (SELECT 1 FROM bookings)`).Scan(&sold)
	return sold, d.s.translate("has sales", err)
}
