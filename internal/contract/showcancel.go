package contract

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"boxoffice/booking"
)

// showCancelCases: a show called off refunds every live booking of it,
// each once, whoever runs the cancel and however often; a sale racing
// the cancel is refused or refunded, never left sold.
var showCancelCases = []testCase{
	{"RefundsEach", showCancelRefundsEach},
	{"ErrRefusedBeforeWriting", showCancelErrRefused},
	{"TwoRuns", showCancelTwoRuns},
	{"RaceSale", showCancelRaceSale},
}

func init() { groups = append(groups, group{"ShowCancel", showCancelCases}) }

func showCancelRefundsEach(t *testing.T, e *env) {
	c := need[showCanceller](t, e, "CancelShow (booking.Programme)")
	r := need[refunder](t, e, "RefundTickets (booking.Bookings)")
	d := need[admitter](t, e, "Admit (booking.Door)")
	card := e.sell(t, "a", "A1", "A2")
	h := e.hold(t, "cash", "B1")
	cash, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "cash", IdempotencyKey: "cash", Method: booking.Cash, Tendered: 5000, Customer: "Ann", Phone: "0123"})
	if err != nil {
		t.Fatal(err)
	}
	partial := e.sell(t, "p", "C1", "C2")
	if _, err := r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: partial.Number, Seats: []string{"C2"}}); err != nil {
		t.Fatal(err)
	}
	e.hold(t, "held", "D1")
	e.clock.Set(e.show.Starts.Add(-5 * time.Minute)) // the doors open
	if _, err := d.Admit(e.ctx, door, card.Tickets[0].Code); err != nil {
		t.Fatal(err)
	}
	res, err := c.CancelShow(e.ctx, manager, e.show.ID, "Projector\x1b[2J broken")
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != "Projector[2J broken" || res.RefundedNow != 3 || len(res.Contacts) != 3 || res.Show.Status != booking.ShowCancelled || res.By != manager.Name {
		t.Fatalf("cancellation %+v", res)
	}
	want := map[string]booking.Money{card.Number: card.Total, cash.Number: cash.Total, partial.Number: partial.Total}
	for _, k := range res.Contacts {
		if want[k.Booking] != k.Refunded {
			t.Errorf("%s refunded %s, want %s", k.Booking, k.Refunded, want[k.Booking])
		}
		if k.Booking == cash.Number && (k.Name != "Ann" || k.Phone != "0123" || k.Method != booking.Cash || k.Tickets != 1) {
			t.Errorf("cash contact %+v", k)
		}
	}
	for _, number := range []string{card.Number, cash.Number, partial.Number} {
		b, err := r.Booking(e.ctx, clerk, number)
		if err != nil {
			t.Fatal(err)
		}
		if b.Status != booking.BookingCancelled || !strings.Contains(b.Reason, "show cancelled: Projector[2J broken") {
			t.Errorf("%s is %s (%q) after the show was cancelled", number, b.Status, b.Reason)
		}
	}
	_, err = d.Admit(e.ctx, door, cash.Tickets[0].Code)
	wantMessage(t, "the door after the cancel", err, "This show was cancelled.")
	if w, ok := e.s.(waitlister); ok {
		_, err := w.AddWaitlist(e.ctx, clerk, e.show.ID, "Bo", "0456", 2)
		wantCode(t, "the waiting list of a cancelled show", err, booking.EInvalid)
	}
	again, err := c.CancelShow(e.ctx, manager, e.show.ID, "something else")
	if err != nil || again.RefundedNow != 0 || len(again.Contacts) != 3 || again.Reason != res.Reason {
		t.Errorf("again: %+v %v", again, err)
	}
	e.counts(t, 0, 0)
}

