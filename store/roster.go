package store

import (
	"context"

	"golang.org/x/crypto/bcrypt"

	"boxoffice/booking"
)

// The roster (booking.Roster): staff, their roles, PINs and keys. Sign-in
// and its lockout are signin.go's; the registered terminals are
// terminals.go's. Names compare without case in both engines.

// RosterTx is what managing staff and terminals asks of a transaction.
// Each change of one row names it as typed; found is false when nobody
// (no terminal) has the name, and nothing is written then.
type RosterTx interface {
	// KeyInUse reports whether an SSH key, by its fingerprint, is bound
	// to a member of staff or to a terminal.
	KeyInUse(fp string) (bool, error)
	// InsertStaff adds a member of staff at the transaction's time;
	// taken says which unique value refused the row (nothing written).
	InsertStaff(st NewStaff) (id int64, taken Taken, err error)
	// StaffExists reports whether someone has the name.
	StaffExists(name string) (bool, error)
	// SetStaffDisabled disables or enables a member of staff.
	SetStaffDisabled(name string, disabled bool) (found bool, err error)
	// SetStaffRole changes a member of staff's role (booking.Role's
	// name).
	SetStaffRole(name, role string) (found bool, err error)
	// SetStaffPIN stores a new PIN hash and remembers that the PIN was
	// changed (ReadPINState).
	SetStaffPIN(name, hash string) (found bool, err error)
	// InsertTerminal registers a terminal at the transaction's time, at
	// booking.MainSite; taken as InsertStaff's.
	InsertTerminal(t NewTerminal) (id int64, taken Taken, err error)
	// DeleteTerminal removes a registered terminal.
	DeleteTerminal(name string) (found bool, err error)
	// UpdateTerminalPrinter sets where a terminal prints ("" for none)
	// and reads it back: its ID, Name as it was registered, Printer and
	// Site.
	UpdateTerminalPrinter(name, printer string) (t booking.Terminal, found bool, err error)
}

// RosterReads are the roster's reads outside a transaction.
type RosterReads interface {
	// ReadStaff lists every member of staff by name (compared without
	// case), each with the end of every lock on their name.
	ReadStaff(ctx context.Context) ([]StaffRow, error)
	// ReadPINState reads whether a member of staff's PIN was changed
	// since they were added and whether they are disabled; found is
	// false when nobody has the name.
	ReadPINState(ctx context.Context, name string) (changed, disabled, found bool, err error)
	// ReadAccess reads, as of one moment, the role of every enabled
	// member of staff by id, and the ids of the registered terminals.
	ReadAccess(ctx context.Context) (roles map[int64]string, terminals []int64, err error)
	// StaffByKey reads the member of staff bound to an SSH key, by its
	// fingerprint (LockedUntil left empty); found is false when none is.
	StaffByKey(ctx context.Context, fp string) (st StaffRow, found bool, err error)
	// TerminalByKey reads the terminal bound to an SSH key; found is
	// false when none is.
	TerminalByKey(ctx context.Context, fp string) (t booking.Terminal, found bool, err error)
	// ReadTerminals lists the registered terminals by name (compared
	// without case).
	ReadTerminals(ctx context.Context) ([]booking.Terminal, error)
}

// NewStaff is a member of staff to add.
type NewStaff struct {
	Name, Role, PINHash string
	// KeyFP and KeyText are their SSH key's fingerprint and
	// authorized_keys line; "" when they have none.
	KeyFP, KeyText string
}

// NewTerminal is a terminal to register.
type NewTerminal struct {
	Name, KeyFP, KeyText string
}

// Taken names the unique value a new row clashed with.
type Taken int

const (
	// Free: the row was written.
	Free Taken = iota
	// NameTaken: the name is in use (compared without case).
	NameTaken
	// KeyTaken: the SSH key is bound already.
	KeyTaken
)

// StaffRow is a member of staff as the roster reads them: Staff.Role is
// left to the store to parse from Role, and Staff.Locked to work out from
// LockedUntil.
type StaffRow struct {
	Staff booking.Staff
	Role  string
	// LockedUntil is where each PIN counter's lock on their name ends
	// (unix ms; absent or 0: no lock).
	LockedUntil map[PINCounter]int64
}

// staff is the row as booking.Staff, locked when a lock of any counter is
// live at now (unix ms).
func (r StaffRow) staff(now int64) booking.Staff {
	st := r.Staff
	st.Role, _ = booking.ParseRole(r.Role)
	for _, until := range r.LockedUntil {
		st.Locked = st.Locked || LockLive(until, now)
	}
	return st
}

