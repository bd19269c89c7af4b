package contract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
)

// refunder is what refundCases need of booking.Bookings.
type refunder interface {
	canceller
	RefundTickets(ctx context.Context, actor booking.Actor, req booking.RefundRequest) (*booking.Booking, error)
}

const needRefund = "Booking, Cancel and RefundTickets (booking.Bookings)"

// refundCases: a refund frees exactly its seats and pays back exactly
// their price, once; after the start it needs a manager; an approval
// that cannot approve is never recorded as one.
var refundCases = []testCase{
	{"OneOfThreeUnderTwelveAttempts", refundOneOfThree},
	{"AfterStartNeedsAManager", refundAfterStart},
	{"Refusals", refundRefusals},
	{"ApproverAndFloatChecked", refundApprover},
	{"FloatOpensTheDrawer", refundFloatOpensTheDrawer},
	{"RacingCancel", refundRacingCancel},
	{"RacingAdmission", refundRacingAdmission},
	{"ReasonPerTicket", refundReasonPerTicket},
	{"ApprovalThenRefused", refundApprovalThenRefused},
}

// sellCash sells seats for cash by actor from the drawer newEnv opened.
func (e *env) sellCash(t *testing.T, actor booking.Actor, owner string, seats ...string) *booking.Booking {
	t.Helper()
	h, err := e.s.Hold(e.ctx, actor, booking.HoldRequest{ShowID: e.show.ID, Seats: seats, Owner: owner})
	if err != nil {
		t.Fatalf("hold %v: %v", seats, err)
	}
	b, err := e.s.Checkout(e.ctx, actor, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: "cash-" + owner, Method: booking.Cash})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func refundOneOfThree(t *testing.T, e *env) {
	r := need[refunder](t, e, needRefund)
	h := e.hold(t, "a", "D1", "D2", "D3")
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "party", Method: booking.Cash, Types: map[string]string{"D2": "child"}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"d2"}, Reason: fmt.Sprint("attempt ", i)})
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, booking.ErrStaleStatus):
			t.Fatal(err)
		default:
			wantMessage(t, "a losing refund", err, "The ticket for D2 is already refunded")
		}
	}
	if ok != 1 {
		t.Fatalf("%d refunds succeeded", ok)
	}
	got, err := r.Booking(e.ctx, clerk, b.Number)
	if err != nil {
		t.Fatal(err)
	}
	n, sum := refunds(got)
	if n != 1 || sum != 8_50 || got.Status != booking.BookingConfirmed || got.Show.Sold != 2 {
		t.Fatalf("%d refunds of %s, %s with %d sold; want one of the child price 8.50", n, sum, got.Status, got.Show.Sold)
	}
	for label, want := range map[string]booking.SeatState{"D1": booking.SeatSold, "D2": booking.SeatFree, "D3": booking.SeatSold} {
		if st := e.state(t, "", label); st != want {
			t.Fatalf("%s is %v, want %v", label, st, want)
		}
	}
	e.counts(t, 2, 0)
	// The last two: the booking is cancelled, every ticket refunded once.
	got, err = r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"D1", "D3"}})
	if err != nil || got.Status != booking.BookingCancelled || len(got.Payments) != 4 {
		t.Fatalf("refunding the rest: %+v %v", got, err)
	}
	e.counts(t, 0, 0)
}

// refunds counts a booking's refund payments and their sum.
func refunds(b *booking.Booking) (int, booking.Money) {
	n, sum := 0, booking.Money(0)
	for _, p := range b.Payments {
		if p.Kind == booking.PaymentRefund {
			n, sum = n+1, sum+p.Amount
		}
	}
	return n, sum
}

