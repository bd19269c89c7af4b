package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"boxoffice/assets"
	"boxoffice/booking"
)

func TestModel_SignIn(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)

	t.Run("DemoHint", func(t *testing.T) {
		m := newTestModel(t, s, clock, "o1", 80, 24)
		if v := screenText(m); !strings.Contains(v, "sign in as demo with PIN 1234") {
			t.Fatalf("no demo credentials on the sign-in screen:\n%s", v)
		}
	})
	t.Run("ErrWrongPIN", func(t *testing.T) {
		m := newTestModel(t, s, clock, "o2", 80, 24)
		typeText(t, m, "demo")
		press(t, m, "enter")
		typeText(t, m, "9999")
		press(t, m, "enter")
		if m.screen != screenSignIn || m.clerk != nil || !m.statusErr {
			t.Fatalf("wrong PIN let in: screen %v status %q", m.screen, m.status)
		}
		if !m.signin.pin.Empty() {
			t.Fatal("the PIN stays typed after a failure")
		}
	})
	t.Run("OK", func(t *testing.T) {
		m := newTestModel(t, s, clock, "o3", 80, 24)
		signIn(t, m, assets.DemoUser, assets.DemoPIN)
		if len(m.shows.all) == 0 || len(m.types) == 0 {
			t.Fatalf("shows %d, ticket types %d after sign-in", len(m.shows.all), len(m.types))
		}
		if v := screenText(m); !strings.Contains(v, "demo (manager)") || !strings.Contains(v, "The Lighthouse Keeper") {
			t.Fatalf("shows screen:\n%s", v)
		}
	})
	t.Run("StaffKeyOpensSignedIn", func(t *testing.T) {
		m := New(Options{Store: s, Owner: "o4", Now: clock.Now, Staff: &booking.Actor{Name: "demo", Role: booking.RoleManager}, Terminal: "t9"})
		m.parkBlocking = true
		t.Cleanup(m.Close)
		run(t, m, m.Init())
		if m.screen != screenShows || len(m.shows.all) == 0 || m.actor().Terminal != "t9" {
			t.Fatalf("screen %v, %d shows, actor %+v", m.screen, len(m.shows.all), m.actor())
		}
	})
}

func TestModel_Shows(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "o1", 80, 24)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	today := len(m.shows.all)

	t.Run("Filter", func(t *testing.T) {
		typeText(t, m, "salt")
		vis := m.shows.visible()
		if len(vis) == 0 || len(vis) == today {
			t.Fatalf("filter kept %d of %d", len(vis), today)
		}
		for _, sh := range vis {
			if sh.Film.Title != "The Salt Road" {
				t.Fatalf("filter kept %q", sh.Film.Title)
			}
		}
		if v := screenText(m); !strings.Contains(v, "filter: salt") || strings.Contains(v, "Paper Moons") {
			t.Fatalf("filtered list:\n%s", v)
		}
		press(t, m, "esc")
		if len(m.shows.visible()) != today {
			t.Fatal("esc did not clear the filter")
		}
	})
	t.Run("Days", func(t *testing.T) {
		press(t, m, "right")
		if !m.shows.day.Equal(dayOf(testStart).AddDate(0, 0, 1)) || len(m.shows.all) == 0 {
			t.Fatalf("next day: %v with %d shows", m.shows.day, len(m.shows.all))
		}
		if v := screenText(m); !strings.Contains(v, "Tomorrow, Saturday 14 March 2026") {
			t.Fatalf("next day:\n%s", v)
		}
		press(t, m, "left", "left")
		if len(m.shows.all) != 0 || !strings.Contains(screenText(m), "No shows on this day") {
			t.Fatalf("yesterday has %d shows", len(m.shows.all))
		}
		press(t, m, "right")
	})
	t.Run("Open", func(t *testing.T) {
		press(t, m, "down", "enter")
		if m.screen != screenSeatMap || m.seats.show.ID != m.shows.all[1].ID || m.seats.sm == nil {
			t.Fatalf("screen %v show %d", m.screen, m.seats.show.ID)
		}
		press(t, m, "esc")
		if m.screen != screenShows {
			t.Fatalf("esc from the map went to %v", m.screen)
		}
	})
}

