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

// setPrice changes a ticket type's price as `price set` would.
func setPrice(tb testing.TB, s *db.Store, code, name string, price booking.Money) {
	tb.Helper()
	if err := s.SetPrice(context.Background(), booking.System, booking.TicketType{Code: code, Name: name, Price: price}); err != nil {
		tb.Fatal(err)
	}
}

// saleOf reads the one booking of a customer, or nil when there is none.
func saleOf(tb testing.TB, s *db.Store, customer string) *booking.Booking {
	tb.Helper()
	found, err := s.FindBookings(context.Background(), booking.System, booking.BookingQuery{Text: customer})
	if err != nil && booking.ErrorCode(err) != booking.ENotFound {
		tb.Fatal(err)
	}
	switch len(found) {
	case 0:
		return nil
	case 1:
		return &found[0]
	}
	tb.Fatalf("%d bookings for %s", len(found), customer)
	return nil
}

// Must show 1: the adult price goes up between opening the checkout and
// confirming it. A counter that has not heard of it yet is refused with
// the new total and sells nothing; the counter shows the new figure, and
// the sale is then made at it. A counter that has heard shows the new
// figure before the clerk confirms. Either way the booking carries the
// total that was on screen when enter was pressed, never a third one.
func TestModel_PriceChangeAtCheckout(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)

	t.Run("RefusedThenSoldAtTheNewTotal", func(t *testing.T) {
		m := newTestModel(t, s, clock, "price-a", 80, 24)
		openGrandShow(t, m)
		press(t, m, "2", "b", "enter")
		typeText(t, m, "30")
		press(t, m, "tab")
		typeText(t, m, "Ada Price")
		press(t, m, "enter", "enter") // Phone, Sell
		if v := screenText(m); !strings.Contains(v, "Total                   25.00") || !strings.Contains(v, "25.00 cash, change 5.00") {
			t.Fatalf("before the change:\n%s", v)
		}
		setPrice(t, s, "adult", "Adult", 1300) // at another counter; this one has not heard yet
		press(t, m, "enter")
		if m.screen != screenCheckout || !strings.Contains(m.status, "Prices changed: the total is now 26.00.") {
			t.Fatalf("sale at the old total: screen %v status %q", m.screen, m.status)
		}
		if b := saleOf(t, s, "Ada Price"); b != nil {
			t.Fatalf("a sale was recorded at %s while the screen said 25.00", b.Total.String())
		}
		v := screenText(m)
		if !strings.Contains(v, "Total                   26.00") || !strings.Contains(v, "Change due 4.00") || !strings.Contains(v, "26.00 cash, change 4.00") {
			t.Fatalf("the new figure is not on screen:\n%s", v)
		}
		press(t, m, "enter")
		b := saleOf(t, s, "Ada Price")
		if m.screen != screenDone || b == nil {
			t.Fatalf("confirming the new total: screen %v status %q", m.screen, m.status)
		}
		if b.Total != 2600 || b.Payments[0].Tendered != 3000 || b.Change() != 400 {
			t.Fatalf("recorded total %d tendered %d change %d, the screen said 26.00, 30.00, 4.00", b.Total, b.Payments[0].Tendered, b.Change())
		}
		if v := screenText(m); !strings.Contains(v, "Total 26.00") || !strings.Contains(v, "Change due 4.00") {
			t.Fatalf("done screen:\n%s", v)
		}
	})
	t.Run("HeardBeforeConfirming", func(t *testing.T) {
		m := newTestModel(t, s, clock, "price-b", 80, 24)
		openGrandShow(t, m)
		press(t, m, "2", "b", "enter", "tab")
		typeText(t, m, "Bo Price")
		wait := takeParked(t, m, parkChange)
		setPrice(t, s, "adult", "Adult", 1400)
		send(t, m, wait()) // ShowChanged{0}: the prices are read again
		if v := screenText(m); !strings.Contains(v, "Total                   28.00") || !strings.Contains(m.status, "Prices changed: the total is now 28.00.") {
			t.Fatalf("the change did not reach the open checkout: %q\n%s", m.status, v)
		}
		press(t, m, "enter", "enter", "enter") // Phone, Sell, sell
		if b := saleOf(t, s, "Bo Price"); m.screen != screenDone || b == nil || b.Total != 2800 || b.Payments[0].Tendered != 2800 {
			t.Fatalf("sale after hearing the change: screen %v status %q booking %+v", m.screen, m.status, b)
		}
	})
}

