package pg

import (
	"errors"

	"github.com/jackc/pgx/v5"

	"boxoffice/store"
)

// PINFailuresForUpdate reads a name's count with its row locked, making
// the row first when the name was never counted: attempts for one name,
// on any server, take turns, each seeing the count the one before it
// committed.
func (t *tx) PINFailuresForUpdate(c store.PINCounter, name string) (failures int, lockedUntil int64, err error) {
	table := c.Table()
	if _, err := t.Exec(t.ctx, `INSERT INTO `+table+` (name, failures, locked_until) VALUES (lower($1), 0, 0) ON CONFLICT (name) DO NOTHING`, name); err != nil {
		return 0, 0, err
	}
	err = t.QueryRow(t.ctx, `SELECT failures, locked_until FROM `+table+` WHERE name = lower($1) FOR UPDATE`, name).Scan(&failures, &lockedUntil)
	return failures, lockedUntil, err
}

// SetPINFailures stores a name's count and lock.
func (t *tx) SetPINFailures(c store.PINCounter, name string, failures int, lockedUntil int64) error {
	_, err := t.Exec(t.ctx, `INSERT INTO `+c.Table()+` (name, failures, locked_until) VALUES (lower($1), $2, $3)
		ON CONFLICT (name) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until`, name, failures, lockedUntil)
	return err
}

// ClearPINFailures forgets a name's count.
func (t *tx) ClearPINFailures(c store.PINCounter, name string) error {
	_, err := t.Exec(t.ctx, `DELETE FROM `+c.Table()+` WHERE name = lower($1)`, name)
	return err
}

// StaffByName reads a member of staff by name, compared without case.
func (t *tx) StaffByName(name string) (store.StaffPIN, bool, error) {
	var sp store.StaffPIN
	err := t.QueryRow(t.ctx, `SELECT id, name, role, pin_hash, disabled, key_fp IS NOT NULL, coalesce(site_id, 0) FROM staff WHERE lower(name) = lower($1)`, name).
		Scan(&sp.Staff.ID, &sp.Staff.Name, &sp.Role, &sp.PINHash, &sp.Staff.Disabled, &sp.Staff.HasKey, &sp.Staff.Site)
	if errors.Is(err, pgx.ErrNoRows) {
		return sp, false, nil
	}
	return sp, err == nil, err
}

// TerminalSite reads a registered terminal's site.
func (t *tx) TerminalSite(terminalID int64) (int64, bool, error) {
	var site int64
	err := t.QueryRow(t.ctx, `SELECT site_id FROM terminals WHERE id = $1`, terminalID).Scan(&site)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return site, err == nil, err
}
