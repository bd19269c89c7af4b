package contract

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"boxoffice/booking"
)

// keyRoster is booking.Roster's staff with SSH keys, terminals and
// printers, and who may still act.
type keyRoster interface {
	staffAdmin
	AddStaff(ctx context.Context, actor booking.Actor, name string, role booking.Role, pin string, authorizedKey []byte) (*booking.Staff, error)
	ListStaff(ctx context.Context, actor booking.Actor) ([]booking.Staff, error)
	AddTerminal(ctx context.Context, actor booking.Actor, name string, authorizedKey []byte) (*booking.Terminal, error)
	ListTerminals(ctx context.Context, actor booking.Actor) ([]booking.Terminal, error)
	RemoveTerminal(ctx context.Context, actor booking.Actor, name string) error
	SetTerminalPrinter(ctx context.Context, actor booking.Actor, name, printer string) (*booking.Terminal, error)
	IdentifyKey(ctx context.Context, wireKey []byte) (*booking.Staff, *booking.Terminal, error)
	Access(ctx context.Context) (booking.Access, error)
}

const needKeys = "AddStaff, ListStaff, the terminals, IdentifyKey and Access (booking.Roster)"

// newKey makes an SSH key: its authorized_keys line and its wire form.
func newKey(t *testing.T) (line, wire []byte) {
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

// signedIn signs name in (PIN 1234) and returns the actor its counter
// then acts as, at till-1.
func signedIn(t *testing.T, e *env, r roster, name string) booking.Actor {
	t.Helper()
	st, err := r.SignIn(e.ctx, booking.SignInRequest{Name: name, PIN: "1234"})
	if err != nil {
		t.Fatalf("sign in %s: %v", name, err)
	}
	return booking.Actor{StaffID: st.ID, Name: st.Name, Role: st.Role, Terminal: "till-1"}
}

// rosterKeys: a key names its member of staff or its terminal; a
// disabled person's key is refused until they are enabled, a removed
// terminal's is unknown.
func rosterKeys(t *testing.T, e *env) {
	r := need[keyRoster](t, e, needKeys)
	staffLine, staffWire := newKey(t)
	termLine, termWire := newKey(t)
	_, strangerWire := newKey(t)
	if st, err := r.AddStaff(e.ctx, manager, "Maria", booking.RoleClerk, "4321", staffLine); err != nil || !st.HasKey || st.ID == 0 {
		t.Fatalf("add Maria with a key: %+v, %v", st, err)
	}
	if _, err := r.AddTerminal(e.ctx, manager, "till-9", termLine); err != nil {
		t.Fatal(err)
	}
	st, term, err := r.IdentifyKey(e.ctx, staffWire)
	if err != nil || st == nil || term != nil || st.Name != "Maria" || st.Role != booking.RoleClerk || !st.HasKey {
		t.Fatalf("Maria's key: %+v %+v %v", st, term, err)
	}
	st, term, err = r.IdentifyKey(e.ctx, termWire)
	if err != nil || st != nil || term == nil || term.Name != "till-9" || term.Site != booking.MainSite {
		t.Fatalf("till-9's key: %+v %+v %v", st, term, err)
	}
	list, err := r.ListStaff(e.ctx, manager)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range list {
		if x.HasKey != (x.Name == "Maria") {
			t.Errorf("listed %+v", x)
		}
	}
	_, _, err = r.IdentifyKey(e.ctx, strangerWire)
	wantCode(t, "an unknown key", err, booking.ENotFound)
	if err := r.DisableStaff(e.ctx, manager, "MARIA"); err != nil {
		t.Fatal(err)
	}
	_, _, err = r.IdentifyKey(e.ctx, staffWire)
	wantMessage(t, "a disabled person's key", err, "That staff member is disabled.")
	wantMessage(t, "a disabled person's PIN", signIn(r, e, "Maria", "4321"), "Wrong name or PIN.")
	if err := r.EnableStaff(e.ctx, manager, "maria"); err != nil {
		t.Fatal(err)
	}
	if st, _, err := r.IdentifyKey(e.ctx, staffWire); err != nil || st.Name != "Maria" {
		t.Fatalf("Maria's key once enabled: %+v, %v", st, err)
	}
	if err := r.RemoveTerminal(e.ctx, manager, "till-9"); err != nil {
		t.Fatal(err)
	}
	_, _, err = r.IdentifyKey(e.ctx, termWire)
	wantCode(t, "a removed terminal's key", err, booking.ENotFound)
}

// rosterErrAddStaff: what a new member of staff may not be, and a key
// bound already to anyone.
func rosterErrAddStaff(t *testing.T, e *env) {
	r := need[keyRoster](t, e, needKeys)
	staffLine, _ := newKey(t)
	termLine, _ := newKey(t)
	if _, err := r.AddStaff(e.ctx, manager, "Maria", booking.RoleClerk, "4321", staffLine); err != nil {
		t.Fatal(err)
	}
	if _, err := r.AddTerminal(e.ctx, manager, "till-9", termLine); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what, name string
		role       booking.Role
		pin        string
		key        []byte
		code, msg  string
	}{
		{"a name with a control character", "Ann\x1b[2J", booking.RoleClerk, "1234", nil, booking.EInvalid, "A name has 1 to 40 printable characters."},
		{"a short PIN", "Ann", booking.RoleClerk, "12", nil, booking.EInvalid, "A PIN has 4 to 32 characters."},
		{"the kiosk's role", "Ann", booking.RoleKiosk, "1234", nil, booking.EInvalid, "Unknown role."},
		{"no key", "Ann", booking.RoleClerk, "1234", []byte("ssh-rsa nonsense"), booking.EInvalid, "Not an SSH public key (authorized_keys format, like id_ed25519.pub)."},
		{"a name in use", "SUE", booking.RoleClerk, "1234", nil, booking.EConflict, "There is already staff called SUE."},
		{"a person's key", "Zed", booking.RoleClerk, "1234", staffLine, booking.EConflict, "That key is already registered."},
		{"a terminal's key", "Zed", booking.RoleClerk, "1234", termLine, booking.EConflict, "That key is already registered."},
	} {
		_, err := r.AddStaff(e.ctx, manager, c.name, c.role, c.pin, c.key)
		wantCode(t, c.what, err, c.code)
		wantMessage(t, c.what, err, c.msg)
	}
	_, err := r.AddTerminal(e.ctx, manager, "till-8", staffLine)
	wantMessage(t, "a person's key for a terminal", err, "That key is already registered.")
	_, err = r.AddStaff(e.ctx, supervisor, "Eve", booking.RoleClerk, "1234", nil)
	wantCode(t, "a supervisor adding staff", err, booking.EForbidden)
	if list, err := r.ListStaff(e.ctx, manager); err != nil || len(list) != 5 {
		t.Fatalf("staff after the refusals: %+v, %v", list, err)
	}
}