func refundAfterStart(t *testing.T, e *env) {
	r := need[refunder](t, e, needRefund)
	a := e.sellCash(t, clerk, "a", "A1", "A2")
	b := e.sellCash(t, clerk, "b", "B1")
	e.clock.Set(e.show.Starts.Add(time.Minute))
	_, err := r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: a.Number, Seats: []string{"A1"}})
	wantCode(t, "a supervisor's refund after the start", err, booking.EForbidden)
	_, err = r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number})
	wantCode(t, "a supervisor's cancel after the start", err, booking.EForbidden)
	got, err := r.RefundTickets(e.ctx, manager, booking.RefundRequest{Number: a.Number, Seats: []string{"A1"}})
	if err != nil || got.Payments[1].Amount != 12_50 || got.Payments[1].Staff != "mgr" {
		t.Fatalf("a manager's refund: %+v %v", got, err)
	}
	_, err = r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number, Approver: &booking.Credentials{Name: "sue", PIN: "1234"}})
	wantCode(t, "a supervisor approving a supervisor after the start", err, booking.EForbidden)
	c, err := r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number, Approver: &booking.Credentials{Name: "mgr", PIN: "1234"}})
	if err != nil || c.Status != booking.BookingCancelled || c.Payments[1].ApprovedBy != "mgr" || c.Payments[1].Staff != "sue" || c.Payments[1].ShiftID == 0 {
		t.Fatalf("a cancel approved by a manager, refunded from sue's drawer: %+v %v", c, err)
	}
	e.whole(t)
}

func refundRefusals(t *testing.T, e *env) {
	r := need[refunder](t, e, needRefund)
	b := e.sellCash(t, clerk, "a", "A1", "A2")
	for _, c := range []struct {
		name string
		req  booking.RefundRequest
	}{
		{"NoSeats", booking.RefundRequest{Number: b.Number}},
		{"NotMine", booking.RefundRequest{Number: b.Number, Seats: []string{"C9"}}},
		{"NoNumber", booking.RefundRequest{Seats: []string{"A1"}}},
	} {
		_, err := r.RefundTickets(e.ctx, supervisor, c.req)
		wantCode(t, c.name, err, booking.EInvalid)
	}
	_, err := r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"c9"}})
	wantMessage(t, "a seat not in the booking", err, "C9 is not a seat of "+b.Number+".")
	_, err = r.RefundTickets(e.ctx, clerk, booking.RefundRequest{Number: b.Number, Seats: []string{"A1"}})
	wantCode(t, "a clerk's refund alone", err, booking.EForbidden)
	_, err = r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: "bo-23456789", Seats: []string{"A1"}})
	wantCode(t, "a refund of no booking", err, booking.ENotFound)
	wantMessage(t, "a refund of no booking", err, "No booking BO-23456789.")
	c, err := r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number})
	if err != nil || len(c.Payments) != 3 || c.Payments[1].TicketID == 0 || c.Payments[1].TicketID == c.Payments[2].TicketID {
		t.Fatalf("cancel, one refund per ticket: %+v %v", c, err)
	}
	_, err = r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"A1"}})
	if !errors.Is(err, booking.ErrStaleStatus) {
		t.Fatalf("a refund of a cancelled booking: %v", err)
	}
	wantMessage(t, "a refund of a cancelled booking", err, "Booking "+b.Number+" is already cancelled")
	e.whole(t)
}

func refundApprover(t *testing.T, e *env) {
	r := need[refunder](t, e, needRefund)
	b := e.sellCash(t, clerk, "a", "A1", "A2")
	float := booking.Money(-1)
	_, err := r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number, OpenFloat: &float})
	wantCode(t, "a negative float", err, booking.EInvalid)
	// A clerk named as the approver is refused as an approval, even
	// though the supervisor could refund alone: nothing is refunded.
	_, err = r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"A1"}, Approver: &booking.Credentials{Name: "carl", PIN: "1234"}})
	wantCode(t, "a clerk's approval", err, booking.EForbidden)
	if got, err := r.Booking(e.ctx, supervisor, b.Number); err != nil || len(got.Payments) != 1 {
		t.Fatalf("a refused approval refunded: %+v %v", got, err)
	}
	c, err := r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number, Approver: &booking.Credentials{Name: "mgr", PIN: "1234"}})
	if err != nil || c.ApprovedBy != "mgr" || c.Payments[2].ApprovedBy != "mgr" {
		t.Fatalf("a manager's approval: %+v %v", c, err)
	}
	// The trail names what each approval was for, and the booking.
	if a, ok := e.s.(booking.Audit); ok {
		rows, err := a.Audit(e.ctx, manager, booking.AuditQuery{Day: e.clock.Now()})
		if err != nil {
			t.Fatal(err)
		}
		want := map[booking.AuditAction]string{
			booking.AuditApprovalFail: "refund of " + b.Number + " by " + supervisor.Name,
			booking.AuditOverride:     "cancel of " + b.Number + " by " + supervisor.Name,
		}
		for _, row := range rows {
			if w, ok := want[row.Action]; ok && strings.Contains(row.Detail, w) {
				delete(want, row.Action)
			}
		}
		if len(want) > 0 {
			t.Fatalf("approvals the trail does not name: %v in %+v", want, rows)
		}
	}
	e.whole(t)
}

