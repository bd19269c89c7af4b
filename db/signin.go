package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"boxoffice/booking"

	"golang.org/x/crypto/bcrypt"
)

// Sign-in lockout: booking.MaxPINFailures attempts, then
// booking.PINLockout, the rule both backends obey.
const (
	maxFailures = booking.MaxPINFailures
	lockout     = booking.PINLockout
	pinCost     = bcrypt.DefaultCost
)

// lockLive says a lock stored as ending at until still holds at now. A
// lock that ends further ahead than lockout (and clockSlackMS) was set
// later than the clock now says: the clock was set back, and the lock has
// run out, as a hold made later than the clock has (liveHoldSQL, whose
// reasons hold here too). Ending it at the jump rather than stretching it
// costs nothing a guesser could use: a fresh count of maxFailures.
func lockLive(until, now int64) bool {
	return until > now && until <= now+lockoutMS+clockSlackMS
}

// lockoutMS is lockout in milliseconds, as the failure tables store time.
const lockoutMS = int64(lockout / time.Millisecond)

// lockLiveSQL is lockLive in SQL, for the locked_until of a failure table:
// its one parameter, ?1, is now in unix ms.
const lockLiveSQL = ` BETWEEN ?1 + 1 AND ?1 + 302000`

// pinCounter is one kind of PIN attempt with a lockout of its own.
type pinCounter struct {
	table string // the table counting its failures
	what  string // for the log: "sign-in" or "approval"
	// failed and ok are its audit rows: one for every attempt, refused
	// or accepted.
	failed, ok booking.AuditAction
}

var (
	signInPINs   = pinCounter{table: "signin_failures", what: "sign-in", failed: booking.AuditSignInFailed, ok: booking.AuditSignIn}
	approvalPINs = pinCounter{table: "approval_failures", what: "approval", failed: booking.AuditApprovalFail, ok: booking.AuditOverride}
	// kioskPINs counts the PINs typed after a public kiosk's staff chord
	// apart from a counter's sign-in, so a customer at a kiosk who types
	// a name and wrong PINs locks that name out of the kiosk's chord
	// only, never out of the counters. (Letting only the names allowed to
	// close a kiosk try would not do: a manager's name is the one a
	// mischief-maker would type, and the manager works a counter too.)
	kioskPINs = pinCounter{table: "kiosk_unlock_failures", what: "kiosk unlock", failed: booking.AuditSignInFailed, ok: booking.AuditSignIn}
)

// pinAttempt is what reserving an attempt found.
type pinAttempt struct {
	staff  booking.Staff
	hash   string
	known  bool          // an enabled member of staff has this name
	locked time.Duration // > 0: refused without comparing, for this long yet
	n      int           // this attempt's number since the count began
}

// SignIn checks a name and PIN typed at a counter, or after a kiosk's
// staff chord (req.Kiosk), each on its own lockout.
func (s *Store) SignIn(ctx context.Context, req booking.SignInRequest) (*booking.Staff, error) {
	if req.Kiosk {
		return s.checkPIN(ctx, kioskPINs, req, booking.KioskChordWhy(req.Terminal), "")
	}
	return s.checkPIN(ctx, signInPINs, req, "", "")
}

// approve checks the PIN of a supervisor approving what a clerk does at
// the clerk's counter (what: "cancel of BO-…"), on the approval counter.
func (s *Store) approve(ctx context.Context, actor booking.Actor, approver *booking.Credentials, addr, what string) (*booking.Staff, error) {
	return s.checkPIN(ctx, approvalPINs, booking.SignInRequest{
		Name: approver.Name, PIN: approver.PIN,
		Terminal: actor.Terminal, TerminalID: actor.TerminalID, Addr: addr,
	}, what+" by "+actor.Name, booking.ActionCancel)
}