// rosterOneKeyOneIdentity: one key registered for a person and for a
// terminal at once: exactly one of them has it, the other is told.
func rosterOneKeyOneIdentity(t *testing.T, e *env) {
	r := need[keyRoster](t, e, needKeys)
	for round := range 5 {
		line, wire := newKey(t)
		var errStaff, errTerm error
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Go(func() {
			<-start
			_, errStaff = r.AddStaff(e.ctx, booking.System, fmt.Sprintf("k%d", round), booking.RoleClerk, "5555", line)
		})
		wg.Go(func() {
			<-start
			_, errTerm = r.AddTerminal(e.ctx, booking.System, fmt.Sprintf("till-k%d", round), line)
		})
		close(start)
		wg.Wait()
		if (errStaff == nil) == (errTerm == nil) {
			t.Fatalf("round %d: staff %v, terminal %v; want exactly one", round, errStaff, errTerm)
		}
		wantMessage(t, "the second of one key", errors.Join(errStaff, errTerm), "That key is already registered.")
		st, term, err := r.IdentifyKey(e.ctx, wire)
		if err != nil || (st == nil) == (term == nil) {
			t.Fatalf("round %d: the key names %+v and %+v, %v", round, st, term, err)
		}
	}
}

// rosterTerminals: registered, listed, given a printer in one spelling,
// found by key; names compare without case.
func rosterTerminals(t *testing.T, e *env) {
	r := need[keyRoster](t, e, needKeys)
	line, wire := newKey(t)
	term, err := r.AddTerminal(e.ctx, manager, "till-9", line)
	if err != nil || term.Name != "till-9" || term.Printer != "" || term.Site != booking.MainSite {
		t.Fatalf("add till-9: %+v, %v", term, err)
	}
	other, _ := newKey(t)
	_, err = r.AddTerminal(e.ctx, manager, "TILL-9", other)
	wantMessage(t, "a terminal name in use", err, "There is already a terminal called TILL-9.")
	_, err = r.AddTerminal(e.ctx, manager, "till-8", []byte("nonsense"))
	wantCode(t, "a terminal without a key", err, booking.EInvalid)
	printer := func() string {
		t.Helper()
		_, found, err := r.IdentifyKey(e.ctx, wire)
		if err != nil || found == nil {
			t.Fatalf("till-9's key: %+v, %v", found, err)
		}
		return found.Printer
	}
	got, err := r.SetTerminalPrinter(e.ctx, manager, "TILL-9", "tcp://192.168.1.50")
	if err != nil || got.ID != term.ID || got.Name != "till-9" || got.Printer != "tcp://192.168.1.50:9100" || got.Site != booking.MainSite {
		t.Fatalf("set the printer: %+v, %v", got, err)
	}
	if p := printer(); p != "tcp://192.168.1.50:9100" {
		t.Fatalf("the key's terminal prints on %q", p)
	}
	list, err := r.ListTerminals(e.ctx, manager)
	if err != nil || len(list) != 1 || list[0].Printer != "tcp://192.168.1.50:9100" || list[0].Site != booking.MainSite {
		t.Fatalf("terminals: %+v, %v", list, err)
	}
	_, err = r.SetTerminalPrinter(e.ctx, manager, "till-9", "http://printer")
	wantCode(t, "a printer URL of no kind", err, booking.EInvalid)
	if p := printer(); p != "tcp://192.168.1.50:9100" {
		t.Fatalf("a refused URL changed the printer to %q", p)
	}
	if _, err := r.SetTerminalPrinter(e.ctx, manager, "till-9", ""); err != nil || printer() != "" {
		t.Fatalf("no printer: %q, %v", printer(), err)
	}
	_, err = r.SetTerminalPrinter(e.ctx, manager, "till-0", "")
	wantMessage(t, "an unknown terminal's printer", err, "No terminal called till-0.")
	_, err = r.SetTerminalPrinter(e.ctx, clerk, "till-9", "")
	wantCode(t, "a clerk's printer", err, booking.EForbidden)
	wantCode(t, "a supervisor removing a terminal", r.RemoveTerminal(e.ctx, supervisor, "till-9"), booking.EForbidden)
	if err := r.RemoveTerminal(e.ctx, manager, "Till-9"); err != nil {
		t.Fatal(err)
	}
	wantMessage(t, "a terminal removed twice", r.RemoveTerminal(e.ctx, manager, "till-9"), "No terminal called till-9.")
	if list, err := r.ListTerminals(e.ctx, manager); err != nil || len(list) != 0 {
		t.Fatalf("terminals after the removal: %+v, %v", list, err)
	}
}

