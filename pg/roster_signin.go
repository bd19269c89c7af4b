package pg

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/crypto/bcrypt"

	"boxoffice/booking"
)

// pinCost is the bcrypt cost of every PIN hash this package makes (db's
// Options.PINCost default); the tests lower it, as db's do, because the
// race detector makes each hash slow.
var pinCost = bcrypt.DefaultCost

// dummyHash is compared against when a name is unknown or disabled, so an
// unknown name costs the time a wrong PIN costs. Made on first use, at
// pinCost.
var dummyHash = sync.OnceValues(func() ([]byte, error) {
	return bcrypt.GenerateFromPassword([]byte("not-a-real-pin"), pinCost)
})

// pinChecks counts each store's PIN comparisons (PINChecks), beside the
// Store rather than in it: the count is for tests and the stats.
var pinChecks sync.Map // *Store -> *atomic.Int64

// PINChecks is how many PINs this store compared with bcrypt, as db's
// Stats().PINChecks: what the lockout bounds.
func (s *Store) PINChecks() int64 {
	if v, ok := pinChecks.Load(s); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

func (s *Store) countPINCheck() {
	v, _ := pinChecks.LoadOrStore(s, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

// lockoutMS is booking.PINLockout in milliseconds, as the failure tables
// store time; clockSlackMS is how far a lock may end beyond it and still
// be believed (db's clockSlackMS, repeated: a lock ending further ahead
// was set on a clock since set back, and has run out, as in db's lockLive).
const (
	lockoutMS    = int64(booking.PINLockout / time.Millisecond)
	clockSlackMS = 2000
)

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

// checkPIN counts the attempt first, in a transaction of its own that
// commits before the PIN is compared, and compares the PIN only when the
// attempt was within the bound: however many attempts arrive at once, on
// however many servers, at most booking.MaxPINFailures are compared
// before the name locks. A right PIN clears the count. Every attempt
// leaves one audit row, c.failed under the name typed or c.ok under the
// person whose PIN it was, saying what was approved (why) or from where.
// An approval (need set) by someone whose role may not do need is
// refused after the right PIN, and recorded as the failed approval it is.
// As db's checkPIN, whose messages these are.
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
	hash := []byte(a.hash)
	if !a.known {
		if hash, err = dummyHash(); err != nil {
			return nil, s.translate(c.what, err)
		}
	}
	s.countPINCheck()
	if bcrypt.CompareHashAndPassword(hash, []byte(req.PIN)) != nil || !a.known {
		return nil, s.pinRefused(ctx, c, a, typed, req.TerminalID, why, attrs)
	}
	if c.table == signInPINs.table {
		return s.signInAt(ctx, a.staff, req, why)
	}
	return s.pinAccepted(ctx, c, a.staff, req.Terminal, why, need)
}

// pinRefused logs and audits a compared attempt that failed, and returns
// what the counter is told: the same words for a wrong PIN and a name
// nobody has.
func (s *Store) pinRefused(ctx context.Context, c pinCounter, a pinAttempt, typed booking.Actor, terminalID int64, why string, attrs []any) error {
	reason := "wrong PIN"
	if !a.known {
		reason = "unknown or disabled name"
	}
	s.log.Warn(c.what+" failed", append(attrs, "reason", reason, "attempt", a.n)...)
	if a.n >= booking.MaxPINFailures {
		s.log.Warn(c.what+" locked", "name", typed.Name, "for", booking.PINLockout)
	}
	_, err := inTx(s, ctx, c.what+" failed", txMode{iso: pgx.ReadCommitted}, func(t *tx) (struct{}, error) {
		if err := checkActor(t, booking.Actor{TerminalID: terminalID}); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, audit(t, typed, booking.AuditEntry{Action: c.failed, Detail: fmt.Sprintf("%s, attempt %d, %s", reason, a.n, why)}, 0)
	})
	if err != nil {
		return err
	}
	return booking.Errorf(booking.EForbidden, "Wrong name or PIN.")
}

// pinAccepted clears the count of a name whose PIN was right and writes
// its audit row: c.ok, or c.failed when the person may not do need. READ
// COMMITTED: one DELETE by key and one INSERT.
func (s *Store) pinAccepted(ctx context.Context, c pinCounter, st booking.Staff, terminal, why string, need booking.Action) (*booking.Staff, error) {
	who := booking.Actor{StaffID: st.ID, Name: st.Name, Role: st.Role, Terminal: terminal}
	e := booking.AuditEntry{Action: c.ok, Detail: why}
	refused := need != "" && booking.Authorize(who, need) != nil
	if refused {
		e = booking.AuditEntry{Action: c.failed, Detail: fmt.Sprintf("a %s may not approve; %s", st.Role, why)}
	}
	_, err := inTx(s, ctx, c.what+" ok", txMode{iso: pgx.ReadCommitted}, func(t *tx) (struct{}, error) {
		if _, err := t.Exec(t.ctx, `DELETE FROM `+c.table+` WHERE name = lower($1)`, st.Name); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, audit(t, who, e, 0)
	})
	switch {
	case err != nil:
		return nil, err
	case refused:
		return nil, booking.Errorf(booking.EForbidden, "%s is a %s; a supervisor or manager must approve.", st.Name, st.Role)
	}
	return &st, nil
}

// reservePIN counts one attempt for the name typed, or finds it locked,
// and reads the staff row the PIN is to be compared with, all in one
// transaction. A locked name's attempt is refused here, and its audit row
// written. READ COMMITTED is enough: the count is one atomic upsert
// (qCountAttempt), whose row lock queues the attempts for one name, each
// seeing the count the one before it committed; nothing is read first
// and written after.
func (s *Store) reservePIN(ctx context.Context, c pinCounter, typed booking.Actor, terminalID int64) (pinAttempt, error) {
	return inTx(s, ctx, c.what, txMode{iso: pgx.ReadCommitted}, func(t *tx) (pinAttempt, error) {
		if err := checkActor(t, booking.Actor{TerminalID: terminalID}); err != nil {
			return pinAttempt{}, err
		}
		a, err := countAttempt(t, c, typed.Name)
		if err == nil && a.locked > 0 {
			err = audit(t, typed, booking.AuditEntry{Action: c.failed, Detail: "locked"}, 0)
		}
		return a, err
	})
}

// qCountAttempt counts one attempt on the failure table %[1]s in one
// statement: $1 the name, $2 now, $3 now + the lockout, $4
// booking.MaxPINFailures, $5 the latest end of a lock still believed. A
// live lock keeps its end and counts the attempt past the bound (so an
// attempt numbered beyond it was refused, never compared); a lock that
// ran out starts the count again; the attempt that reaches the bound sets
// the lock, so the attempts arriving while it is compared are refused.
const qCountAttempt = `INSERT INTO %[1]s AS f (name, failures, locked_until)
	VALUES (lower($1), 1, CASE WHEN 1 >= $4::integer THEN $3::bigint ELSE 0 END)
	ON CONFLICT (name) DO UPDATE SET
		failures = CASE
			WHEN f.locked_until > $2::bigint AND f.locked_until <= $5::bigint THEN greatest(f.failures, $4::integer) + 1
			WHEN f.locked_until <> 0 THEN 1
			ELSE f.failures + 1 END,
		locked_until = CASE
			WHEN f.locked_until > $2::bigint AND f.locked_until <= $5::bigint THEN f.locked_until
			WHEN f.locked_until <> 0 THEN CASE WHEN 1 >= $4::integer THEN $3::bigint ELSE 0 END
			WHEN f.failures + 1 >= $4::integer THEN $3::bigint
			ELSE 0 END
	RETURNING failures, locked_until`

// countAttempt is reservePIN's work: the count, then the staff row.
func countAttempt(t *tx, c pinCounter, name string) (pinAttempt, error) {
	var a pinAttempt
	now := t.nowMS()
	var until int64
	err := t.QueryRow(t.ctx, fmt.Sprintf(qCountAttempt, c.table), name, now, now+lockoutMS, booking.MaxPINFailures, now+lockoutMS+clockSlackMS).
		Scan(&a.n, &until)
	if err != nil {
		return a, err
	}
	if a.n > booking.MaxPINFailures {
		a.locked = time.Duration(until-now) * time.Millisecond
		return a, nil
	}
	var role string
	err = t.QueryRow(t.ctx, `SELECT id, name, role, pin_hash, disabled, key_fp IS NOT NULL, coalesce(site_id, 0) FROM staff WHERE lower(name) = lower($1)`, name).
		Scan(&a.staff.ID, &a.staff.Name, &role, &a.hash, &a.staff.Disabled, &a.staff.HasKey, &a.staff.Site)
	if errors.Is(err, pgx.ErrNoRows) {
		return a, nil
	}
	if err != nil {
		return a, err
	}
	r, rerr := booking.ParseRole(role)
	a.staff.Role = r
	a.known = !a.staff.Disabled && rerr == nil
	return a, nil
}

// clearPINLocks lifts name's lockouts: sign-in, approvals and the kiosk's
// staff chord.
func clearPINLocks(t *tx, name string) error {
	for _, c := range []pinCounter{signInPINs, approvalPINs, kioskPINs} {
		if _, err := t.Exec(t.ctx, `DELETE FROM `+c.table+` WHERE name = lower($1)`, name); err != nil {
			return err
		}
	}
	return nil
}
