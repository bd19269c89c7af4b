package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/colorprofile"

	"boxoffice/assets"
	"boxoffice/booking"
	"boxoffice/internal/dbtest"
)

// A clerk with no shift open: the first cash sale asks for the float and
// sells with it (the shift opens in the sale's transaction); ctrl+t then
// closes the shift with a blind count that shows no expected figure until
// the count is in, and the Z report shows the variance.
func TestShift_FloatThenBlindCount(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	if _, err := s.AddStaff(context.Background(), booking.System, "nina", booking.RoleClerk, "2468", nil); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, "nina-session", 100, 30)
	signIn(t, m, "nina", "2468")
	openGrand(t, m)
	press(t, m, "2", "b", "enter", "enter", "enter") // exact cash
	if m.screen != screenShift || !strings.Contains(m.status, "Open a shift first") || !strings.Contains(screenText(m), "Float") {
		t.Fatalf("no float asked: screen %v status %q\n%s", m.screen, m.status, screenText(m))
	}
	golden(t, m, "shift-float-100x30-Ascii", colorprofile.Ascii)
	typeText(t, m, "1O0") // a letter is not an amount: the field refuses it
	press(t, m, "enter")
	if m.screen != screenDone {
		t.Fatalf("the sale did not go on with the float: screen %v status %q", m.screen, m.status)
	}
	nina := booking.Actor{Name: "nina", Role: booking.RoleClerk}
	sh, err := s.CurrentShift(context.Background(), nina)
	if err != nil || sh.Float != 10_00 || m.done.booking.Payments[0].ShiftID != sh.ID {
		t.Fatalf("shift %+v %v; payment %+v", sh, err, m.done.booking.Payments)
	}

	press(t, m, "ctrl+t")
	if m.screen != screenShift || m.shift.mode != shiftOpen {
		t.Fatalf("ctrl+t: screen %v mode %v status %q", m.screen, m.shift.mode, m.status)
	}
	press(t, m, "c")
	typeText(t, m, "30")
	for _, text := range []string{screenText(m), m.status} {
		if strings.Contains(text, "Expected") || strings.Contains(text, "35.00") {
			t.Fatalf("the blind count shows the expected figure:\n%s", text)
		}
	}
	press(t, m, "enter")
	typeText(t, m, "20x1 10x1")
	golden(t, m, "shift-count-100x30-Ascii", colorprofile.Ascii)
	press(t, m, "enter")
	golden(t, m, "shift-confirm-100x30-Ascii", colorprofile.Ascii)
	press(t, m, "right", "enter")
	golden(t, m, "shift-z-100x30-Ascii", colorprofile.Ascii)
	out := screenText(m)
	if m.shift.mode != shiftZ || !strings.Contains(out, "Z report") || !strings.Contains(out, "35.00") || !strings.Contains(out, "-5.00 short") {
		t.Fatalf("Z report:\n%s\nstatus %q", out, m.status)
	}
	if _, err := s.CurrentShift(context.Background(), nina); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("the shift is still open: %v", err)
	}
}

// r on a booking refunds one ticket after the same explicit confirmation
// as a cancel: No first, and typing never completes it.
func TestShift_RefundOneTicket(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "refund-session", 100, 30)
	openGrandShow(t, m)
	press(t, m, "3", "b", "enter", "enter", "enter")
	if m.screen != screenDone {
		t.Fatalf("sale: %q", m.status)
	}
	b := m.done.booking
	press(t, m, "ctrl+f")
	typeText(t, m, b.Number)
	press(t, m, "enter", "tab", "r", "right", "enter")
	if m.find.mode != findCancel || m.find.refundSeat != b.Tickets[1].Seat.Label {
		t.Fatalf("refund form: mode %v seat %q", m.find.mode, m.find.refundSeat)
	}
	press(t, m, "enter") // the reason is optional: to the confirmation
	if !strings.Contains(screenText(m), "for seat "+b.Tickets[1].Seat.Label+" of "+b.Number+"?") {
		t.Fatalf("confirmation:\n%s", screenText(m))
	}
	typeText(t, m, "yes y")
	press(t, m, "enter")
	got, _ := s.Booking(context.Background(), booking.System, b.Number)
	if got.Tickets[1].Status != booking.TicketIssued || m.find.mode != findView {
		t.Fatalf("typing refunded: %+v mode %v", got.Tickets[1], m.find.mode)
	}
	press(t, m, "r", "right", "enter", "enter", "right", "enter")
	got, _ = s.Booking(context.Background(), booking.System, b.Number)
	if got.Tickets[1].Status != booking.TicketRefunded || got.Tickets[0].Status != booking.TicketIssued || got.Status != booking.BookingConfirmed {
		t.Fatalf("after the refund: %+v", got.Tickets)
	}
	if !strings.Contains(m.status, "Refunded "+b.Tickets[1].Seat.Label) {
		t.Fatalf("status %q", m.status)
	}
	dbtest.MustBeWhole(t, s)
}