func TestModel_SeatMap(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	show := openGrandShow(t, m)

	t.Run("SpaceHoldsAndReleases", func(t *testing.T) {
		seat, _ := m.seats.current()
		press(t, m, "space")
		if st := stateOf(t, storeMap(t, s, show.ID, "me"), seat.Label); st != booking.SeatHeldByMe {
			t.Fatalf("%s is %v after space", seat.Label, st)
		}
		if st := stateOf(t, storeMap(t, s, show.ID, "other"), seat.Label); st != booking.SeatHeldByOther {
			t.Fatalf("other counters see %s as %v", seat.Label, st)
		}
		if v := screenText(m); !strings.Contains(v, "hold 5:00") || !strings.Contains(v, "[@]") {
			t.Fatalf("no countdown or held cursor seat:\n%s", v)
		}
		press(t, m, "space")
		if st := stateOf(t, storeMap(t, s, show.ID, "me"), seat.Label); st != booking.SeatFree {
			t.Fatalf("%s is %v after the second space", seat.Label, st)
		}
	})
	t.Run("Moves", func(t *testing.T) {
		start, _ := m.seats.current()
		press(t, m, "l")
		right, _ := m.seats.current()
		press(t, m, "h", "k")
		up, _ := m.seats.current()
		press(t, m, "j")
		back, _ := m.seats.current()
		if right.Number != start.Number+1 || up.Row != start.Row-1 || back != start {
			t.Fatalf("moves: start %s right %s up %s back %s", start.Label, right.Label, up.Label, back.Label)
		}
		// Left across the aisle skips the gap.
		goTo(t, m, "G6")
		goTo(t, m, "G6") // toggled back off
		press(t, m, "h")
		if cur, _ := m.seats.current(); cur.Label != "G5" {
			t.Fatalf("left of G6 is %s, want G5 across the aisle", cur.Label)
		}
	})
	t.Run("GoToRange", func(t *testing.T) {
		goTo(t, m, "g8-10")
		sm := storeMap(t, s, show.ID, "me")
		for _, l := range []string{"G8", "G9", "G10"} {
			if st := stateOf(t, sm, l); st != booking.SeatHeldByMe {
				t.Fatalf("%s is %v after /G8-10", l, st)
			}
		}
		goTo(t, m, "G8-10")
		if n := len(storeMap(t, s, show.ID, "me").HoldID); n != 0 {
			t.Fatalf("%d seats still held after toggling G8-10 off", n)
		}
		goTo(t, m, "Z99")
		if !m.statusErr || !strings.Contains(m.status, "no seat Z99") {
			t.Fatalf("bad seat: %q", m.status)
		}
	})
	t.Run("BestOfN", func(t *testing.T) {
		press(t, m, "4", "b")
		mine := m.seats.mine()
		if len(mine) != 4 {
			t.Fatalf("4b held %d", len(mine))
		}
		for i := 1; i < len(mine); i++ {
			if mine[i].Row != mine[0].Row || mine[i].Col != mine[i-1].Col+1 {
				t.Fatalf("4b held %v, not a block", seatLabels(mine))
			}
		}
		if n := len(storeMap(t, s, show.ID, "me").HoldID); n != 4 {
			t.Fatalf("store has %d held", n)
		}
		press(t, m, "x", "n")
		if n := len(storeMap(t, s, show.ID, "me").HoldID); n != 4 {
			t.Fatalf("x then n (keep) left %d held", n)
		}
		press(t, m, "x", "y")
		if n := len(storeMap(t, s, show.ID, "me").HoldID); n != 0 {
			t.Fatalf("x then y left %d held", n)
		}
	})
	t.Run("BestSplitSaysSo", func(t *testing.T) {
		// Fill every row but one seat in each so 9 together is impossible.
		sm := storeMap(t, s, show.ID, "filler")
		var labels []string
		for _, seat := range sm.Hall.Seats {
			if seat.Kind.Accessible() || seat.Number%8 == 0 {
				continue
			}
			labels = append(labels, seat.Label)
		}
		defer func() {
			// Give the hall back and let the map see it, for the next subtests.
			s.ReleaseOwner(context.Background(), "filler")
			run(t, m, m.loadSeatMapCmd())
		}()
		for len(labels) > 0 { // one hold takes at most MaxSeatsPerSale seats
			n := min(booking.MaxSeatsPerSale, len(labels))
			if _, err := s.Hold(context.Background(), booking.System, booking.HoldRequest{ShowID: show.ID, Seats: labels[:n], Owner: "filler"}); err != nil {
				t.Fatalf("filling the hall: %v", err)
			}
			labels = labels[n:]
		}
		press(t, m, "9", "b")
		if !strings.Contains(m.status, "No 9 together — held split") {
			t.Fatalf("status %q", m.status)
		}
		press(t, m, "x", "y")
	})
	t.Run("MouseClickToggles", func(t *testing.T) {
		g := m.mapGeom()
		seat, _ := m.seats.hall.SeatByLabel("K3")
		x := g.seatX0 + seat.Col*g.cellW
		y := g.top + seat.Row - g.first
		send(t, m, tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft})
		if st := stateOf(t, storeMap(t, s, show.ID, "me"), "K3"); st != booking.SeatHeldByMe {
			t.Fatalf("K3 is %v after a click at %d,%d", st, x, y)
		}
		send(t, m, tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft})
		if st := stateOf(t, storeMap(t, s, show.ID, "me"), "K3"); st != booking.SeatFree {
			t.Fatalf("K3 is %v after a second click", st)
		}
	})
	t.Run("TakenSeatSaysSo", func(t *testing.T) {
		if _, err := s.Hold(context.Background(), booking.System, booking.HoldRequest{ShowID: show.ID, Seats: []string{"B5"}, Owner: "other"}); err != nil {
			t.Fatal(err)
		}
		run(t, m, m.loadSeatMapCmd())
		goTo(t, m, "B5")
		if !strings.Contains(m.status, "B5 is held at another counter") {
			t.Fatalf("status %q", m.status)
		}
		if v := screenText(m); !strings.Contains(v, "=") {
			t.Fatal("no held-elsewhere glyph on the map")
		}
	})
	t.Run("EscAsksThenReleases", func(t *testing.T) {
		press(t, m, "2", "b", "esc")
		if m.screen != screenSeatMap || m.leaving == nil || !strings.Contains(screenText(m), "Holding 2 seats. Release them and go back to the shows? y/n") {
			t.Fatalf("esc with seats held did not ask: screen %v\n%s", m.screen, screenText(m))
		}
		press(t, m, "enter") // the default keeps them, and stays
		if m.screen != screenSeatMap || len(storeMap(t, s, show.ID, "me").HoldID) != 2 {
			t.Fatalf("enter on the question: screen %v", m.screen)
		}
		press(t, m, "esc", "y")
		if m.screen != screenShows {
			t.Fatalf("screen %v", m.screen)
		}
		if n := len(storeMap(t, s, show.ID, "me").HoldID); n != 0 {
			t.Fatalf("leaving the map kept %d held", n)
		}
	})
}

