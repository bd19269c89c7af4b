package store

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/crypto/bcrypt"

	"boxoffice/booking"
)

// SignInTx is what counting PIN attempts asks of a transaction.
type SignInTx interface {
	// PINFailuresForUpdate reads a name's failure count and the end of its
	// lock (unix ms, 0 for none) on counter c, locking the count so the
	// attempts for one name take turns; a name never counted reads 0, 0.
	PINFailuresForUpdate(c PINCounter, name string) (failures int, lockedUntil int64, err error)
	// SetPINFailures stores a name's count and the end of its lock.
	SetPINFailures(c PINCounter, name string, failures int, lockedUntil int64) error
	// ClearPINFailures forgets a name's count on c.
	ClearPINFailures(c PINCounter, name string) error
	// StaffByName reads the member of staff a typed name names (names
	// compare without case), with their PIN hash; found is false when
	// nobody has it.
	StaffByName(name string) (st StaffPIN, found bool, err error)
	// TerminalSite reads the site of a registered terminal; found is
	// false when it was removed.
	TerminalSite(terminalID int64) (site int64, found bool, err error)
	// SiteName reads a site's name; booking.ErrNoSite for a site the
	// engine does not hold.
	SiteName(site int64) (string, error)
}

// PINCounter is one kind of PIN attempt with a lockout of its own; a
// driver keeps each kind's count apart.
type PINCounter string

const (
	// SignInPINs counts PINs typed to sign in at a counter.
	SignInPINs PINCounter = "sign-in"
	// ApprovalPINs counts a supervisor's PIN typed to approve at a
	// clerk's counter.
	ApprovalPINs PINCounter = "approval"
	// KioskPINs counts the PINs typed after a public kiosk's staff chord
	// apart from a counter's sign-in, so a customer at a kiosk who types
	// a name and wrong PINs locks that name out of the kiosk's chord
	// only, never out of the counters. (Letting only the names allowed
	// to close a kiosk try would not do: a manager's name is the one a
	// mischief-maker would type, and the manager works a counter too.)
	KioskPINs PINCounter = "kiosk unlock"
)

// Table is the table both drivers' schemas keep c's counts in, one row
// per name typed.
func (c PINCounter) Table() string {
	switch c {
	case ApprovalPINs:
		return "approval_failures"
	case KioskPINs:
		return "kiosk_unlock_failures"
	}
	return "signin_failures"
}

// PINCounters are every kind, for lifting a person's lockouts.
var PINCounters = []PINCounter{SignInPINs, ApprovalPINs, KioskPINs}

// audits are a counter's audit actions: one row for every attempt,
// refused (failed) or accepted (ok).
func (c PINCounter) audits() (failed, ok booking.AuditAction) {
	if c == ApprovalPINs {
		return booking.AuditApprovalFail, booking.AuditOverride
	}
	return booking.AuditSignInFailed, booking.AuditSignIn
}

// lockoutMS is booking.PINLockout in milliseconds, as the counts store
// time; clockSlackMS is how far a lock may end beyond it and still be
// believed.
const (
	lockoutMS    = int64(booking.PINLockout / time.Millisecond)
	clockSlackMS = 2000
)

// LockLive says a lock stored as ending at until still holds at now (unix
// ms). A lock that ends further ahead than the lockout (and the clock's
// slack) was set later than the clock now says: the clock was set back,
// and the lock has run out, as a hold made later than the clock has.
// Ending it at the jump rather than stretching it costs nothing a guesser
// could use: a fresh count of booking.MaxPINFailures.
func LockLive(until, now int64) bool {
	return until > now && until <= now+lockoutMS+clockSlackMS
}

// StaffPIN is a member of staff as sign-in reads them: Staff.Role is left
// to the store to parse from Role.
type StaffPIN struct {
	Staff   booking.Staff
	Role    string
	PINHash string
}

// pinAttempt is what counting an attempt found.
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
		return s.checkPIN(ctx, KioskPINs, req, booking.KioskChordWhy(req.Terminal), "")
	}
	return s.checkPIN(ctx, SignInPINs, req, "", "")
}

// approve checks the PIN of a supervisor approving what a clerk does at
// the clerk's counter (what: "cancel of BO-…"), on the approval counter.
func (s *Store) approve(ctx context.Context, actor booking.Actor, approver *booking.Credentials, addr, what string) (*booking.Staff, error) {
	return s.checkPIN(ctx, ApprovalPINs, booking.SignInRequest{
		Name: approver.Name, PIN: approver.PIN,
		Terminal: actor.Terminal, TerminalID: actor.TerminalID, Addr: addr,
	}, what+" by "+actor.Name, booking.ActionCancel)
}