// rosterTerminalRemoved: a session at a terminal removed since can do
// nothing from its next write on, and nobody signs in there.
func rosterTerminalRemoved(t *testing.T, e *env) {
	r := need[keyRoster](t, e, needKeys)
	line, _ := newKey(t)
	term, err := r.AddTerminal(e.ctx, manager, "till-9", line)
	if err != nil {
		t.Fatal(err)
	}
	at := signedIn(t, e, r, "carl")
	at.TerminalID, at.Terminal = term.ID, term.Name
	hold := func(seat string) error {
		_, err := e.s.Hold(e.ctx, at, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{seat}, Owner: "t9"})
		return err
	}
	if err := hold("C1"); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveTerminal(e.ctx, manager, "till-9"); err != nil {
		t.Fatal(err)
	}
	if err := hold("C2"); !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("a removed terminal's hold: %v", err)
	}
	if _, err := r.SignIn(e.ctx, booking.SignInRequest{Name: "carl", PIN: "1234", TerminalID: term.ID}); !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("sign-in at a removed terminal: %v", err)
	}
	if e.state(t, "", "C2") != booking.SeatFree {
		t.Fatal("C2 held by a removed terminal")
	}
}

// rosterDemoted: a supervisor demoted since sign-in may not cancel from
// their next write on; the booking stays as it was.
func rosterDemoted(t *testing.T, e *env) {
	r := need[keyRoster](t, e, needKeys)
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	sue := signedIn(t, e, r, "sue")
	b := e.sell(t, "d", "B1")
	if err := r.SetRole(e.ctx, booking.System, "sue", booking.RoleClerk); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Cancel(e.ctx, sue, booking.CancelRequest{Number: b.Number}); !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("a demoted supervisor's cancel: %v", err)
	}
	if got, err := c.Booking(e.ctx, clerk, b.Number); err != nil || got.Status != booking.BookingConfirmed {
		t.Fatalf("the booking after the refused cancel: %+v, %v", got, err)
	}
}

