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
	{"ByNumberOnceUnderRace", doorByNumberOnceUnderRace},
	{"ByNumberWindow", doorByNumberWindow},
	{"ByNumberUnpaid", doorByNumberUnpaid},
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

// doorByNumberOnceUnderRace: a booking's number admits those of its
// tickets not in yet, each once, and says why the others stay out;
// eight doors scanning it at once admit them once between them.
func doorByNumberOnceUnderRace(t *testing.T, e *env) {
	d := need[admitter](t, e, "Admit (booking.Door)")
	b := e.sell(t, "a", "E1", "E2", "E3")
	e.clock.Add(90 * time.Minute) // doors open
	if _, err := d.Admit(e.ctx, door, b.Tickets[0].Code); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	res := make([]*booking.Admission, 8)
	errs := make([]error, len(res))
	for i := range res {
		typed := b.Number
		if i%2 == 1 {
			typed = strings.ToLower(strings.TrimPrefix(b.Number, "BO-")) // as a customer reads it out
		}
		wg.Go(func() { res[i], errs[i] = d.Admit(e.ctx, door, typed) })
	}
	wg.Wait()
	admitted := 0
	for i, err := range errs {
		if err != nil {
			wantCode(t, "a second scan of the number", err, booking.EConflict)
			if msg := booking.ErrorMessage(err); !strings.Contains(msg, "already admitted at") || !strings.Contains(msg, "by dora") {
				t.Fatalf("a second scan of the number said %q", msg)
			}
			continue
		}
		a := res[i]
		admitted += len(a.Tickets)
		if len(a.Tickets) != 2 || a.Tickets[0].Seat.Label != "E2" || a.Tickets[1].Seat.Label != "E3" || a.Ticket.ID != a.Tickets[0].ID ||
			a.Booking != b.Number || len(a.Kept) != 1 || !strings.Contains(a.Kept[0], "Ticket E1 was already admitted at") {
			t.Fatalf("the number admitted %+v", a)
		}
	}
	if admitted != 2 {
		t.Fatalf("the number admitted %d tickets in all, want 2", admitted)
	}
}

// doorByNumberWindow: a booking's number before its doors open says when
// they do, never that the code is unknown.
func doorByNumberWindow(t *testing.T, e *env) {
	d := need[admitter](t, e, "Admit (booking.Door)")
	second, err := e.s.Show(e.ctx, clerk, 2)
	if err != nil {
		t.Fatal(err)
	}
	b := e.sellOn(t, 2, "w", "A1", "A2")
	local := func(at time.Time) time.Time { return at.In(e.clock.Now().Location()) }
	_, err = d.Admit(e.ctx, door, b.Number)
	wantMessage(t, "a number too early", err, fmt.Sprintf("Doors open at %s for the %s show (Second Film, seat A1 A2).",
		local(second.Starts.Add(-booking.DoorsOpen)).Format("15:04"), local(second.Starts).Format("15:04")))
}

// doorByNumberUnpaid: a reservation's number at the door sends the
// customer to pay at the counter; a number nobody has is no booking.
func doorByNumberUnpaid(t *testing.T, e *env) {
	d := need[admitter](t, e, "Admit (booking.Door)")
	r := e.reserver(t)
	res := e.reserve(t, r, "k1", 2, "020 7946 0018")
	_, err := d.Admit(e.ctx, door, res.Number)
	wantCode(t, "an unpaid reservation", err, booking.EConflict)
	if msg := booking.ErrorMessage(err); !strings.HasPrefix(msg, "Not paid: pay at the counter") {
		t.Fatalf("an unpaid reservation at the door said %q", msg)
	}
	e.clock.Set(res.CutOff)
	_, err = d.Admit(e.ctx, door, res.Number)
	wantMessage(t, "a lapsed reservation", err, fmt.Sprintf("Reservation %s was not paid; it lapsed at %s.", res.Number, res.CutOff.In(e.clock.Now().Location()).Format("15:04")))
	_, err = d.Admit(e.ctx, door, "BO-22222222")
	wantMessage(t, "a number nobody has", err, "No booking BO-22222222.")
}
