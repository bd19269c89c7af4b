package contract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"boxoffice/booking"
	"boxoffice/internal/storetest"
)

// checkoutCases: selling a hold, once per idempotency key, and refusing
// a bad request before anything is written.
var checkoutCases = []testCase{
	{"OKCash", checkoutOKCash},
	{"ErrShortCash", checkoutErrShortCash},
	{"ErrOtherOwner", checkoutErrOtherOwner},
	{"ErrInvalidBeforeWriting", checkoutErrInvalid},
	{"ErrNoShift", checkoutErrNoShift},
	{"IdempotentSequential", checkoutIdempotentSequential},
	{"IdempotentConcurrent", checkoutIdempotentConcurrent},
	{"SoldByAnotherCheckout", checkoutSoldByAnother},
}

func checkoutOKCash(t *testing.T, e *env) {
	h := e.hold(t, "a", "F5", "F6")
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{
		HoldID: h.ID, Owner: "a", IdempotencyKey: "k1", Types: map[string]string{"F6": "child"},
		Customer: "Ann \x1b[31mLee\u202e", Phone: "0123 456", Method: booking.Cash, Tendered: 3000,
	})
	if err != nil {
		t.Fatal(err)
	}
	if b.Total != 1250+850 || b.Change() != 3000-2100 || len(b.Tickets) != 2 {
		t.Fatalf("total %d change %d tickets %d", b.Total, b.Change(), len(b.Tickets))
	}
	if b.Customer != "Ann [31mLee" {
		t.Fatalf("customer stored as %q", b.Customer)
	}
	if len(b.Number) != 11 || b.Number[:3] != "BO-" {
		t.Fatalf("number %q", b.Number)
	}
	for _, tk := range b.Tickets {
		id, err := booking.VerifyTicket([]booking.TicketKey{storetest.TicketKey}, tk.Code)
		if err != nil || id != tk.ID {
			t.Fatalf("ticket code %q does not verify: %v", tk.Code, err)
		}
	}
	got, err := e.s.BookingByKey(e.ctx, clerk, "k1")
	if err != nil || got.Number != b.Number || got.Status != booking.BookingConfirmed || got.Total != 2100 || len(got.Payments) != 1 || got.Customer != b.Customer {
		t.Fatalf("read back: %+v %v", got, err)
	}
	if p := got.Payments[0]; p.Method != booking.Cash || p.Amount != 2100 || p.Tendered != 3000 || p.ShiftID == 0 {
		t.Fatalf("payment %+v", p)
	}
	e.counts(t, 2, 0)
	if st := e.state(t, "a", "F5"); st != booking.SeatSold {
		t.Fatalf("F5 reads %v after its sale", st)
	}
}

func checkoutErrShortCash(t *testing.T, e *env) {
	h := e.hold(t, "a", "F5")
	_, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Cash, Tendered: 1000})
	wantCode(t, "short cash", err, booking.EInvalid)
	// The failed checkout left the hold live: paying properly works.
	if _, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Cash, Tendered: 2000}); err != nil {
		t.Fatal(err)
	}
	e.counts(t, 1, 0)
}

func checkoutErrOtherOwner(t *testing.T, e *env) {
	h := e.hold(t, "a", "F5")
	_, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "b", IdempotencyKey: "k", Method: booking.Card})
	wantCode(t, "another owner's checkout", err, booking.ENotFound)
	e.noSale(t, "k")
	e.counts(t, 0, 1)
}

func checkoutErrInvalid(t *testing.T, e *env) {
	h := e.hold(t, "a", "D1")
	for _, c := range []struct {
		name string
		req  booking.CheckoutRequest
	}{
		{"LongKey", booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: strings.Repeat("k", 129), Method: booking.Card}},
		{"NoKey", booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: " ", Method: booking.Card}},
		{"Method", booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: "cheque"}},
		{"Negative", booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Cash, Tendered: -50}},
		{"CardTender", booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Card, Tendered: 2000}},
		{"UnknownType", booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Card, Types: map[string]string{"D1": "vip"}}},
		{"Short", booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "k", Method: booking.Cash, Tendered: 500}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.s.Checkout(e.ctx, clerk, c.req)
			wantCode(t, c.name, err, booking.EInvalid)
			e.noSale(t, c.req.IdempotencyKey)
			e.counts(t, 0, 1)
		})
	}
}