// checkPIN counts the attempt first, in a transaction of its own that
// commits before the PIN is compared, and compares the PIN only when the
// attempt was within the bound: however many attempts arrive at once, on
// however many servers, at most booking.MaxPINFailures are compared
// before the name locks. A right PIN clears the count. Every attempt
// leaves one audit row, failed under the name typed or ok under the person
// whose PIN it was, saying what was approved (why) or from where. An
// approval (need set) by someone whose role may not do need is refused
// after the right PIN, and recorded as the failed approval it is.
func (s *Store) checkPIN(ctx context.Context, c PINCounter, req booking.SignInRequest, why string, need booking.Action) (*booking.Staff, error) {
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
		s.log.Warn(string(c)+" refused", append(attrs, "reason", "locked")...)
		return nil, booking.Errorf(booking.EForbidden, "Too many wrong PINs for %s; try again in %d min.", name, int(a.locked.Minutes())+1)
	}
	hash := []byte(a.hash)
	if !a.known {
		if hash, err = s.dummyHash(); err != nil { // an unknown name costs what a wrong PIN costs
			return nil, err
		}
	}
	if s.opts.PINChecks != nil {
		s.opts.PINChecks.Add(1)
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(req.PIN)) != nil || !a.known {
		return nil, s.pinRefused(ctx, c, a, typed, req.TerminalID, why, attrs)
	}
	if c == SignInPINs && a.staff.Site != booking.AllSites {
		if err := s.signInAt(ctx, a.staff, req, why); err != nil {
			return nil, err
		}
	}
	return s.pinAccepted(ctx, c, a.staff, req.Terminal, why, need)
}

// pinRefused logs and audits a compared attempt that failed, and returns
// what the counter is told: the same words for a wrong PIN and a name
// nobody has.
func (s *Store) pinRefused(ctx context.Context, c PINCounter, a pinAttempt, typed booking.Actor, terminalID int64, why string, attrs []any) error {
	reason := "wrong PIN"
	if !a.known {
		reason = "unknown or disabled name"
	}
	s.log.Warn(string(c)+" failed", append(attrs, "reason", reason, "attempt", a.n)...)
	if a.n >= booking.MaxPINFailures {
		s.log.Warn(string(c)+" locked", "name", typed.Name, "for", booking.PINLockout)
	}
	failed, _ := c.audits()
	err := apply(s, ctx, booking.Actor{TerminalID: terminalID}, Write{Op: string(c) + " failed"}, func(tx Tx) error {
		return Audit(tx, typed, booking.AuditEntry{Action: failed, Detail: fmt.Sprintf("%s, attempt %d, %s", reason, a.n, why)}, 0)
	})
	if err != nil {
		return err
	}
	return booking.Errorf(booking.EForbidden, "Wrong name or PIN.")
}

// pinAccepted clears the count of a name whose PIN was right and writes
// its audit row: ok, or failed when the person may not do need.
func (s *Store) pinAccepted(ctx context.Context, c PINCounter, st booking.Staff, terminal, why string, need booking.Action) (*booking.Staff, error) {
	who := booking.Actor{StaffID: st.ID, Name: st.Name, Role: st.Role, Terminal: terminal}
	failed, ok := c.audits()
	e := booking.AuditEntry{Action: ok, Detail: why}
	refused := need != "" && booking.Authorize(who, need) != nil
	if refused {
		e = booking.AuditEntry{Action: failed, Detail: fmt.Sprintf("a %s may not approve; %s", st.Role, why)}
	}
	err := apply(s, ctx, booking.System, Write{Op: string(c) + " ok"}, func(tx Tx) error {
		if err := tx.ClearPINFailures(c, st.Name); err != nil {
			return err
		}
		return Audit(tx, who, e, 0)
	})
	switch {
	case err != nil:
		return nil, err
	case refused:
		return nil, booking.Errorf(booking.EForbidden, "%s is a %s; a supervisor or manager must approve.", st.Name, st.Role)
	}
	return &st, nil
}

// signInAt refuses, after a right PIN, a member of staff of one site
// signing in at a terminal (or a local counter, req.Site) of another:
// the count is cleared (the PIN was right) and the refusal audited, but
// it counts towards no lockout.
func (s *Store) signInAt(ctx context.Context, st booking.Staff, req booking.SignInRequest, why string) error {
	who := booking.Actor{StaffID: st.ID, Name: st.Name, Role: st.Role, Terminal: req.Terminal}
	refusal, err := write(s, ctx, booking.System, Write{Op: "sign-in site"}, func(tx Tx) (error, error) {
		at := req.Site
		if req.TerminalID != 0 {
			site, found, err := tx.TerminalSite(req.TerminalID)
			if err != nil {
				return nil, err
			}
			if !found {
				return nil, booking.ErrWithdrawn
			}
			at = site
		}
		if booking.SiteServes(at, st.Site) {
			return nil, nil
		}
		home, err := tx.SiteName(st.Site)
		if err != nil {
			return nil, err
		}
		here, err := tx.SiteName(at)
		if err != nil {
			return nil, err
		}
		if err := tx.ClearPINFailures(SignInPINs, st.Name); err != nil {
			return nil, err
		}
		failed, _ := SignInPINs.audits()
		if err := Audit(tx, who, booking.AuditEntry{Action: failed, Detail: "works at " + home + ", not at " + here + "; " + why}, 0); err != nil {
			return nil, err
		}
		return booking.Errorf(booking.EForbidden, "%s works at %s, not at %s.", st.Name, home, here), nil
	})
	if err != nil {
		return err
	}
	if refusal != nil {
		s.log.Warn("sign-in refused", "name", st.Name, "terminal", booking.CleanLine(req.Terminal, 60), "reason", "another site")
	}
	return refusal
}

