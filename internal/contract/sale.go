package contract

import (
	"context"
	"errors"
	"slices"
	"testing"

	"boxoffice/booking"
)

// saleCases: a checkout decided from what the store remembers of the
// hold, the prices, the show's price list and the clerk's shift is
// checked against the database as it is written: whatever changed since
// (a seat let go, a price, the list, the shift, the clerk) the sale is
// what a checkout reading everything anew would make, or its refusal.
// And a clash names what is taken before what is kept out of sale.
var saleCases = []testCase{
	{"RemembersNothingStale", saleNothingStale},
	{"ErrShiftClosedSince", saleShiftClosedSince},
	{"ErrClerkDisabledSince", saleClerkDisabledSince},
	{"ClashNamesTakenBeforeBlocked", saleClashTakenBeforeBlocked},
}

func init() { groups = append(groups, group{"Sale", saleCases}) }

// listSetter is the price list a show sells at (booking.Programme).
type listSetter interface {
	SetPrice(ctx context.Context, actor booking.Actor, t booking.TicketType) error
	SetPriceEntry(ctx context.Context, actor booking.Actor, e booking.PriceEntry) error
	SetShowPriceList(ctx context.Context, actor booking.Actor, showID int64, list string) error
}

// saleNothingStale: after a first sale, each later checkout sells exactly
// what is held now at the prices and list of now.
func saleNothingStale(t *testing.T, e *env) {
	p := need[listSetter](t, e, "SetPrice, SetPriceEntry and SetShowPriceList (booking.Programme)")
	e.sell(t, "warm", "A1") // what the store remembers: the list, the prices
	// A seat let go between the hold and the checkout is not sold (here
	// by blocking it from the hold's own selection).
	h := e.hold(t, "a", "B1", "B2")
	if _, err := e.blocks(t).BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"B2"}, Kind: booking.BlockBlocked, Owner: "a"}); err != nil {
		t.Fatal(err)
	}
	b := checkout(t, e, h, "a", "k-a")
	if got := ticketLabels(b); !slices.Equal(got, []string{"B1"}) {
		t.Fatalf("sold %v after B2 was let go, want [B1]", got)
	}
	// A seat added to the hold is sold with it.
	h = e.hold(t, "b", "C1")
	if _, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"C2"}, Owner: "b", AddTo: h.ID}); err != nil {
		t.Fatal(err)
	}
	if b := checkout(t, e, h, "b", "k-b"); !slices.Equal(ticketLabels(b), []string{"C1", "C2"}) {
		t.Fatalf("sold %v of a hold grown to C1 C2", ticketLabels(b))
	}
	// A price changed since the hold.
	h = e.hold(t, "c", "D1")
	setAdult(t, p, 1400)
	if b := checkout(t, e, h, "c", "k-c"); b.Total != 1400 {
		t.Fatalf("sold at %s after the adult price became 14.00", b.Total)
	}
	// The show moved to another price list since the hold.
	if err := p.SetPriceEntry(e.ctx, manager, booking.PriceEntry{PriceKey: booking.PriceKey{List: "matinee", Type: "adult", Kind: booking.Standard}, Amount: 900}); err != nil {
		t.Fatal(err)
	}
	h = e.hold(t, "d", "E1")
	if err := p.SetShowPriceList(e.ctx, manager, e.show.ID, "matinee"); err != nil {
		t.Fatal(err)
	}
	if b := checkout(t, e, h, "d", "k-d"); b.Total != 900 || b.Show.PriceList != "matinee" {
		t.Fatalf("sold at %s on list %q after the show went on the matinee list at 9.00", b.Total, b.Show.PriceList)
	}
	e.counts(t, 6, 0)
}