// Must show 2: a supervisor on an open booking types the next customer's
// name and enter, and more besides. Nothing is cancelled or refunded; the
// refund happens only after its confirmation, which shows the amount and
// the method and is chosen with an arrow.
func TestModel_RefundNeedsConfirmation(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	addStaff(t, s, "sue", booking.RoleSupervisor, "1357")
	ctx := context.Background()
	shows, _ := s.Shows(ctx, booking.System, clock.Now())
	h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: shows[0].ID, Seats: []string{"E5", "E6"}, Owner: "till"})
	if err != nil {
		t.Fatal(err)
	}
	carol, err := s.Checkout(ctx, booking.System, booking.CheckoutRequest{HoldID: h.ID, Owner: "till", IdempotencyKey: "carol", Method: booking.Cash, Customer: "Carol King"})
	if err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, "sue-session", 80, 24)
	signIn(t, m, "sue", "1357")
	openCarol := func() {
		t.Helper()
		press(t, m, "ctrl+f")
		typeText(t, m, "carol")
		press(t, m, "enter", "tab")
		if m.find.mode != findView || m.find.booking.Number != carol.Number {
			t.Fatalf("find carol: mode %v status %q", m.find.mode, m.status)
		}
	}
	untouched := func(what string) {
		t.Helper()
		b, err := s.Booking(ctx, booking.System, carol.Number)
		if err != nil {
			t.Fatal(err)
		}
		if b.Status != booking.BookingConfirmed || len(b.Payments) != 1 {
			t.Fatalf("%s: booking %s with %d payments", what, b.Status, len(b.Payments))
		}
	}

	openCarol()
	typeText(t, m, "carl")
	press(t, m, "enter")
	untouched("carl⏎ on the open booking")
	if m.find.mode != findConfirm || !strings.Contains(screenText(m), "Refund 25.00 cash and cancel "+carol.Number+"?") {
		t.Fatalf("the confirmation does not show the amount and method:\n%s", screenText(m))
	}
	for _, typed := range []string{"yes", "y", "carl", "Yvonne", " ", "1234"} {
		typeText(t, m, typed)
		press(t, m, "enter")
		untouched(typed + "⏎ after it")
	}
	if m.find.mode == findConfirm || m.find.mode == findCancel {
		t.Fatalf("still in the form after the typing: mode %v", m.find.mode)
	}

	t.Run("CtrlFFromAnywhere", func(t *testing.T) {
		for _, keys := range [][]string{{}, {"c"}, {"c", "enter"}, {"c", "enter", "right"}} {
			openCarol()
			press(t, m, keys...)
			press(t, m, "ctrl+f")
			if m.screen != screenFind || m.find.mode != findSearch || !m.find.query.Empty() || m.find.booking != nil {
				t.Fatalf("ctrl+f after %v: mode %v query %q", keys, m.find.mode, m.find.query.String())
			}
			untouched(fmt.Sprint("ctrl+f after ", keys))
		}
	})
	t.Run("ExplicitConfirmationRefunds", func(t *testing.T) {
		openCarol()
		press(t, m, "c", "enter", "right")
		untouched("choosing Yes")
		press(t, m, "enter")
		b, err := s.Booking(ctx, booking.System, carol.Number)
		if err != nil {
			t.Fatal(err)
		}
		// One refund per ticket: two of 12.50, by cash as paid.
		if b.Status != booking.BookingCancelled || len(b.Payments) != 3 {
			t.Fatalf("after confirming: %s, payments %+v", b.Status, b.Payments)
		}
		for _, p := range b.Payments[1:] {
			if p.Kind != booking.PaymentRefund || p.Amount != 1250 || p.Method != booking.Cash || p.TicketID == 0 {
				t.Fatalf("after confirming: %s, payments %+v", b.Status, b.Payments)
			}
		}
		if !strings.Contains(m.status, "refund 25.00") {
			t.Fatalf("status %q", m.status)
		}
	})
}