// checkoutErrNoShift: cash needs the seller's shift; with an opening
// float in the request the checkout opens it.
func checkoutErrNoShift(t *testing.T, e *env) {
	bea := booking.Actor{Name: "bea", Role: booking.RoleClerk, Terminal: "till-2"}
	h := e.hold(t, "a", "B3")
	req := booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "cash", Method: booking.Cash, Tendered: 2000}
	if _, err := e.s.Checkout(e.ctx, bea, req); !errors.Is(err, booking.ErrNoShift) {
		t.Fatalf("cash without a shift: %v", err)
	}
	e.noSale(t, "cash")
	float := booking.Money(5000)
	req.OpenFloat = &float
	b, err := e.s.Checkout(e.ctx, bea, req)
	if err != nil || b.Payments[0].Change != 750 || b.Payments[0].ShiftID == 0 {
		t.Fatalf("cash with a float: %+v, %v", b, err)
	}
}

func checkoutIdempotentSequential(t *testing.T, e *env) {
	h := e.hold(t, "a", "B1", "B2")
	req := booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "same", Method: booking.Card}
	b1, err1 := e.s.Checkout(e.ctx, clerk, req)
	b2, err2 := e.s.Checkout(e.ctx, clerk, req)
	if err1 != nil || err2 != nil || b1.Number != b2.Number {
		t.Fatalf("%v %v %v %v", b1, b2, err1, err2)
	}
	// The same key on another hold lands on the first booking too, and
	// leaves the other hold unsold.
	h2 := e.hold(t, "a", "B9")
	again, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h2.ID, Owner: "a", IdempotencyKey: "same", Method: booking.Card})
	if err != nil || again.Number != b1.Number || len(again.Tickets) != 2 {
		t.Fatalf("the key again on another hold: %+v, %v", again, err)
	}
	onePayment(t, e, "same", b1.Number, 2500)
	e.counts(t, 2, 1)
}

func checkoutIdempotentConcurrent(t *testing.T, e *env) {
	h := e.hold(t, "a", "B1", "B2")
	req := booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "same", Method: booking.Cash, Tendered: 5000}
	const n = 16
	numbers := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			b, err := e.s.Checkout(context.Background(), clerk, req)
			errs[i] = err
			if err == nil {
				numbers[i] = b.Number
			}
		})
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || numbers[i] != numbers[0] {
			t.Fatalf("caller %d: %q, %v; the first got %q", i, numbers[i], errs[i], numbers[0])
		}
	}
	onePayment(t, e, "same", numbers[0], 2500)
	e.counts(t, 2, 0)
}

// onePayment checks that key's booking is number with one sale payment
// of total.
func onePayment(t *testing.T, e *env, key, number string, total booking.Money) {
	t.Helper()
	b, err := e.s.BookingByKey(e.ctx, clerk, key)
	if err != nil || b.Number != number || b.Total != total || len(b.Payments) != 1 || b.Payments[0].Amount != total {
		t.Fatalf("by key %q: %+v, %v", key, b, err)
	}
}

// checkoutSoldByAnother: a hold sold under one key, checked out again
// under another, is refused: one hold, one sale.
func checkoutSoldByAnother(t *testing.T, e *env) {
	h := e.hold(t, "a", "C1")
	if _, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "first", Method: booking.Card}); err != nil {
		t.Fatal(err)
	}
	_, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "second", Method: booking.Card})
	wantCode(t, "a sold hold under a new key", err, booking.EConflict)
	wantMessage(t, "a sold hold under a new key", err, "Those seats were already sold with another checkout.")
	e.noSale(t, "second")
	e.counts(t, 1, 0)
}

// priceSetter is booking.Programme's SetPrice.
type priceSetter interface {
	SetPrice(ctx context.Context, actor booking.Actor, t booking.TicketType) error
}

// priceCases: a sale is priced inside its transaction, and the total
// the clerk saw is the total stored or the sale is refused with the new
// one.
var priceCases = []testCase{
	{"ChangedBeforeTheSale", priceChanged},
	{"Race", priceRace},
	{"Quote", priceQuote},
}

func setAdult(t *testing.T, p priceSetter, price booking.Money) {
	t.Helper()
	if err := p.SetPrice(context.Background(), booking.System, booking.TicketType{Code: "adult", Name: "Adult", Price: price}); err != nil {
		t.Error(err)
	}
}