// validRole refuses a role nobody can be given: the kiosk's, or none.
func validRole(role booking.Role) error {
	if role < booking.RoleDoor || role > booking.RoleManager {
		return booking.Errorf(booking.EInvalid, "Unknown role.")
	}
	return nil
}

// hashPIN hashes a PIN for storing, before any transaction: bcrypt is
// slow on purpose.
func (s *Store) hashPIN(op, pin string) (string, error) {
	hash, err := bcrypt.GenerateFromPassword([]byte(pin), s.opts.PINCost)
	if err != nil {
		s.log.Error("internal error", "op", op, "err", err)
		return "", &booking.Error{Code: booking.EInternal, Message: "Internal error."}
	}
	return string(hash), nil
}

// AddStaff creates a member of staff with a PIN and optionally an SSH
// public key in authorized_keys format. Serializable: the key must be
// unused by terminals too, and no index spans the two tables, so two such
// writes at once could otherwise both find it free; the second is retried
// by the driver and then finds it taken.
func (s *Store) AddStaff(ctx context.Context, actor booking.Actor, name string, role booking.Role, pin string, authorizedKey []byte) (*booking.Staff, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	name, err := booking.ValidStaffName(name)
	if err != nil {
		return nil, err
	}
	if err := validRole(role); err != nil {
		return nil, err
	}
	if err := booking.ValidPIN(pin); err != nil {
		return nil, err
	}
	var key sshKey
	if len(authorizedKey) > 0 {
		if key, err = parseAuthorizedKey(authorizedKey); err != nil {
			return nil, err
		}
	}
	hash, err := s.hashPIN("add staff", pin)
	if err != nil {
		return nil, err
	}
	return write(s, ctx, actor, Write{Op: "add staff", Isolation: Serializable}, func(tx Tx) (*booking.Staff, error) {
		if err := keyUnused(tx, key.fp); err != nil {
			return nil, err
		}
		id, taken, err := tx.InsertStaff(NewStaff{Name: name, Role: role.String(), PINHash: hash, KeyFP: key.fp, KeyText: key.line})
		if err != nil {
			return nil, err
		}
		if err := refusedAsTaken(taken, "There is already staff called %s.", name); err != nil {
			return nil, err
		}
		st := &booking.Staff{ID: id, Name: name, Role: role, HasKey: key.fp != ""}
		return st, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditStaffChange, Detail: name + ": add staff " + role.String()}, 0)
	})
}

// refusedAsTaken is the clerk's word for a new row a unique value
// refused: nameInUse (with the name) or a key's.
func refusedAsTaken(taken Taken, nameInUse, name string) error {
	switch taken {
	case NameTaken:
		return booking.Errorf(booking.EConflict, nameInUse, name)
	case KeyTaken:
		return errKeyRegistered
	}
	return nil
}

// ListStaff lists staff by name, each marked Locked while a lockout of
// theirs still runs (a manager's unlock lifts it).
func (s *Store) ListStaff(ctx context.Context, actor booking.Actor) ([]booking.Staff, error) {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return nil, err
	}
	rows, err := s.d.ReadStaff(ctx)
	if err != nil {
		return nil, err
	}
	now := s.d.Now().UnixMilli()
	out := make([]booking.Staff, len(rows))
	for i, r := range rows {
		out[i] = r.staff(now)
	}
	return out, nil
}

// DisableStaff stops a member of staff signing in by PIN or key; their
// open sessions are refused from their next write on (CheckActor).
func (s *Store) DisableStaff(ctx context.Context, actor booking.Actor, name string) error {
	if err := booking.NotYourself(actor, name, "disable"); err != nil {
		return err
	}
	return s.changeStaff(ctx, actor, "disable staff", name, false, func(tx Tx, name string) (bool, error) {
		return tx.SetStaffDisabled(name, true)
	})
}

// EnableStaff lets a disabled member of staff sign in again.
func (s *Store) EnableStaff(ctx context.Context, actor booking.Actor, name string) error {
	return s.changeStaff(ctx, actor, "enable staff", name, false, func(tx Tx, name string) (bool, error) {
		return tx.SetStaffDisabled(name, false)
	})
}