// enter in the checkout's text fields moves on; only enter on Sell sells.
func TestModel_CheckoutEnterMovesOn(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "enter", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter", "tab")
	c := &m.checkout
	typeText(t, m, "carl")
	press(t, m, "enter")
	if m.screen != screenCheckout || c.focus-len(c.seats) != focusPhone {
		t.Fatalf("enter in Customer: screen %v focus %d", m.screen, c.focus-len(c.seats))
	}
	typeText(t, m, "0123")
	press(t, m, "enter")
	if m.screen != screenCheckout || c.focus-len(c.seats) != focusSell || saleOf(t, s, "carl") != nil {
		t.Fatalf("enter in Phone: screen %v focus %d", m.screen, c.focus-len(c.seats))
	}
	if v := screenText(m); !strings.Contains(v, "enter sells") {
		t.Fatalf("the Sell step does not say enter sells:\n%s", v)
	}
	press(t, m, "shift+tab", "shift+tab", "shift+tab", "shift+tab", "shift+tab") // back up to Tendered
	typeText(t, m, "1")
	press(t, m, "enter")
	if m.screen != screenCheckout || !strings.Contains(m.status, "less than the total") || c.focus-len(c.seats) != focusTendered {
		t.Fatalf("short cash: screen %v status %q", m.screen, m.status)
	}
	press(t, m, "backspace", "enter", "enter")
	if b := saleOf(t, s, "carl"); m.screen != screenDone || b == nil || b.Phone != "0123" {
		t.Fatalf("sale: screen %v booking %+v", m.screen, b)
	}
}

// Item 7: the hold runs out with the checkout open. The counter says so at
// once, stops offering the sale, esc does not claim the hold is kept, and
// enter takes the same seats again — or shows the clash when one went.
func TestModel_HoldLapsesOnCheckout(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	lapse := func(t *testing.T, owner string) (*Model, []string) {
		m := newTestModel(t, s, clock, owner, 80, 24)
		openGrandShow(t, m)
		press(t, m, "2", "b", "enter")
		labels := seatLabels(m.checkout.seats)
		clock.Add(booking.DefaultHoldTTL + time.Second)
		send(t, m, tickMsg{})
		v := screenText(m)
		if !m.checkout.lapsed || !strings.Contains(m.status, "ran out") || !strings.Contains(v, "ran out · enter holds them again") {
			t.Fatalf("expiry was not told: status %q\n%s", m.status, v)
		}
		if strings.Contains(v, "enter sells") || strings.Contains(v, "[ Sell 2") || strings.Contains(v, "hold 0:00") {
			t.Fatalf("the lapsed checkout still offers the sale:\n%s", v)
		}
		return m, labels
	}
	t.Run("TakenAgain", func(t *testing.T) {
		m, labels := lapse(t, "lapse-a")
		oldKey := m.checkout.key
		press(t, m, "enter")
		if m.checkout.lapsed || m.checkout.key == oldKey || !strings.Contains(m.status, "held again — enter sells") {
			t.Fatalf("taking the seats again: key %q→%q status %q", oldKey, m.checkout.key, m.status)
		}
		press(t, m, "enter")
		if m.screen != screenDone || strings.Join(seatLabelsOf(m.done.booking), " ") != strings.Join(labels, " ") {
			t.Fatalf("sale after taking them again: screen %v status %q", m.screen, m.status)
		}
	})
	t.Run("ClashWhenOneWent", func(t *testing.T) {
		m, labels := lapse(t, "lapse-b")
		if _, err := s.Hold(context.Background(), booking.System, booking.HoldRequest{ShowID: m.seats.show.ID, Seats: labels[:1], Owner: "elsewhere"}); err != nil {
			t.Fatal(err)
		}
		press(t, m, "esc")
		if strings.Contains(m.status, "hold is kept") || m.screen != screenSeatMap {
			t.Fatalf("esc over a lapsed hold: %q", m.status)
		}
		press(t, m, "enter")
		v := screenText(m)
		if m.screen != screenSeatMap || m.seats.clash == nil || !strings.Contains(v, labels[0]+" was just taken — ") || !strings.Contains(v, "free next to it") {
			t.Fatalf("no clash banner:\n%s", v)
		}
	})
	t.Run("ClashFromTheCheckout", func(t *testing.T) {
		m, labels := lapse(t, "lapse-c")
		if _, err := s.Hold(context.Background(), booking.System, booking.HoldRequest{ShowID: m.seats.show.ID, Seats: labels[1:], Owner: "elsewhere"}); err != nil {
			t.Fatal(err)
		}
		press(t, m, "enter")
		if v := screenText(m); m.screen != screenSeatMap || !strings.Contains(v, labels[1]+" was just taken — ") {
			t.Fatalf("confirming a lapsed hold whose seat went:\n%s", v)
		}
	})
}

