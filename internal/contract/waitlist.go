package contract

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
)

// waitlist is booking.Waitlist, with the cancel that frees seats.
type waitlist interface {
	waitlister
	canceller
	Waitlist(ctx context.Context, actor booking.Actor, showID int64) ([]booking.WaitlistEntry, error)
	WaitlistCalls(ctx context.Context, actor booking.Actor) ([]booking.WaitlistEntry, error)
	MarkCalled(ctx context.Context, actor booking.Actor, entryID int64) error
	RemoveWaitlist(ctx context.Context, actor booking.Actor, entryID int64) error
	NotifyWaitlist(ctx context.Context) ([]booking.WaitlistEntry, error)
}

const needWaitlist = "the waiting list (booking.Waitlist) and Cancel (booking.Bookings)"

// waitlistCases: a party waits only for a sold-out show; as seats come
// free the parties that fit are told, first come first, each once however
// many sweepers run, and the seats told of stay promised to them for
// booking.WaitlistOffer or until they buy; a call is claimed once.
var waitlistCases = []testCase{
	{"RefusedWhileSeatsFree", waitlistRefusedWhileSeatsFree},
	{"Err", waitlistErr},
	{"NoQueueJumping", waitlistNoQueueJumping},
	{"NotifiedOnceByRacingSweeps", waitlistNotifiedOnce},
	{"NeverMoreThanSeats", waitlistNeverMoreThanSeats},
	{"CalledOnce", waitlistCalledOnce},
	{"Remove", waitlistRemove},
	{"PlayedShowsNeverTold", waitlistPlayedShows},
	{"AccessiblePlacesKept", waitlistAccessiblePlacesKept},
}

// sellOut sells every seat of the first show in bookings of at most 20
// seats, the first of them of first seats, and returns them in order.
func (e *env) sellOut(t *testing.T, first int) []*booking.Booking {
	t.Helper()
	var labels []string
	for _, seat := range e.seatMap(t, "").Hall.Seats {
		labels = append(labels, seat.Label)
	}
	out := []*booking.Booking{e.sell(t, "bulk", labels[:first]...)}
	for i := first; i < len(labels); i += booking.MaxSeatsPerSale {
		out = append(out, e.sell(t, "bulk", labels[i:min(i+booking.MaxSeatsPerSale, len(labels))]...))
	}
	return out
}

// cancel cancels a booking as a supervisor, freeing its seats.
func (e *env) cancel(t *testing.T, w waitlist, b *booking.Booking) {
	t.Helper()
	if _, err := w.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number}); err != nil {
		t.Fatal(err)
	}
}

// wait puts a party on the first show's waiting list.
func (e *env) wait(t *testing.T, w waitlist, name, phone string, seats int) *booking.WaitlistEntry {
	t.Helper()
	entry, err := w.AddWaitlist(e.ctx, clerk, e.show.ID, name, phone, seats)
	if err != nil {
		t.Fatalf("%s waits for %d: %v", name, seats, err)
	}
	return entry
}

// told is the ids a sweep told, in order.
func told(t *testing.T, e *env, w waitlist) []int64 {
	t.Helper()
	got, err := w.NotifyWaitlist(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(got))
	for i, entry := range got {
		if entry.NotifiedAt == nil {
			t.Fatalf("told %+v without a time", entry)
		}
		ids[i] = entry.ID
	}
	return ids
}

// waitlistRefusedWhileSeatsFree: a party that could buy now (seats free,
// or held by a hold that lapsed) is refused and nothing is written; one
// seat free, a party of two may wait and a party of one may not.
func waitlistRefusedWhileSeatsFree(t *testing.T, e *env) {
	w := need[waitlist](t, e, needWaitlist)
	_, err := w.AddWaitlist(e.ctx, clerk, e.show.ID, "Ann", "0123", 2)
	wantCode(t, "waiting with every seat free", err, booking.EConflict)
	wantMessage(t, "waiting with every seat free", err, "Seats are free: sell them now.")
	if list, err := w.Waitlist(e.ctx, clerk, e.show.ID); err != nil || len(list) != 0 {
		t.Fatalf("the refused entry was written: %+v, %v", list, err)
	}
	sold := e.sellOut(t, 2)
	e.cancel(t, w, sold[0])
	e.hold(t, "other", sold[0].Tickets[0].Seat.Label) // held at another counter: not free
	_, err = w.AddWaitlist(e.ctx, clerk, e.show.ID, "Ann", "0123", 1)
	wantMessage(t, "one seat free, a party of one", err, "Seats are free: sell them now.")
	e.wait(t, w, "Ann", "0123", 2)
	e.clock.Add(booking.DefaultHoldTTL + time.Second) // the hold lapses: two seats free
	_, err = w.AddWaitlist(e.ctx, clerk, e.show.ID, "Bo", "0456", 2)
	wantCode(t, "two seats free again, a party of two behind Ann, never told", err, booking.EConflict)
}