// refundFloatOpensTheDrawer: a cash refund by someone with no shift open
// is refused with ErrNoShift and moves nothing; with a float it opens
// their drawer in the same transaction and pays out of it; a float given
// when a shift is open opens no second one; a card refund needs none.
func refundFloatOpensTheDrawer(t *testing.T, e *env) {
	r := need[refunder](t, e, needRefund)
	sh := need[booking.Shifts](t, e, needShifts)
	b := e.sellCash(t, clerk, "a", "A1", "A2", "A3")
	closeShift(t, sh, e, supervisor)
	_, err := r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"A1"}})
	if !booking.IsNoShift(err) {
		t.Fatalf("a cash refund without a shift: %v", err)
	}
	_, err = r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number})
	if !booking.IsNoShift(err) {
		t.Fatalf("a cash cancel without a shift: %v", err)
	}
	if got, err := r.Booking(e.ctx, clerk, b.Number); err != nil || len(got.Payments) != 1 || got.Status != booking.BookingConfirmed {
		t.Fatalf("refused refunds moved money: %+v %v", got, err)
	}
	float := booking.Money(50_00)
	got, err := r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"A1"}, OpenFloat: &float})
	if err != nil {
		t.Fatal(err)
	}
	cur, err := sh.CurrentShift(e.ctx, supervisor)
	if err != nil || cur.Float != float || got.Payments[1].ShiftID != cur.ID {
		t.Fatalf("the drawer opened by the refund: %+v %v; payment %+v", cur, err, got.Payments[1])
	}
	if x, err := sh.ShiftReport(e.ctx, supervisor, cur.ID); err != nil || x.Expected != float-12_50 || x.CashRefunds != 12_50 || x.Refunds != 1 {
		t.Fatalf("X report %+v %v", x, err)
	}
	more := booking.Money(99_00)
	got, err = r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number, OpenFloat: &more})
	if err != nil || len(got.Payments) != 4 || got.Payments[2].ShiftID != cur.ID || got.Payments[3].ShiftID != cur.ID {
		t.Fatalf("a cancel with a float while a shift is open: %+v %v", got, err)
	}
	closeShift(t, sh, e, supervisor)
	card := e.sell(t, "c", "C1")
	got, err = r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: card.Number, Seats: []string{"C1"}})
	if err != nil || got.Payments[1].ShiftID != 0 {
		t.Fatalf("a card refund with no shift open: %+v %v", got, err)
	}
	if _, err := sh.CurrentShift(e.ctx, supervisor); booking.ErrorCode(err) != booking.ENotFound {
		t.Fatalf("a card refund opened a shift: %v", err)
	}
	e.whole(t)
}

// refundRacingCancel: a cancel racing a part refund of the same booking:
// whichever goes first, each ticket goes back once, the refunds add up to
// what was paid, and the seats are all free.
func refundRacingCancel(t *testing.T, e *env) {
	r := need[refunder](t, e, needRefund)
	for round := range 5 {
		seats := []string{fmt.Sprintf("A%d", 2*round+1), fmt.Sprintf("A%d", 2*round+2)}
		b := e.sell(t, seats[0], seats...)
		var wg sync.WaitGroup
		start := make(chan struct{})
		var cancelErr, refundErr error
		wg.Go(func() {
			<-start
			_, cancelErr = r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number})
		})
		wg.Go(func() {
			<-start
			_, refundErr = r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: seats[:1]})
		})
		close(start)
		wg.Wait()
		if cancelErr != nil || (refundErr != nil && !errors.Is(refundErr, booking.ErrStaleStatus)) {
			t.Fatalf("round %d: cancel %v, refund %v", round, cancelErr, refundErr)
		}
		got, err := r.Booking(e.ctx, clerk, b.Number)
		if err != nil {
			t.Fatal(err)
		}
		tickets := map[int64]bool{}
		for _, p := range got.Payments {
			if p.Kind == booking.PaymentRefund {
				tickets[p.TicketID] = true
			}
		}
		if n, back := refunds(got); got.Status != booking.BookingCancelled || back != b.Total || n != 2 || len(tickets) != 2 {
			t.Fatalf("round %d: %s, %d refunds of %s for %d tickets; paid %s", round, got.Status, n, back, len(tickets), b.Total)
		}
	}
	e.counts(t, 0, 0)
}

