package tui

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"boxoffice/booking"
	"boxoffice/internal/dbtest"
)

// moneyRows counts what moves money in the file at path: payments,
// exchanges and closed shifts, read straight from the file beside the
// open store, so nothing the model holds can hide a write.
func moneyRows(t *testing.T, path string) [3]int {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n [3]int
	err = raw.QueryRow(`SELECT (SELECT count(*) FROM payments), (SELECT count(*) FROM exchanges),
		(SELECT count(*) FROM shifts WHERE status = 'closed')`).Scan(&n[0], &n[1], &n[2])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// premiumSeat is a free premium seat of the show, for an exchange that
// costs more.
func premiumSeat(t *testing.T, s Backend, showID int64) string {
	t.Helper()
	sm := storeMap(t, s, showID, "")
	for _, seat := range sm.Hall.Seats {
		if seat.Kind == booking.Premium && sm.State(seat.ID) == booking.SeatFree {
			return seat.Label
		}
	}
	t.Fatal("no free premium seat")
	return ""
}

// The accident at the counter: a search finds one card booking and opens
// it; the clerk types the next search, "e", space, enter, enter, which
// once exchanged the seat onto a premium one and took 2.50 in cash with
// no question asked. Now the booking is titled by its number, the letters
// go into the search field, and nothing moves. Moved into the booking
// (tab), the same keys reach only the exchange's last question, with No
// chosen and the card the booking was paid by as the method; only an
// arrow to Yes then enter exchanges.
func TestFind_TypingOnAFoundBookingMovesNothing(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s, path := dbtest.MustOpenDemo(t, storeOptions(clock))
	first, _ := grandShows(t, s)
	b := storeSell(t, s, first.ID, "card-customer", nil, "G7")
	addStaff(t, s, "cleo", booking.RoleClerk, "2468")
	m := newTestModel(t, s, clock, "cleo-counter", 100, 30)
	signIn(t, m, "cleo", "2468")
	before := moneyRows(t, path)
	unmoved := func(what string) {
		t.Helper()
		if got := moneyRows(t, path); got != before {
			t.Fatalf("%s: payments, exchanges, closed shifts went from %v to %v", what, before, got)
		}
		got, err := s.Booking(context.Background(), booking.System, b.Number)
		if err != nil || got.Status != booking.BookingConfirmed || got.Tickets[0].Status != booking.TicketIssued || len(got.Payments) != 1 {
			t.Fatalf("%s: the booking changed: %+v %v", what, got, err)
		}
	}

	press(t, m, "ctrl+f")
	typeText(t, m, b.Number)
	press(t, m, "enter")
	text := screenText(m)
	if m.find.mode != findView || !m.find.typing || !strings.Contains(text, "Booking "+b.Number+" · found by a search") || strings.Contains(text, "Find a booking") {
		t.Fatalf("the booking a search opened is not titled by its number: mode %v typing %v\n%s", m.find.mode, m.find.typing, text)
	}
	if bar := screenLine(m.bottomLines()[len(m.bottomLines())-1]); !strings.Contains(bar, "tab work on this booking") || strings.Contains(bar, "exchange") {
		t.Fatalf("the hint bar does not say how to reach the booking: %q", bar)
	}
	press(t, m, "e", "space", "enter", "enter")
	unmoved("e space enter enter on the booking a search opened")
	if m.exch != nil || m.screen != screenFind {
		t.Fatalf("the keys started an exchange: screen %v exch %v", m.screen, m.exch != nil)
	}

	// Into the booking: the same keys stop at the last question.
	findBooking(t, m, b.Number)
	if m.find.typing {
		t.Fatal("tab did not move into the booking")
	}
	premium := premiumSeat(t, s, first.ID)
	press(t, m, "e")
	goTo(t, m, premium) // the cursor on the premium seat, held: the accident's space
	press(t, m, "enter")
	if m.screen != screenExchange || m.exch.method != booking.Card {
		t.Fatalf("exchange of a card booking: screen %v method %v", m.screen, m.exch.method)
	}
	press(t, m, "enter")
	text = screenText(m)
	if !m.exch.confirming || m.exch.yes || !strings.Contains(text, "Exchange "+b.Number+" to "+premium+": the customer pays") ||
		!strings.Contains(text, "by card?") || !strings.Contains(text, "[ No, keep the booking ]") {
		t.Fatalf("no last question with the difference and the method:\n%s", text)
	}
	for _, typed := range []string{"y", "yes", " ", "1"} {
		typeText(t, m, typed)
		press(t, m, "enter")
		unmoved("typing " + typed + " and enter at the exchange")
		press(t, m, "enter") // back at the question
	}
	unmoved("enter on No")
	press(t, m, "right", "enter")
	got, err := s.Booking(context.Background(), booking.System, b.Number)
	if err != nil || got.Status != booking.BookingCancelled {
		t.Fatalf("Yes did not exchange: %v %v (%q)", got.Status, err, m.status)
	}
	to := m.find.booking
	if to == nil || to.ExchangedFrom != b.Number || to.Payments[0].Method != booking.Card || to.Payments[0].Amount <= 0 {
		t.Fatalf("the difference of a card booking: %+v", to)
	}
}

// Money going back goes the way the booking was paid unless the clerk
// says otherwise: a card booking's cancel offers the refund by card, and
// a cheaper exchange of it pays back by card, not cash.
func TestRefund_MethodIsThePayment(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	first, _ := grandShows(t, s)
	premium := premiumSeat(t, s, first.ID)
	b := storeSell(t, s, first.ID, "premium-card", nil, premium)
	c := storeSell(t, s, first.ID, "cancel-card", nil, "H4")
	m := newTestModel(t, s, clock, "sup-counter", 100, 30)
	addStaff(t, s, "sue", booking.RoleSupervisor, "1357")
	signIn(t, m, "sue", "1357")

	findBooking(t, m, c.Number)
	press(t, m, "c", "enter")
	if text := screenText(m); !strings.Contains(text, "Refund "+c.Total.String()+" card and cancel") {
		t.Fatalf("the refund's question does not say card:\n%s", text)
	}
	press(t, m, "esc", "esc")

	findBooking(t, m, b.Number)
	press(t, m, "e")
	goTo(t, m, "H9") // standard: cheaper, money back
	press(t, m, "enter")
	if m.screen != screenExchange || m.exch.method != booking.Card {
		t.Fatalf("exchange of a card booking: screen %v method %v", m.screen, m.exch.method)
	}
	press(t, m, "enter")
	if text := screenText(m); !strings.Contains(text, "paid back by card?") {
		t.Fatalf("the money back does not say card:\n%s", text)
	}
	press(t, m, "right", "enter")
	to := m.find.booking
	if to == nil || to.ExchangedFrom != b.Number {
		t.Fatalf("not exchanged: %q", m.status)
	}
	for _, p := range to.Payments {
		if p.Method != booking.Card {
			t.Fatalf("money back by %s on a card booking: %+v", p.Method, to.Payments)
		}
	}
}

// A clerk's shift: x shows no X report and no expected figure before the
// count (the count would not be blind), the count is confirmed on a
// question whose default is No, and enter on No closes nothing. A
// supervisor sees the X report of their own drawer.
func TestShift_CloseConfirmsAndXIsForSupervisors(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s, path := dbtest.MustOpenDemo(t, storeOptions(clock))
	addStaff(t, s, "nina", booking.RoleClerk, "2468")
	m := newTestModel(t, s, clock, "nina-counter", 100, 30)
	signIn(t, m, "nina", "2468")
	openGrand(t, m)
	press(t, m, "2", "b", "enter", "enter", "enter") // exact cash
	if m.screen != screenDone {
		t.Fatalf("sale: %v %q", m.screen, m.status)
	}
	sh, err := s.CurrentShift(context.Background(), booking.Actor{Name: "nina", Role: booking.RoleClerk})
	if err != nil {
		t.Fatal(err)
	}
	x, err := s.ShiftReport(context.Background(), booking.System, sh.ID)
	if err != nil || x.CashSales == 0 {
		t.Fatalf("X report %+v %v", x, err)
	}
	expected := x.Expected.String()

	press(t, m, "ctrl+t")
	if bar := screenLine(m.bottomLines()[len(m.bottomLines())-1]); strings.Contains(bar, "X report") {
		t.Fatalf("a clerk is offered the X report: %q", bar)
	}
	press(t, m, "x")
	if m.shift.mode != shiftOpen || m.shift.report != nil {
		t.Fatalf("x on a clerk's shift: mode %v report %+v", m.shift.mode, m.shift.report)
	}
	for _, text := range []string{screenText(m), m.status} {
		if strings.Contains(text, "Expected") || strings.Contains(text, expected) {
			t.Fatalf("the clerk sees the expected cash %s before counting:\n%s", expected, text)
		}
	}

	before := moneyRows(t, path)
	press(t, m, "c")
	typeText(t, m, "12")
	press(t, m, "enter", "enter")
	text := screenText(m)
	if m.shift.mode != shiftConfirm || m.shift.yes || !strings.Contains(text, "with 12.00 counted?") || strings.Contains(text, expected) {
		t.Fatalf("no confirmation of the count, or it shows the expected cash:\n%s", text)
	}
	press(t, m, "enter")
	if m.shift.mode != shiftCount || moneyRows(t, path) != before {
		t.Fatalf("enter on No: mode %v, rows %v → %v", m.shift.mode, before, moneyRows(t, path))
	}
	if _, err := s.CurrentShift(context.Background(), booking.Actor{Name: "nina", Role: booking.RoleClerk}); err != nil {
		t.Fatalf("enter on No closed the shift: %v", err)
	}
	press(t, m, "enter", "enter", "right", "enter")
	if m.shift.mode != shiftZ || !strings.Contains(screenText(m), expected) {
		t.Fatalf("the Z report after the count:\n%s", screenText(m))
	}

	// A supervisor may see what their drawer should hold.
	addStaff(t, s, "sue", booking.RoleSupervisor, "1357")
	press(t, m, "ctrl+o")
	signIn(t, m, "sue", "1357")
	press(t, m, "ctrl+t", "x")
	if m.shift.mode != shiftX || !strings.Contains(screenText(m), "Expected") {
		t.Fatalf("x for a supervisor: mode %v %q\n%s", m.shift.mode, m.status, screenText(m))
	}
}
