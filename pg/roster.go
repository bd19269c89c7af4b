package pg

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/crypto/ssh"

	"boxoffice/booking"
	"boxoffice/store"
)

// The roster (booking.Roster) on PostgreSQL: staff, their PINs and keys,
// and the registered terminals, as package db keeps them. Names compare
// without case (the unique indexes are on lower(name)), as SQLite's
// COLLATE NOCASE did.

var _ booking.Roster = (*Store)(nil)

// keyFingerprint is the SHA256 fingerprint of a wire-format public key,
// as ssh-keygen -l prints it (db.KeyFingerprint, repeated: pg does not
// import db).
func keyFingerprint(wireKey []byte) string {
	sum := sha256.Sum256(wireKey)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// parseAuthorizedKey reads one public key in authorized_keys format (as
// db's; it needs x/crypto/ssh, which booking may not import).
func parseAuthorizedKey(text []byte) (fp, line string, err error) {
	key, _, _, _, perr := ssh.ParseAuthorizedKey(text)
	if perr != nil {
		return "", "", booking.Errorf(booking.EInvalid, "Not an SSH public key (authorized_keys format, like id_ed25519.pub).")
	}
	return keyFingerprint(key.Marshal()), strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key))), nil
}

// isUnique reports a unique violation of the index named constraint.
func isUnique(err error, constraint string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == constraint
}

// serializable is the mode of the writes that check a key is unused by
// staff and terminals both before inserting it into one of them: no
// index spans the two tables, so two such writes at once under READ
// COMMITTED could both find the key free. SERIALIZABLE makes the second
// fail (retried by inTx, it then finds the key taken).
var serializable = txMode{iso: pgx.Serializable}