func showCancelErrRefused(t *testing.T, e *env) {
	c := need[showCanceller](t, e, "CancelShow (booking.Programme)")
	h := e.hold(t, "cash", "B1")
	if _, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "cash", IdempotencyKey: "cash", Method: booking.Cash, Tendered: 5000}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []struct {
		name   string
		actor  booking.Actor
		show   int64
		reason string
		code   string
		msg    string
	}{
		{"no shift for the cash", booking.Actor{Name: "boss", Role: booking.RoleManager}, e.show.ID, "projector", booking.EInvalid, "1 booking paid in cash: open a shift first (the float in the drawer); their refunds come out of it."},
		{"no reason", booking.System, e.show.ID, " \x1b ", booking.EInvalid, ""},
		{"unknown show", booking.System, 999, "projector", booking.ENotFound, "There is no show 999."},
		{"a supervisor", supervisor, e.show.ID, "projector", booking.EForbidden, ""},
	} {
		_, err := c.CancelShow(e.ctx, k.actor, k.show, k.reason)
		wantCode(t, k.name, err, k.code)
		if k.msg != "" {
			wantMessage(t, k.name, err, k.msg)
		}
	}
	e.clock.Set(e.show.Ends())
	_, err := c.CancelShow(e.ctx, booking.System, e.show.ID, "projector")
	wantCode(t, "an ended show", err, booking.EInvalid)
	wantMessage(t, "an ended show", err, fmt.Sprintf("The %s show ended at %s: refund its bookings one by one.",
		e.show.Starts.In(e.clock.Now().Location()).Format("Mon 15:04"), e.show.Ends().In(e.clock.Now().Location()).Format("15:04")))
	sh, err := e.s.Show(e.ctx, clerk, e.show.ID)
	if err != nil || sh.Cancelled() || sh.Sold != 1 {
		t.Fatalf("after refused cancels: %+v %v", sh, err)
	}
}

// showCancelTwoRuns: two cancels of one show at once refund each booking
// once between them.
func showCancelTwoRuns(t *testing.T, e *env) {
	c := need[showCanceller](t, e, "CancelShow (booking.Programme)")
	const bookings = 12
	for i := range bookings {
		e.sell(t, fmt.Sprint("b", i), fmt.Sprintf("%c%d", 'A'+i%8, 1+i/8))
	}
	var wg sync.WaitGroup
	res := make([]*booking.ShowCancellation, 2)
	errs := make([]error, 2)
	for i := range res {
		wg.Go(func() { res[i], errs[i] = c.CancelShow(e.ctx, manager, e.show.ID, "flood") })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := res[0].RefundedNow + res[1].RefundedNow; n != bookings || len(res[0].Contacts) != bookings || len(res[1].Contacts) != bookings {
		t.Fatalf("refunded %d + %d, contacts %d and %d; want %d in all", res[0].RefundedNow, res[1].RefundedNow, len(res[0].Contacts), len(res[1].Contacts), bookings)
	}
	for _, k := range res[0].Contacts {
		if k.Tickets != 1 {
			t.Errorf("%s: %d refunds, want 1", k.Booking, k.Tickets)
		}
	}
	e.counts(t, 0, 0)
}

// showCancelRaceSale: counters sell the show while it is cancelled. Each
// sale is refused, or made and then refunded by the cancel: afterwards
// nothing of the show is sold or held, and every sale made is cancelled.
func showCancelRaceSale(t *testing.T, e *env) {
	c := need[showCanceller](t, e, "CancelShow (booking.Programme)")
	r := need[canceller](t, e, "Booking (booking.Bookings)")
	const counters = 8
	var wg sync.WaitGroup
	start := make(chan struct{})
	made := make([][]string, counters)
	var sales atomic.Int32
	begun := make(chan struct{})
	var once sync.Once
	for i := range counters {
		wg.Go(func() {
			<-start
			for j := range 6 {
				owner := fmt.Sprintf("c%d-%d", i, j)
				h, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{fmt.Sprintf("%c%d", 'A'+i, 1+j)}, Owner: owner})
				if err != nil {
					continue
				}
				b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card})
				if err == nil {
					made[i] = append(made[i], b.Number)
					if sales.Add(1) == counters {
						once.Do(func() { close(begun) })
					}
				}
			}
		})
	}
	close(start)
	<-begun // a few sales in, the rest still selling
	if _, err := c.CancelShow(e.ctx, manager, e.show.ID, "flood"); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	sold := 0
	for _, numbers := range made {
		for _, n := range numbers {
			sold++
			b, err := r.Booking(e.ctx, clerk, n)
			if err != nil {
				t.Fatal(err)
			}
			if b.Status != booking.BookingCancelled {
				t.Errorf("%s, sold while the show was cancelled, is %s", n, b.Status)
			}
		}
	}
	if sold < counters {
		t.Fatalf("%d sales made, want at least %d before the cancel", sold, counters)
	}
	t.Logf("%d sales made, all refunded", sold)
	e.counts(t, 0, 0)
}
