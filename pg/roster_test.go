package pg_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/crypto/ssh"

	"boxoffice/booking"
	"boxoffice/pg"
)

// rosterSeed is smallSeed with staff, each with PIN 1234.
func rosterSeed(now time.Time) booking.Seed {
	seed := smallSeed(now)
	seed.Staff = []booking.SeedStaff{
		{Name: "sue", Role: booking.RoleSupervisor, PIN: "1234"},
		{Name: "carl", Role: booking.RoleClerk, PIN: "1234"},
		{Name: "mia", Role: booking.RoleManager, PIN: "1234"},
		{Name: "max", Role: booking.RoleManager, PIN: "1234"},
		{Name: "dora", Role: booking.RoleDoor, PIN: "1234"},
	}
	return seed
}

// rostered opens two stores (two servers) on one fresh schema seeded
// with rosterSeed.
func rostered(t *testing.T) (a, b *pg.Store, u string, clk *clock) {
	t.Helper()
	clk = &clock{now: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)}
	u = testURL(t)
	a = MustOpen(t, u, clk)
	if err := a.Seed(context.Background(), rosterSeed(clk.Now()), true); err != nil {
		t.Fatal(err)
	}
	return a, MustOpen(t, u, clk), u, clk
}

// signIn signs name in with PIN 1234 and returns the actor a counter
// would then act as.
func signIn(t *testing.T, s *pg.Store, name string) booking.Actor {
	t.Helper()
	st, err := s.SignIn(context.Background(), booking.SignInRequest{Name: name, PIN: "1234"})
	if err != nil {
		t.Fatalf("sign in %s: %v", name, err)
	}
	return booking.Actor{StaffID: st.ID, Name: st.Name, Role: st.Role, Terminal: "till-1"}
}

// newKey makes an SSH key: its authorized_keys line and its wire form.
func newKey(t *testing.T) ([]byte, []byte) {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return ssh.MarshalAuthorizedKey(k), k.Marshal()
}

