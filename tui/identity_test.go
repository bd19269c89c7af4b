package tui

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	gossh "golang.org/x/crypto/ssh"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
)

// identityValues are the values that say who acts or where: the counter
// builds them in identity.go only.
var identityValues = map[string]bool{"Actor": true, "SignInRequest": true, "CancelRequest": true}

// Every Actor, SignInRequest and CancelRequest the counter sends is built
// in identity.go, from the clerk signed in and the terminal and address
// the host gave: one built anywhere else (or booking.System, an actor
// that may do anything) could act under another identity.
func TestIdentity_OnePlace(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	inIdentity := map[string]int{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			what := identityBuilt(n)
			switch {
			case what == "":
			case name == "identity.go":
				inIdentity[what]++
			default:
				t.Errorf("%s: %s outside identity.go: ask m.actor(), m.signInRequest or m.cancelRequest", fset.Position(n.Pos()), what)
			}
			return true
		})
	}
	for v := range identityValues {
		if inIdentity["booking."+v] == 0 {
			t.Errorf("identity.go builds no booking.%s: the check is broken", v)
		}
	}
}

// identityBuilt names the identity value n makes, or "".
func identityBuilt(n ast.Node) string {
	bookingType := func(e ast.Expr) string {
		if sel, ok := e.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "booking" && identityValues[sel.Sel.Name] {
				return "booking." + sel.Sel.Name
			}
		}
		return ""
	}
	switch n := n.(type) {
	case *ast.CompositeLit:
		return bookingType(n.Type)
	case *ast.ValueSpec:
		return bookingType(n.Type)
	case *ast.CallExpr:
		if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "new" && len(n.Args) == 1 {
			return bookingType(n.Args[0])
		}
	case *ast.SelectorExpr:
		if x, ok := n.X.(*ast.Ident); ok && x.Name == "booking" && n.Sel.Name == "System" {
			return "booking.System"
		}
	}
	return ""
}

// logBuffer collects a store's log lines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// line returns the first line holding every part, or "".
func (l *logBuffer) line(parts ...string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range strings.Split(l.b.String(), "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return line
		}
	}
	return ""
}

// registerTerminal registers a counter device with a fresh key.
func registerTerminal(tb testing.TB, s *db.Store, name string) *booking.Terminal {
	tb.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		tb.Fatal(err)
	}
	term, err := s.AddTerminal(context.Background(), booking.System, name, gossh.MarshalAuthorizedKey(signer.PublicKey()))
	if err != nil {
		tb.Fatal(err)
	}
	return term
}

// The terminal and address in Options reach the store on every kind of
// call that names someone: a failed PIN is logged with them, a sale
// records the terminal, a failed approval is logged with them, and once
// the terminal is removed the next write is refused, which ends the
// session.
func TestModel_IdentityReachesStore(t *testing.T) {
	t.Parallel()
	clock := newClock()
	logs := &logBuffer{}
	opts := storeOptions(clock)
	opts.Logger = slog.New(slog.NewTextHandler(logs, nil))
	s, _ := dbtest.MustOpenDemo(t, opts)
	addStaff(t, s, "carl", booking.RoleClerk, "2468")
	term := registerTerminal(t, s, "till-4")
	const addr = "192.0.2.7:40001"
	m := New(Options{Store: s, Owner: "till-4/1", Terminal: "till-4", TerminalID: term.ID, Addr: addr, Now: clock.Now})
	m.parkBlocking = true
	t.Cleanup(m.Close)
	send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	run(t, m, m.Init())

	typeText(t, m, "carl")
	press(t, m, "enter")
	typeText(t, m, "0000")
	press(t, m, "enter")
	if l := logs.line("sign-in failed", "name=carl", "terminal=till-4", "addr="+addr); l == "" {
		t.Errorf("the failed PIN was not logged with the terminal and address:\n%s", logs.b.String())
	}

	signIn(t, m, "carl", "2468")
	openGrand(t, m)
	press(t, m, "2", "b", "enter", "enter", "enter") // exact cash
	if m.screen != screenDone {
		t.Fatalf("sale: screen %v status %q", m.screen, m.status)
	}
	sold, err := s.Booking(context.Background(), booking.System, m.done.booking.Number)
	if err != nil {
		t.Fatal(err)
	}
	if sold.Terminal != "till-4" || sold.SoldBy != "carl" {
		t.Errorf("sale recorded at %q by %q, want till-4 and carl", sold.Terminal, sold.SoldBy)
	}

	press(t, m, "ctrl+f")
	typeText(t, m, sold.Number)
	press(t, m, "enter", "tab", "c")
	typeText(t, m, "changed plans")
	press(t, m, "enter")
	typeText(t, m, assets.DemoUser)
	press(t, m, "enter")
	typeText(t, m, "9999")
	press(t, m, "enter", "right", "enter")
	if !strings.Contains(m.status, "Wrong name or PIN.") {
		t.Fatalf("wrong approval: status %q", m.status)
	}
	if l := logs.line("approval failed", "name="+assets.DemoUser, "terminal=till-4", "addr="+addr); l == "" {
		t.Errorf("the failed approval was not logged with the terminal and address:\n%s", logs.b.String())
	}

	if err := s.RemoveTerminal(context.Background(), booking.System, "till-4"); err != nil {
		t.Fatal(err)
	}
	press(t, m, "esc", "esc", "esc", "ctrl+d")
	typeText(t, m, sold.Tickets[0].Code)
	press(t, m, "enter") // a write: refused, the terminal is gone
	if !m.Withdrawn() || !strings.Contains(screenText(m), "Your access was withdrawn.") {
		t.Fatalf("after the terminal was removed: withdrawn %v, screen:\n%s", m.Withdrawn(), screenText(m))
	}
	if b, _ := s.Booking(context.Background(), booking.System, sold.Number); b.Tickets[0].Status != booking.TicketIssued {
		t.Errorf("a removed terminal admitted a ticket: %s", b.Tickets[0].Status)
	}
}

