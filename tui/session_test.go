package tui

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/booking"
	"boxoffice/db"
)

// heldBy counts the seats owner holds on any show today, from the store.
func heldBy(tb testing.TB, s *db.Store, showID int64, owner string) int {
	tb.Helper()
	return len(storeMap(tb, s, showID, owner).HoldID)
}

// A clerk disabled while signed in: the next write is refused, the
// counter says so, takes no more keys, and a moment later ends by itself
// and gives back the seats it held. Nothing is kept to resume.
func TestModel_Withdrawn(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	addStaff(t, s, "carl", booking.RoleClerk, "2468")

	openWithHold := func(t *testing.T, owner string) (*Model, booking.Show) {
		m := newTestModel(t, s, clock, owner, 80, 24)
		signIn(t, m, "carl", "2468")
		show := openGrand(t, m)
		press(t, m, "2", "b")
		if n := heldBy(t, s, show.ID, owner); n != 2 {
			t.Fatalf("%d seats held, want 2", n)
		}
		return m, show
	}
	disable := func(t *testing.T) {
		if err := s.DisableStaff(context.Background(), booking.System, "carl"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.EnableStaff(context.Background(), booking.System, "carl") })
	}

	t.Run("EndsAfterSaying", func(t *testing.T) {
		m, show := openWithHold(t, "w1")
		disable(t)
		goTo(t, m, "A1") // a hold: a write, refused
		if !m.Withdrawn() || !strings.Contains(screenText(m), "Your access was withdrawn.") {
			t.Fatalf("withdrawn %v; screen:\n%s", m.Withdrawn(), screenText(m))
		}
		before := screenText(m)
		press(t, m, "esc", "x", "ctrl+o", "3", "b", "enter")
		if m.leaving != nil || m.screen != screenSeatMap || screenText(m) != before {
			t.Fatalf("keys still work on a withdrawn session:\n%s", screenText(m))
		}
		if m.Resume() != nil {
			t.Error("a withdrawn session offers itself for resuming")
		}
		msgs := exec(takeParked(t, m, parkWithdrawn))
		if len(msgs) != 1 {
			t.Fatalf("the end timer gave %v", msgs)
		}
		_, cmd := m.Update(msgs[0])
		if got := exec(cmd); len(got) != 1 || got[0] != (tea.QuitMsg{}) {
			t.Fatalf("the end gave %v, want quit", got)
		}
		if !strings.Contains(screenText(m), "Your access was withdrawn.") {
			t.Errorf("the message went before the end:\n%s", screenText(m))
		}
		if n := heldBy(t, s, show.ID, "w1"); n != 0 {
			t.Errorf("%d seats still held after a withdrawn session ended", n)
		}
	})

	t.Run("CtrlCEndsAtOnce", func(t *testing.T) {
		m, show := openWithHold(t, "w2")
		disable(t)
		goTo(t, m, "A1")
		_, cmd := m.Update(keyMsg("ctrl+c")) // no "release them?" question
		if m.leaving != nil {
			t.Fatal("ctrl+c on a withdrawn session asked about the seats")
		}
		if got := exec(cmd); len(got) != 1 || got[0] != (tea.QuitMsg{}) {
			t.Fatalf("ctrl+c gave %v, want quit", got)
		}
		if n := heldBy(t, s, show.ID, "w2"); n != 0 {
			t.Errorf("%d seats still held", n)
		}
	})
}