// refundRacingAdmission: the door scanning a ticket while it is refunded:
// one of the two wins; the refund that lost says the ticket was admitted,
// the admission that lost is refused, and nothing is half done.
func refundRacingAdmission(t *testing.T, e *env) {
	r := need[refunder](t, e, needRefund)
	d := need[admitter](t, e, "Admit (booking.Door)")
	e.clock.Set(e.show.Starts.Add(-5 * time.Minute)) // the doors are open
	for round := range 6 {
		seat := fmt.Sprintf("B%d", round+1)
		b := e.sell(t, seat, seat)
		var wg sync.WaitGroup
		start := make(chan struct{})
		var admitErr, refundErr error
		wg.Go(func() {
			<-start
			_, admitErr = d.Admit(e.ctx, door, b.Tickets[0].Code)
		})
		wg.Go(func() {
			<-start
			_, refundErr = r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{seat}})
		})
		close(start)
		wg.Wait()
		got, err := r.Booking(e.ctx, clerk, b.Number)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := refunds(got)
		switch {
		case admitErr == nil && refundErr == nil:
			t.Fatalf("round %d: %s admitted and refunded", round, seat)
		case admitErr == nil:
			wantMessage(t, "the refund that lost", refundErr, "The ticket for "+seat+" was already admitted; it cannot be refunded.")
			if got.Tickets[0].Status != booking.TicketAdmitted || n != 0 || got.Status != booking.BookingConfirmed {
				t.Fatalf("round %d: admitted, then %+v", round, got)
			}
		case refundErr == nil:
			wantCode(t, "the admission that lost", admitErr, booking.EConflict)
			if got.Tickets[0].Status != booking.TicketRefunded || n != 1 || got.Status != booking.BookingCancelled {
				t.Fatalf("round %d: refunded, then %+v", round, got)
			}
		default:
			t.Fatalf("round %d: both lost: %v; %v", round, admitErr, refundErr)
		}
	}
	e.whole(t)
}

// cancelErrAdmitted: a booking with a ticket admitted is not cancelled,
// and nothing moves.
func cancelErrAdmitted(t *testing.T, e *env) {
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	d := need[admitter](t, e, "Admit (booking.Door)")
	b := e.sell(t, "a", "A1", "A2")
	e.clock.Set(e.show.Starts.Add(-5 * time.Minute))
	if _, err := d.Admit(e.ctx, door, b.Tickets[0].Code); err != nil {
		t.Fatal(err)
	}
	_, err := c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number})
	wantCode(t, "a cancel with a ticket admitted", err, booking.EConflict)
	wantMessage(t, "a cancel with a ticket admitted", err, "A ticket of "+b.Number+" was already admitted; it cannot be cancelled.")
	got, err := c.Booking(e.ctx, clerk, b.Number)
	if err != nil || got.Status != booking.BookingConfirmed || len(got.Payments) != 1 || got.Tickets[1].Status != booking.TicketIssued {
		t.Fatalf("after a refused cancel: %+v %v", got, err)
	}
	e.counts(t, 2, 0)
}