// The map says the hold ran out and stops offering the checkout.
func TestModel_HoldLapsesOnMap(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "lapse-map", 120, 40)
	openGrandShow(t, m)
	press(t, m, "3", "b")
	labels := seatLabels(m.seats.mine())
	clock.Add(booking.DefaultHoldTTL)
	send(t, m, tickMsg{})
	v := screenText(m)
	if !strings.Contains(v, "The hold on "+labels[0]+", "+labels[1]+" and "+labels[2]+" ran out · enter holds them again") {
		t.Fatalf("no banner:\n%s", v)
	}
	if strings.Contains(v, "Holding 3") || strings.Contains(v, "enter checkout") || strings.Contains(v, "holding 3") || m.heldCount() != 0 {
		t.Fatalf("the map still says the seats are held:\n%s", v)
	}
	press(t, m, "enter")
	if got := seatLabels(m.seats.mine()); strings.Join(got, " ") != strings.Join(labels, " ") || m.seats.showLapsed() {
		t.Fatalf("enter held %v, want %v", got, labels)
	}

	// A reload that finds the hold gone before the countdown did says so
	// too, naming the seats.
	if _, err := s.ReleaseOwner(context.Background(), "lapse-map"); err != nil {
		t.Fatal(err)
	}
	run(t, m, m.loadSeatMapCmd())
	if !m.seats.showLapsed() || !strings.Contains(m.status, "The hold on "+labels[0]+", ") || m.heldCount() != 0 {
		t.Fatalf("after the hold went elsewhere: %q", m.status)
	}
}

// Item 8: + extends on the checkout without touching the form, up to the
// hold's 15-minute limit, which the counter states.
func TestModel_ExtendOnCheckout(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "extend", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter")
	typeText(t, m, "30")
	press(t, m, "tab")
	typeText(t, m, "Ann")
	form := func(what string) {
		t.Helper()
		c := &m.checkout
		if m.screen != screenCheckout || c.tendered.String() != "30" || c.name.String() != "Ann" || c.lapsed {
			t.Fatalf("%s: the form changed: screen %v tendered %q name %q", what, m.screen, c.tendered.String(), c.name.String())
		}
	}
	for i := 0; i < 2; i++ {
		clock.Add(4 * time.Minute)
		send(t, m, tickMsg{})
		press(t, m, "+")
		form("+")
		if v := screenText(m); !strings.Contains(v, "hold 5:00") {
			t.Fatalf("+ on the checkout did not extend:\n%s", v)
		}
	}
	clock.Add(4 * time.Minute) // 12 minutes in: the limit is nearer than 5
	press(t, m, "+")
	form("+ near the limit")
	if v := screenText(m); !strings.Contains(m.status, "Extended to the 15-minute limit") || !strings.Contains(v, "hold 3:00 · limit") {
		t.Fatalf("near the limit: %q\n%s", m.status, v)
	}
	clock.Add(time.Minute)
	press(t, m, "+")
	form("+ at the limit")
	if !m.statusErr || !strings.Contains(m.status, "reached its 15-minute limit") {
		t.Fatalf("at the limit: %q", m.status)
	}
	press(t, m, "tab") // Phone: + is the international prefix there
	press(t, m, "+")
	if m.checkout.phone.String() != "+" {
		t.Fatalf("+ in Phone typed %q", m.checkout.phone.String())
	}
}

