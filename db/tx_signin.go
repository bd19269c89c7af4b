package db

import (
	"database/sql"

	"boxoffice/booking"
	"boxoffice/store"
)

// PINFailuresForUpdate reads a name's count; the writer runs one write at
// a time, so nothing else counts meanwhile.
func (w *wtx) PINFailuresForUpdate(c store.PINCounter, name string) (failures int, lockedUntil int64, err error) {
	err = w.queryRow(`SELECT failures, locked_until FROM `+c.Table()+` WHERE name = ?`, name).Scan(&failures, &lockedUntil)
	if isNoRows(err) {
		return 0, 0, nil
	}
	return failures, lockedUntil, err
}

// SetPINFailures stores a name's count and lock.
func (w *wtx) SetPINFailures(c store.PINCounter, name string, failures int, lockedUntil int64) error {
	_, err := w.exec(`INSERT INTO `+c.Table()+` (name, failures, locked_until) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until`, name, failures, lockedUntil)
	return err
}

// ClearPINFailures forgets a name's count.
func (w *wtx) ClearPINFailures(c store.PINCounter, name string) error {
	_, err := w.exec(`DELETE FROM `+c.Table()+` WHERE name = ?`, name)
	return err
}

// StaffByName reads a member of staff by name (the column compares
// without case).
func (w *wtx) StaffByName(name string) (store.StaffPIN, bool, error) {
	var sp store.StaffPIN
	var key sql.NullString
	err := w.queryRow(`SELECT id, name, role, pin_hash, disabled, key_fp FROM staff WHERE name = ?`, name).
		Scan(&sp.Staff.ID, &sp.Staff.Name, &sp.Role, &sp.PINHash, &sp.Staff.Disabled, &key)
	if isNoRows(err) {
		return sp, false, nil
	}
	sp.Staff.HasKey = key.Valid
	return sp, err == nil, err
}

// TerminalSite: every terminal is at the one site.
func (w *wtx) TerminalSite(terminalID int64) (int64, bool, error) {
	ok, err := w.TerminalRegistered(terminalID)
	return booking.MainSite, ok, err
}
