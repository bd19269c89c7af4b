package pg

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"boxoffice/booking"
	"boxoffice/store"
)

// The roster's queries (store.RosterTx, store.RosterReads). Names compare
// without case (the unique indexes are on lower(name)), as SQLite's
// COLLATE NOCASE does.

var _ booking.Roster = (*Store)(nil)

// isUnique reports a unique violation of the index named constraint.
func isUnique(err error, constraint string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == constraint
}

// taken is which unique index, of a table's name and key indexes, refused
// a row.
func taken(err error, name, key string) (store.Taken, error) {
	switch {
	case isUnique(err, name):
		return store.NameTaken, nil
	case isUnique(err, key):
		return store.KeyTaken, nil
	}
	return store.Free, err
}

// KeyInUse reports whether a key is bound to staff or a terminal. No
// index spans the two tables: the store asks it in a SERIALIZABLE write.
func (t *tx) KeyInUse(fp string) (bool, error) {
	var n int
	err := t.QueryRow(t.ctx, `SELECT (SELECT count(*) FROM staff WHERE key_fp = $1) + (SELECT count(*) FROM terminals WHERE key_fp = $1)`, fp).Scan(&n)
	return n > 0, err
}

// InsertStaff adds a member of staff.
func (t *tx) InsertStaff(st store.NewStaff) (int64, store.Taken, error) {
	var fp *string
	if st.KeyFP != "" {
		fp = &st.KeyFP
	}
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO staff (name, role, pin_hash, key_fp, key_text, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
		st.Name, st.Role, st.PINHash, fp, st.KeyText, t.nowMS()).Scan(&id)
	tk, err := taken(err, "staff_name", "staff_key_fp_key")
	return id, tk, err
}

// StaffExists reports whether someone has the name.
func (t *tx) StaffExists(name string) (bool, error) {
	var n int
	err := t.QueryRow(t.ctx, `SELECT count(*) FROM staff WHERE lower(name) = lower($1)`, name).Scan(&n)
	return n == 1, err
}

// SetStaffDisabled disables or enables a member of staff.
func (t *tx) SetStaffDisabled(name string, disabled bool) (bool, error) {
	return t.changedOne(`UPDATE staff SET disabled = $1 WHERE lower(name) = lower($2)`, disabled, name)
}

// SetStaffRole changes a member of staff's role.
func (t *tx) SetStaffRole(name, role string) (bool, error) {
	return t.changedOne(`UPDATE staff SET role = $1 WHERE lower(name) = lower($2)`, role, name)
}

// SetStaffPIN stores a new PIN hash, marking the PIN changed.
func (t *tx) SetStaffPIN(name, hash string) (bool, error) {
	return t.changedOne(`UPDATE staff SET pin_hash = $1, pin_changed = true WHERE lower(name) = lower($2)`, hash, name)
}

// InsertTerminal registers a terminal (at its column's default site,
// booking.MainSite).
func (t *tx) InsertTerminal(term store.NewTerminal) (int64, store.Taken, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO terminals (name, key_fp, key_text, created_at) VALUES ($1, $2, $3, $4) RETURNING id`,
		term.Name, term.KeyFP, term.KeyText, t.nowMS()).Scan(&id)
	tk, err := taken(err, "terminals_name", "terminals_key_fp_key")
	return id, tk, err
}

// DeleteTerminal removes a terminal.
func (t *tx) DeleteTerminal(name string) (bool, error) {
	return t.changedOne(`DELETE FROM terminals WHERE lower(name) = lower($1)`, name)
}

// UpdateTerminalPrinter sets where a terminal prints.
func (t *tx) UpdateTerminalPrinter(name, printer string) (booking.Terminal, bool, error) {
	term := booking.Terminal{Printer: printer}
	err := t.QueryRow(t.ctx, `UPDATE terminals SET printer = $1 WHERE lower(name) = lower($2) RETURNING id, name, site_id`, printer, name).
		Scan(&term.ID, &term.Name, &term.Site)
	if errors.Is(err, pgx.ErrNoRows) {
		return term, false, nil
	}
	return term, err == nil, err
}

// changedOne runs an UPDATE or DELETE of one row by its key and reports
// whether it found the row: PostgreSQL re-checks the WHERE on the newest
// version of the row, so of two such writes at once each sees the
// other's.
func (t *tx) changedOne(query string, args ...any) (bool, error) {
	tag, err := t.Exec(t.ctx, query, args...)
	return tag.RowsAffected() == 1, err
}

// staffLocks are the columns of ReadStaff after the staff's own: where
// each PIN counter's lock on the name ends, in store.PINCounters' order.
var staffLocks = func() string {
	var b strings.Builder
	for _, c := range store.PINCounters {
		b.WriteString(`, coalesce((SELECT locked_until FROM ` + c.Table() + ` WHERE name = lower(s.name)), 0)`)
	}
	return b.String()
}()

// ReadStaff lists every member of staff by name, with their sites and
// locks.
func (d driver) ReadStaff(ctx context.Context) ([]store.StaffRow, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT s.id, s.name, s.role, s.disabled, s.key_fp IS NOT NULL, coalesce(s.site_id, 0)`+staffLocks+`
		FROM staff s ORDER BY lower(s.name), s.name`)
	if err != nil {
		return nil, d.s.translate("list staff", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.StaffRow, error) {
		var r store.StaffRow
		until := make([]int64, len(store.PINCounters))
		dest := []any{&r.Staff.ID, &r.Staff.Name, &r.Role, &r.Staff.Disabled, &r.Staff.HasKey, &r.Staff.Site}
		for i := range until {
			dest = append(dest, &until[i])
		}
		err := row.Scan(dest...)
		r.LockedUntil = make(map[store.PINCounter]int64, len(until))
		for i, c := range store.PINCounters {
			r.LockedUntil[c] = until[i]
		}
		return r, err
	})
	return out, d.s.translate("list staff", err)
}