// Item 9: every way out of a map with seats held asks first, and the
// default keeps them; where they stay held, the countdown shows.
func TestModel_LeavingWithSeatsHeld(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "leave", 80, 24)
	show := openGrandShow(t, m)
	press(t, m, "2", "b")
	held := func(what string, want int) {
		t.Helper()
		if n := len(storeMap(t, s, show.ID, "leave").HoldID); n != want {
			t.Fatalf("%s: %d seats held, want %d", what, n, want)
		}
	}
	for _, k := range []string{"esc", "x", "ctrl+o", "ctrl+c", "ctrl+f", "ctrl+d"} {
		for _, no := range []string{"n", "enter", "esc"} {
			press(t, m, k)
			if m.leaving == nil || m.screen != screenSeatMap {
				t.Fatalf("%s with seats held did not ask: screen %v", k, m.screen)
			}
			press(t, m, no)
			if m.leaving != nil || m.screen != screenSeatMap || m.clerk == nil || m.closing {
				t.Fatalf("%s then %s: screen %v", k, no, m.screen)
			}
			held(k+" then "+no, 2)
		}
	}
	for _, k := range []string{"ctrl+f", "ctrl+d"} {
		press(t, m, k, "k")
		v := screenText(m)
		if m.screen == screenSeatMap || !strings.Contains(strings.Split(v, "\n")[0], "holding 2 · hold 5:00") {
			t.Fatalf("%s k: screen %v without the countdown:\n%s", k, m.screen, v)
		}
		held(k+" k", 2)
		press(t, m, "esc")
		if m.screen != screenSeatMap || len(m.seats.mine()) != 2 {
			t.Fatalf("esc from %s: screen %v", k, m.screen)
		}
	}
	t.Run("FromCheckoutAndBack", func(t *testing.T) {
		press(t, m, "enter")
		typeText(t, m, "40")
		press(t, m, "ctrl+f", "k")
		clock.Add(time.Minute)
		send(t, m, tickMsg{})
		if v := screenText(m); !strings.Contains(v, "holding 2 · hold 4:00") {
			t.Fatalf("find after checkout: no countdown\n%s", v)
		}
		press(t, m, "esc")
		if m.screen != screenCheckout || m.checkout.tendered.String() != "40" {
			t.Fatalf("esc from find: screen %v tendered %q", m.screen, m.checkout.tendered.String())
		}
	})
	t.Run("LapsesOnTheDoor", func(t *testing.T) {
		press(t, m, "ctrl+d", "k")
		clock.Add(booking.DefaultHoldTTL)
		send(t, m, tickMsg{})
		if v := screenText(m); strings.Contains(v, "holding 2") || !strings.Contains(m.status, "ran out") {
			t.Fatalf("expiry on the door: %q\n%s", m.status, v)
		}
	})
	t.Run("YesReleases", func(t *testing.T) {
		press(t, m, "esc", "esc") // the door, then the checkout
		press(t, m, "esc")        // the map: nothing held, so it just goes
		if m.screen != screenShows {
			t.Fatalf("esc without seats held: %v", m.screen)
		}
		press(t, m, "enter", "2", "b", "ctrl+f", "y")
		if m.screen != screenFind {
			t.Fatalf("ctrl+f y: %v", m.screen)
		}
		held("ctrl+f y", 0)
	})
}