// cancelRacingAdmission: the door scanning a ticket while its booking is
// cancelled: one of the two wins, and the other is refused.
func cancelRacingAdmission(t *testing.T, e *env) {
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	d := need[admitter](t, e, "Admit (booking.Door)")
	e.clock.Set(e.show.Starts.Add(-5 * time.Minute))
	for round := range 6 {
		seats := []string{fmt.Sprintf("C%d", 2*round+1), fmt.Sprintf("C%d", 2*round+2)}
		b := e.sell(t, seats[0], seats...)
		var wg sync.WaitGroup
		start := make(chan struct{})
		var admitErr, cancelErr error
		wg.Go(func() {
			<-start
			_, admitErr = d.Admit(e.ctx, door, b.Tickets[1].Code)
		})
		wg.Go(func() {
			<-start
			_, cancelErr = c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number})
		})
		close(start)
		wg.Wait()
		got, err := c.Booking(e.ctx, clerk, b.Number)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := refunds(got)
		switch {
		case admitErr == nil && cancelErr == nil:
			t.Fatalf("round %d: admitted and cancelled", round)
		case admitErr == nil:
			wantMessage(t, "the cancel that lost", cancelErr, "A ticket of "+b.Number+" was already admitted; it cannot be cancelled.")
			if got.Status != booking.BookingConfirmed || n != 0 || got.Tickets[0].Status != booking.TicketIssued {
				t.Fatalf("round %d: admitted, then %+v", round, got)
			}
		case cancelErr == nil:
			wantMessage(t, "the admission that lost", admitErr, "Ticket "+seats[1]+" of "+b.Number+" was cancelled and refunded.")
			if got.Status != booking.BookingCancelled || n != 2 {
				t.Fatalf("round %d: cancelled, then %+v", round, got)
			}
		default:
			t.Fatalf("round %d: both lost: %v; %v", round, admitErr, cancelErr)
		}
	}
	e.whole(t)
}

// cancelOnceEachWay: two cancels of one booking at the same moment, paid
// in cash and by card, round after round: one wins and refunds once, in
// the canceller's shift; the other is told the booking is cancelled
// already. The number is typed as a clerk types it.
func cancelOnceEachWay(t *testing.T, e *env) {
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	sh := need[booking.Shifts](t, e, needShifts)
	sue, err := sh.CurrentShift(e.ctx, supervisor)
	if err != nil {
		t.Fatal(err)
	}
	cash := booking.Money(0)
	for round := range 6 {
		seat := fmt.Sprintf("D%d", round+1)
		var b *booking.Booking
		if round%2 == 0 {
			b = e.sell(t, seat, seat)
		} else {
			b = e.sellCash(t, clerk, seat, seat)
			cash += b.Total
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, 2)
		for i := range errs {
			wg.Go(func() {
				<-start
				_, errs[i] = c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: strings.ToLower(strings.TrimPrefix(b.Number, "BO-")), Reason: "ill"})
			})
		}
		close(start)
		wg.Wait()
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
				continue
			}
			wantCode(t, "the cancel that lost", err, booking.EConflict)
			wantMessage(t, "the cancel that lost", err, "Booking "+b.Number+" is already cancelled")
		}
		got, err := c.Booking(e.ctx, clerk, b.Number)
		if err != nil {
			t.Fatal(err)
		}
		if n, back := refunds(got); won != 1 || n != 1 || back != b.Total || got.Payments[1].ShiftID != sue.ID {
			t.Fatalf("round %d: %d won; %d refunds of %s; refund %+v", round, won, n, back, got.Payments[1])
		}
	}
	x, err := sh.ShiftReport(e.ctx, supervisor, sue.ID)
	if err != nil || x.CashRefunds != cash || x.Expected != Float-cash {
		t.Fatalf("sue's drawer after the cash cancels: %+v %v", x, err)
	}
	e.counts(t, 0, 0)
}

// cancelErrWithdrawn: a supervisor disabled since signing in can neither
// cancel nor refund, and nothing moves.
func cancelErrWithdrawn(t *testing.T, e *env) {
	c := need[refunder](t, e, needRefund)
	r := need[roster](t, e, "SignIn, DisableStaff and EnableStaff (booking.Roster)")
	st, err := r.SignIn(e.ctx, booking.SignInRequest{Name: "sue", PIN: "1234"})
	if err != nil {
		t.Fatal(err)
	}
	sue := booking.Actor{StaffID: st.ID, Name: st.Name, Role: st.Role, Terminal: "till-2"}
	b := e.sell(t, "a", "A6")
	if err := r.DisableStaff(e.ctx, booking.System, "sue"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Cancel(e.ctx, sue, booking.CancelRequest{Number: b.Number}); !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("a disabled supervisor's cancel: %v", err)
	}
	if _, err := c.RefundTickets(e.ctx, sue, booking.RefundRequest{Number: b.Number, Seats: []string{"A6"}}); !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("a disabled supervisor's refund: %v", err)
	}
	if got, err := c.Booking(e.ctx, clerk, b.Number); err != nil || got.Status != booking.BookingConfirmed || len(got.Payments) != 1 {
		t.Fatalf("after a disabled supervisor's tries: %+v %v", got, err)
	}
}