// waitlistErr: a party needs a name, a phone and 1..MaxSeatsPerSale
// seats, of a show on sale; the door keeps no waiting list.
func waitlistErr(t *testing.T, e *env) {
	w := need[waitlist](t, e, needWaitlist)
	for what, c := range map[string]struct {
		name, phone string
		seats       int
	}{
		"no name":  {"", "0123", 2},
		"no phone": {"Ann", " ", 2},
		"no seats": {"Ann", "0123", 0},
		"too many": {"Ann", "0123", booking.MaxSeatsPerSale + 1},
	} {
		_, err := w.AddWaitlist(e.ctx, clerk, e.show.ID, c.name, c.phone, c.seats)
		wantCode(t, what, err, booking.EInvalid)
	}
	_, err := w.AddWaitlist(e.ctx, clerk, e.show.ID, "", "0123", 2)
	wantMessage(t, "no name", err, "The waiting list needs a name and a phone number to call.")
	_, err = w.AddWaitlist(e.ctx, clerk, e.show.ID, "Ann", "0123", 0)
	wantMessage(t, "no seats", err, fmt.Sprintf("Wait for between 1 and %d seats.", booking.MaxSeatsPerSale))
	_, err = w.AddWaitlist(e.ctx, clerk, 1<<40, "Ann", "0123", 2)
	wantCode(t, "an unknown show", err, booking.ENotFound)
	_, err = w.AddWaitlist(e.ctx, door, e.show.ID, "Ann", "0123", 2)
	wantCode(t, "the door", err, booking.EForbidden)
	for what, err := range map[string]error{
		"the door's list":   func() error { _, err := w.Waitlist(e.ctx, door, e.show.ID); return err }(),
		"the door's calls":  func() error { _, err := w.WaitlistCalls(e.ctx, door); return err }(),
		"the door's call":   w.MarkCalled(e.ctx, door, 1),
		"the door's remove": w.RemoveWaitlist(e.ctx, door, 1),
	} {
		wantCode(t, what, err, booking.EForbidden)
	}
	wantMessage(t, "a call of no entry", w.MarkCalled(e.ctx, clerk, 1<<40), "No such waiting-list entry.")
}

// waitlistNoQueueJumping: four seats free and a party of six first in
// line: the party of two behind it is not told; twenty more free, both
// are, first come first.
func waitlistNoQueueJumping(t *testing.T, e *env) {
	w := need[waitlist](t, e, needWaitlist)
	sold := e.sellOut(t, 4)
	ann := e.wait(t, w, "Ann", "0123", 6)
	bob := e.wait(t, w, "Bob", "0456", 2)
	e.cancel(t, w, sold[0])
	if got := told(t, e, w); len(got) != 0 {
		t.Fatalf("told %v with four seats free and a party of six first", got)
	}
	e.cancel(t, w, sold[1])
	if got := told(t, e, w); len(got) != 2 || got[0] != ann.ID || got[1] != bob.ID {
		t.Fatalf("told %v, want Ann then Bob", got)
	}
	list, err := w.Waitlist(e.ctx, clerk, e.show.ID)
	if err != nil || len(list) != 2 || list[0].ID != ann.ID || list[0].NotifiedAt == nil || list[1].NotifiedAt == nil || list[0].Bought {
		t.Fatalf("the list: %+v, %v", list, err)
	}
}