// reservePIN counts one attempt for the name typed, or finds it locked,
// and reads the staff row the PIN is to be compared with, all in one
// transaction. A locked name's attempt is refused here, and its audit row
// written.
func (s *Store) reservePIN(ctx context.Context, c PINCounter, typed booking.Actor, terminalID int64) (pinAttempt, error) {
	return write(s, ctx, booking.Actor{TerminalID: terminalID}, Write{Op: string(c)}, func(tx Tx) (pinAttempt, error) {
		a, err := countAttempt(tx, c, typed.Name)
		if err == nil && a.locked > 0 {
			failed, _ := c.audits()
			err = Audit(tx, typed, booking.AuditEntry{Action: failed, Detail: "locked"}, 0)
		}
		return a, err
	})
}

// countAttempt is reservePIN's transaction: a live lock refuses the
// attempt uncounted; a lock that ran out starts the count again; the
// attempt that reaches booking.MaxPINFailures sets the lock, so the
// attempts arriving while it is compared are refused.
func countAttempt(tx Tx, c PINCounter, name string) (pinAttempt, error) {
	var a pinAttempt
	failures, lockedUntil, err := tx.PINFailuresForUpdate(c, name)
	if err != nil {
		return a, err
	}
	now := tx.Now().UnixMilli()
	if LockLive(lockedUntil, now) {
		a.locked = time.Duration(lockedUntil-now) * time.Millisecond
		return a, nil
	}
	if lockedUntil != 0 {
		failures = 0 // the lock ran out: the count starts again
	}
	a.n = failures + 1
	lock := int64(0)
	if a.n >= booking.MaxPINFailures {
		lock = now + lockoutMS
	}
	if err := tx.SetPINFailures(c, name, a.n, lock); err != nil {
		return a, err
	}
	sp, found, err := tx.StaffByName(name)
	if err != nil || !found {
		return a, err
	}
	role, rerr := booking.ParseRole(sp.Role)
	a.staff, a.hash = sp.Staff, sp.PINHash
	a.staff.Role = role
	a.known = !a.staff.Disabled && rerr == nil
	return a, nil
}

// ClearPINLocks lifts a name's lockouts on every counter, in tx.
func ClearPINLocks(tx Tx, name string) error {
	for _, c := range PINCounters {
		if err := tx.ClearPINFailures(c, name); err != nil {
			return err
		}
	}
	return nil
}

// defaultDummyHash is a bcrypt hash, at the default cost, of 32 random
// bytes nobody kept. Made once rather than on every open, where hashing
// cost every command 70 ms.
const defaultDummyHash = "$2a$10$98UivpUasEIaZEZ5O9DpR.uRVnI9BP/CcXVdr5CeI8ggZBq2sIY0K"

// dummyHash is compared against when a name is unknown or disabled, so an
// unknown name costs the time a wrong PIN costs: defaultDummyHash, or at
// another cost (tests lower it) one made on first use.
func (s *Store) dummyHash() ([]byte, error) {
	s.dummyOnce.Do(func() {
		if s.opts.PINCost == 0 || s.opts.PINCost == bcrypt.DefaultCost {
			s.dummy = []byte(defaultDummyHash)
			return
		}
		s.dummy, s.dummyErr = bcrypt.GenerateFromPassword([]byte("not-a-real-pin"), s.opts.PINCost)
	})
	return s.dummy, s.dummyErr
}

// Approval is who authorized a cancel or refund: the approver's name (""
// when the actor's own role sufficed) and the higher of the two roles,
// which decides whether a started show may be refunded.
type Approval struct {
	Name string
	Role booking.Role
}

// Approve authorizes action for actor, or for the supervisor or manager
// whose name and PIN were typed at the actor's counter. Given an approver,
// their PIN is checked (on the approval counter) even when the actor's
// own role would do: a supervisor asks a manager to refund a show that
// has started. what names what is approved for the audit trail ("refund
// of BO-…").
func Approve(s *Store, ctx context.Context, actor booking.Actor, action booking.Action, approver *booking.Credentials, addr, what string) (Approval, error) {
	own := booking.Authorize(actor, action)
	if approver == nil {
		return Approval{Role: actor.Role}, own
	}
	sup, err := s.approve(ctx, actor, approver, addr, what)
	if err != nil {
		return Approval{}, err
	}
	if err := booking.Authorize(booking.Actor{Name: sup.Name, Role: sup.Role}, action); err != nil {
		if own != nil {
			return Approval{}, booking.Errorf(booking.EForbidden, "%s is a %s; a supervisor or manager must approve.", sup.Name, sup.Role)
		}
		return Approval{Role: actor.Role}, nil // no approval: never recorded as one
	}
	return Approval{Name: sup.Name, Role: max(actor.Role, sup.Role)}, nil
}