func TestModel_Clash(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	show := openGrandShow(t, m)

	// Another counter takes G7 after this map was drawn.
	if _, err := s.Hold(context.Background(), booking.System, booking.HoldRequest{ShowID: show.ID, Seats: []string{"G7"}, Owner: "other"}); err != nil {
		t.Fatal(err)
	}
	goTo(t, m, "G7-8")
	c := m.seats.clash
	if c == nil {
		t.Fatalf("no clash banner; status %q", m.status)
	}
	offer := seatLabels(c.offerSeats())
	if len(offer) != 2 {
		t.Fatalf("offer %v", offer)
	}
	v := screenText(m)
	want := "G7 was just taken — " + offer[0] + " and " + offer[1] + " are free next to it"
	if !strings.Contains(v, want) || !strings.Contains(v, "enter take them") || !strings.Contains(v, "esc choose again") {
		t.Fatalf("banner missing %q:\n%s", want, v)
	}
	if strings.Count(v, "+") < 2 {
		t.Fatalf("offer not highlighted on the map:\n%s", v)
	}

	t.Run("EscChoosesAgain", func(t *testing.T) {
		press(t, m, "esc")
		if m.seats.clash != nil || m.screen != screenSeatMap {
			t.Fatal("esc did not dismiss the banner")
		}
		goTo(t, m, "G7-8")
		if m.seats.clash == nil {
			t.Fatal("no banner the second time")
		}
	})
	t.Run("NextOfferWhenOfferTaken", func(t *testing.T) {
		first := seatLabels(m.seats.clash.offerSeats())
		if _, err := s.Hold(context.Background(), booking.System, booking.HoldRequest{ShowID: show.ID, Seats: first[:1], Owner: "other"}); err != nil {
			t.Fatal(err)
		}
		press(t, m, "enter")
		if m.seats.clash == nil {
			t.Fatalf("taking a taken offer gave no new banner; status %q", m.status)
		}
		next := seatLabels(m.seats.clash.offerSeats())
		if len(next) != 2 || next[0] == first[0] || next[1] == first[0] {
			t.Fatalf("next offer %v after %v was taken", next, first)
		}
		if !strings.Contains(screenText(m), first[0]+" was just taken") {
			t.Fatalf("banner:\n%s", screenText(m))
		}
	})
	t.Run("EnterTakesOffer", func(t *testing.T) {
		offer := seatLabels(m.seats.clash.offerSeats())
		press(t, m, "enter")
		if m.seats.clash != nil {
			t.Fatalf("banner still up: %q", m.seats.clash.err.Message())
		}
		sm := storeMap(t, s, show.ID, "me")
		for _, l := range offer {
			if st := stateOf(t, sm, l); st != booking.SeatHeldByMe {
				t.Fatalf("offered %s is %v", l, st)
			}
		}
	})
}

