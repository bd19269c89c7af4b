package db

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"boxoffice/booking"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/crypto/ssh"
)

// Sign-in lockout: after maxFailures wrong PINs a name is locked for
// lockout, counted in the database so a restart does not reset it.
const (
	maxFailures = 5
	lockout     = 5 * time.Minute
	pinCost     = bcrypt.DefaultCost
)

func validPIN(pin string) error {
	if len(pin) < 4 || len(pin) > 32 {
		return booking.Errorf(booking.EInvalid, "A PIN has 4 to 32 characters.")
	}
	return nil
}

func validName(name string) (string, error) {
	clean := booking.CleanLine(name, 40)
	if clean == "" || clean != strings.TrimSpace(name) || !utf8.ValidString(name) {
		return "", booking.Errorf(booking.EInvalid, "A name has 1 to 40 printable characters.")
	}
	return clean, nil
}

// SignIn checks a name and PIN.
func (s *Store) SignIn(ctx context.Context, name, pin string) (*booking.Staff, error) {
	name = booking.CleanLine(name, 40)
	wrong := booking.Errorf(booking.EForbidden, "Wrong name or PIN.")
	now := s.opts.Clock()
	var lockedUntil int64
	err := s.readRow(ctx, `SELECT locked_until FROM signin_failures WHERE name = ?`, name).Scan(&lockedUntil)
	if err != nil && err != sql.ErrNoRows {
		return nil, s.translate("sign in", err)
	}
	if lockedUntil > now.UnixMilli() {
		bcrypt.CompareHashAndPassword(s.dummyHash, []byte(pin))
		wait := time.Duration(lockedUntil-now.UnixMilli()) * time.Millisecond
		return nil, booking.Errorf(booking.EForbidden, "Too many wrong PINs for %s; try again in %d min.", name, int(wait.Minutes())+1)
	}
	var st booking.Staff
	var role, hash string
	var hasKey sql.NullString
	err = s.readRow(ctx, `SELECT id, name, role, pin_hash, disabled, key_fp FROM staff WHERE name = ?`, name).
		Scan(&st.ID, &st.Name, &role, &hash, &st.Disabled, &hasKey)
	if err != nil && err != sql.ErrNoRows {
		return nil, s.translate("sign in", err)
	}
	known := err == nil && !st.Disabled
	if !known {
		hash = string(s.dummyHash)
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(pin)) != nil || !known {
		if err := s.recordFailure(ctx, name); err != nil {
			return nil, err
		}
		return nil, wrong
	}
	st.Role, _ = booking.ParseRole(role)
	st.HasKey = hasKey.Valid
	if err == nil {
		err = s.do(ctx, "sign in", func(w *wtx) error {
			_, err := w.exec(`DELETE FROM signin_failures WHERE name = ?`, name)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return &st, nil
}

func (s *Store) recordFailure(ctx context.Context, name string) error {
	return s.do(ctx, "sign in failure", func(w *wtx) error {
		var failures int
		err := w.queryRow(`INSERT INTO signin_failures (name, failures) VALUES (?, 1)
			ON CONFLICT (name) DO UPDATE SET failures = failures + 1 RETURNING failures`, name).Scan(&failures)
		if err != nil {
			return err
		}
		if failures >= maxFailures {
			_, err = w.exec(`UPDATE signin_failures SET failures = 0, locked_until = ? WHERE name = ?`, w.now.Add(lockout).UnixMilli(), name)
		}
		return err
	})
}

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
	name, err := validName(name)
	if err != nil {
		return nil, err
	}
	if role < booking.RoleDoor || role > booking.RoleManager {
		return nil, booking.Errorf(booking.EInvalid, "Unknown role.")
	}
	if err := validPIN(pin); err != nil {
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
	st := &booking.Staff{Name: name, Role: role, HasKey: fp.Valid}
	err = s.do(ctx, "add staff", func(w *wtx) error {
		if err := keyUnused(w, fp.String); err != nil {
			return err
		}
		err := w.queryRow(`INSERT INTO staff (name, role, pin_hash, key_fp, key_text, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
			name, role.String(), string(hash), fp, keyText, w.nowMS()).Scan(&st.ID)
		if isConstraint(err) {
			return booking.Errorf(booking.EConflict, "There is already staff called %s.", name)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return st, nil
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
	rows, err := s.readRows(ctx, `SELECT id, name, role, disabled, key_fp IS NOT NULL FROM staff ORDER BY name`)
	if err != nil {
		return nil, s.translate("list staff", err)
	}
	defer rows.Close()
	var out []booking.Staff
	for rows.Next() {
		var st booking.Staff
		var role string
		if err := rows.Scan(&st.ID, &st.Name, &role, &st.Disabled, &st.HasKey); err != nil {
			return nil, s.translate("list staff", err)
		}
		st.Role, _ = booking.ParseRole(role)
		out = append(out, st)
	}
	return out, s.translate("list staff", rows.Err())
}

// DisableStaff stops a member of staff signing in by PIN or key.
func (s *Store) DisableStaff(ctx context.Context, actor booking.Actor, name string) error {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return err
	}
	return s.do(ctx, "disable staff", func(w *wtx) error {
		res, err := w.exec(`UPDATE staff SET disabled = 1 WHERE name = ?`, booking.CleanLine(name, 40))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return booking.Errorf(booking.ENotFound, "No staff called %s.", booking.CleanLine(name, 40))
		}
		return nil
	})
}

// AddTerminal registers a counter device key.
func (s *Store) AddTerminal(ctx context.Context, actor booking.Actor, name string, authorizedKey []byte) (*booking.Terminal, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	name, err := validName(name)
	if err != nil {
		return nil, err
	}
	fp, line, err := parseAuthorizedKey(authorizedKey)
	if err != nil {
		return nil, err
	}
	t := &booking.Terminal{Name: name}
	err = s.do(ctx, "add terminal", func(w *wtx) error {
		if err := keyUnused(w, fp); err != nil {
			return err
		}
		err := w.queryRow(`INSERT INTO terminals (name, key_fp, key_text, created_at) VALUES (?, ?, ?, ?) RETURNING id`, name, fp, line, w.nowMS()).Scan(&t.ID)
		if isConstraint(err) {
			return booking.Errorf(booking.EConflict, "There is already a terminal called %s.", name)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// ListTerminals lists registered terminals.
func (s *Store) ListTerminals(ctx context.Context, actor booking.Actor) ([]booking.Terminal, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	rows, err := s.readRows(ctx, `SELECT id, name FROM terminals ORDER BY name`)
	if err != nil {
		return nil, s.translate("list terminals", err)
	}
	defer rows.Close()
	var out []booking.Terminal
	for rows.Next() {
		var t booking.Terminal
		if err := rows.Scan(&t.ID, &t.Name); err != nil {
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
	return s.do(ctx, "remove terminal", func(w *wtx) error {
		res, err := w.exec(`DELETE FROM terminals WHERE name = ?`, booking.CleanLine(name, 40))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return booking.Errorf(booking.ENotFound, "No terminal called %s.", booking.CleanLine(name, 40))
		}
		return nil
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
	var t booking.Terminal
	err = s.readRow(ctx, `SELECT id, name FROM terminals WHERE key_fp = ?`, fp).Scan(&t.ID, &t.Name)
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
