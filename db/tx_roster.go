package db

import (
	"context"
	"database/sql"
	"strings"

	"boxoffice/booking"
	"boxoffice/store"
)

// The roster's queries (store.RosterTx, store.RosterReads). Names compare
// without case: the name columns are COLLATE NOCASE. The writer runs one
// write at a time, so a key found unused stays unused until the insert.

// KeyInUse reports whether a key is bound to staff or a terminal.
func (w *wtx) KeyInUse(fp string) (bool, error) {
	var n int
	err := w.queryRow(`SELECT (SELECT count(*) FROM staff WHERE key_fp = ?1) + (SELECT count(*) FROM terminals WHERE key_fp = ?1)`, fp).Scan(&n)
	return n > 0, err
}

// InsertStaff adds a member of staff; a constraint refuses a name in use
// (KeyInUse was asked first).
func (w *wtx) InsertStaff(st store.NewStaff) (int64, store.Taken, error) {
	var id int64
	err := w.queryRow(`INSERT INTO staff (name, role, pin_hash, key_fp, key_text, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
		st.Name, st.Role, st.PINHash, sql.NullString{String: st.KeyFP, Valid: st.KeyFP != ""}, st.KeyText, w.nowMS()).Scan(&id)
	if isConstraint(err) {
		return 0, store.NameTaken, nil
	}
	return id, store.Free, err
}

// StaffExists reports whether someone has the name.
func (w *wtx) StaffExists(name string) (bool, error) {
	var n int
	err := w.queryRow(`SELECT count(*) FROM staff WHERE name = ?`, name).Scan(&n)
	return n == 1, err
}

// SetStaffDisabled disables or enables a member of staff.
func (w *wtx) SetStaffDisabled(name string, disabled bool) (bool, error) {
	return w.updatedOne(`UPDATE staff SET disabled = ? WHERE name = ?`, disabled, name)
}

// SetStaffRole changes a member of staff's role.
func (w *wtx) SetStaffRole(name, role string) (bool, error) {
	return w.updatedOne(`UPDATE staff SET role = ? WHERE name = ?`, role, name)
}

// SetStaffPIN stores a new PIN hash, marking the PIN changed.
func (w *wtx) SetStaffPIN(name, hash string) (bool, error) {
	return w.updatedOne(`UPDATE staff SET pin_hash = ?, pin_changed = 1 WHERE name = ?`, hash, name)
}

// InsertTerminal registers a terminal; a constraint refuses a name in
// use.
func (w *wtx) InsertTerminal(t store.NewTerminal) (int64, store.Taken, error) {
	var id int64
	err := w.queryRow(`INSERT INTO terminals (name, key_fp, key_text, created_at) VALUES (?, ?, ?, ?) RETURNING id`, t.Name, t.KeyFP, t.KeyText, w.nowMS()).Scan(&id)
	if isConstraint(err) {
		return 0, store.NameTaken, nil
	}
	return id, store.Free, err
}

// DeleteTerminal removes a terminal.
func (w *wtx) DeleteTerminal(name string) (bool, error) {
	return w.updatedOne(`DELETE FROM terminals WHERE name = ?`, name)
}

// UpdateTerminalPrinter sets where a terminal prints.
func (w *wtx) UpdateTerminalPrinter(name, printer string) (booking.Terminal, bool, error) {
	t := booking.Terminal{Printer: printer, Site: booking.MainSite}
	err := w.queryRow(`UPDATE terminals SET printer = ? WHERE name = ? RETURNING id, name`, printer, name).Scan(&t.ID, &t.Name)
	if isNoRows(err) {
		return t, false, nil
	}
	return t, err == nil, err
}

// updatedOne runs an UPDATE or DELETE of one row by its key and reports
// whether it found the row.
func (w *wtx) updatedOne(query string, args ...any) (bool, error) {
	res, err := w.exec(query, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// staffLocks are the columns of ReadStaff after the staff's own: where
// each PIN counter's lock on the name ends, in store.PINCounters' order.
var staffLocks = func() string {
	var b strings.Builder
	for _, c := range store.PINCounters {
		b.WriteString(`, coalesce((SELECT locked_until FROM ` + c.Table() + ` WHERE name = s.name), 0)`)
	}
	return b.String()
}()

// ReadStaff lists every member of staff by name, with their locks (read
// by the primary key of each failure table).
func (d driver) ReadStaff(ctx context.Context) ([]store.StaffRow, error) {
	rows, err := d.s.readRows(ctx, `SELECT s.id, s.name, s.role, s.disabled, s.key_fp IS NOT NULL`+staffLocks+` FROM staff s ORDER BY s.name`)
	if err != nil {
		return nil, d.s.translate("list staff", err)
	}
	defer rows.Close()
	var out []store.StaffRow
	for rows.Next() {
		var r store.StaffRow
		until := make([]int64, len(store.PINCounters))
		dest := []any{&r.Staff.ID, &r.Staff.Name, &r.Role, &r.Staff.Disabled, &r.Staff.HasKey}
		for i := range until {
			dest = append(dest, &until[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, d.s.translate("list staff", err)
		}
		r.LockedUntil = make(map[store.PINCounter]int64, len(until))
		for i, c := range store.PINCounters {
			r.LockedUntil[c] = until[i]
		}
		out = append(out, r)
	}
	return out, d.s.translate("list staff", rows.Err())
}

// ReadPINState reads whether a PIN changed and whether its person is
// disabled.
func (d driver) ReadPINState(ctx context.Context, name string) (changed, disabled, found bool, err error) {
	err = d.s.readRow(ctx, `SELECT pin_changed, disabled FROM staff WHERE name = ?`, name).Scan(&changed, &disabled)
	if isNoRows(err) {
		return false, false, false, nil
	}
	return changed, disabled, err == nil, d.s.translate("pin unchanged", err)
}

// ReadAccess reads the roles of enabled staff and the terminals' ids.
func (d driver) ReadAccess(ctx context.Context) (map[int64]string, []int64, error) {
	rows, err := d.s.readRows(ctx, `SELECT id, role FROM staff WHERE disabled = 0`)
	if err != nil {
		return nil, nil, d.s.translate("access", err)
	}
	defer rows.Close()
	roles := map[int64]string{}
	for rows.Next() {
		var id int64
		var role string
		if err := rows.Scan(&id, &role); err != nil {
			return nil, nil, d.s.translate("access", err)
		}
		roles[id] = role
	}
	if err := rows.Err(); err != nil {
		return nil, nil, d.s.translate("access", err)
	}
	terminals, err := d.s.readIDs(ctx, `SELECT id FROM terminals`)
	return roles, terminals, err
}

// StaffByKey reads the member of staff bound to a key.
func (d driver) StaffByKey(ctx context.Context, fp string) (store.StaffRow, bool, error) {
	var r store.StaffRow
	err := d.s.readRow(ctx, `SELECT id, name, role, disabled FROM staff WHERE key_fp = ?`, fp).Scan(&r.Staff.ID, &r.Staff.Name, &r.Role, &r.Staff.Disabled)
	if isNoRows(err) {
		return r, false, nil
	}
	return r, err == nil, d.s.translate("identify key", err)
}

// TerminalByKey reads the terminal bound to a key.
func (d driver) TerminalByKey(ctx context.Context, fp string) (booking.Terminal, bool, error) {
	t := booking.Terminal{Site: booking.MainSite}
	err := d.s.readRow(ctx, `SELECT id, name, printer FROM terminals WHERE key_fp = ?`, fp).Scan(&t.ID, &t.Name, &t.Printer)
	if isNoRows(err) {
		return t, false, nil
	}
	return t, err == nil, d.s.translate("identify key", err)
}

// ReadTerminals lists the terminals by name.
func (d driver) ReadTerminals(ctx context.Context) ([]booking.Terminal, error) {
	rows, err := d.s.readRows(ctx, `SELECT id, name, printer FROM terminals ORDER BY name`)
	if err != nil {
		return nil, d.s.translate("list terminals", err)
	}
	defer rows.Close()
	var out []booking.Terminal
	for rows.Next() {
		t := booking.Terminal{Site: booking.MainSite}
		if err := rows.Scan(&t.ID, &t.Name, &t.Printer); err != nil {
			return nil, d.s.translate("list terminals", err)
		}
		out = append(out, t)
	}
	return out, d.s.translate("list terminals", rows.Err())
}

// roleName is a role as the staff table stores it, for the seed.
func roleName(r booking.Role) string { return r.String() }