func TestModel_Checkout(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	show := openGrandShow(t, m)

	press(t, m, "2", "b", "enter")
	if m.screen != screenCheckout {
		t.Fatalf("enter went to %v", m.screen)
	}
	key := m.checkout.key
	if key == "" {
		t.Fatal("no idempotency key")
	}
	// The first seat becomes a child ticket: it is three fields up.
	press(t, m, "shift+tab", "shift+tab", "shift+tab", "t")
	first := m.checkout.seats[0].Label
	if m.checkout.types[first] != "child" {
		t.Fatalf("t made %s a %s", first, m.checkout.types[first])
	}
	press(t, m, "tab", "tab", "tab") // back to tendered
	typeText(t, m, "30")
	v := screenText(m)
	if !strings.Contains(v, "21.00") || !strings.Contains(v, "Change due 9.00") {
		t.Fatalf("total 8.50+12.50=21.00 and change 9.00 not shown:\n%s", v)
	}
	press(t, m, "tab")
	typeText(t, m, "Ada Lovelace")
	press(t, m, "tab")
	typeText(t, m, "+44 7700 900123")
	// enter in Phone moves to Sell; it does not sell.
	if _, cmd := m.Update(keyMsg("enter")); cmd != nil || m.checkout.focus != len(m.checkout.seats)+focusSell {
		t.Fatalf("enter in Phone: command %v, focus %d", cmd != nil, m.checkout.focus)
	}
	if v := screenText(m); !strings.Contains(v, "[ Sell 2 tickets · 21.00 cash, change 9.00 ]") {
		t.Fatalf("Sell step does not say what will be recorded:\n%s", v)
	}

	// Enter twice on Sell: the second is ignored while the first is under way.
	_, cmd := m.Update(keyMsg("enter"))
	_, cmd2 := m.Update(keyMsg("enter"))
	if cmd == nil || cmd2 != nil {
		t.Fatalf("enter twice gave commands %v and %v", cmd != nil, cmd2 != nil)
	}
	// A retry after a lost answer reuses the key and lands on one booking.
	m.checkout.busy = false
	_, retry := m.Update(keyMsg("enter"))
	first1, second := exec(cmd), exec(retry)
	b1, b2 := first1[0].(checkoutMsg), second[0].(checkoutMsg)
	if b1.err != nil || b2.err != nil {
		t.Fatalf("checkout: %v / %v", b1.err, b2.err)
	}
	if b1.booking.Number != b2.booking.Number || b1.key != key || b2.key != key {
		t.Fatalf("two bookings %s and %s (keys %s %s)", b1.booking.Number, b2.booking.Number, b1.key, b2.key)
	}
	send(t, m, b1)
	if m.screen != screenDone {
		t.Fatalf("screen %v, status %q", m.screen, m.status)
	}
	bk, err := s.Booking(context.Background(), booking.System, b1.booking.Number)
	if err != nil {
		t.Fatal(err)
	}
	if bk.Total != 2100 || bk.Change() != 900 || len(bk.Tickets) != 2 || bk.Customer != "Ada Lovelace" || bk.Terminal != "counter-1" {
		t.Fatalf("booking %+v", bk)
	}
	found, err := s.FindBookings(context.Background(), booking.System, booking.BookingQuery{Text: "Ada"})
	if err != nil || len(found) != 1 {
		t.Fatalf("find: %d bookings, %v", len(found), err)
	}
	sm := storeMap(t, s, show.ID, "me")
	for _, tk := range bk.Tickets {
		if st := stateOf(t, sm, tk.Seat.Label); st != booking.SeatSold {
			t.Fatalf("%s is %v", tk.Seat.Label, st)
		}
	}

	t.Run("Done", func(t *testing.T) {
		v := screenText(m)
		for _, want := range []string{"Sold " + bk.Number, "Total 21.00", "Paid cash 30.00", "Change due 9.00", "▀", "▄"} {
			if !strings.Contains(v, want) {
				t.Fatalf("done screen lacks %q:\n%s", want, v)
			}
		}
		press(t, m, "enter")
		if m.screen != screenShows {
			t.Fatalf("enter on done went to %v", m.screen)
		}
	})
}