// auditCount counts the audit rows of action whose detail starts with
// prefix.
func auditCount(t *testing.T, u string, action booking.AuditAction, prefix string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM audit WHERE action = $1 AND starts_with(detail, $2)`, string(action), prefix).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// guessAtOnce sends 20 sign-ins of name with a wrong PIN at once, half
// to each store, and returns how many were told "wrong" and how many
// "locked".
func guessAtOnce(t *testing.T, stores []*pg.Store, name string) (wrong, locked int) {
	t.Helper()
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, 20)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = stores[i%len(stores)].SignIn(context.Background(), booking.SignInRequest{Name: name, PIN: "9999"})
		}()
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		switch msg := booking.ErrorMessage(err); {
		case msg == "Wrong name or PIN.":
			wrong++
		case strings.HasPrefix(msg, "Too many wrong PINs for "+name+"; try again in "):
			locked++
		default:
			t.Fatalf("attempt: %v", err)
		}
	}
	return wrong, locked
}

// Twenty wrong PINs at once on two servers: each attempt is counted
// before its PIN is compared, so at most five comparisons happen before
// the lock, and the right PIN is refused until the lock ends. A name
// nobody has locks the same way.
func TestSignIn_ParallelGuessesOnTwoServers(t *testing.T) {
	a, b, u, clk := rostered(t)
	ctx := context.Background()
	stores := []*pg.Store{a, b}
	for _, name := range []string{"sue", "nobody"} {
		before := a.PINChecks() + b.PINChecks()
		wrong, locked := guessAtOnce(t, stores, name)
		n := a.PINChecks() + b.PINChecks() - before
		if n > 5 || wrong != int(n) || locked != 20-int(n) {
			t.Fatalf("%s: %d PINs compared (%d wrong, %d locked), want at most 5 compared and the rest locked", name, n, wrong, locked)
		}
		if got := auditCount(t, u, booking.AuditSignInFailed, "locked"); got < locked {
			t.Fatalf("%s: %d audit rows of locked attempts, want at least %d", name, got, locked)
		}
	}
	if n := auditCount(t, u, booking.AuditSignInFailed, "wrong PIN, attempt "); n != 5 {
		t.Fatalf("%d wrong-PIN audit rows for sue, want 5", n)
	}
	if n := auditCount(t, u, booking.AuditSignInFailed, "unknown or disabled name, attempt "); n != 5 {
		t.Fatalf("%d unknown-name audit rows, want 5", n)
	}
	if _, err := b.SignIn(ctx, booking.SignInRequest{Name: "SUE", PIN: "1234"}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("right PIN during the lock (name in capitals): %v", err)
	}
	clk.Add(booking.PINLockout + time.Second)
	if _, err := a.SignIn(ctx, booking.SignInRequest{Name: "sue", PIN: "1234"}); err != nil {
		t.Fatalf("right PIN after the lock: %v", err)
	}
	// The right PIN cleared the count: five more tries before a lock.
	for i := 0; i < 4; i++ {
		if _, err := b.SignIn(ctx, booking.SignInRequest{Name: "sue", PIN: "0000"}); booking.ErrorMessage(err) != "Wrong name or PIN." {
			t.Fatalf("wrong PIN %d: %v", i+1, err)
		}
	}
	if _, err := a.SignIn(ctx, booking.SignInRequest{Name: "sue", PIN: "1234"}); err != nil {
		t.Fatalf("fifth attempt, the right PIN: %v", err)
	}
}

// A lock set on a clock since set back an hour has run out (db's
// lockLive): a fresh count, not an hour and five minutes of lock.
func TestSignIn_LockOnAClockSetBack(t *testing.T) {
	a, _, _, clk := rostered(t)
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		a.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "0000"})
	}
	if _, err := a.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "1234"}); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("right PIN during the lock: %v", err)
	}
	clk.Add(-time.Hour)
	if _, err := a.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "1234"}); err != nil {
		t.Fatalf("right PIN after the clock went back: %v", err)
	}
}

// A disabled clerk is refused at sign-in (in the words of a wrong PIN),
// by key, and in the session they still hold; enabled again, they work.
func TestRoster_DisabledClerkRefused(t *testing.T) {
	a, b, _, _ := rostered(t)
	ctx := context.Background()
	mia := signIn(t, a, "mia")
	line, wire := newKey(t)
	bea, err := a.AddStaff(ctx, mia, "bea", booking.RoleClerk, "4321", line)
	if err != nil || !bea.HasKey {
		t.Fatalf("add bea: %+v, %v", bea, err)
	}
	st, err := b.SignIn(ctx, booking.SignInRequest{Name: "bea", PIN: "4321"})
	if err != nil {
		t.Fatal(err)
	}
	session := booking.Actor{StaffID: st.ID, Name: st.Name, Role: st.Role, Terminal: "till-2"}
	hold := func(seat string) error {
		_, err := b.Hold(ctx, session, booking.HoldRequest{ShowID: 1, Seats: []string{seat}, Owner: "bea-" + seat})
		return err
	}
	if err := hold("A1"); err != nil {
		t.Fatal(err)
	}
	if err := a.DisableStaff(ctx, mia, "Bea"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SignIn(ctx, booking.SignInRequest{Name: "bea", PIN: "4321"}); booking.ErrorMessage(err) != "Wrong name or PIN." {
		t.Fatalf("a disabled clerk's sign-in: %v", err)
	}
	if _, _, err := b.IdentifyKey(ctx, wire); booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("a disabled clerk's key: %v", err)
	}
	if err := hold("A2"); !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("a disabled clerk's session: %v", err)
	}
	if acc, err := b.Access(ctx); err != nil || acc.Allows(st.ID, booking.RoleClerk, 0) || !acc.Allows(mia.StaffID, booking.RoleManager, 0) {
		t.Fatalf("access after disable: %+v, %v", acc, err)
	}
	if err := a.EnableStaff(ctx, mia, "bea"); err != nil {
		t.Fatal(err)
	}
	if got, _, err := b.IdentifyKey(ctx, wire); err != nil || got.Name != "bea" || got.Role != booking.RoleClerk {
		t.Fatalf("key after enable: %+v, %v", got, err)
	}
	if err := hold("A2"); err != nil {
		t.Fatalf("enabled again: %v", err)
	}
}

// The manager screens' work: adding, listing, roles, PINs, lockouts, and
// the refusals with db's words.
func TestRoster_ManageStaff(t *testing.T) {
	a, b, _, _ := rostered(t)
	ctx := context.Background()
	mia := signIn(t, a, "mia")
	if _, err := a.AddStaff(ctx, mia, "SUE", booking.RoleClerk, "5555", nil); booking.ErrorMessage(err) != "There is already staff called SUE." {
		t.Errorf("a name in use: %v", err)
	}
	for what, err := range map[string]error{
		"name": func() error { _, err := a.AddStaff(ctx, mia, " x\x1b", booking.RoleClerk, "5555", nil); return err }(),
		"pin":  func() error { _, err := a.AddStaff(ctx, mia, "zed", booking.RoleClerk, "12", nil); return err }(),
		"role": func() error { _, err := a.AddStaff(ctx, mia, "zed", booking.RoleKiosk, "5555", nil); return err }(),
		"key": func() error {
			_, err := a.AddStaff(ctx, mia, "zed", booking.RoleClerk, "5555", []byte("ssh-rsa nonsense"))
			return err
		}(),
	} {
		if booking.ErrorCode(err) != booking.EInvalid {
			t.Errorf("bad %s: %v", what, err)
		}
	}
	if err := a.DisableStaff(ctx, mia, "MIA"); booking.ErrorMessage(err) != "You can't disable yourself: another manager can, or `boxoffice staff` at the server." {
		t.Errorf("disable yourself: %v", err)
	}
	if err := a.SetRole(ctx, mia, "mia", booking.RoleClerk); booking.ErrorCode(err) != booking.EInvalid {
		t.Errorf("demote yourself: %v", err)
	}
	if err := a.SetRole(ctx, mia, "max", booking.RoleClerk); err != nil {
		t.Errorf("demote another manager: %v", err)
	}
	if err := a.SetRole(ctx, booking.Actor{}, "carl", booking.RoleManager); booking.ErrorCode(err) != booking.EForbidden {
		t.Errorf("RoleNone set a role: %v", err)
	}
	sue := booking.Actor{Name: "sue", Role: booking.RoleSupervisor}
	if err := a.UnlockStaff(ctx, sue, "carl"); booking.ErrorCode(err) != booking.EForbidden {
		t.Errorf("a supervisor unlocked: %v", err)
	}
	if err := a.EnableStaff(ctx, mia, "nobody"); booking.ErrorMessage(err) != "No staff called nobody." {
		t.Errorf("unknown name: %v", err)
	}
	for i := 0; i < 5; i++ {
		b.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "0000"})
	}
	locked := func() bool {
		list, err := a.ListStaff(ctx, mia)
		if err != nil || len(list) != 5 || list[0].Name != "carl" || list[4].Name != "sue" {
			t.Fatalf("list: %+v, %v", list, err)
		}
		return list[0].Locked
	}
	if !locked() {
		t.Fatal("carl not listed as locked after five wrong PINs")
	}
	if err := a.UnlockStaff(ctx, mia, "carl"); err != nil || locked() {
		t.Fatalf("after unlock: locked %v, %v", locked(), err)
	}
	if ok, err := b.PINUnchanged(ctx, "carl"); !ok || err != nil {
		t.Fatalf("PINUnchanged before SetPIN: %v %v", ok, err)
	}
	if err := a.SetPIN(ctx, mia, "carl", "7777"); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.PINUnchanged(ctx, "carl"); ok || err != nil {
		t.Fatalf("PINUnchanged after SetPIN: %v %v", ok, err)
	}
	if _, err := b.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "7777"}); err != nil {
		t.Fatalf("the new PIN: %v", err)
	}
}

// Two servers registering one key at once, one for staff and one for a
// terminal: no index spans the two tables, and SERIALIZABLE lets only
// one of them have it.
func TestRoster_OneKeyOneIdentity(t *testing.T) {
	a, b, _, _ := rostered(t)
	ctx := context.Background()
	for round := 0; round < 5; round++ {
		line, wire := newKey(t)
		var wg sync.WaitGroup
		var errStaff, errTerm error
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, errStaff = a.AddStaff(ctx, booking.System, "k"+string(rune('a'+round)), booking.RoleClerk, "5555", line)
		}()
		go func() {
			defer wg.Done()
			_, errTerm = b.AddTerminal(ctx, booking.System, "till-"+string(rune('a'+round)), line)
		}()
		wg.Wait()
		if (errStaff == nil) == (errTerm == nil) {
			t.Fatalf("round %d: staff %v, terminal %v; want exactly one", round, errStaff, errTerm)
		}
		lost := errors.Join(errStaff, errTerm)
		if booking.ErrorMessage(lost) != "That key is already registered." {
			t.Fatalf("round %d: the loser was told %v", round, lost)
		}
		st, term, err := a.IdentifyKey(ctx, wire)
		if err != nil || (st == nil) == (term == nil) {
			t.Fatalf("round %d: the key names %+v %+v, %v", round, st, term, err)
		}
	}
}

// Terminals: registered, listed, given a printer, found by key, and once
// removed their sessions and sign-ins are refused.
func TestRoster_Terminals(t *testing.T) {
	a, b, _, _ := rostered(t)
	ctx := context.Background()
	mia := signIn(t, a, "mia")
	line, wire := newKey(t)
	term, err := a.AddTerminal(ctx, mia, "till-9", line)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := newKey(t)
	if _, err := a.AddTerminal(ctx, mia, "TILL-9", other); booking.ErrorMessage(err) != "There is already a terminal called TILL-9." {
		t.Errorf("a name in use: %v", err)
	}
	if _, err := a.AddStaff(ctx, mia, "zed", booking.RoleClerk, "5555", line); booking.ErrorMessage(err) != "That key is already registered." {
		t.Errorf("a terminal's key for staff: %v", err)
	}
	if _, err := a.SetTerminalPrinter(ctx, mia, "till-9", "gopher://x"); booking.ErrorCode(err) != booking.EInvalid {
		t.Errorf("bad printer: %v", err)
	}
	if _, err := a.SetTerminalPrinter(ctx, mia, "till-0", ""); booking.ErrorMessage(err) != "No terminal called till-0." {
		t.Errorf("unknown terminal: %v", err)
	}
	if _, err := a.SetTerminalPrinter(ctx, mia, "till-9", "tcp://192.0.2.9:9100"); err != nil {
		t.Fatal(err)
	}
	_, found, err := b.IdentifyKey(ctx, wire)
	if err != nil || found == nil || found.ID != term.ID || found.Printer == "" {
		t.Fatalf("identify the terminal: %+v, %v", found, err)
	}
	if list, err := b.ListTerminals(ctx, mia); err != nil || len(list) != 1 || list[0].Printer != found.Printer {
		t.Fatalf("list: %+v, %v", list, err)
	}
	at := signIn(t, b, "carl")
	at.TerminalID, at.Terminal = term.ID, term.Name
	if _, err := b.Hold(ctx, at, booking.HoldRequest{ShowID: 1, Seats: []string{"B1"}, Owner: "t9"}); err != nil {
		t.Fatal(err)
	}
	if err := a.RemoveTerminal(ctx, mia, "Till-9"); err != nil {
		t.Fatal(err)
	}
	if err := a.RemoveTerminal(ctx, mia, "till-9"); booking.ErrorMessage(err) != "No terminal called till-9." {
		t.Errorf("remove twice: %v", err)
	}
	if _, err := b.Hold(ctx, at, booking.HoldRequest{ShowID: 1, Seats: []string{"B2"}, Owner: "t9"}); !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("a removed terminal's session: %v", err)
	}
	if _, err := b.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "1234", TerminalID: term.ID}); !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("sign-in through a removed terminal: %v", err)
	}
	if _, _, err := b.IdentifyKey(ctx, wire); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("a removed terminal's key: %v", err)
	}
}

// Setup's Empty and IsDemo: a new database is empty; seeded, it says
// whether with the demo.
func TestSetup_EmptyAndDemo(t *testing.T) {
	ctx := context.Background()
	clk := &clock{now: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)}
	for _, demo := range []bool{false, true} {
		s := MustOpen(t, testURL(t), clk)
		if empty, err := s.Empty(ctx); !empty || err != nil {
			t.Fatalf("new database: empty %v, %v", empty, err)
		}
		if err := s.Seed(ctx, booking.Seed{}, demo); err != nil {
			t.Fatal(err)
		}
		empty, err := s.Empty(ctx)
		isDemo, derr := s.IsDemo(ctx)
		if empty || err != nil || isDemo != demo || derr != nil {
			t.Fatalf("seeded (demo %v): empty %v %v, demo %v %v", demo, empty, err, isDemo, derr)
		}
	}
}

// Every PIN hash has one cost, seeded or added: an unknown name is
// compared against a dummy hash of that cost, so only then does it cost
// what a wrong PIN costs.
func TestRoster_OneHashCost(t *testing.T) {
	a, _, u, _ := rostered(t)
	ctx := context.Background()
	if _, err := a.AddStaff(ctx, booking.System, "zed", booking.RoleClerk, "5555", nil); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT name, pin_hash FROM staff ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	costs := map[int][]string{}
	var name, hash string
	if _, err := pgx.ForEachRow(rows, []any{&name, &hash}, func() error {
		c, err := bcrypt.Cost([]byte(hash))
		costs[c] = append(costs[c], name)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(costs) != 1 {
		t.Fatalf("PIN hashes of several costs: %v", costs)
	}
}

// syncBuffer collects a store's log lines; safe for its goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Every failed sign-in is logged with name, terminal and address, in
// db's words, and every roster write leaves its audit row.
func TestSignIn_LogsFailuresAndAudits(t *testing.T) {
	_, _, u, clk := rostered(t)
	logs := &syncBuffer{}
	s, err := pg.Open(context.Background(), u, pg.Options{Clock: clk.Now, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	s.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "0000", Terminal: "till-4", Addr: "192.0.2.7:5111"})
	s.SignIn(ctx, booking.SignInRequest{Name: "nobody", PIN: "0000", Terminal: "till-4", Addr: "192.0.2.7:5112"})
	out := logs.String()
	for _, want := range []string{
		`msg="sign-in failed" name=carl terminal=till-4 addr=192.0.2.7:5111 reason="wrong PIN" attempt=1`,
		`msg="sign-in failed" name=nobody terminal=till-4 addr=192.0.2.7:5112 reason="unknown or disabled name" attempt=1`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
	mia := signIn(t, s, "mia")
	if n := auditCount(t, u, booking.AuditSignIn, "from local"); n != 1 {
		t.Errorf("%d sign-in audit rows, want 1", n)
	}
	line, _ := newKey(t)
	for _, err := range []error{
		s.DisableStaff(ctx, mia, "carl"), s.EnableStaff(ctx, mia, "carl"), s.SetRole(ctx, mia, "carl", booking.RoleSupervisor),
		s.SetPIN(ctx, mia, "carl", "9876"), s.UnlockStaff(ctx, mia, "carl"),
		func() error { _, err := s.AddTerminal(ctx, mia, "till-4", line); return err }(),
		func() error { _, err := s.SetTerminalPrinter(ctx, mia, "till-4", ""); return err }(),
		s.RemoveTerminal(ctx, mia, "till-4"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for prefix, want := range map[string]int{"carl: ": 5, "till-4: ": 0} {
		if n := auditCount(t, u, booking.AuditStaffChange, prefix); n != want {
			t.Errorf("%d staff-change audit rows for %q, want %d", n, prefix, want)
		}
	}
	if n := auditCount(t, u, booking.AuditTerminalChange, "till-4: "); n != 3 {
		t.Errorf("%d terminal audit rows, want 3", n)
	}
	if err := s.DisableStaff(ctx, mia, "nobody"); booking.ErrorCode(err) != booking.ENotFound {
		t.Errorf("disable nobody: %v", err)
	}
	if n := auditCount(t, u, booking.AuditStaffChange, "nobody"); n != 0 {
		t.Errorf("a refused change audited %d times", n)
	}
}