// soldOutStudio sells every seat of today's first Studio show.
func soldOutStudio(tb testing.TB, s *db.Store, clock *storetest.Clock) booking.Show {
	tb.Helper()
	ctx := context.Background()
	shows, _ := s.Shows(ctx, booking.System, clock.Now())
	for _, sh := range shows {
		if sh.HallName != "Studio" {
			continue
		}
		sm := storeMap(tb, s, sh.ID, "")
		var labels []string
		for _, seat := range sm.Hall.Seats {
			labels = append(labels, seat.Label)
		}
		for i := 0; len(labels) > 0; i++ {
			n := min(booking.MaxSeatsPerSale, len(labels))
			h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: sh.ID, Seats: labels[:n], Owner: "fill"})
			if err != nil {
				tb.Fatal(err)
			}
			if _, err := s.Checkout(ctx, booking.System, booking.CheckoutRequest{HoldID: h.ID, Owner: "fill", IdempotencyKey: fmt.Sprint("fill-", i), Method: booking.Card}); err != nil {
				tb.Fatal(err)
			}
			labels = labels[n:]
		}
		return sh
	}
	tb.Fatal("no Studio show today")
	return booking.Show{}
}

// Item 10 and the sold-out b: the waiting-list screen lists a show's
// waiting customers and removes one after y.
func TestModel_WaitlistScreen(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	show := soldOutStudio(t, s, clock)
	ctx := context.Background()
	for _, c := range [][2]string{{"Ann Lee", "0123 456"}, {"Bob Ray", "0777 888"}} {
		if _, err := s.AddWaitlist(ctx, booking.System, show.ID, c[0], c[1], 2); err != nil {
			t.Fatal(err)
		}
	}
	m := newTestModel(t, s, clock, "wl", 80, 24)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	for m.shows.visible()[m.shows.cursor].ID != show.ID {
		press(t, m, "down")
	}
	press(t, m, "enter", "b")
	if m.status != "Sold out — w adds the customer to the waiting list." {
		t.Fatalf("b on a sold-out map: %q", m.status)
	}
	press(t, m, "W")
	v := screenText(m)
	if m.screen != screenWaitlist || !strings.Contains(v, "Ann Lee") || !strings.Contains(v, "0777 888") || !strings.Contains(v, "waiting") {
		t.Fatalf("waiting-list screen:\n%s", v)
	}
	press(t, m, "down", "d")
	if v := screenText(m); !strings.Contains(v, "Remove Bob Ray (0777 888) from the waiting list? y remove · n keep") {
		t.Fatalf("no question before removing:\n%s", v)
	}
	press(t, m, "enter")
	if list, _ := s.Waitlist(ctx, booking.System, show.ID); len(list) != 2 {
		t.Fatalf("enter removed someone: %d left", len(list))
	}
	press(t, m, "d", "y")
	list, err := s.Waitlist(ctx, booking.System, show.ID)
	if err != nil || len(list) != 1 || list[0].Name != "Ann Lee" {
		t.Fatalf("after removing Bob: %+v %v", list, err)
	}
	if v := screenText(m); strings.Contains(v, "0777 888") || !strings.Contains(m.status, "Removed Bob Ray") {
		t.Fatalf("the screen still lists Bob: %q\n%s", m.status, v)
	}
	press(t, m, "esc")
	if m.screen != screenSeatMap {
		t.Fatalf("esc from the waiting list: %v", m.screen)
	}
}

// ? opens the keys only while no text is typed in the focused field; the
// hint bar offers it only then.
func TestModel_HelpKeyWhileTyping(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "help", 120, 40)
	openGrandShow(t, m)
	offered := func() bool { return strings.Contains(strings.Split(screenText(m), "\n")[39], "? keys") }
	check := func(where string, f *field, typed string) {
		t.Helper()
		press(t, m, "?")
		if !m.help.ShowAll {
			t.Fatalf("%s, nothing typed: ? did not open the keys", where)
		}
		press(t, m, "?")
		typeText(t, m, typed)
		if offered() {
			t.Fatalf("%s with %q typed: the hint bar offers ?", where, typed)
		}
		press(t, m, "?")
		if m.help.ShowAll {
			t.Fatalf("%s with %q typed: ? opened the keys", where, typed)
		}
		f.Reset()
	}
	press(t, m, "2", "b", "enter")
	check("checkout", &m.checkout.tendered, "30")
	press(t, m, "ctrl+f", "k")
	check("find", &m.find.query, "ann")
	if m.find.query.String() != "" {
		t.Fatal("reset")
	}
	typeText(t, m, "ann?")
	if m.find.query.String() != "ann?" {
		t.Fatalf("find query %q", m.find.query.String())
	}
	press(t, m, "ctrl+d")
	check("door", &m.door.code, "ABC")
}