func TestModel_CheckoutExactAndCard(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	openGrandShow(t, m)

	t.Run("ExactCash", func(t *testing.T) {
		// Map to checkout, Tendered (empty: exact money) to Sell, sell.
		press(t, m, "2", "b", "enter", "enter", "enter")
		if m.screen != screenDone {
			t.Fatalf("screen %v status %q", m.screen, m.status)
		}
		if b := m.done.booking; b.Total != 2500 || b.Change() != 0 {
			t.Fatalf("exact: total %d change %d", b.Total, b.Change())
		}
		press(t, m, "enter", "enter") // next sale, reopen the first show
	})
	t.Run("ShortCashRefused", func(t *testing.T) {
		press(t, m, "1", "b", "enter")
		typeText(t, m, "5")
		press(t, m, "enter")
		if m.screen != screenCheckout || !strings.Contains(m.status, "less than the total") {
			t.Fatalf("short cash: screen %v status %q", m.screen, m.status)
		}
		press(t, m, "backspace")
	})
	t.Run("Card", func(t *testing.T) {
		press(t, m, "shift+tab", "space", "enter", "enter")
		if m.screen != screenDone {
			t.Fatalf("card sale: screen %v status %q", m.screen, m.status)
		}
		if p := m.done.booking.Payments[0]; p.Method != booking.Card {
			t.Fatalf("paid by %s", p.Method)
		}
	})
}

