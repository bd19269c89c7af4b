package db

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"fmt"
	"strings"

	"boxoffice/booking"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/crypto/ssh"
)

// KeyFingerprint is the SHA256 fingerprint of a wire-format public key,
// as ssh-keygen -l prints it.
func KeyFingerprint(wireKey []byte) string {
	sum := sha256.Sum256(wireKey)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// parseAuthorizedKey reads one public key in authorized_keys format.
func parseAuthorizedKey(text []byte) (fp, line string, err error) {
	key, _, _, _, perr := ssh.ParseAuthorizedKey(text)
	if perr != nil {
		return "", "", booking.Errorf(booking.EInvalid, "Not an SSH public key (authorized_keys format, like id_ed25519.pub).")
	}
	return KeyFingerprint(key.Marshal()), strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key))), nil
}

// AddStaff creates a member of staff with a PIN and optionally an SSH
// public key in authorized_keys format.
func (s *Store) AddStaff(ctx context.Context, actor booking.Actor, name string, role booking.Role, pin string, authorizedKey []byte) (*booking.Staff, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	name, err := booking.ValidStaffName(name)
	if err != nil {
		return nil, err
	}
	if role < booking.RoleDoor || role > booking.RoleManager {
		return nil, booking.Errorf(booking.EInvalid, "Unknown role.")
	}
	if err := booking.ValidPIN(pin); err != nil {
		return nil, err
	}
	var fp sql.NullString
	var keyText string
	if len(authorizedKey) > 0 {
		f, line, err := parseAuthorizedKey(authorizedKey)
		if err != nil {
			return nil, err
		}
		fp = sql.NullString{String: f, Valid: true}
		keyText = line
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(pin), s.opts.PINCost)
	if err != nil {
		return nil, s.translate("add staff", err)
	}
	return write(s, ctx, actor, "add staff", func(w *wtx) (*booking.Staff, error) {
		if err := keyUnused(w, fp.String); err != nil {
			return nil, err
		}
		st := &booking.Staff{Name: name, Role: role, HasKey: fp.Valid}
		err := w.queryRow(`INSERT INTO staff (name, role, pin_hash, key_fp, key_text, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			name, role.String(), string(hash), fp, keyText, w.nowMS()).Scan(&st.ID)
		if isConstraint(err) {
			return nil, booking.Errorf(booking.EConflict, "There is already staff called %s.", name)
		}
		return st, auditDone(w, actor, booking.AuditEntry{Action: booking.AuditStaffChange, Detail: name + ": add staff " + role.String()}, err)
	})
}

// keyUnused refuses a key already bound to staff or a terminal: one key
// must name exactly one identity.
func keyUnused(w *wtx, fp string) error {
	if fp == "" {
		return nil
	}
	var n int
	if err := w.queryRow(`SELECT (SELECT count(*) FROM staff WHERE key_fp = ?) + (SELECT count(*) FROM terminals WHERE key_fp = ?)`, fp, fp).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return booking.Errorf(booking.EConflict, "That key is already registered.")
	}
	return nil
}

// ListStaff lists staff by name.
func (s *Store) ListStaff(ctx context.Context, actor booking.Actor) ([]booking.Staff, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	// Locked: a lockout of sign-in or approvals still running, read by
	// the primary key of each failure table (a manager's unlock lifts it).
	rows, err := s.readRows(ctx, `SELECT s.id, s.name, s.role, s.disabled, s.key_fp IS NOT NULL,
		coalesce((SELECT locked_until FROM signin_failures WHERE name = s.name), 0)`+lockLiveSQL+`
		OR coalesce((SELECT locked_until FROM approval_failures WHERE name = s.name), 0)`+lockLiveSQL+`
		FROM staff s ORDER BY s.name`, s.opts.Clock().UnixMilli())
	if err != nil {
		return nil, s.translate("list staff", err)
	}
	defer rows.Close()
	var out []booking.Staff
	for rows.Next() {
		var st booking.Staff
		var role string
		if err := rows.Scan(&st.ID, &st.Name, &role, &st.Disabled, &st.HasKey, &st.Locked); err != nil {
			return nil, s.translate("list staff", err)
		}
		st.Role, _ = booking.ParseRole(role)
		out = append(out, st)
	}
	return out, s.translate("list staff", rows.Err())
}

// DisableStaff stops a member of staff signing in by PIN or key; their
// open sessions are refused from their next write on.
func (s *Store) DisableStaff(ctx context.Context, actor booking.Actor, name string) error {
	if err := booking.NotYourself(actor, name, "disable"); err != nil {
		return err
	}
	return s.updateStaff(ctx, actor, "disable staff", name, "disabled = 1", false)
}

// EnableStaff lets a disabled member of staff sign in again.
func (s *Store) EnableStaff(ctx context.Context, actor booking.Actor, name string) error {
	return s.updateStaff(ctx, actor, "enable staff", name, "disabled = 0", false)
}

// SetRole changes what a member of staff may do. A lower role takes
// effect at their next write, whatever session they hold.
func (s *Store) SetRole(ctx context.Context, actor booking.Actor, name string, role booking.Role) error {
	if role < booking.RoleDoor || role > booking.RoleManager {
		return booking.Errorf(booking.EInvalid, "Unknown role.")
	}
	if role < actor.Role {
		if err := booking.NotYourself(actor, name, "lower the role of"); err != nil {
			return err
		}
	}
	return s.updateStaff(ctx, actor, "set role "+role.String(), name, "role = ?", false, role.String())
}

// SetPIN gives a member of staff a new PIN and lifts any lockout of their
// name. The row remembers that its PIN changed (see PINUnchanged).
func (s *Store) SetPIN(ctx context.Context, actor booking.Actor, name, pin string) error {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return err
	}
	if err := booking.ValidPIN(pin); err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(pin), s.opts.PINCost)
	if err != nil {
		return s.translate("set pin", err)
	}
	return s.updateStaff(ctx, actor, "set pin", name, "pin_hash = ?, pin_changed = 1", true, string(hash))
}

// UnlockStaff lifts a lockout after wrong PINs, for sign-in and approvals
// both, before it runs out by itself.
func (s *Store) UnlockStaff(ctx context.Context, actor booking.Actor, name string) error {
	return s.updateStaff(ctx, actor, "unlock staff", name, "", true)
}

// updateStaff sets columns (an SQL SET list, its arguments in args) of
// the staff row called name for a manager, and with clearLocks lifts the
// name's PIN lockouts in the same transaction. An empty set changes no
// column; the row must still exist.
func (s *Store) updateStaff(ctx context.Context, actor booking.Actor, op, name, set string, clearLocks bool, args ...any) error {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return err
	}
	name = booking.CleanLine(name, 40)
	return apply(s, ctx, actor, op, func(w *wtx) error {
		var n int64
		if set == "" {
			if err := w.queryRow(`SELECT count(*) FROM staff WHERE name = ?`, name).Scan(&n); err != nil {
				return err
			}
		} else {
			res, err := w.exec(`UPDATE staff SET `+set+` WHERE name = ?`, append(args, name)...)
			if err != nil {
				return err
			}
			n, _ = res.RowsAffected()
		}
		if n != 1 {
			return booking.Errorf(booking.ENotFound, "No staff called %s.", name)
		}
		if clearLocks {
			if err := clearPINLocks(w, name); err != nil {
				return err
			}
		}
		return w.audit(actor, booking.AuditEntry{Action: booking.AuditStaffChange, Detail: name + ": " + op}, 0)
	})
}

// clearPINLocks lifts name's lockouts: sign-in, approvals and the kiosk's
// staff chord.
func clearPINLocks(w *wtx, name string) error {
	for _, c := range []pinCounter{signInPINs, approvalPINs, kioskPINs} {
		if _, err := w.exec(`DELETE FROM `+c.table+` WHERE name = ?`, name); err != nil {
			return err
		}
	}
	return nil
}

// PINUnchanged reports whether name is an enabled member of staff whose
// PIN is still the one they were created with: whether the demo cinema's
// sign-in hint still tells the truth. It compares no PIN, so it neither
// counts a failure nor takes time a remote user could measure.
func (s *Store) PINUnchanged(ctx context.Context, name string) (bool, error) {
	var changed, disabled bool
	err := s.readRow(ctx, `SELECT pin_changed, disabled FROM staff WHERE name = ?`, booking.CleanLine(name, 40)).Scan(&changed, &disabled)
	if isNoRows(err) {
		return false, nil
	}
	if err != nil {
		return false, s.translate("pin unchanged", err)
	}
	return !changed && !disabled, nil
}

// Access lists who may still act: enabled staff with their roles and the
// registered terminals. The SSH server polls it to close the sessions of
// anyone disabled, demoted or removed.
func (s *Store) Access(ctx context.Context) (booking.Access, error) {
	a := booking.Access{Staff: map[int64]booking.Role{}, Terminals: map[int64]bool{}}
	rows, err := s.readRows(ctx, `SELECT id, role FROM staff WHERE disabled = 0`)
	if err != nil {
		return a, s.translate("access", err)
	}
	for rows.Next() {
		var id int64
		var role string
		if err := rows.Scan(&id, &role); err != nil {
			rows.Close()
			return a, s.translate("access", err)
		}
		if r, err := booking.ParseRole(role); err == nil {
			a.Staff[id] = r
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return a, s.translate("access", err)
	}
	ids, err := s.readIDs(ctx, `SELECT id FROM terminals`)
	if err != nil {
		return a, err
	}
	for _, id := range ids {
		a.Terminals[id] = true
	}
	return a, nil
}

// AddTerminal registers a counter device key.
func (s *Store) AddTerminal(ctx context.Context, actor booking.Actor, name string, authorizedKey []byte) (*booking.Terminal, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	name, err := booking.ValidStaffName(name)
	if err != nil {
		return nil, err
	}
	fp, line, err := parseAuthorizedKey(authorizedKey)
	if err != nil {
		return nil, err
	}
	return write(s, ctx, actor, "add terminal", func(w *wtx) (*booking.Terminal, error) {
		if err := keyUnused(w, fp); err != nil {
			return nil, err
		}
		t := &booking.Terminal{Name: name, Site: booking.MainSite}
		err := w.queryRow(`INSERT INTO terminals (name, key_fp, key_text, created_at) VALUES (?, ?, ?, ?) RETURNING id`, name, fp, line, w.nowMS()).Scan(&t.ID)
		if isConstraint(err) {
			return nil, booking.Errorf(booking.EConflict, "There is already a terminal called %s.", name)
		}
		return t, auditDone(w, actor, booking.AuditEntry{Action: booking.AuditTerminalChange, Detail: name + ": add terminal"}, err)
	})
}

// ListTerminals lists registered terminals.
func (s *Store) ListTerminals(ctx context.Context, actor booking.Actor) ([]booking.Terminal, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	rows, err := s.readRows(ctx, `SELECT id, name, printer FROM terminals ORDER BY name`)
	if err != nil {
		return nil, s.translate("list terminals", err)
	}
	defer rows.Close()
	var out []booking.Terminal
	for rows.Next() {
		t := booking.Terminal{Site: booking.MainSite}
		if err := rows.Scan(&t.ID, &t.Name, &t.Printer); err != nil {
			return nil, s.translate("list terminals", err)
		}
		out = append(out, t)
	}
	return out, s.translate("list terminals", rows.Err())
}

// RemoveTerminal deletes a terminal key.
func (s *Store) RemoveTerminal(ctx context.Context, actor booking.Actor, name string) error {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return err
	}
	return apply(s, ctx, actor, "remove terminal", func(w *wtx) error {
		res, err := w.exec(`DELETE FROM terminals WHERE name = ?`, booking.CleanLine(name, 40))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return booking.Errorf(booking.ENotFound, "No terminal called %s.", booking.CleanLine(name, 40))
		}
		return w.audit(actor, booking.AuditEntry{Action: booking.AuditTerminalChange, Detail: booking.CleanLine(name, 40) + ": remove terminal"}, 0)
	})
}

// IdentifyKey finds who a wire-format SSH public key belongs to: an
// enabled staff member or a terminal.
func (s *Store) IdentifyKey(ctx context.Context, wireKey []byte) (*booking.Staff, *booking.Terminal, error) {
	fp := KeyFingerprint(wireKey)
	var st booking.Staff
	var role string
	err := s.readRow(ctx, `SELECT id, name, role, disabled FROM staff WHERE key_fp = ?`, fp).Scan(&st.ID, &st.Name, &role, &st.Disabled)
	switch {
	case err == nil && st.Disabled:
		return nil, nil, booking.Errorf(booking.EForbidden, "That staff member is disabled.")
	case err == nil:
		st.Role, _ = booking.ParseRole(role)
		st.HasKey = true
		return &st, nil, nil
	case err != sql.ErrNoRows:
		return nil, nil, s.translate("identify key", err)
	}
	t := booking.Terminal{Site: booking.MainSite}
	err = s.readRow(ctx, `SELECT id, name, printer FROM terminals WHERE key_fp = ?`, fp).Scan(&t.ID, &t.Name, &t.Printer)
	if err == sql.ErrNoRows {
		return nil, nil, booking.Errorf(booking.ENotFound, "Unknown key %s.", fp)
	}
	if err != nil {
		return nil, nil, s.translate("identify key", err)
	}
	return nil, &t, nil
}

// roleName is used by the seed.
func roleName(r booking.Role) string { return fmt.Sprint(r) }