// SetRole changes what a member of staff may do. A lower role takes
// effect at their next write, whatever session they hold; a manager at a
// screen may not lower their own (nobody might be left to undo it).
func (s *Store) SetRole(ctx context.Context, actor booking.Actor, name string, role booking.Role) error {
	if err := validRole(role); err != nil {
		return err
	}
	if role < actor.Role {
		if err := booking.NotYourself(actor, name, "lower the role of"); err != nil {
			return err
		}
	}
	return s.changeStaff(ctx, actor, "set role "+role.String(), name, false, func(tx Tx, name string) (bool, error) {
		return tx.SetStaffRole(name, role.String())
	})
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
	hash, err := s.hashPIN("set pin", pin)
	if err != nil {
		return err
	}
	return s.changeStaff(ctx, actor, "set pin", name, true, func(tx Tx, name string) (bool, error) {
		return tx.SetStaffPIN(name, hash)
	})
}

// UnlockStaff lifts a lockout after wrong PINs, on every counter, before
// it runs out by itself.
func (s *Store) UnlockStaff(ctx context.Context, actor booking.Actor, name string) error {
	return s.changeStaff(ctx, actor, "unlock staff", name, true, func(tx Tx, name string) (bool, error) {
		return tx.StaffExists(name)
	})
}

// changeStaff makes one change (op) of the staff row called name for a
// manager, and with clearLocks lifts the name's PIN lockouts in the same
// transaction: change reports whether anyone has the name. One row found
// by its key: READ COMMITTED, as the engine re-checks an UPDATE's WHERE on
// the newest version of the row.
func (s *Store) changeStaff(ctx context.Context, actor booking.Actor, op, name string, clearLocks bool, change func(tx Tx, name string) (bool, error)) error {
	if err := booking.Authorize(actor, booking.ActionManageStaff); err != nil {
		return err
	}
	name = booking.CleanLine(name, 40)
	return apply(s, ctx, actor, Write{Op: op}, func(tx Tx) error {
		found, err := change(tx, name)
		if err != nil {
			return err
		}
		if !found {
			return errNoStaff(name)
		}
		if clearLocks {
			if err := ClearPINLocks(tx, name); err != nil {
				return err
			}
		}
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditStaffChange, Detail: name + ": " + op}, 0)
	})
}

// errNoStaff refuses a name nobody on the staff has.
func errNoStaff(name string) error {
	return booking.Errorf(booking.ENotFound, "No staff called %s.", name)
}

// PINUnchanged reports whether name is an enabled member of staff whose
// PIN is still the one they were created with: whether the demo cinema's
// sign-in hint still tells the truth. It compares no PIN, so it neither
// counts a failure nor takes time a remote user could measure.
func (s *Store) PINUnchanged(ctx context.Context, name string) (bool, error) {
	changed, disabled, found, err := s.d.ReadPINState(ctx, booking.CleanLine(name, 40))
	if err != nil || !found {
		return false, err
	}
	return !changed && !disabled, nil
}

// Access lists who may still act: enabled staff with their roles and the
// registered terminals. The SSH server polls it to close the sessions of
// anyone disabled, demoted or removed. A role no longer known gives
// nobody anything.
func (s *Store) Access(ctx context.Context) (booking.Access, error) {
	a := booking.Access{Staff: map[int64]booking.Role{}, Terminals: map[int64]bool{}}
	roles, terminals, err := s.d.ReadAccess(ctx)
	if err != nil {
		return a, err
	}
	for id, role := range roles {
		if r, err := booking.ParseRole(role); err == nil {
			a.Staff[id] = r
		}
	}
	for _, id := range terminals {
		a.Terminals[id] = true
	}
	return a, nil
}

// IdentifyKey finds who a wire-format SSH public key belongs to: an
// enabled member of staff or a terminal.
func (s *Store) IdentifyKey(ctx context.Context, wireKey []byte) (*booking.Staff, *booking.Terminal, error) {
	fp := keyFingerprint(wireKey)
	row, found, err := s.d.StaffByKey(ctx, fp)
	switch {
	case err != nil:
		return nil, nil, err
	case found && row.Staff.Disabled:
		return nil, nil, booking.Errorf(booking.EForbidden, "That staff member is disabled.")
	case found:
		st := row.staff(0)
		st.HasKey = true
		return &st, nil, nil
	}
	t, found, err := s.d.TerminalByKey(ctx, fp)
	switch {
	case err != nil:
		return nil, nil, err
	case !found:
		return nil, nil, booking.Errorf(booking.ENotFound, "Unknown key %s.", fp)
	}
	return nil, &t, nil
}