func TestModel_FindAndCancel(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	addStaff(t, s, "carl", booking.RoleClerk, "2468")
	addStaff(t, s, "sue", booking.RoleSupervisor, "1357")
	m := newTestModel(t, s, clock, "carl-session", 80, 24)
	signIn(t, m, "carl", "2468")
	for m.shows.visible()[m.shows.cursor].HallName != "Grand" {
		press(t, m, "down")
	}
	press(t, m, "enter", "2", "b", "enter", "tab")
	typeText(t, m, "Grace Hopper")
	press(t, m, "enter")
	if m.screen != screenCheckout {
		t.Fatalf("enter in the customer's name left the checkout: %v %q", m.screen, m.status)
	}
	press(t, m, "enter", "enter") // Phone, Sell
	if m.screen != screenDone {
		t.Fatalf("sale failed: %q", m.status)
	}
	number := m.done.booking.Number

	press(t, m, "ctrl+f")
	if m.screen != screenFind {
		t.Fatalf("ctrl+f went to %v", m.screen)
	}
	typeText(t, m, "grace")
	press(t, m, "enter", "tab")
	if m.find.mode != findView || m.find.booking.Number != number {
		t.Fatalf("find by name: mode %v status %q", m.find.mode, m.status)
	}
	if v := screenText(m); !strings.Contains(v, number) || !strings.Contains(v, "Grace Hopper") {
		t.Fatalf("booking view:\n%s", v)
	}

	t.Run("ErrWrongSupervisorPIN", func(t *testing.T) {
		press(t, m, "c")
		typeText(t, m, "changed plans")
		press(t, m, "enter")
		typeText(t, m, "sue")
		press(t, m, "enter")
		typeText(t, m, "0000")
		press(t, m, "enter")
		if m.find.mode != findConfirm || !strings.Contains(screenText(m), "Refund 25.00 cash and cancel "+number+"?") {
			t.Fatalf("no confirmation after the form:\n%s", screenText(m))
		}
		press(t, m, "right", "enter")
		if !m.statusErr || m.find.mode != findCancel {
			t.Fatalf("a wrong supervisor PIN cancelled: %q", m.status)
		}
		b, _ := s.Booking(context.Background(), booking.System, number)
		if b.Status != booking.BookingConfirmed {
			t.Fatalf("status %s", b.Status)
		}
		press(t, m, "esc")
	})
	t.Run("SupervisorApproves", func(t *testing.T) {
		if v := screenText(m); strings.Contains(v, "Supervisor") {
			t.Fatalf("form still open:\n%s", v)
		}
		press(t, m, "c")
		if v := screenText(m); !strings.Contains(v, "A supervisor approves") {
			t.Fatalf("no supervisor prompt for a clerk:\n%s", v)
		}
		press(t, m, "enter")
		typeText(t, m, "sue")
		press(t, m, "enter")
		typeText(t, m, "1357")
		press(t, m, "enter")
		if b, _ := s.Booking(context.Background(), booking.System, number); b.Status != booking.BookingConfirmed {
			t.Fatal("enter on the PIN cancelled without the confirmation")
		}
		press(t, m, "right", "enter")
		if m.statusErr {
			t.Fatalf("cancel: %q", m.status)
		}
		b, err := s.Booking(context.Background(), booking.System, number)
		if err != nil {
			t.Fatal(err)
		}
		if b.Status != booking.BookingCancelled || b.CancelledBy != "carl" || b.ApprovedBy != "sue" {
			t.Fatalf("booking %s cancelled by %q approved by %q", b.Status, b.CancelledBy, b.ApprovedBy)
		}
		if v := screenText(m); !strings.Contains(v, "approved by sue") || !strings.Contains(m.status, "refund 25.00") {
			t.Fatalf("status %q view:\n%s", m.status, v)
		}
	})
	t.Run("ErrAlreadyCancelled", func(t *testing.T) {
		press(t, m, "c")
		if !m.statusErr || m.find.mode != findView {
			t.Fatalf("cancel of a cancelled booking: %q", m.status)
		}
	})
	t.Run("SupervisorNeedsNoApprover", func(t *testing.T) {
		press(t, m, "ctrl+o")
		if m.screen != screenSignIn || m.clerk != nil {
			t.Fatal("ctrl+o did not sign out")
		}
		signIn(t, m, "sue", "1357")
		press(t, m, "ctrl+f")
		typeText(t, m, number)
		press(t, m, "enter", "c")
		if strings.Contains(screenText(m), "A supervisor approves") {
			t.Fatal("a supervisor is asked for a supervisor")
		}
	})
}

