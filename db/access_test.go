package db_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/dbtest"
	"boxoffice/internal/storetest"
)

// logBuffer collects a store's log lines; safe for its goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// signedIn signs name in with PIN 1234 and returns the actor a counter
// would then act as.
func signedIn(t *testing.T, s *db.Store, name string) booking.Actor {
	t.Helper()
	st, err := s.SignIn(context.Background(), booking.SignInRequest{Name: name, PIN: "1234"})
	if err != nil {
		t.Fatalf("sign in %s: %v", name, err)
	}
	return booking.Actor{StaffID: st.ID, Name: st.Name, Role: st.Role, Terminal: "till-1"}
}

// Every failed sign-in and approval is logged with name, terminal and
// address.
func TestStore_SignIn_LogsFailures(t *testing.T) {
	t.Parallel()
	logs := &logBuffer{}
	s, _ := dbtest.MustOpen(t, db.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	ctx := context.Background()
	s.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "0000", Terminal: "till-4", Addr: "192.0.2.7:5111"})
	s.SignIn(ctx, booking.SignInRequest{Name: "nobody", PIN: "0000", Terminal: "till-4", Addr: "192.0.2.7:5112"})
	b := mustSell(t, s, firstShow(t, s).ID, "a", "A1")
	_, err := s.Cancel(ctx, clerk, booking.CancelRequest{Number: b.Number, Approver: &booking.Credentials{Name: "sue", PIN: "0000"}, Addr: "192.0.2.8:6000"})
	if booking.ErrorCode(err) != booking.EForbidden {
		t.Fatalf("cancel with a wrong approval PIN: %v", err)
	}
	out := logs.String()
	for _, want := range []string{
		`msg="sign-in failed" name=carl terminal=till-4 addr=192.0.2.7:5111 reason="wrong PIN"`,
		`msg="sign-in failed" name=nobody terminal=till-4 addr=192.0.2.7:5112 reason="unknown or disabled name"`,
		`msg="approval failed" name=sue terminal=till-1 addr=192.0.2.8:6000 reason="wrong PIN"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
}

// Wrong approval PINs typed in a clerk's cancel form lock approvals, not
// the supervisor's own sign-in.
func TestStore_ApprovalLockout(t *testing.T) {
	t.Parallel()
	s, _ := dbtest.MustOpen(t, db.Options{})
	ctx := context.Background()
	b := mustSell(t, s, firstShow(t, s).ID, "a", "A1")
	wrong := booking.CancelRequest{Number: b.Number, Reason: "x", Approver: &booking.Credentials{Name: "sue", PIN: "0000"}}
	for i := 0; i < 5; i++ {
		if _, err := s.Cancel(ctx, clerk, wrong); booking.ErrorMessage(err) != "Wrong name or PIN." {
			t.Fatalf("approval %d: %v", i, err)
		}
	}
	right := wrong
	right.Approver = &booking.Credentials{Name: "sue", PIN: "1234"}
	if _, err := s.Cancel(ctx, clerk, right); !strings.Contains(booking.ErrorMessage(err), "Too many wrong PINs") {
		t.Fatalf("approval after five wrong: %v", err)
	}
	if _, err := s.SignIn(ctx, booking.SignInRequest{Name: "sue", PIN: "1234"}); err != nil {
		t.Fatalf("wrong approvals locked sue's sign-in: %v", err)
	}
	if err := s.UnlockStaff(ctx, booking.System, "sue"); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Cancel(ctx, clerk, right); err != nil || got.ApprovedBy != "sue" {
		t.Fatalf("approval after unlock: %+v %v", got, err)
	}
}

// A person disabled or demoted, or a terminal removed, by another
// connection to the file can do nothing from their next write on.
func TestStore_WithdrawnActor(t *testing.T) {
	t.Parallel()
	s, path := dbtest.MustOpen(t, db.Options{})
	other := dbtest.Open(t, path, db.Options{}) // another connection, as `staff disable` in another process
	ctx := context.Background()
	show := firstShow(t, s).ID
	termLine, _ := newAuthorizedKey(t)
	term, err := s.AddTerminal(ctx, booking.System, "till-9", termLine)
	if err != nil {
		t.Fatal(err)
	}
	hold := func(actor booking.Actor, seat string) error {
		_, err := s.Hold(ctx, actor, booking.HoldRequest{ShowID: show, Seats: []string{seat}, Owner: "w-" + seat})
		return err
	}
	t.Run("Disabled", func(t *testing.T) {
		carl := signedIn(t, s, "carl")
		if err := hold(carl, "A1"); err != nil {
			t.Fatal(err)
		}
		if err := other.DisableStaff(ctx, booking.System, "carl"); err != nil {
			t.Fatal(err)
		}
		if err := hold(carl, "A2"); !booking.IsWithdrawn(err) {
			t.Fatalf("a disabled clerk's hold: %v", err)
		}
		if err := other.EnableStaff(ctx, booking.System, "carl"); err != nil {
			t.Fatal(err)
		}
		if err := hold(carl, "A2"); err != nil {
			t.Fatalf("enabled again: %v", err)
		}
	})
	t.Run("Demoted", func(t *testing.T) {
		sue := signedIn(t, s, "sue")
		b := mustSell(t, s, show, "d", "B1")
		if err := other.SetRole(ctx, booking.System, "sue", booking.RoleClerk); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Cancel(ctx, sue, booking.CancelRequest{Number: b.Number}); !booking.IsWithdrawn(err) {
			t.Fatalf("a demoted supervisor's cancel: %v", err)
		}
		if got, _ := s.Booking(ctx, booking.System, b.Number); got.Status != booking.BookingConfirmed {
			t.Fatalf("booking %s after the refused cancel", got.Status)
		}
	})
	t.Run("TerminalRemoved", func(t *testing.T) {
		m := signedIn(t, s, "mgr")
		m.TerminalID, m.Terminal = term.ID, term.Name
		if err := hold(m, "C1"); err != nil {
			t.Fatal(err)
		}
		if err := other.RemoveTerminal(ctx, booking.System, "till-9"); err != nil {
			t.Fatal(err)
		}
		if err := hold(m, "C2"); !booking.IsWithdrawn(err) {
			t.Fatalf("a removed terminal's hold: %v", err)
		}
		if _, err := s.SignIn(ctx, booking.SignInRequest{Name: "carl", PIN: "1234", TerminalID: term.ID}); !booking.IsWithdrawn(err) {
			t.Fatalf("sign-in at a removed terminal: %v", err)
		}
	})
	t.Run("SystemSkipsChecks", func(t *testing.T) {
		if err := hold(booking.System, "D1"); err != nil {
			t.Fatal(err)
		}
	})
}

// A ticket scanned before its show's doors open says when they do.
func TestStore_Admit_DoorsOpen(t *testing.T) {
	t.Parallel()
	clock := storetest.FixedClock()
	clock.Set(time.Date(2026, 3, 13, 10, 0, 0, 0, time.Local))
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now})
	door := booking.Actor{Name: "dora", Role: booking.RoleDoor}
	ctx := context.Background()
	b := mustSell(t, s, 2, "a", "A1") // 15:00, doors at 13:00
	_, err := s.Admit(ctx, door, b.Tickets[0].Code)
	if want := "Doors open at 13:00 for the 15:00 show (Second Film, seat A1)."; booking.ErrorMessage(err) != want {
		t.Fatalf("too early: %q, want %q", booking.ErrorMessage(err), want)
	}
	b = mustSell(t, s, 3, "b", "A1") // tomorrow
	_, err = s.Admit(ctx, door, b.Tickets[0].Code)
	if !strings.Contains(booking.ErrorMessage(err), "is for First Film at Sat 14 Mar 12:00") {
		t.Fatalf("another day: %q", booking.ErrorMessage(err))
	}
	clock.Add(3 * time.Hour)
	if _, err := s.Admit(ctx, door, mustSellTicket(t, s, 2, "c", "A2")); err != nil {
		t.Fatalf("doors open: %v", err)
	}
}

// A late show that ends after midnight: scanned once it ended, its ticket
// says when the show ended, that night; the next day it names the show.
func TestStore_Admit_LateShowEndedAfterMidnight(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock(time.Date(2026, 3, 13, 21, 0, 0, 0, time.Local))
	s, _ := dbtest.MustOpen(t, db.Options{Clock: clock.Now})
	door := booking.Actor{Name: "dora", Role: booking.RoleDoor}
	ctx := context.Background()
	code := mustSellTicket(t, s, 1, "a", "A1") // 23:00 to 00:40
	clock.Set(time.Date(2026, 3, 14, 0, 41, 0, 0, time.Local))
	_, err := s.Admit(ctx, door, code)
	if want := "This show ended at 00:40."; booking.ErrorMessage(err) != want {
		t.Fatalf("after midnight: %q, want %q", booking.ErrorMessage(err), want)
	}
	clock.Set(time.Date(2026, 3, 15, 10, 0, 0, 0, time.Local))
	_, err = s.Admit(ctx, door, code)
	if want := "Ticket A1 is for First Film at Fri 13 Mar 23:00."; booking.ErrorMessage(err) != want {
		t.Fatalf("the next day: %q, want %q", booking.ErrorMessage(err), want)
	}
}

func mustSellTicket(t *testing.T, s *db.Store, show int64, owner, seat string) string {
	t.Helper()
	return mustSell(t, s, show, owner, seat).Tickets[0].Code
}