// Door staff with a key of their own open on the door screen.
func TestModel_DoorStaffKeyOpensDoor(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := New(Options{Store: s, Owner: "door-key", Now: clock.Now, Staff: &booking.Actor{Name: "dora", Role: booking.RoleDoor}})
	m.parkBlocking = true
	t.Cleanup(m.Close)
	send(t, m, tea.WindowSizeMsg{Width: 80, Height: 24})
	run(t, m, m.Init())
	if m.screen != screenDoor || !strings.Contains(screenText(m), "Door · scan a ticket") {
		t.Fatalf("door staff opened on %v", m.screen)
	}
	press(t, m, "esc")
	if m.screen != screenDoor {
		t.Fatalf("esc took door staff to %v", m.screen)
	}
}

// The done screen shows each ticket's code as text with its QR code, at
// the smallest size too.
func TestModel_DoneShowsCodes(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "codes", 80, 24)
	openGrandShow(t, m)
	press(t, m, "2", "b", "enter", "tab")
	typeText(t, m, "Cy Code")
	press(t, m, "enter", "enter", "enter")
	if m.screen != screenDone {
		t.Fatalf("sale: %q", m.status)
	}
	v := screenText(m)
	lines := strings.Split(v, "\n")
	for _, tk := range m.done.booking.Tickets {
		if !strings.Contains(v, tk.Code) {
			t.Fatalf("code %s not on the done screen:\n%s", tk.Code, v)
		}
	}
	// The QR code is drawn whole: its last quiet-zone line is on screen.
	if qr := lines[len(lines)-3]; !strings.HasPrefix(qr, "█████████") {
		t.Fatalf("the QR code is cut off:\n%s", v)
	}
}

// At 80×24 with a waiting-list call on screen, the go-to and waiting-list
// prompts still show, and the Grand's last rows scroll into view with a
// line saying what is off screen.
func TestModel_SmallScreen(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "small", 80, 24)
	show := openGrandShow(t, m)
	m.calls = []booking.WaitlistEntry{{ID: 1, Name: "Ann Lee", Phone: "0123", Seats: 2, Show: show}}
	m.drawn = false
	frame := func() []string {
		t.Helper()
		lines := strings.Split(screenText(m), "\n")
		if len(lines) != 24 {
			t.Fatalf("%d lines", len(lines))
		}
		return lines
	}
	for _, k := range []string{"/", "w"} {
		press(t, m, k)
		lines := frame()
		// The call takes two lines (wrapped, not cut) over the status
		// and the hint bar.
		if !strings.Contains(lines[20], "☎ Call Ann Lee") || !strings.Contains(lines[21], "ctrl+k called") {
			t.Fatalf("no call line:\n%s", strings.Join(lines, "\n"))
		}
		if !strings.Contains(lines[19], "Go to seat") && !strings.Contains(lines[19], "Waiting list — name") {
			t.Fatalf("%s prompt not on screen:\n%s", k, strings.Join(lines, "\n"))
		}
		press(t, m, "esc")
	}
	if v := strings.Join(frame(), "\n"); !strings.Contains(v, "▲ rows A–C above (↑↓ scroll)") {
		t.Fatalf("no sign that rows are off screen:\n%s", v)
	}
	for i := 0; i < 20; i++ {
		press(t, m, "k")
	}
	if v := strings.Join(frame(), "\n"); !strings.Contains(v, " A       o o") || !strings.Contains(v, "▼ rows R–T below (↑↓ scroll)") {
		t.Fatalf("the first row did not scroll into view:\n%s", v)
	}
	for i := 0; i < 20; i++ {
		press(t, m, "j")
	}
	lines := frame()
	v := strings.Join(lines, "\n")
	if !strings.Contains(v, " T w c w c") || !strings.Contains(v, "above (↑↓ scroll)") {
		t.Fatalf("the last row did not scroll into view:\n%s", v)
	}
}