// refundReasonPerTicket: each refund keeps the reason typed with it, on
// the booking's payments and in the refunds report, however many refunds
// the booking had; before, every row of the report said the reason of
// the refund that happened to cancel the booking.
func refundReasonPerTicket(t *testing.T, e *env) {
	r := need[refunder](t, e, needRefund)
	rep, ok := e.s.(booking.Reports)
	if !ok {
		t.Skip("the backend has no booking.Reports yet")
	}
	b := e.sellCash(t, clerk, "a", "A1", "A2", "A3")
	for _, x := range []struct{ seat, reason string }{{"A1", "wrong film"}, {"A2", ""}, {"A3", "went home ill"}} {
		if _, err := r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{x.seat}, Reason: x.reason}); err != nil {
			t.Fatalf("refund %s: %v", x.seat, err)
		}
	}
	got, err := r.Booking(e.ctx, clerk, b.Number)
	if err != nil || got.Status != booking.BookingCancelled || len(got.Payments) != 4 {
		t.Fatalf("after three refunds: %+v %v", got, err)
	}
	var reasons []string
	for _, p := range got.Payments[1:] {
		reasons = append(reasons, p.Reason)
	}
	if strings.Join(reasons, "|") != "wrong film||went home ill" {
		t.Errorf("the refund payments' reasons: %q", reasons)
	}
	day := e.clock.Now()
	report, err := rep.ReportRefunds(e.ctx, manager, booking.ReportRange{From: day, To: day})
	if err != nil {
		t.Fatal(err)
	}
	bySeat := map[string]string{}
	for _, row := range report.Rows {
		if row.Booking == b.Number {
			bySeat[row.Seat] = row.Reason
		}
	}
	want := map[string]string{"A1": "wrong film", "A2": "", "A3": "went home ill"}
	if fmt.Sprint(bySeat) != fmt.Sprint(want) {
		t.Errorf("the refunds report's reasons: %v, want %v", bySeat, want)
	}
	e.whole(t)
}

// refundApprovalThenRefused: a supervisor's right PIN leaves an override
// row before the refund is tried; when the refund is then refused (the
// show has started, which needs a manager) the trail says the approved
// refund was not made, and why, so it never reads as money paid out.
func refundApprovalThenRefused(t *testing.T, e *env) {
	r := need[refunder](t, e, needRefund)
	a, ok := e.s.(booking.Audit)
	if !ok {
		t.Skip("the backend has no booking.Audit yet")
	}
	b := e.sellCash(t, clerk, "a", "A1", "A2")
	e.clock.Set(e.show.Starts.Add(time.Minute))
	_, err := r.RefundTickets(e.ctx, clerk, booking.RefundRequest{Number: b.Number, Seats: []string{"A1"}, Approver: &booking.Credentials{Name: "sue", PIN: "1234"}})
	wantCode(t, "a refund after the start approved by a supervisor", err, booking.EForbidden)
	rows, err := a.Audit(e.ctx, manager, booking.AuditQuery{Day: e.clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	what := "refund of " + b.Number + " by " + clerk.Name
	var trail []string
	for _, row := range rows {
		if row.Action == booking.AuditOverride && strings.Contains(row.Detail, what) {
			trail = append([]string{row.Actor + ": " + row.Detail}, trail...) // oldest first
		}
	}
	if len(trail) != 2 || !strings.HasPrefix(trail[1], "sue: "+what+" approved, not made: The ") || !strings.Contains(trail[1], "show has started") {
		t.Fatalf("the trail of an approved refund that was refused: %q", trail)
	}
	if got, err := r.Booking(e.ctx, clerk, b.Number); err != nil || len(got.Payments) != 1 {
		t.Fatalf("the refused refund paid out: %+v %v", got, err)
	}
}