// A local counter whose clerk is disabled ends by itself a moment after
// the refused write, and Run says why.
func TestRun_Withdrawn(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	addStaff(t, s, "carl", booking.RoleClerk, "2468")
	shows, err := s.Shows(context.Background(), booking.System, clock.Now())
	if err != nil || len(shows) == 0 {
		t.Fatal("no shows", err)
	}
	sold := sellForDoor(t, s, shows[0].ID, "C3")
	st, err := s.SignIn(context.Background(), booking.SignInRequest{Name: "carl", PIN: "2468"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DisableStaff(context.Background(), booking.System, "carl"); err != nil {
		t.Fatal(err)
	}

	in, keys := io.Pipe()
	defer keys.Close()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Options{
			Store: s, Owner: "local-test", Terminal: "local:test", Now: clock.Now,
			Staff: &booking.Actor{StaffID: st.ID, Name: st.Name, Role: st.Role},
		}, in, io.Discard)
	}()
	// The door, a ticket, enter: an admission, which is a write.
	if _, err := io.WriteString(keys, "\x04"+sold.Tickets[0].Code+"\r"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !booking.IsWithdrawn(err) {
			t.Fatalf("Run returned %v, want the access withdrawn", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the withdrawn counter did not end")
	}
}

// gatedStore holds each checkout until the test lets it go.
type gatedStore struct {
	*db.Store
	started chan struct{}
	release chan struct{}
}

func (g *gatedStore) Checkout(ctx context.Context, actor booking.Actor, req booking.CheckoutRequest) (*booking.Booking, error) {
	g.started <- struct{}{}
	<-g.release
	return g.Store.Checkout(ctx, actor, req)
}

// A sale under way when the session ends runs to its end (its context is
// not the session's), Settle waits for it, and once settling no sale or
// refund starts.
func TestModel_Settle(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	g := &gatedStore{Store: s, started: make(chan struct{}, 1), release: make(chan struct{})}
	m := newTestModel(t, g, clock, "me", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter", "tab")
	typeText(t, m, "Lise Meitner")
	press(t, m, "enter", "enter") // to Phone, to Sell
	_, sale := m.Update(keyMsg("enter"))
	answered := make(chan []tea.Msg, 1)
	go func() { answered <- exec(sale) }()
	<-g.started
	m.Close() // the connection drops: the session's context ends

	settled := m.Settle()
	select {
	case <-settled:
		t.Fatal("settled while a sale was under way")
	case <-time.After(50 * time.Millisecond):
	}
	close(g.release)
	select {
	case <-settled:
	case <-time.After(10 * time.Second):
		t.Fatal("never settled after the sale answered")
	}
	msgs := <-answered
	if len(msgs) != 1 {
		t.Fatalf("the sale gave %v", msgs)
	}
	if c, ok := msgs[0].(checkoutMsg); !ok || c.err != nil {
		t.Fatalf("the sale under way when the session ended: %#v", msgs[0])
	}
	if n := countBookings(t, s, "Meitner"); n != 1 {
		t.Fatalf("%d bookings, want 1", n)
	}

	called := false
	late := m.money(func(context.Context) (tea.Msg, error) { called = true; return nil, nil })
	if exec(late); called {
		t.Fatal("a sale started after Settle")
	}
}

// Acting follows sign-in and sign-out, and may be read from another
// goroutine meanwhile (the server's access check does).
func TestModel_Acting(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	addStaff(t, s, "carl", booking.RoleClerk, "2468")
	m := newTestModel(t, s, clock, "me", 80, 24)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				m.Acting()
			}
		}
	}()
	defer func() { close(stop); wg.Wait() }()

	if id, role := m.Acting(); id != 0 || role != 0 {
		t.Fatalf("signed out: acting %d as %s", id, role)
	}
	signIn(t, m, "carl", "2468")
	if id, role := m.Acting(); id == 0 || role != booking.RoleClerk {
		t.Fatalf("carl signed in: acting %d as %s", id, role)
	}
	press(t, m, "ctrl+o")
	if id, _ := m.Acting(); id != 0 || m.screen != screenSignIn {
		t.Fatalf("signed out: acting %d, screen %v", id, m.screen)
	}

	k := New(Options{Store: s, Owner: "key", Staff: &booking.Actor{StaffID: 42, Name: "kim", Role: booking.RoleSupervisor}})
	t.Cleanup(k.Close)
	if id, role := k.Acting(); id != 42 || role != booking.RoleSupervisor {
		t.Fatalf("opened signed in: acting %d as %s", id, role)
	}
}
