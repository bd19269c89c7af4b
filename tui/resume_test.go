package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/internal/storetest"
)

// newResumedModel opens a session of owner that takes over a dropped one
// at r, on the sign-in screen like a shared terminal.
func newResumedModel(tb testing.TB, store Backend, clock *storetest.Clock, owner string, r *Resume) *Model {
	tb.Helper()
	m := New(Options{
		Store:    store,
		Owner:    owner,
		Terminal: "counter-1",
		Now:      clock.Now,
		Resume:   r,
	})
	m.parkBlocking = true
	tb.Cleanup(m.Close)
	send(tb, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	run(tb, m, m.Init())
	return m
}

// countBookings counts the bookings of a show straight from the store.
func countBookings(tb testing.TB, s *db.Store, text string) int {
	tb.Helper()
	found, err := s.FindBookings(context.Background(), booking.System, booking.BookingQuery{Text: text})
	if err != nil && booking.ErrorCode(err) != booking.ENotFound {
		tb.Fatal(err)
	}
	return len(found)
}

// The checkout key is derived from the owner and the hold: reopening the
// checkout of the same hold, or retrying, sends the same key.
func TestModel_CheckoutKeyPerHold(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter")
	hold := m.seats.holdID
	if hold == 0 || m.checkout.hold != hold {
		t.Fatalf("checkout of hold %d, seat map hold %d", m.checkout.hold, hold)
	}
	want := checkoutKey("me", hold)
	if m.checkout.key != want || !strings.HasPrefix(want, "me/hold-") {
		t.Fatalf("key %q, want %q", m.checkout.key, want)
	}
	press(t, m, "esc", "enter")
	if m.screen != screenCheckout || m.checkout.key != want {
		t.Fatalf("reopened checkout: screen %v key %q, want %q", m.screen, m.checkout.key, want)
	}
	if other := checkoutKey("you", hold); other == want {
		t.Fatal("two owners share a key")
	}
}

// A session dropped on the checkout resumes on that checkout, form and
// key as they were; confirming sells once.
func TestModel_ResumeCheckout(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	show := openGrandShow(t, m)
	press(t, m, "2", "b", "enter")
	key, seats := m.checkout.key, seatLabels(m.checkout.seats)
	typeText(t, m, "30")
	press(t, m, "tab")
	typeText(t, m, "Grace Hopper")

	r := m.Resume()
	if r == nil || r.Checkout == nil || r.ShowID != show.ID || r.HoldID != m.checkout.hold || r.Checkout.Submitted {
		t.Fatalf("resume %+v", r)
	}
	if r.Checkout.Tendered != "30" || r.Checkout.Customer != "Grace Hopper" || strings.Join(r.Seats, ",") != strings.Join(seats, ",") {
		t.Fatalf("resume form %+v seats %v", r.Checkout, r.Seats)
	}
	m.Close() // the connection drops

	m2 := newResumedModel(t, s, clock, "me", r)
	if m2.screen != screenSignIn {
		t.Fatalf("a terminal session opened on %v before sign-in", m2.screen)
	}
	signInTo(t, m2, assets.DemoUser, assets.DemoPIN)
	if m2.screen != screenCheckout || m2.checkout.key != key {
		t.Fatalf("resumed on %v with key %q (want checkout, %q); status %q", m2.screen, m2.checkout.key, key, m2.status)
	}
	v := screenText(m2)
	for _, want := range []string{"Checkout ·", "Grace Hopper", "Change due 5.00", "as you left it"} {
		if !strings.Contains(v, want) {
			t.Fatalf("resumed checkout lacks %q:\n%s", want, v)
		}
	}
	press(t, m2, "enter", "enter") // Tendered, then Sell
	if m2.screen != screenDone || strings.Join(seatLabelsOf(m2.done.booking), ",") != strings.Join(seats, ",") {
		t.Fatalf("confirm: screen %v status %q", m2.screen, m2.status)
	}
	if n := countBookings(t, s, "Grace"); n != 1 {
		t.Fatalf("%d bookings, want 1", n)
	}
}

// The sale was sent and committed but its answer was lost with the
// connection: the resumed session finds the booking by the key and shows
// it instead of selling again.
func TestModel_ResumeAfterLostAnswer(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter", "tab")
	typeText(t, m, "Alan Turing")
	press(t, m, "enter", "enter") // to Phone, to Sell
	_, cmd := m.Update(keyMsg("enter"))
	sent := exec(cmd) // the sale commits; its answer never reaches m
	first := sent[0].(checkoutMsg)
	if first.err != nil {
		t.Fatal(first.err)
	}
	r := m.Resume()
	if r == nil || r.Checkout == nil || !r.Checkout.Submitted {
		t.Fatalf("resume of a sale under way: %+v", r)
	}
	m.Close()

	m2 := newResumedModel(t, s, clock, "me", r)
	signInTo(t, m2, assets.DemoUser, assets.DemoPIN)
	if m2.screen != screenDone || m2.done.booking.Number != first.booking.Number {
		t.Fatalf("resumed on %v (status %q), want the done screen of %s", m2.screen, m2.status, first.booking.Number)
	}
	if v := screenText(m2); !strings.Contains(v, "Sold "+first.booking.Number) || !strings.Contains(v, "before the connection dropped") {
		t.Fatalf("done screen:\n%s", v)
	}
	if n := countBookings(t, s, "Turing"); n != 1 {
		t.Fatalf("%d bookings, want 1", n)
	}

	// Resuming from the done screen shows the sale again.
	r2 := m2.Resume()
	if r2 == nil || r2.Checkout == nil || !r2.Checkout.Submitted {
		t.Fatalf("resume of the done screen: %+v", r2)
	}
	m3 := newResumedModel(t, s, clock, "me", r2)
	signInTo(t, m3, assets.DemoUser, assets.DemoPIN)
	if m3.screen != screenDone || m3.done.booking.Number != first.booking.Number {
		t.Fatalf("second resume on %v, status %q", m3.screen, m3.status)
	}
}

// The sale was sent but had not committed when the session was resumed:
// the checkout reopens, and confirming it lands on the one booking the
// late first try made.
func TestModel_ResumeBeforeCommit(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter", "tab")
	typeText(t, m, "Emmy Noether")
	press(t, m, "enter", "enter")        // to Phone, to Sell
	_, late := m.Update(keyMsg("enter")) // sent, not yet run
	r := m.Resume()                      // the connection drops; the sale runs on

	m2 := newResumedModel(t, s, clock, "me", r)
	signInTo(t, m2, assets.DemoUser, assets.DemoPIN)
	if m2.screen != screenCheckout || !strings.Contains(m2.status, "never twice") {
		t.Fatalf("resumed on %v, status %q", m2.screen, m2.status)
	}
	first := exec(late)[0].(checkoutMsg) // the dropped session's sale commits now
	if first.err != nil {
		t.Fatal(first.err)
	}
	press(t, m2, "enter")
	if m2.screen != screenDone || m2.done.booking.Number != first.booking.Number {
		t.Fatalf("resubmit: screen %v status %q, want the done screen of %s", m2.screen, m2.status, first.booking.Number)
	}
	if n := countBookings(t, s, "Noether"); n != 1 {
		t.Fatalf("%d bookings, want 1", n)
	}
}

// Seats held on the seat map resume on the map of that show; another
// clerk signing in at the terminal does not get them.
func TestModel_ResumeSeatMap(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	addStaff(t, s, "bob", booking.RoleClerk, "4321")
	m := newTestModel(t, s, clock, "me", 80, 24)
	show := openGrandShow(t, m)
	press(t, m, "3", "b")
	held := seatLabels(m.seats.mine())
	r := m.Resume()
	if r == nil || r.Checkout != nil || r.ShowID != show.ID || len(r.Seats) != 3 {
		t.Fatalf("resume %+v", r)
	}
	m.Close()

	t.Run("SameClerk", func(t *testing.T) {
		m2 := newResumedModel(t, s, clock, "me", r)
		signInTo(t, m2, assets.DemoUser, assets.DemoPIN)
		if m2.screen != screenSeatMap || m2.seats.show.ID != show.ID {
			t.Fatalf("resumed on %v", m2.screen)
		}
		if got := seatLabels(m2.seats.mine()); strings.Join(got, ",") != strings.Join(held, ",") {
			t.Fatalf("held here after resuming: %v, want %v", got, held)
		}
		if !strings.Contains(m2.status, "Reconnected: holding 3") {
			t.Fatalf("status %q", m2.status)
		}
	})
	t.Run("OtherClerk", func(t *testing.T) {
		m2 := newResumedModel(t, s, clock, "me", r)
		signInTo(t, m2, "bob", "4321")
		if m2.screen != screenShows {
			t.Fatalf("bob resumed the demo clerk's session on %v", m2.screen)
		}
	})
}

// A clerk who quits leaves nothing to resume.
func TestModel_ClerkQuitResumesNothing(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter")
	if m.ClerkQuit() || m.Resume() == nil {
		t.Fatal("an open checkout is not resumable")
	}
	press(t, m, "ctrl+c")
	_, cmd := m.Update(keyMsg("y"))
	exec(cmd)
	if !m.ClerkQuit() || m.Resume() != nil {
		t.Fatalf("after quitting: ClerkQuit %v, Resume %+v", m.ClerkQuit(), m.Resume())
	}
}

// signInTo signs in on the sign-in screen without checking where the
// session lands.
func signInTo(tb testing.TB, m *Model, name, pin string) {
	tb.Helper()
	typeText(tb, m, name)
	press(tb, m, "enter")
	typeText(tb, m, pin)
	press(tb, m, "enter")
	if m.clerk == nil {
		tb.Fatalf("sign-in as %s failed: %q", name, m.status)
	}
}

// The hold's countdown goes on after a resume, from where the dropped
// session left it, on the map and on a resumed checkout; when it ends the
// resumed session says the hold ran out. Before, the seat map said which
// seats were held but not until when, and the countdown was gone.
func TestModel_ResumeKeepsCountdown(t *testing.T) {
	t.Parallel()
	for _, checkout := range []bool{false, true} {
		name := "SeatMap"
		if checkout {
			name = "Checkout"
		}
		t.Run(name, func(t *testing.T) {
			clock := newClock()
			s := MustOpenStore(t, clock)
			m := newTestModel(t, s, clock, "me", 80, 24)
			openGrandShow(t, m)
			press(t, m, "2", "b")
			if checkout {
				press(t, m, "enter")
			}
			expires := m.seats.expires
			r := m.Resume()
			if r == nil || expires.IsZero() || !r.Expires.Equal(expires) {
				t.Fatalf("resume %+v, hold expiring %v", r, expires)
			}
			m.Close()

			clock.Add(30 * time.Second) // the connection was down a while
			m2 := newResumedModel(t, s, clock, "me", r)
			signInTo(t, m2, assets.DemoUser, assets.DemoPIN)
			if !m2.seats.expires.Equal(expires) || m2.heldCount() != 2 {
				t.Fatalf("resumed with the hold expiring %v (want %v), %d held", m2.seats.expires, expires, m2.heldCount())
			}
			left := expires.Sub(clock.Now()).Round(time.Second)
			want := fmt.Sprintf("hold %d:%02d", int(left.Minutes()), int(left.Seconds())%60)
			if checkout {
				press(t, m2, "esc") // back to the map, the hold kept
			}
			if v := screenText(m2); !strings.Contains(v, want) {
				t.Fatalf("no countdown %q after the resume:\n%s", want, v)
			}
			// The countdown is running: when the hold's time is up the
			// session says so.
			clock.Set(expires.Add(time.Second))
			takeParked(t, m2, parkTick)
			send(t, m2, tickMsg{})
			if m2.seats.holdID != 0 || !strings.Contains(m2.status, "ran out") {
				t.Fatalf("the hold's end after a resume: status %q", m2.status)
			}
		})
	}
}