// A cash cancel by someone with no shift open asks for the float too,
// then refunds out of the shift it opens.
func TestShift_FloatForARefund(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	if _, err := s.AddStaff(ctx, booking.System, "sam", booking.RoleSupervisor, "1357", nil); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, s, clock, "sam-session", 100, 30)
	signIn(t, m, "sam", "1357")
	sh := openGrand(t, m)
	h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: sh.ID, Seats: []string{"A1", "A2"}, Owner: "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Checkout(ctx, booking.System, booking.CheckoutRequest{HoldID: h.ID, Owner: "elsewhere", IdempotencyKey: "refund-float", Method: booking.Cash})
	if err != nil {
		t.Fatal(err)
	}
	press(t, m, "ctrl+f")
	typeText(t, m, b.Number)
	press(t, m, "enter", "tab", "c", "enter", "right", "enter")
	if m.screen != screenShift || !strings.Contains(m.status, "Open a shift first") {
		t.Fatalf("no float asked: screen %v status %q", m.screen, m.status)
	}
	typeText(t, m, "50")
	press(t, m, "enter")
	got, err := s.Booking(ctx, booking.System, b.Number)
	if err != nil || got.Status != booking.BookingCancelled || m.screen != screenFind {
		t.Fatalf("after the float: %+v %v screen %v status %q", got, err, m.screen, m.status)
	}
	shift, err := s.CurrentShift(ctx, booking.Actor{Name: "sam", Role: booking.RoleSupervisor})
	if err != nil || shift.Float != 50_00 || got.Payments[1].ShiftID != shift.ID || got.Payments[2].ShiftID != shift.ID {
		t.Fatalf("shift %+v %v; payments %+v", shift, err, got.Payments)
	}
}

// Once the show has started, a supervisor's cancel asks for a manager's
// approval at the counter, and a manager's name and PIN let it through.
func TestShift_StartedShowNeedsAManager(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	ctx := context.Background()
	addStaff(t, s, "sue", booking.RoleSupervisor, "1357")
	m := newTestModel(t, s, clock, "sue-session", 100, 30)
	signIn(t, m, "sue", "1357")
	sh := openGrand(t, m)
	h, err := s.Hold(ctx, booking.System, booking.HoldRequest{ShowID: sh.ID, Seats: []string{"A1"}, Owner: "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Checkout(ctx, booking.System, booking.CheckoutRequest{HoldID: h.ID, Owner: "elsewhere", IdempotencyKey: "started", Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	press(t, m, "esc")
	clock.Set(sh.Starts.Add(time.Minute))
	press(t, m, "ctrl+f")
	typeText(t, m, b.Number)
	press(t, m, "enter", "tab", "c")
	if !strings.Contains(screenText(m), "A manager approves") {
		t.Fatalf("no manager asked for:\n%s", screenText(m))
	}
	press(t, m, "enter")
	typeText(t, m, assets.DemoUser)
	press(t, m, "enter")
	typeText(t, m, assets.DemoPIN)
	press(t, m, "enter", "right", "enter")
	got, _ := s.Booking(ctx, booking.System, b.Number)
	if got.Status != booking.BookingCancelled || got.ApprovedBy != assets.DemoUser {
		t.Fatalf("after a manager's approval: %s approved by %q; status %q", got.Status, got.ApprovedBy, m.status)
	}
}

// The count by denomination alone is added up; a total and a count that
// disagree are refused before anything is closed.
func TestShift_CountByDenomination(t *testing.T) {
	t.Parallel()
	clock := newClock()
	s := MustOpenStore(t, clock)
	m := newTestModel(t, s, clock, "count-session", 100, 30)
	signIn(t, m, assets.DemoUser, assets.DemoPIN)
	press(t, m, "ctrl+t", "c")
	typeText(t, m, "90")
	press(t, m, "tab")
	typeText(t, m, "50x2")
	press(t, m, "enter")
	if m.shift.mode != shiftCount || !strings.Contains(m.status, "adds up to 100.00, not the 90.00 counted") {
		t.Fatalf("a count that disagrees: mode %v status %q", m.shift.mode, m.status)
	}
	press(t, m, "ctrl+u", "enter", "enter") // the refusal put the focus on the total: clear it
	if m.shift.mode != shiftConfirm || !strings.Contains(screenText(m), "Close shift") || !strings.Contains(screenText(m), "with 100.00 counted?") {
		t.Fatalf("no confirmation of the count: mode %v\n%s", m.shift.mode, screenText(m))
	}
	press(t, m, "right", "enter")
	if m.shift.mode != shiftZ || m.shift.report.Counted != 100_00 || m.shift.report.Variance != 0 {
		t.Fatalf("the breakdown alone: mode %v report %+v status %q", m.shift.mode, m.shift.report, m.status)
	}
}