// moneyMethods are the store calls that move money: they run to their end
// when the session ends, and Settle waits for them.
var moneyMethods = map[string]bool{"Checkout": true, "Cancel": true,
	// Shifts and refunds.
	"RefundTickets": true, "OpenShift": true, "CloseShift": true,
	// Exchanges (issue 11).
	"Exchange": true,
	// kiosk: paying for a reservation is a sale.
	"PayReservation": true,
	// A show cancelled from the manager screen refunds every booking.
	"CancelShow": true}

// freeMethods need no command of their own: the releases on the way out
// and the change broker name nobody, so the store never refuses them as
// withdrawn; a print job's reads of the settings and tax rates (print.go's
// jobLayout) run in the job, after the sale, and a refusal there prints
// the paper with the defaults rather than losing it.
var freeMethods = map[string]bool{"ReleaseOwner": true, "Changes": true, "Cinema": true, "TaxRates": true}

// Every store call a screen makes is inside a command made by m.call or,
// for money, m.money: that is where a refusal because access was
// withdrawn ends the session, whatever screen asked, and where a sale is
// kept running and waited for. A call made any other way would let a
// withdrawn session carry on, or a sale be cut off or not waited for.
func TestStoreCalls_ThroughCallOrMoney(t *testing.T) {
	methods := map[string]bool{}
	backend := reflect.TypeFor[Backend]()
	for i := 0; i < backend.NumMethod(); i++ {
		methods[backend.Method(i).Name] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := map[string]int{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		var via []string // the m.call / m.money each enclosing func literal was passed to, "" for none
		var walk func(n ast.Node, wrapper string)
		walk = func(n ast.Node, wrapper string) {
			ast.Inspect(n, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncLit:
					via = append(via, wrapper)
					walk(n.Body, "")
					via = via[:len(via)-1]
					return false
				case *ast.CallExpr:
					w := ""
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && isIdent(sel.X, "m") && (sel.Sel.Name == "call" || sel.Sel.Name == "money") {
						w = sel.Sel.Name
					}
					for _, a := range n.Args {
						walk(a, w)
					}
					walk(n.Fun, "")
					if method := storeMethod(n, methods); method != "" {
						seen[method]++
						inside := ""
						for _, v := range via {
							if v != "" {
								inside = v
							}
						}
						want := "call"
						if moneyMethods[method] {
							want = "money"
						}
						if !freeMethods[method] && inside != want {
							t.Errorf("%s: store.%s outside a command made by m.%s", fset.Position(n.Pos()), method, want)
						}
					}
					return false
				}
				return true
			})
		}
		walk(f, "")
	}
	for _, m := range []string{"Checkout", "Cancel", "Hold", "SignIn", "ReleaseOwner"} {
		if seen[m] == 0 {
			t.Errorf("no call of store.%s found: the check is broken", m)
		}
	}
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// storeMethod names the Backend method call n makes on the store
// (store.X, m.store.X, opts.Store.X), or "".
func storeMethod(n *ast.CallExpr, methods map[string]bool) string {
	sel, ok := n.Fun.(*ast.SelectorExpr)
	if !ok || !methods[sel.Sel.Name] {
		return ""
	}
	switch x := sel.X.(type) {
	case *ast.Ident:
		if x.Name == "store" {
			return sel.Sel.Name
		}
	case *ast.SelectorExpr:
		if (isIdent(x.X, "m") && x.Sel.Name == "store") || (isIdent(x.X, "opts") && x.Sel.Name == "Store") {
			return sel.Sel.Name
		}
	}
	return ""
}