func TestModel_QuitReleases(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	show := openGrandShow(t, m)
	press(t, m, "3", "b")

	press(t, m, "ctrl+c")
	if m.leaving == nil || !strings.Contains(screenText(m), "Holding 3 seats. Release them and quit? y/n (n keeps them)") {
		t.Fatalf("ctrl+c with seats held did not ask:\n%s", screenText(m))
	}
	for _, k := range []string{"n", "enter", "esc"} {
		press(t, m, k)
		if m.leaving != nil || m.closing || len(m.seats.mine()) != 3 {
			t.Fatalf("%s did not keep the session and its seats", k)
		}
		press(t, m, "ctrl+c")
	}
	_, cmd := m.Update(keyMsg("y"))
	msgs := exec(cmd)
	if len(msgs) != 1 {
		t.Fatalf("quit gave %v", msgs)
	}
	if _, ok := msgs[0].(tea.QuitMsg); !ok {
		t.Fatalf("quit gave %T", msgs[0])
	}
	if n := len(storeMap(t, s, show.ID, "me").HoldID); n != 0 {
		t.Fatalf("%d seats still held after quitting", n)
	}
}

func TestModel_QuitWithoutHolds(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	_, cmd := m.Update(keyMsg("ctrl+c"))
	if msgs := exec(cmd); len(msgs) != 1 {
		t.Fatalf("ctrl+c without holds: %v", msgs)
	} else if _, ok := msgs[0].(tea.QuitMsg); !ok {
		t.Fatalf("ctrl+c gave %T", msgs[0])
	}
}

func TestModel_SignOutReleases(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	show := openGrandShow(t, m)
	press(t, m, "2", "b", "ctrl+o")
	if m.screen != screenSeatMap || m.leaving == nil {
		t.Fatalf("ctrl+o with seats held did not ask: screen %v", m.screen)
	}
	press(t, m, "y")
	if m.screen != screenSignIn || m.clerk != nil {
		t.Fatalf("screen %v", m.screen)
	}
	if n := len(storeMap(t, s, show.ID, "me").HoldID); n != 0 {
		t.Fatalf("%d seats held after sign-out", n)
	}
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
}

func TestModel_IdleSignOut(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := New(Options{Store: s, Owner: "me", Now: clock.Now, IdleSignOut: 5 * time.Minute})
	m.parkBlocking = true
	t.Cleanup(m.Close)
	send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	run(t, m, m.Init())
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	if !m.idleArmed {
		t.Fatal("no idle timer after sign-in")
	}
	clock.Add(3 * time.Minute)
	press(t, m, "down")
	clock.Add(3 * time.Minute)
	send(t, m, idleMsg{})
	if m.clerk == nil {
		t.Fatal("signed out 3 minutes after a key press")
	}
	clock.Add(3 * time.Minute)
	send(t, m, idleMsg{})
	if m.clerk != nil || m.screen != screenSignIn || !strings.Contains(m.status, "without a key press") {
		t.Fatalf("not signed out when idle: %v %q", m.screen, m.status)
	}
}

func TestModel_HoldCountdownRunsOut(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b")
	clock.Add(4*time.Minute + 30*time.Second)
	send(t, m, tickMsg{})
	if v := screenText(m); !strings.Contains(v, "hold 0:30") {
		t.Fatalf("countdown:\n%s", v)
	}
	press(t, m, "+")
	if v := screenText(m); !strings.Contains(v, "hold 5:00") {
		t.Fatalf("+ did not extend:\n%s", v)
	}
	clock.Add(5*time.Minute + time.Second)
	send(t, m, tickMsg{})
	if len(m.seats.mine()) != 0 || !strings.Contains(m.status, "ran out") {
		t.Fatalf("after expiry: %d mine, status %q", len(m.seats.mine()), m.status)
	}
}

func TestModel_Live(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	a := newTestModel(t, s, clock, "a", 80, 24)
	b := newTestModel(t, s, clock, "b", 80, 24)
	show := openGrandShow(t, a)
	openGrandShow(t, b)
	wait := takeParked(t, b, parkChange)
	got := make(chan tea.Msg, 1)
	go func() { got <- wait() }()

	goTo(t, a, "H3")
	select {
	case msg := <-got:
		c, ok := msg.(changeMsg)
		if !ok || (c.ShowID != show.ID && c.ShowID != 0) {
			t.Fatalf("b got %#v", msg)
		}
		send(t, b, msg)
	case <-time.After(5 * time.Second):
		t.Fatal("b heard no change")
	}
	if st := stateOf(t, b.seats.sm, "H3"); st != booking.SeatHeldByOther {
		t.Fatalf("b's map shows H3 as %v", st)
	}
}