// readCommitted is the mode of the writes of one row found by its key:
// PostgreSQL re-checks an UPDATE's or DELETE's WHERE on the newest
// version of the row, which is all they need.
var readCommitted = txMode{iso: pgx.ReadCommitted}

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
	var fp *string
	var keyText string
	if len(authorizedKey) > 0 {
		f, line, err := parseAuthorizedKey(authorizedKey)
		if err != nil {
			return nil, err
		}
		fp, keyText = &f, line
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(pin), pinCost)
	if err != nil {
		return nil, s.translate("add staff", err)
	}
	return inTx(s, ctx, "add staff", serializable, func(t *tx) (*booking.Staff, error) {
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		if err := keyUnused(t, fp); err != nil {
			return nil, err
		}
		st := &booking.Staff{Name: name, Role: role, HasKey: fp != nil}
		err := t.QueryRow(t.ctx, `INSERT INTO staff (name, role, pin_hash, key_fp, key_text, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			name, role.String(), string(hash), fp, keyText, t.nowMS()).Scan(&st.ID)
		switch {
		case isUnique(err, "staff_name"):
			return nil, booking.Errorf(booking.EConflict, "There is already staff called %s.", name)
		case isUnique(err, "staff_key_fp_key"):
			return nil, booking.Errorf(booking.EConflict, "That key is already registered.")
		case err != nil:
			return nil, err
		}
		return st, audit(t, actor, booking.AuditEntry{Action: booking.AuditStaffChange, Detail: name + ": add staff " + role.String()}, 0)
	})
}

// keyUnused refuses a key already bound to staff or a terminal: one key
// must name exactly one identity.
func keyUnused(t *tx, fp *string) error {
	if fp == nil {
		return nil
	}
	var n int
	if err := t.QueryRow(t.ctx, `SELECT (SELECT count(*) FROM staff WHERE key_fp = $1) + (SELECT count(*) FROM terminals WHERE key_fp = $1)`, *fp).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return booking.Errorf(booking.EConflict, "That key is already registered.")
	}
	return nil
}

// ListStaff lists staff by name, each marked Locked while a lockout of
// sign-in or approvals still runs (a manager's unlock lifts it).
func (s *Store) ListStaff(ctx context.Context, actor booking.Actor) ([]booking.Staff, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	const live = ` BETWEEN $1::bigint + 1 AND $2::bigint`
	q := `SELECT s.id, s.name, s.role, s.disabled, s.key_fp IS NOT NULL, coalesce(s.site_id, 0),
		coalesce((SELECT locked_until FROM signin_failures WHERE name = lower(s.name)), 0)` + live + `
		OR coalesce((SELECT locked_until FROM approval_failures WHERE name = lower(s.name)), 0)` + live + `
		FROM staff s ORDER BY lower(s.name), s.name`
	now, upTo := store.LockLiveWindow(s.opts.Clock().UnixMilli())
	rows, err := s.pool.Query(ctx, q, now, upTo)
	if err != nil {
		return nil, s.translate("list staff", err)
	}
	defer rows.Close()
	var out []booking.Staff
	for rows.Next() {
		var st booking.Staff
		var role string
		if err := rows.Scan(&st.ID, &st.Name, &role, &st.Disabled, &st.HasKey, &st.Site, &st.Locked); err != nil {
			return nil, s.translate("list staff", err)
		}
		st.Role, _ = booking.ParseRole(role)
		out = append(out, st)
	}
	return out, s.translate("list staff", rows.Err())
}

// DisableStaff stops a member of staff signing in by PIN or key; their
// open sessions are refused from their next write on (checkActor).
func (s *Store) DisableStaff(ctx context.Context, actor booking.Actor, name string) error {
	if err := booking.NotYourself(actor, name, "disable"); err != nil {
		return err
	}
	return s.updateStaff(ctx, actor, "disable staff", name, "disabled = true", false)
}

// EnableStaff lets a disabled member of staff sign in again.
func (s *Store) EnableStaff(ctx context.Context, actor booking.Actor, name string) error {
	return s.updateStaff(ctx, actor, "enable staff", name, "disabled = false", false)
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
	return s.updateStaff(ctx, actor, "set role "+role.String(), name, "role = $1", false, role.String())
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
	hash, err := bcrypt.GenerateFromPassword([]byte(pin), pinCost)
	if err != nil {
		return s.translate("set pin", err)
	}
	return s.updateStaff(ctx, actor, "set pin", name, "pin_hash = $1, pin_changed = true", true, string(hash))
}

// UnlockStaff lifts a lockout after wrong PINs, for sign-in and approvals
// both, before it runs out by itself.
func (s *Store) UnlockStaff(ctx context.Context, actor booking.Actor, name string) error {
	return s.updateStaff(ctx, actor, "unlock staff", name, "", true)
}

// updateStaff sets columns (an SQL SET list numbering its arguments, args,
// from $1) of the staff row called name for a manager, and with
// clearLocks lifts the name's PIN lockouts in the same transaction. An
// empty set changes no column; the row must still exist. READ COMMITTED
// (readCommitted).
func (s *Store) updateStaff(ctx context.Context, actor booking.Actor, op, name, set string, clearLocks bool, args ...any) error {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return err
	}
	name = booking.CleanLine(name, 40)
	_, err := inTx(s, ctx, op, readCommitted, func(t *tx) (struct{}, error) {
		if err := checkActor(t, actor); err != nil {
			return struct{}{}, err
		}
		var n int64
		if set == "" {
			if err := t.QueryRow(t.ctx, `SELECT count(*) FROM staff WHERE lower(name) = lower($1)`, name).Scan(&n); err != nil {
				return struct{}{}, err
			}
		} else {
			tag, err := t.Exec(t.ctx, fmt.Sprintf(`UPDATE staff SET %s WHERE lower(name) = lower($%d)`, set, len(args)+1), append(args, name)...)
			if err != nil {
				return struct{}{}, err
			}
			n = tag.RowsAffected()
		}
		if n != 1 {
			return struct{}{}, booking.Errorf(booking.ENotFound, "No staff called %s.", name)
		}
		if clearLocks {
			if err := store.ClearPINLocks(t, name); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, audit(t, actor, booking.AuditEntry{Action: booking.AuditStaffChange, Detail: name + ": " + op}, 0)
	})
	return err
}

// PINUnchanged reports whether name is an enabled member of staff whose
// PIN is still the one they were created with: whether the demo cinema's
// sign-in hint still tells the truth. It compares no PIN, so it neither
// counts a failure nor takes time a remote user could measure.
func (s *Store) PINUnchanged(ctx context.Context, name string) (bool, error) {
	var changed, disabled bool
	err := s.pool.QueryRow(ctx, `SELECT pin_changed, disabled FROM staff WHERE lower(name) = lower($1)`, booking.CleanLine(name, 40)).Scan(&changed, &disabled)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, s.translate("pin unchanged", err)
	}
	return !changed && !disabled, nil
}

// Access lists who may still act: enabled staff with their roles and the
// registered terminals. The SSH server polls it to close the sessions of
// anyone disabled, demoted or removed. One REPEATABLE READ snapshot, so
// the two lists are of one moment.
func (s *Store) Access(ctx context.Context) (booking.Access, error) {
	a := booking.Access{Staff: map[int64]booking.Role{}, Terminals: map[int64]bool{}}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(t pgx.Tx) error {
		rows, err := t.Query(ctx, `SELECT id, role FROM staff WHERE NOT disabled`)
		if err != nil {
			return err
		}
		var id int64
		var role string
		if _, err := pgx.ForEachRow(rows, []any{&id, &role}, func() error {
			if r, err := booking.ParseRole(role); err == nil {
				a.Staff[id] = r
			}
			return nil
		}); err != nil {
			return err
		}
		if rows, err = t.Query(ctx, `SELECT id FROM terminals`); err != nil {
			return err
		}
		_, err = pgx.ForEachRow(rows, []any{&id}, func() error {
			a.Terminals[id] = true
			return nil
		})
		return err
	})
	return a, s.translate("access", err)
}