func adultPrice(t *testing.T, e *env) booking.Money {
	t.Helper()
	types, err := e.s.TicketTypes(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ty := range types {
		if ty.Code == "adult" {
			return ty.Price
		}
	}
	t.Fatal("no adult ticket type")
	return 0
}

// priceChanged: the clerk saw 25.00 for two adults; the price went up
// before the sale. The store refuses with the new total and sells
// nothing; confirming the new total sells at it, tendered included.
func priceChanged(t *testing.T, e *env) {
	p := need[priceSetter](t, e, "SetPrice (booking.Programme)")
	h := e.hold(t, "a", "C5", "C6")
	seen := 2 * adultPrice(t, e) // 25.00 on screen
	setAdult(t, p, 1300)
	req := booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "price-1", Method: booking.Cash, ExpectedTotal: seen, CheckTotal: true}
	_, err := e.s.Checkout(e.ctx, clerk, req)
	var changed *booking.PriceChangedError
	if !errors.As(err, &changed) || changed.Total != 2600 || changed.Expected != 2500 {
		t.Fatalf("checkout at the old total: %v", err)
	}
	wantCode(t, "checkout at the old total", err, booking.EConflict)
	wantMessage(t, "checkout at the old total", err, "Prices changed: the total is now 26.00.")
	e.noSale(t, "price-1")
	e.counts(t, 0, 2)
	req.ExpectedTotal = changed.Total
	b, err := e.s.Checkout(e.ctx, clerk, req)
	if err != nil {
		t.Fatal(err)
	}
	if b.Total != 2600 || b.Payments[0].Tendered != 2600 || b.Change() != 0 {
		t.Fatalf("sold at %d, tendered %d, change %d", b.Total, b.Payments[0].Tendered, b.Change())
	}
}

// priceRace: sellers price each sale from the ticket types they read
// while a manager keeps changing the adult price. Every sale is recorded
// at the total its seller saw, or refused with the total at the price of
// that moment: never a third figure.
func priceRace(t *testing.T, e *env) {
	p := need[priceSetter](t, e, "SetPrice (booking.Programme)")
	stop := make(chan struct{})
	var changer sync.WaitGroup
	changer.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			setAdult(t, p, []booking.Money{1250, 1300}[i%2])
		}
	})
	var wg sync.WaitGroup
	var mu sync.Mutex
	sold, refused := 0, 0
	for g := range 4 {
		wg.Go(func() {
			for i := range 15 {
				ok, bad := priceRaceSale(t, e, fmt.Sprintf("%c%d", 'A'+g, i%14+1), fmt.Sprint("g", g, "-", i))
				mu.Lock()
				sold, refused = sold+ok, refused+bad
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(stop)
	changer.Wait()
	if sold == 0 {
		t.Fatalf("no sale went through (%d refused)", refused)
	}
	t.Logf("%d sold at the total seen, %d refused with the new total", sold, refused)
}

// priceRaceSale is one seller's sale of seat in priceRace: 1 sold or 1
// refused with the new total.
func priceRaceSale(t *testing.T, e *env, seat, owner string) (sold, refused int) {
	seen := adultPrice(t, e)
	h, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{seat}, Owner: owner})
	if err != nil {
		return 0, 0 // sold in an earlier round
	}
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner,
		Method: booking.Cash, ExpectedTotal: seen, CheckTotal: true})
	var changed *booking.PriceChangedError
	switch {
	case err == nil && b.Total == seen && b.Payments[0].Tendered == seen:
		return 1, 0
	case errors.As(err, &changed) && changed.Expected == seen && changed.Total != seen && (changed.Total == 1250 || changed.Total == 1300):
		return 0, 1
	}
	t.Errorf("saw %d: booking %+v, err %v", seen, b, err)
	return 0, 0
}

// priceQuote: a quote prices as the checkout then does.
func priceQuote(t *testing.T, e *env) {
	hall := e.seatMap(t, "").Hall
	d4, _ := hall.SeatByLabel("D4")
	d5, _ := hall.SeatByLabel("D5")
	q, err := e.s.Quote(e.ctx, clerk, booking.QuoteRequest{ShowID: e.show.ID, SeatIDs: []int64{d4.ID, d5.ID}, Types: map[string]string{"D5": "child"}})
	if err != nil || q.Total != 1250+850 || len(q.Lines) != 2 {
		t.Fatalf("quote: %+v, %v", q, err)
	}
	h := e.hold(t, "a", "D4", "D5")
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "a", IdempotencyKey: "q", Method: booking.Card,
		Types: map[string]string{"D5": "child"}, CheckTotal: true, ExpectedTotal: q.Total})
	if err != nil || b.Total != q.Total {
		t.Fatalf("checkout at the quoted total: %+v, %v", b, err)
	}
	_, err = e.s.Quote(e.ctx, clerk, booking.QuoteRequest{ShowID: e.show.ID, SeatIDs: []int64{d4.ID}, Types: map[string]string{"D4": "vip"}})
	wantCode(t, "a quote at an unknown type", err, booking.EInvalid)
	_, err = e.s.Quote(e.ctx, clerk, booking.QuoteRequest{ShowID: e.show.ID})
	wantCode(t, "a quote of no seats", err, booking.EInvalid)
}