// waitlistNotifiedOnce: sweeps racing on many connections tell each
// party once.
func waitlistNotifiedOnce(t *testing.T, e *env) {
	w := need[waitlist](t, e, needWaitlist)
	sold := e.sellOut(t, 20)
	var parties []*booking.WaitlistEntry
	for i := range 5 {
		parties = append(parties, e.wait(t, w, fmt.Sprintf("P%d", i), fmt.Sprintf("0700 %03d", i), 3))
	}
	e.cancel(t, w, sold[0])
	var mu sync.Mutex
	counts := map[int64]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 8 {
		wg.Go(func() {
			<-start
			for range 3 {
				got, err := w.NotifyWaitlist(e.ctx)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, entry := range got {
					counts[entry.ID]++
				}
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	if len(counts) != len(parties) {
		t.Fatalf("told %v, want each of %d parties", counts, len(parties))
	}
	for _, p := range parties {
		if counts[p.ID] != 1 {
			t.Fatalf("told %v, want each party once", counts)
		}
	}
}

// waitlistNeverMoreThanSeats: two seats free and three parties of two
// waiting: one is told, and the seats are promised to it; its offer
// lapses uncalled and the next is told; the next buys (its phone spelt
// another way) and its promise is kept, so the third waits until more
// seats come free.
func waitlistNeverMoreThanSeats(t *testing.T, e *env) {
	w := need[waitlist](t, e, needWaitlist)
	sold := e.sellOut(t, 2)
	var parties []*booking.WaitlistEntry
	for i, name := range []string{"Ann", "Bob", "Cy"} {
		parties = append(parties, e.wait(t, w, name, fmt.Sprintf("0700 00%d", i), 2))
	}
	e.cancel(t, w, sold[0])
	for range 3 {
		if got := told(t, e, w); len(got) > 1 || len(got) == 1 && got[0] != parties[0].ID {
			t.Fatalf("told %v for two free seats; want Ann alone, once", got)
		}
	}
	dee := e.wait(t, w, "Dee", "0700 009", 2) // the seats are Ann's: Dee may wait
	if calls, err := w.WaitlistCalls(e.ctx, clerk); err != nil || len(calls) != 1 || calls[0].ID != parties[0].ID {
		t.Fatalf("calls %+v, %v; want Ann", calls, err)
	}
	e.clock.Add(booking.WaitlistOffer + time.Second)
	if got := told(t, e, w); len(got) != 1 || got[0] != parties[1].ID {
		t.Fatalf("after Ann's offer lapsed told %v; want Bob", got)
	}
	err := w.MarkCalled(e.ctx, clerk, parties[0].ID)
	wantCode(t, "calling Ann after her offer lapsed", err, booking.EExpired)
	wantMessage(t, "calling Ann after her offer lapsed", err,
		fmt.Sprintf("The offer to Ann lapsed after %d minutes without a call; the seats may go to the next in line.", int(booking.WaitlistOffer.Minutes())))
	if err := w.MarkCalled(e.ctx, clerk, parties[1].ID); err != nil {
		t.Fatal(err)
	}
	h := e.hold(t, "bob", sold[0].Tickets[0].Seat.Label, sold[0].Tickets[1].Seat.Label)
	if _, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "bob", IdempotencyKey: "bob-1", Method: booking.Card, Customer: "Bob", Phone: "07000-01"}); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(time.Minute)
	if got := told(t, e, w); len(got) != 0 {
		t.Fatalf("told %v with the show sold out again", got)
	}
	list, err := w.Waitlist(e.ctx, clerk, e.show.ID)
	if err != nil || len(list) != 4 || list[0].Bought || !list[1].Bought || list[2].NotifiedAt != nil {
		t.Fatalf("the list: %+v, %v", list, err)
	}
	if calls, err := w.WaitlistCalls(e.ctx, clerk); err != nil || len(calls) != 0 {
		t.Fatalf("calls after Bob bought: %+v, %v", calls, err)
	}
	e.cancel(t, w, sold[1]) // Bob bought: his promise holds no seat
	if got := told(t, e, w); len(got) != 2 || got[0] != parties[2].ID || got[1] != dee.ID {
		t.Fatalf("told %v; want Cy then Dee", got)
	}
}

// waitlistCalledOnce: nobody is called before their seats come free;
// told, the party is listed to call, with its show; two counters pressing
// "called" at once record one call, and the other hears who made it.
func waitlistCalledOnce(t *testing.T, e *env) {
	w := need[waitlist](t, e, needWaitlist)
	sold := e.sellOut(t, 2)
	ann := e.wait(t, w, "Ann", "0123", 2)
	err := w.MarkCalled(e.ctx, clerk, ann.ID)
	wantCode(t, "calling before the seats came free", err, booking.EConflict)
	wantMessage(t, "calling before the seats came free", err, "Ann's seats have not come free yet.")
	if calls, err := w.WaitlistCalls(e.ctx, clerk); err != nil || len(calls) != 0 {
		t.Fatalf("calls before anyone was told: %+v, %v", calls, err)
	}
	e.cancel(t, w, sold[0])
	if got := told(t, e, w); len(got) != 1 {
		t.Fatalf("told %v", got)
	}
	calls, err := w.WaitlistCalls(e.ctx, clerk)
	if err != nil || len(calls) != 1 || calls[0].ID != ann.ID || calls[0].Name != "Ann" || calls[0].Phone != "0123" ||
		calls[0].Seats != 2 || calls[0].NotifiedAt == nil || calls[0].Show.ID != e.show.ID || calls[0].Show.Film.Title != e.show.Film.Title {
		t.Fatalf("calls %+v, %v", calls, err)
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, who := range []booking.Actor{clerk, supervisor} {
		wg.Go(func() {
			<-start
			errs[i] = w.MarkCalled(e.ctx, who, ann.ID)
		})
	}
	close(start)
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("both or neither marked the call: %v / %v", errs[0], errs[1])
	}
	winner := map[bool]string{true: clerk.Name, false: supervisor.Name}[errs[0] == nil]
	var stale *booking.StaleError
	if lost := errors.Join(errs[0], errs[1]); !errors.As(lost, &stale) || stale.Current != "called by "+winner || booking.ErrorCode(lost) != booking.EConflict {
		t.Fatalf("the second call: %v", lost)
	}
	if calls, err := w.WaitlistCalls(e.ctx, clerk); err != nil || len(calls) != 0 {
		t.Fatalf("still to call after the call: %+v, %v", calls, err)
	}
	list, err := w.Waitlist(e.ctx, clerk, e.show.ID)
	if err != nil || len(list) != 1 || list[0].CalledAt == nil || list[0].CalledBy != winner {
		t.Fatalf("the call was not recorded: %+v, %v", list, err)
	}
}

// waitlistRemove: an entry comes off once, and the seats promised to it
// go to the next party.
func waitlistRemove(t *testing.T, e *env) {
	w := need[waitlist](t, e, needWaitlist)
	sold := e.sellOut(t, 2)
	ann := e.wait(t, w, "Ann", "0123", 2)
	bob := e.wait(t, w, "Bob", "0456", 2)
	e.cancel(t, w, sold[0])
	if got := told(t, e, w); len(got) != 1 || got[0] != ann.ID {
		t.Fatalf("told %v; want Ann", got)
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range errs {
		wg.Go(func() {
			<-start
			errs[i] = w.RemoveWaitlist(e.ctx, clerk, ann.ID)
		})
	}
	close(start)
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("two removals of one entry: %v / %v", errs[0], errs[1])
	}
	wantMessage(t, "the second removal", errors.Join(errs[0], errs[1]), fmt.Sprintf("No waiting-list entry %d.", ann.ID))
	wantCode(t, "removing an unknown entry", w.RemoveWaitlist(e.ctx, clerk, 1<<40), booking.ENotFound)
	if got := told(t, e, w); len(got) != 1 || got[0] != bob.ID {
		t.Fatalf("after Ann left told %v; want Bob", got)
	}
	if list, err := w.Waitlist(e.ctx, clerk, e.show.ID); err != nil || len(list) != 1 || list[0].ID != bob.ID {
		t.Fatalf("the list: %+v, %v", list, err)
	}
}

// waitlistPlayedShows: a show whose sales closed takes nobody on its list
// and tells nobody on it, whatever comes free.
func waitlistPlayedShows(t *testing.T, e *env) {
	w := need[waitlist](t, e, needWaitlist)
	sold := e.sellOut(t, 20)
	e.wait(t, w, "Ann", "0123", 2)
	e.clock.Set(e.show.Starts.Add(time.Hour))
	_, err := w.AddWaitlist(e.ctx, clerk, e.show.ID, "Bob", "0456", 2)
	wantCode(t, "waiting for a show that played", err, booking.EInvalid)
	if _, err := w.Cancel(e.ctx, manager, booking.CancelRequest{Number: sold[0].Number}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got := told(t, e, w); len(got) != 0 {
			t.Fatalf("told %v for a show that played", got)
		}
	}
	if calls, err := w.WaitlistCalls(e.ctx, clerk); err != nil || len(calls) != 0 {
		t.Fatalf("calls for a show that played: %+v, %v", calls, err)
	}
}

// waitlistAccessiblePlacesKept: with only wheelchair and companion places
// free a show is sold out to a party (those places are never offered to
// one), so the party may wait and is not told of them; once standard
// seats come free it is. Before, the waiting list was refused ("Seats are
// free") and such a show could never take one.
func waitlistAccessiblePlacesKept(t *testing.T, e *env) {
	w := need[waitlist](t, e, needWaitlist)
	var standard []string
	accessible := 0
	for _, seat := range e.seatMap(t, "").Hall.Seats {
		if seat.Kind.Accessible() {
			accessible++
			continue
		}
		standard = append(standard, seat.Label)
	}
	if accessible == 0 {
		t.Fatal("the fixture hall has no wheelchair or companion places")
	}
	var sold []*booking.Booking
	for i := 0; i < len(standard); i += booking.MaxSeatsPerSale {
		sold = append(sold, e.sell(t, "bulk", standard[i:min(i+booking.MaxSeatsPerSale, len(standard))]...))
	}
	ann := e.wait(t, w, "Ann", "0123", 2)
	if got := told(t, e, w); len(got) != 0 {
		t.Fatalf("told %v of places kept for wheelchairs", got)
	}
	e.cancel(t, w, sold[0])
	if got := told(t, e, w); len(got) != 1 || got[0] != ann.ID {
		t.Fatalf("standard seats free again: told %v, want Ann (%d)", got, ann.ID)
	}
	_, err := w.AddWaitlist(e.ctx, clerk, e.show.ID, "Bo", "0456", 2)
	wantMessage(t, "standard seats free beyond those promised", err, "Seats are free: sell them now.")
}