// rosterAccess: the list the SSH server closes sessions by: enabled staff
// at their roles and the registered terminals.
func rosterAccess(t *testing.T, e *env) {
	r := need[keyRoster](t, e, needKeys)
	carl := signedIn(t, e, r, "carl")
	mgr := signedIn(t, e, r, "mgr")
	line, _ := newKey(t)
	term, err := r.AddTerminal(e.ctx, manager, "till-9", line)
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.Access(e.ctx)
	if err != nil || !a.Allows(carl.StaffID, booking.RoleClerk, term.ID) || a.Allows(carl.StaffID, booking.RoleSupervisor, 0) || len(a.Staff) != 4 {
		t.Fatalf("access: %+v, %v", a, err)
	}
	if err := r.DisableStaff(e.ctx, manager, "carl"); err != nil {
		t.Fatal(err)
	}
	if err := r.SetRole(e.ctx, booking.System, "mgr", booking.RoleSupervisor); err != nil {
		t.Fatal(err)
	}
	if err := r.RemoveTerminal(e.ctx, manager, "till-9"); err != nil {
		t.Fatal(err)
	}
	a, err = r.Access(e.ctx)
	if err != nil || a.Allows(carl.StaffID, booking.RoleClerk, 0) || a.Allows(mgr.StaffID, booking.RoleManager, 0) ||
		!a.Allows(mgr.StaffID, booking.RoleSupervisor, 0) || a.Allows(0, booking.RoleNone, term.ID) {
		t.Fatalf("access after a disable, a demotion and a removal: %+v, %v", a, err)
	}
}

// rosterNotYourself: a manager at a screen can't take their own powers
// away (the last manager would leave nobody to undo it); another manager,
// or the command line, can.
func rosterNotYourself(t *testing.T, e *env) {
	r := need[keyRoster](t, e, needKeys)
	for _, name := range []string{"mia", "max"} {
		if _, err := r.AddStaff(e.ctx, booking.System, name, booking.RoleManager, "1234", nil); err != nil {
			t.Fatal(err)
		}
	}
	mia := signedIn(t, e, r, "mia")
	wantMessage(t, "disabling yourself", r.DisableStaff(e.ctx, mia, "MIA"), "You can't disable yourself: another manager can, or `boxoffice staff` at the server.")
	wantMessage(t, "demoting yourself", r.SetRole(e.ctx, mia, "mia", booking.RoleClerk), "You can't lower the role of yourself: another manager can, or `boxoffice staff` at the server.")
	if err := r.SetRole(e.ctx, mia, "mia", booking.RoleManager); err != nil {
		t.Fatalf("setting your own role as it is: %v", err)
	}
	if st, err := r.SignIn(e.ctx, booking.SignInRequest{Name: "mia", PIN: "1234"}); err != nil || st.Role != booking.RoleManager {
		t.Fatalf("mia after the refusals: %+v, %v", st, err)
	}
	if err := r.SetRole(e.ctx, mia, "max", booking.RoleClerk); err != nil {
		t.Fatalf("demoting another manager: %v", err)
	}
	if err := r.DisableStaff(e.ctx, booking.System, "mia"); err != nil {
		t.Fatalf("the command line disabling mia: %v", err)
	}
	wantCode(t, "disabled mia signing in", signIn(r, e, "mia", "1234"), booking.EForbidden)
}

