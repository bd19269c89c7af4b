package contract

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
)

// staffAdmin is what rosterCases need of booking.Roster.
type staffAdmin interface {
	roster
	SetPIN(ctx context.Context, actor booking.Actor, name, pin string) error
	PINUnchanged(ctx context.Context, name string) (bool, error)
	UnlockStaff(ctx context.Context, actor booking.Actor, name string) error
	SetRole(ctx context.Context, actor booking.Actor, name string, role booking.Role) error
}

const needRoster = "SignIn, SetPIN, PINUnchanged, UnlockStaff, SetRole, DisableStaff and EnableStaff (booking.Roster)"

// rosterCases: sign-in and its lockout, managing staff, their keys and
// the terminals.
var rosterCases = []testCase{
	{"SignInLockout", rosterSignIn},
	{"ParallelGuesses", rosterParallelGuesses},
	{"PIN", rosterPIN},
	{"RoleAndEnable", rosterRoleAndEnable},
	{"Err", rosterErr},
	{"Keys", rosterKeys},
	{"ErrAddStaff", rosterErrAddStaff},
	{"OneKeyOneIdentity", rosterOneKeyOneIdentity},
	{"Terminals", rosterTerminals},
	{"TerminalRemoved", rosterTerminalRemoved},
	{"Demoted", rosterDemoted},
	{"Access", rosterAccess},
	{"NotYourself", rosterNotYourself},
	{"ListStaffLocked", rosterListStaffLocked},
	{"AuditRows", rosterAuditRows},
}

func signIn(r staffAdmin, e *env, name, pin string) error {
	_, err := r.SignIn(e.ctx, booking.SignInRequest{Name: name, PIN: pin})
	return err
}

// rosterSignIn: five wrong PINs lock the name for five minutes; unknown
// names answer like wrong PINs.
func rosterSignIn(t *testing.T, e *env) {
	r := need[staffAdmin](t, e, needRoster)
	if st, err := r.SignIn(e.ctx, booking.SignInRequest{Name: "carl", PIN: "1234"}); err != nil || st.Role != booking.RoleClerk {
		t.Fatalf("%+v %v", st, err)
	}
	for range 5 {
		wantMessage(t, "a wrong PIN", signIn(r, e, "carl", "0000"), "Wrong name or PIN.")
	}
	wantCode(t, "a locked name's right PIN", signIn(r, e, "carl", "1234"), booking.EForbidden)
	e.clock.Add(5*time.Minute + time.Second)
	if err := signIn(r, e, "carl", "1234"); err != nil {
		t.Fatalf("after the lockout: %v", err)
	}
	wantMessage(t, "an unknown name", signIn(r, e, "nobody", "1234"), "Wrong name or PIN.")
	if err := r.UnlockStaff(e.ctx, booking.System, "nobody"); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("unlock of an unknown name: %v", err)
	}
}

// rosterParallelGuesses: twenty wrong PINs at once; each attempt is
// counted before its PIN is compared, so at most five are told "wrong"
// and the rest are locked out, and the right PIN waits for the lock.
func rosterParallelGuesses(t *testing.T, e *env) {
	r := need[staffAdmin](t, e, needRoster)
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, 20)
	for i := range errs {
		wg.Go(func() {
			<-start
			errs[i] = signIn(r, e, "sue", "9999")
		})
	}
	close(start)
	wg.Wait()
	wrong, locked := 0, 0
	for _, err := range errs {
		switch msg := booking.ErrorMessage(err); {
		case msg == "Wrong name or PIN.":
			wrong++
		case strings.HasPrefix(msg, "Too many wrong PINs for sue"):
			locked++
		default:
			t.Fatalf("attempt: %v", err)
		}
	}
	if wrong > 5 || wrong+locked != 20 {
		t.Fatalf("%d wrong, %d locked: want at most 5 compared and the rest locked", wrong, locked)
	}
	wantCode(t, "the right PIN during the lock", signIn(r, e, "sue", "1234"), booking.EForbidden)
	e.clock.Add(5*time.Minute + time.Second)
	if err := signIn(r, e, "sue", "1234"); err != nil {
		t.Fatalf("the right PIN after the lock: %v", err)
	}
	// The right PIN cleared the count: five more tries before a lock.
	for range 4 {
		signIn(r, e, "sue", "0000")
	}
	if err := signIn(r, e, "sue", "1234"); err != nil {
		t.Fatalf("fifth attempt, the right PIN: %v", err)
	}
}

