package contract

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
)

// admitter is booking.Door.
type admitter interface {
	Admit(ctx context.Context, actor booking.Actor, code string) (*booking.Admission, error)
}

// doorCases: a ticket is admitted at most once, within its show's door
// window; the second scan says when and by whom (invariant 5).
var doorCases = []testCase{
	{"OnceUnderRace", doorOnceUnderRace},
	{"ErrForged", doorErrForged},
	{"ErrCancelled", doorErrCancelled},
	{"Window", doorWindow},
}

func doorOnceUnderRace(t *testing.T, e *env) {
	d := need[admitter](t, e, "Admit (booking.Door)")
	code := e.sell(t, "a", "E1", "E2").Tickets[0].Code
	e.clock.Add(90 * time.Minute) // doors open
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { _, errs[i] = d.Admit(e.ctx, door, code) })
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		if err == nil {
			ok++
			continue
		}
		wantCode(t, "a second scan", err, booking.EConflict)
		if msg := booking.ErrorMessage(err); !strings.Contains(msg, "already admitted at") || !strings.Contains(msg, "by dora") {
			t.Fatalf("a second scan said %q", msg)
		}
	}
	if ok != 1 {
		t.Fatalf("admitted %d times", ok)
	}
}

// doorErrForged: a code that does not verify reads exactly like one
// never issued.
func doorErrForged(t *testing.T, e *env) {
	d := need[admitter](t, e, "Admit (booking.Door)")
	code := []byte(e.sell(t, "a", "E1").Tickets[0].Code)
	mid := len(code) / 2
	if code[mid] == 'A' { // still base32, wrong MAC
		code[mid] = 'B'
	} else {
		code[mid] = 'A'
	}
	e.clock.Add(90 * time.Minute)
	_, err := d.Admit(e.ctx, door, string(code))
	wantCode(t, "a forged code", err, booking.ENotFound)
	_, err = d.Admit(e.ctx, door, "NOT-A-CODE\x1b[2J")
	wantCode(t, "a garbage code", err, booking.ENotFound)
}

func doorErrCancelled(t *testing.T, e *env) {
	d := need[admitter](t, e, "Admit (booking.Door)")
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	b := e.sell(t, "b", "F1")
	if _, err := c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number}); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(90 * time.Minute)
	_, err := d.Admit(e.ctx, door, b.Tickets[0].Code)
	if booking.ErrorCode(err) != booking.EConflict || !strings.Contains(booking.ErrorMessage(err), "cancelled") {
		t.Fatalf("a cancelled ticket: %v", err)
	}
}

// doorWindow: before the doors open a scan says when they do (today) or
// which day the show is; once the show ended, when it did.
func doorWindow(t *testing.T, e *env) {
	d := need[admitter](t, e, "Admit (booking.Door)")
	second, err := e.s.Show(e.ctx, clerk, 2)
	if err != nil {
		t.Fatal(err)
	}
	third, err := e.s.Show(e.ctx, clerk, 3)
	if err != nil {
		t.Fatal(err)
	}
	ticket := func(show int64, owner, seat string) string {
		h, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: show, Seats: []string{seat}, Owner: owner})
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card})
		if err != nil {
			t.Fatal(err)
		}
		return b.Tickets[0].Code
	}
	local := func(at time.Time) time.Time { return at.In(e.clock.Now().Location()) }
	_, err = d.Admit(e.ctx, door, ticket(2, "a", "A1"))
	wantMessage(t, "too early", err, fmt.Sprintf("Doors open at %s for the %s show (Second Film, seat A1).",
		local(second.Starts.Add(-booking.DoorsOpen)).Format("15:04"), local(second.Starts).Format("15:04")))
	_, err = d.Admit(e.ctx, door, ticket(3, "b", "A1"))
	wantMessage(t, "another day", err, "Ticket A1 is for First Film at "+local(third.Starts).Format("Mon 02 Jan 15:04")+".")
	first := ticket(1, "c", "A1")
	e.clock.Add(time.Minute) // the doors opened a minute ago
	if _, err := d.Admit(e.ctx, door, first); err != nil {
		t.Fatalf("doors open: %v", err)
	}
	late := ticket(1, "d", "A2")
	e.clock.Set(e.show.Ends())
	_, err = d.Admit(e.ctx, door, late)
	wantMessage(t, "after the show", err, "This show ended at "+local(e.show.Ends()).Format("15:04")+".")
}