// checkPIN counts the attempt first, in a write transaction, and compares
// the PIN only when the attempt was within the bound: however many
// attempts arrive at once, at most maxFailures are compared before the
// name locks. A right PIN clears the count. Every attempt leaves one
// audit row, c.failed under the name typed or c.ok under the person
// whose PIN it was, saying what was approved (why) or from where. An
// approval (need set) by someone whose role may not do need is refused
// after the right PIN, and recorded as the failed approval it is.
func (s *Store) checkPIN(ctx context.Context, c pinCounter, req booking.SignInRequest, why string, need booking.Action) (*booking.Staff, error) {
	name := booking.CleanLine(req.Name, 40)
	addr := req.Addr
	if addr == "" {
		addr = "local"
	}
	if why == "" {
		why = "from " + booking.CleanLine(addr, 60)
	}
	typed := booking.Actor{Name: name, Terminal: req.Terminal}
	a, err := s.reservePIN(ctx, c, typed, req.TerminalID)
	if err != nil {
		return nil, err
	}
	attrs := []any{"name", name, "terminal", booking.CleanLine(req.Terminal, 60), "addr", addr}
	if a.locked > 0 {
		s.log.Warn(c.what+" refused", append(attrs, "reason", "locked")...)
		return nil, booking.Errorf(booking.EForbidden, "Too many wrong PINs for %s; try again in %d min.", name, int(a.locked.Minutes())+1)
	}
	hash := a.hash
	if !a.known {
		hash = string(s.dummyHash) // an unknown name costs what a wrong PIN costs
	}
	s.pinChecks.Add(1)
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(req.PIN)) != nil || !a.known {
		reason := "wrong PIN"
		if !a.known {
			reason = "unknown or disabled name"
		}
		s.log.Warn(c.what+" failed", append(attrs, "reason", reason, "attempt", a.n)...)
		if a.n >= maxFailures {
			s.log.Warn(c.what+" locked", "name", name, "for", lockout)
		}
		if err := apply(s, ctx, booking.Actor{TerminalID: req.TerminalID}, c.what+" failed", func(w *wtx) error {
			return w.audit(typed, booking.AuditEntry{Action: c.failed, Detail: fmt.Sprintf("%s, attempt %d, %s", reason, a.n, why)}, 0)
		}); err != nil {
			return nil, err
		}
		return nil, booking.Errorf(booking.EForbidden, "Wrong name or PIN.")
	}
	return s.pinAccepted(ctx, c, a.staff, req.Terminal, why, need)
}

// pinAccepted clears the count of a name whose PIN was right and writes
// its audit row: c.ok, or c.failed when the person may not do need.
func (s *Store) pinAccepted(ctx context.Context, c pinCounter, st booking.Staff, terminal, why string, need booking.Action) (*booking.Staff, error) {
	who := booking.Actor{StaffID: st.ID, Name: st.Name, Role: st.Role, Terminal: terminal}
	e := booking.AuditEntry{Action: c.ok, Detail: why}
	refused := need != "" && booking.Authorize(who, need) != nil
	if refused {
		e = booking.AuditEntry{Action: c.failed, Detail: fmt.Sprintf("a %s may not approve; %s", st.Role, why)}
	}
	err := apply(s, ctx, booking.System, c.what+" ok", func(w *wtx) error {
		_, err := w.exec(`DELETE FROM `+c.table+` WHERE name = ?`, st.Name)
		return auditDone(w, who, e, err)
	})
	switch {
	case err != nil:
		return nil, err
	case refused:
		return nil, booking.Errorf(booking.EForbidden, "%s is a %s; a supervisor or manager must approve.", st.Name, st.Role)
	}
	return &st, nil
}

// reservePIN counts one attempt for name, or finds it locked, and reads
// the staff row the PIN is to be compared with, all in one transaction.
// A locked name's attempt is refused here, and its audit row written.
func (s *Store) reservePIN(ctx context.Context, c pinCounter, typed booking.Actor, terminalID int64) (pinAttempt, error) {
	return write(s, ctx, booking.Actor{TerminalID: terminalID}, c.what, func(w *wtx) (pinAttempt, error) {
		a, err := countAttempt(w, c, typed.Name)
		if err == nil && a.locked > 0 {
			err = w.audit(typed, booking.AuditEntry{Action: c.failed, Detail: "locked"}, 0)
		}
		return a, err
	})
}

// countAttempt is reservePIN's transaction.
func countAttempt(w *wtx, c pinCounter, name string) (pinAttempt, error) {
	var a pinAttempt
	var failures int
	var lockedUntil int64
	err := w.queryRow(`SELECT failures, locked_until FROM `+c.table+` WHERE name = ?`, name).Scan(&failures, &lockedUntil)
	if err != nil && !isNoRows(err) {
		return a, err
	}
	if now := w.nowMS(); lockLive(lockedUntil, now) {
		a.locked = time.Duration(lockedUntil-now) * time.Millisecond
		return a, nil
	}
	if lockedUntil != 0 {
		failures = 0 // the lock ran out: the count starts again
	}
	a.n = failures + 1
	lock := int64(0)
	if a.n >= maxFailures {
		// Locked from this attempt on: the attempts arriving while this
		// one is compared are refused without comparing.
		lock = w.now.Add(lockout).UnixMilli()
	}
	if _, err := w.exec(`INSERT INTO `+c.table+` (name, failures, locked_until) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET failures = excluded.failures, locked_until = excluded.locked_until`, name, a.n, lock); err != nil {
		return a, err
	}
	var role string
	var key sql.NullString
	err = w.queryRow(`SELECT id, name, role, pin_hash, disabled, key_fp FROM staff WHERE name = ?`, name).
		Scan(&a.staff.ID, &a.staff.Name, &role, &a.hash, &a.staff.Disabled, &key)
	if isNoRows(err) {
		return a, nil
	}
	if err != nil {
		return a, err
	}
	r, rerr := booking.ParseRole(role)
	a.staff.Role, a.staff.HasKey = r, key.Valid
	a.known = !a.staff.Disabled && rerr == nil
	return a, nil
}