// checkout sells owner's hold h by card under key.
func checkout(t *testing.T, e *env, h *booking.Hold, owner, key string) *booking.Booking {
	t.Helper()
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: key, Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ticketLabels is a booking's seats, in ticket order.
func ticketLabels(b *booking.Booking) []string {
	var out []string
	for _, tk := range b.Tickets {
		out = append(out, tk.Seat.Label)
	}
	return out
}

// shiftCloser closes a clerk's shift (booking.Shifts).
type shiftCloser interface {
	CloseShift(ctx context.Context, actor booking.Actor, req booking.CloseShiftRequest) (*booking.ShiftReport, error)
}

// saleShiftClosedSince: a cash sale after the clerk's shift was closed
// meets the refusal of a cash sale with no shift, though the last cash
// sale found it open.
func saleShiftClosedSince(t *testing.T, e *env) {
	c := need[shiftCloser](t, e, "CloseShift (booking.Shifts)")
	h := e.hold(t, "a", "A1")
	if _, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "cash-1", Method: booking.Cash}); err != nil {
		t.Fatal(err)
	}
	h = e.hold(t, "a", "A2")
	if _, err := c.CloseShift(e.ctx, clerk, booking.CloseShiftRequest{Counted: Float + 1250}); err != nil {
		t.Fatal(err)
	}
	_, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "cash-2", Method: booking.Cash})
	if !errors.Is(err, booking.ErrNoShift) {
		t.Fatalf("a cash sale after the shift closed: %v", err)
	}
	e.noSale(t, "cash-2")
	e.counts(t, 1, 1)
}

// saleClerkDisabledSince: a clerk disabled after a sale can sell nothing
// more, the hold made before included.
func saleClerkDisabledSince(t *testing.T, e *env) {
	r := need[roster](t, e, "SignIn, DisableStaff and EnableStaff (booking.Roster)")
	st, err := r.SignIn(e.ctx, booking.SignInRequest{Name: "carl", PIN: "1234"})
	if err != nil {
		t.Fatal(err)
	}
	carl := booking.Actor{StaffID: st.ID, Name: st.Name, Role: st.Role, Terminal: "till-1"}
	for i, seat := range []string{"A1", "A2"} {
		h, err := e.s.Hold(e.ctx, carl, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{seat}, Owner: "w"})
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if err := r.DisableStaff(e.ctx, booking.System, "carl"); err != nil {
				t.Fatal(err)
			}
		}
		_, err = e.s.Checkout(e.ctx, carl, booking.CheckoutRequest{HoldID: h.ID, Owner: "w", IdempotencyKey: seat, Method: booking.Card})
		if i == 0 && err != nil {
			t.Fatal(err)
		}
		if i == 1 && !errors.Is(err, booking.ErrWithdrawn) {
			t.Fatalf("a disabled clerk's checkout: %v", err)
		}
	}
	e.noSale(t, "A2")
	if _, err := e.s.Hold(e.ctx, carl, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"A3"}, Owner: "w"}); !errors.Is(err, booking.ErrWithdrawn) {
		t.Fatalf("a disabled clerk's hold: %v", err)
	}
}

// saleClashTakenBeforeBlocked: a hold of a blocked seat and a seat
// another holds names the held one as taken, not the blocked one beside
// it; suggestions are never blocked or taken.
func saleClashTakenBeforeBlocked(t *testing.T, e *env) {
	b := e.blocks(t)
	if _, err := b.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"G6", "G7"}, Kind: booking.BlockBlocked}); err != nil {
		t.Fatal(err)
	}
	e.hold(t, "other", "G9")
	_, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"G7", "G9"}, Owner: "a"})
	taken := seatsTaken(t, "hold of a blocked and a held seat", err)
	if taken.OutOfSale || !slices.Equal(booking.Labels(taken.Taken), []string{"G9"}) {
		t.Fatalf("hold of a blocked and a held seat: taken %v, out of sale %v", booking.Labels(taken.Taken), taken.OutOfSale)
	}
	for _, sug := range taken.Suggestions {
		if labels := booking.Labels(sug); slices.Contains(labels, "G6") || slices.Contains(labels, "G7") || slices.Contains(labels, "G9") {
			t.Fatalf("suggested %v", labels)
		}
	}
	e.counts(t, 0, 1)
}