func TestModel_TooSmall(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 79, 30)
	if v := screenText(m); !strings.Contains(v, "Make the window larger") {
		t.Fatalf("79 wide:\n%s", v)
	}
	send(t, m, tea.WindowSizeMsg{Width: 80, Height: 23})
	if v := screenText(m); !strings.Contains(v, "Make the window larger") {
		t.Fatalf("23 high:\n%s", v)
	}
	send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	if v := screenText(m); strings.Contains(v, "Make the window larger") {
		t.Fatalf("80×24:\n%s", v)
	}
}

func TestModel_ViewIsExactSize(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {100, 30}} {
		m := newTestModel(t, s, clock, "me", sz[0], sz[1])
		check := func(what string) {
			t.Helper()
			lines := strings.Split(m.View().Content, "\n")
			if len(lines) != sz[1] {
				t.Fatalf("%s at %v: %d lines", what, sz, len(lines))
			}
			for i, l := range lines {
				if w := len([]rune(screenLine(l))); w > sz[0] {
					t.Fatalf("%s at %v: line %d is %d wide: %q", what, sz, i, w, screenLine(l))
				}
			}
		}
		check("sign-in")
		signIn(t, m, assets.DemoUser, assets.DemoPIN)
		check("shows")
		for m.shows.visible()[m.shows.cursor].HallName != "Grand" {
			press(t, m, "down")
		}
		press(t, m, "enter")
		check("map")
		press(t, m, "3", "b")
		check("map held")
		press(t, m, "?")
		check("help")
		press(t, m, "?", "enter")
		check("checkout")
		press(t, m, "enter")
		check("done")
		press(t, m, "ctrl+f")
		check("find")
	}
}

func TestModel_UntrustedTextIsCleaned(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	openGrandShow(t, m)
	evil := "\x1b]0;pwned\x07Evil\x1b[2J\u202eFilm\x9b31m"
	m.seats.show.Film.Title = evil
	send(t, m, ServerNoticeMsg{Text: "Server restarting\x1b[5m now\u2066"})
	v := m.View().Content
	for _, bad := range []string{"\x1b]0;", "\x07", "\x1b[2J", "\u202e", "\x9b", "\u2066", "\x1b[5m"} {
		if strings.Contains(v, bad) {
			t.Fatalf("view contains %q", bad)
		}
	}
	if !strings.Contains(screenText(m), "Server restarting[5m now") || !strings.Contains(screenText(m), "Evil[2JFilm31m") {
		t.Fatalf("view:\n%s", screenText(m))
	}
	send(t, m, ServerNoticeMsg{})
	if strings.Contains(screenText(m), "Server restarting") {
		t.Fatal("empty notice did not clear the banner")
	}
}

// The go-to prompt reads ranges with booking's parser, which refuses a
// range ending at seat 0 ("G7-0") instead of reading it as G0 to G7.
func TestSeatMap_GoToRange(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "me", 80, 24)
	show := openGrandShow(t, m)
	goTo(t, m, "N7-0")
	if !strings.Contains(m.status, "Type a seat like G7, or a range like G7-9.") || len(storeMap(t, s, show.ID, "me").HoldID) != 0 {
		t.Fatalf("N7-0: status %q, %d held", m.status, len(storeMap(t, s, show.ID, "me").HoldID))
	}
	goTo(t, m, "n10-8")
	if n := len(storeMap(t, s, show.ID, "me").HoldID); n != 3 {
		t.Fatalf("n10-8 held %d seats, want 3 (status %q)", n, m.status)
	}
}

// A size of 0×0 (output that is no terminal) keeps the last size instead
// of turning the counter into "make the window larger".
func TestModel_UnknownSize(t *testing.T) {
	t.Parallel()
	clock := newClock()
	m := newTestModel(t, MustOpenStore(t, clock), clock, "me", 100, 30)
	send(t, m, tea.WindowSizeMsg{})
	if m.width != 100 || m.height != 30 || m.tooSmall() {
		t.Fatalf("after a 0×0 size: %d×%d", m.width, m.height)
	}
}