func rosterPIN(t *testing.T, e *env) {
	r := need[staffAdmin](t, e, needRoster)
	if ok, err := r.PINUnchanged(e.ctx, "mgr"); !ok || err != nil {
		t.Fatalf("PINUnchanged before a change: %v %v", ok, err)
	}
	for range 5 {
		signIn(r, e, "mgr", "0000")
	}
	if err := r.SetPIN(e.ctx, booking.System, "mgr", "8642"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "the old PIN", signIn(r, e, "mgr", "1234"), booking.EForbidden)
	if err := signIn(r, e, "mgr", "8642"); err != nil {
		t.Fatalf("the new PIN (which lifts the lock too): %v", err)
	}
	if ok, _ := r.PINUnchanged(e.ctx, "mgr"); ok {
		t.Fatal("PINUnchanged after a change")
	}
	for range 5 {
		signIn(r, e, "carl", "0000")
	}
	wantCode(t, "a locked name", signIn(r, e, "carl", "1234"), booking.EForbidden)
	if err := r.UnlockStaff(e.ctx, booking.System, "carl"); err != nil {
		t.Fatal(err)
	}
	if err := signIn(r, e, "carl", "1234"); err != nil {
		t.Fatalf("after unlock: %v", err)
	}
}

func rosterRoleAndEnable(t *testing.T, e *env) {
	r := need[staffAdmin](t, e, needRoster)
	if err := r.SetRole(e.ctx, booking.System, "dora", booking.RoleSupervisor); err != nil {
		t.Fatal(err)
	}
	if err := r.DisableStaff(e.ctx, booking.System, "dora"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "a disabled name", signIn(r, e, "dora", "1234"), booking.EForbidden)
	if err := r.EnableStaff(e.ctx, booking.System, "dora"); err != nil {
		t.Fatal(err)
	}
	st, err := r.SignIn(e.ctx, booking.SignInRequest{Name: "dora", PIN: "1234"})
	if err != nil || st.Role != booking.RoleSupervisor {
		t.Fatalf("enabled supervisor: %+v %v", st, err)
	}
}

func rosterErr(t *testing.T, e *env) {
	r := need[staffAdmin](t, e, needRoster)
	wantCode(t, "enable an unknown name", r.EnableStaff(e.ctx, booking.System, "nobody"), booking.ENotFound)
	wantCode(t, "a short PIN", r.SetPIN(e.ctx, booking.System, "carl", "12"), booking.EInvalid)
	wantCode(t, "the kiosk role", r.SetRole(e.ctx, booking.System, "carl", booking.RoleKiosk), booking.EInvalid)
	for name, err := range map[string]error{
		"enable": r.EnableStaff(e.ctx, supervisor, "carl"),
		"unlock": r.UnlockStaff(e.ctx, supervisor, "carl"),
		"pin":    r.SetPIN(e.ctx, supervisor, "carl", "5555"),
		"role":   r.SetRole(e.ctx, supervisor, "carl", booking.RoleManager),
	} {
		wantCode(t, "a supervisor's "+name, err, booking.EForbidden)
	}
}

// setupCases: a store seeded once.
var setupCases = []testCase{
	{"SeedTwiceRefused", setupSeedTwice},
	{"NotEmptyNotDemo", setupNotEmpty},
}

func setupSeedTwice(t *testing.T, e *env) {
	err := e.s.Seed(e.ctx, e.seed, false)
	wantCode(t, "a second seed", err, booking.EConflict)
	wantMessage(t, "a second seed", err, "The database already has a cinema.")
	e.counts(t, 0, 0)
}

// setupReader is booking.Setup's Empty and IsDemo.
type setupReader interface {
	Empty(ctx context.Context) (bool, error)
	IsDemo(ctx context.Context) (bool, error)
}

func setupNotEmpty(t *testing.T, e *env) {
	r := need[setupReader](t, e, "Empty and IsDemo (booking.Setup)")
	if empty, err := r.Empty(e.ctx); empty || err != nil {
		t.Fatalf("empty after a seed: %v %v", empty, err)
	}
	if demo, err := r.IsDemo(e.ctx); demo || err != nil {
		t.Fatalf("demo after seeding a cinema of its own: %v %v", demo, err)
	}
}