// rosterListStaffLocked: the staff list marks a name locked after wrong
// PINs until a manager unlocks it; everyone works at every site.
func rosterListStaffLocked(t *testing.T, e *env) {
	r := need[keyRoster](t, e, needKeys)
	locked := func() bool {
		t.Helper()
		list, err := r.ListStaff(e.ctx, manager)
		if err != nil || len(list) != 4 || !strings.EqualFold(list[0].Name, "carl") || list[3].Name != "sue" {
			t.Fatalf("staff: %+v, %v", list, err)
		}
		for _, st := range list[1:] {
			if st.Locked || st.Site != booking.AllSites {
				t.Fatalf("listed %+v", st)
			}
		}
		return list[0].Locked
	}
	if locked() {
		t.Fatal("carl locked before any wrong PIN")
	}
	for range 5 {
		signIn(r, e, "carl", "0000")
	}
	if !locked() {
		t.Fatal("carl not locked after five wrong PINs")
	}
	if err := r.UnlockStaff(e.ctx, manager, "CARL"); err != nil {
		t.Fatal(err)
	}
	if locked() {
		t.Fatal("carl locked after an unlock")
	}
	for range 5 {
		signIn(r, e, "carl", "0000")
	}
	e.clock.Add(booking.PINLockout + time.Second)
	if locked() {
		t.Fatal("carl locked after the lockout ran out")
	}
	_, err := r.ListStaff(e.ctx, supervisor)
	wantCode(t, "a supervisor's staff list", err, booking.EForbidden)
}

// rosterAuditRows: every change of the roster leaves one audit row
// naming what changed; a refused one leaves none.
func rosterAuditRows(t *testing.T, e *env) {
	r := need[keyRoster](t, e, needKeys)
	a := need[auditor](t, e, "Audit (booking.Audit)")
	line, _ := newKey(t)
	mgr := signedIn(t, e, r, "mgr")
	for _, err := range []error{
		r.DisableStaff(e.ctx, mgr, "carl"), r.EnableStaff(e.ctx, mgr, "carl"), r.SetRole(e.ctx, mgr, "carl", booking.RoleSupervisor),
		r.SetPIN(e.ctx, mgr, "carl", "9876"), r.UnlockStaff(e.ctx, mgr, "carl"),
		func() error { _, err := r.AddStaff(e.ctx, mgr, "zed", booking.RoleDoor, "1234", nil); return err }(),
		func() error { _, err := r.AddTerminal(e.ctx, mgr, "till-4", line); return err }(),
		func() error { _, err := r.SetTerminalPrinter(e.ctx, mgr, "till-4", "/dev/usb/lp0"); return err }(),
		func() error { _, err := r.SetTerminalPrinter(e.ctx, mgr, "till-4", ""); return err }(),
		r.RemoveTerminal(e.ctx, mgr, "till-4"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, "disabling nobody", r.DisableStaff(e.ctx, mgr, "nobody"), booking.ENotFound)
	rows, err := a.Audit(e.ctx, manager, booking.AuditQuery{Staff: "mgr"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, row := range rows {
		if row.Action == booking.AuditStaffChange || row.Action == booking.AuditTerminalChange {
			got = append(got, string(row.Action)+" "+row.Detail)
		}
	}
	slices.Reverse(got)
	want := []string{
		"staff_change carl: disable staff", "staff_change carl: enable staff", "staff_change carl: set role supervisor",
		"staff_change carl: set pin", "staff_change carl: unlock staff", "staff_change zed: add staff door",
		"terminal_change till-4: add terminal", "terminal_change till-4: printer /dev/usb/lp0", "terminal_change till-4: no printer",
		"terminal_change till-4: remove terminal",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("roster rows:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
