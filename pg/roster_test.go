package pg_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
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

// rostered opens two stores (two servers) on one database of the
// test's own seeded with rosterSeed.
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
	t.Parallel()
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
	t.Parallel()
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

// Setup's Empty and IsDemo: a new database is empty; seeded, it says
// whether with the demo.
func TestSetup_EmptyAndDemo(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
// db's words, and a sign-in leaves its audit row. The roster's own rows
// are the contract's (Roster/AuditRows).
func TestSignIn_LogsFailuresAndAudits(t *testing.T) {
	t.Parallel()
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
	signIn(t, s, "mia")
	if n := auditCount(t, u, booking.AuditSignIn, "from local"); n != 1 {
		t.Errorf("%d sign-in audit rows, want 1", n)
	}
}