// ReadPINState reads whether a PIN changed and whether its person is
// disabled.
func (d driver) ReadPINState(ctx context.Context, name string) (changed, disabled, found bool, err error) {
	err = d.s.pool.QueryRow(ctx, `SELECT pin_changed, disabled FROM staff WHERE lower(name) = lower($1)`, name).Scan(&changed, &disabled)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, false, false, nil
	}
	return changed, disabled, err == nil, d.s.translate("pin unchanged", err)
}

// ReadAccess reads the roles of enabled staff and the terminals' ids in
// one REPEATABLE READ snapshot, so the two lists are of one moment.
func (d driver) ReadAccess(ctx context.Context) (map[int64]string, []int64, error) {
	roles := map[int64]string{}
	var terminals []int64
	err := pgx.BeginTxFunc(ctx, d.s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(t pgx.Tx) error {
		rows, err := t.Query(ctx, `SELECT id, role FROM staff WHERE NOT disabled`)
		if err != nil {
			return err
		}
		var id int64
		var role string
		if _, err := pgx.ForEachRow(rows, []any{&id, &role}, func() error {
			roles[id] = role
			return nil
		}); err != nil {
			return err
		}
		if rows, err = t.Query(ctx, `SELECT id FROM terminals`); err != nil {
			return err
		}
		terminals, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	return roles, terminals, d.s.translate("access", err)
}

// StaffByKey reads the member of staff bound to a key.
func (d driver) StaffByKey(ctx context.Context, fp string) (store.StaffRow, bool, error) {
	var r store.StaffRow
	err := d.s.pool.QueryRow(ctx, `SELECT id, name, role, disabled, coalesce(site_id, 0) FROM staff WHERE key_fp = $1`, fp).
		Scan(&r.Staff.ID, &r.Staff.Name, &r.Role, &r.Staff.Disabled, &r.Staff.Site)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, d.s.translate("identify key", err)
}

// TerminalByKey reads the terminal bound to a key.
func (d driver) TerminalByKey(ctx context.Context, fp string) (booking.Terminal, bool, error) {
	var term booking.Terminal
	err := d.s.pool.QueryRow(ctx, `SELECT id, name, printer, site_id FROM terminals WHERE key_fp = $1`, fp).Scan(&term.ID, &term.Name, &term.Printer, &term.Site)
	if errors.Is(err, pgx.ErrNoRows) {
		return term, false, nil
	}
	return term, err == nil, d.s.translate("identify key", err)
}

// ReadTerminals lists the terminals by name.
func (d driver) ReadTerminals(ctx context.Context) ([]booking.Terminal, error) {
	rows, err := d.s.pool.Query(ctx, `SELECT id, name, printer, site_id FROM terminals ORDER BY lower(name), name`)
	if err != nil {
		return nil, d.s.translate("list terminals", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.Terminal, error) {
		var term booking.Terminal
		err := r.Scan(&term.ID, &term.Name, &term.Printer, &term.Site)
		return term, err
	})
	return out, d.s.translate("list terminals", err)
}
