package contract

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"boxoffice/booking"
)

const needGiftCards = "IssueGiftCard, GiftCardBalance and ReportGiftCards (booking.GiftCards)"

// giftCardCases: gift cards and split tender (invariant 16). A card's
// balance never goes below zero however many sales spend it at once; a
// cancel gives it back exactly once however many run at once; a sale
// paid in parts writes a payment a part, change only from cash, and its
// refunds give each part back.
var giftCardCases = []testCase{
	{"ThirtyPaysTwoOfTwentyFour", giftCardsTwentyFour},
	{"SplitTenderAndRefund", giftCardsSplitTender},
	{"CardAndCashNamingCash", giftCardsCardAndCash},
	{"Refusals", giftCardsRefusals},
}

func init() {
	groups = append(groups, group{"GiftCards", giftCardCases})
	probes[reflect.TypeFor[booking.GiftCards]()] = func(e *env, c any) error {
		_, err := c.(booking.GiftCards).GiftCardBalance(e.ctx, clerk, "6012345678901234")
		if booking.ErrorCode(err) == booking.EInvalid || booking.ErrorCode(err) == booking.ENotFound {
			return nil
		}
		return err
	}
}

// issueCard sells a card for amount by method as the clerk.
func issueCard(t *testing.T, e *env, g booking.GiftCards, amount booking.Money, method booking.PayMethod) string {
	t.Helper()
	c, err := g.IssueGiftCard(e.ctx, clerk, booking.GiftCardRequest{Amount: amount, Method: method})
	if err != nil {
		t.Fatalf("issue a card for %s: %v", amount, err)
	}
	if _, err := booking.ParseCardNumber(c.Number); err != nil || c.Balance != amount || len(c.Moves) != 1 {
		t.Fatalf("issued %+v (%v)", c, err)
	}
	return c.Number
}

// balanceOf reads a card's balance.
func balanceOf(t *testing.T, e *env, g booking.GiftCards, number string) booking.Money {
	t.Helper()
	c, err := g.GiftCardBalance(e.ctx, clerk, booking.FormatCardNumber(number))
	if err != nil {
		t.Fatal(err)
	}
	var sum booking.Money
	for _, m := range c.Moves {
		sum += m.Kind.Sign() * m.Amount
	}
	if sum != c.Balance {
		t.Fatalf("card %s: balance %s, ledger sums to %s", number, c.Balance, sum)
	}
	return c.Balance
}

// standardSeats are the first n standard seats of the first show, row by
// row, for holds of a seat each.
func standardSeats(t *testing.T, e *env, n int) []string {
	t.Helper()
	seats := slices.Clone(e.seatMap(t, "").Hall.Seats)
	slices.SortFunc(seats, func(a, b booking.Seat) int { return (a.Row*1000 + a.Col) - (b.Row*1000 + b.Col) })
	var out []string
	for _, s := range seats {
		if s.Kind == booking.Standard && len(out) < n {
			out = append(out, s.Label)
		}
	}
	return out
}

// giftCardsTwentyFour: a 30.00 card pays 24 sales of 12.50 at once:
// exactly two are paid, 22 refused naming the balance, 5.00 left; two
// cancels of one of them at once give it back once: 17.50.
func giftCardsTwentyFour(t *testing.T, e *env) {
	g := need[booking.GiftCards](t, e, needGiftCards)
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	number := issueCard(t, e, g, 30_00, booking.Cash)
	seats := standardSeats(t, e, 24)
	holds := make([]*booking.Hold, len(seats))
	for i, s := range seats {
		h, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{s}, Owner: fmt.Sprint("o", i), AllowSingle: true})
		if err != nil {
			t.Fatalf("hold %s: %v", s, err)
		}
		holds[i] = h
	}
	paid := make([]*booking.Booking, len(holds))
	errs := make([]error, len(holds))
	var wg sync.WaitGroup
	for i, h := range holds {
		wg.Go(func() {
			paid[i], errs[i] = e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: h.Owner, IdempotencyKey: fmt.Sprint("gc-", i),
				Tender: []booking.TenderPart{{Method: booking.GiftCard, Card: number}}})
		})
	}
	wg.Wait()
	var won []*booking.Booking
	for i, err := range errs {
		switch {
		case err == nil:
			if b := paid[i]; b.Total != 12_50 || len(b.Payments) != 1 || b.Payments[0].Method != booking.GiftCard || b.Payments[0].Amount != 12_50 {
				t.Fatalf("sale %d: %+v", i, b)
			}
			won = append(won, paid[i])
		case booking.ErrorCode(err) == booking.EConflict:
			wantMessage(t, "a sale the card cannot pay", err, "Gift card "+booking.FormatCardNumber(number)+" holds 5.00; 12.50 is due. Pay the rest by cash or card.")
		default:
			t.Fatalf("sale %d: %v", i, err)
		}
	}
	if len(won) != 2 {
		t.Fatalf("%d sales paid by a 30.00 card, want 2", len(won))
	}
	if b := balanceOf(t, e, g, number); b != 5_00 {
		t.Fatalf("balance %s after two sales, want 5.00", b)
	}
	cerrs := make([]error, 2)
	for i := range cerrs {
		wg.Go(func() {
			_, cerrs[i] = c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: won[0].Number, Reason: "race"})
		})
	}
	wg.Wait()
	if ok := (cerrs[0] == nil) != (cerrs[1] == nil); !ok {
		t.Fatalf("two cancels at once: %v / %v; want one done, one refused", cerrs[0], cerrs[1])
	}
	if b := balanceOf(t, e, g, number); b != 17_50 {
		t.Fatalf("balance %s after the cancel, want 17.50", b)
	}
	e.whole(t)
}

// giftCardsSplitTender: 25.00 paid 10.00 by gift card, 10.00 by card and
// the rest (5.00) in cash from 20.00: a payment a part, 15.00 change,
// the drawer expects the cash part and the card sold for cash; a refund
// of one seat gives the gift card its 10.00 first and the card 2.50, the
// cancel of the rest the card 7.50 and cash 5.00.
// giftCardsCardAndCash: a counter names Method cash beside its parts
// (card 10.00, cash the rest) and 20.00 handed over for a 25.00 sale:
// the cash is checked against the cash part, 15.00, not the total.
func giftCardsCardAndCash(t *testing.T, e *env) {
	h := e.hold(t, "parts", "F5", "F6")
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "parts", IdempotencyKey: "parts", Method: booking.Cash, Tendered: 20_00,
		Tender: []booking.TenderPart{{Method: booking.Card, Amount: 10_00}, {Method: booking.Cash}}})
	want := []string{"sale card 10.00", "sale cash 15.00"}
	if err != nil || b.Total != 25_00 || b.Change() != 5_00 || !slices.Equal(payments(b), want) {
		t.Fatalf("card and cash: %+v %v", b, err)
	}
}

func giftCardsSplitTender(t *testing.T, e *env) {
	g := need[booking.GiftCards](t, e, needGiftCards)
	r := need[refunder](t, e, needRefund)
	sh := need[booking.Shifts](t, e, needShifts)
	number := issueCard(t, e, g, 20_00, booking.Cash)
	h := e.hold(t, "split", "F5", "F6")
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "split", IdempotencyKey: "split", Tendered: 20_00,
		Tender: []booking.TenderPart{{Method: booking.GiftCard, Card: number, Amount: 10_00}, {Method: booking.Card, Amount: 10_00}, {Method: booking.Cash}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"sale giftcard 10.00", "sale card 10.00", "sale cash 5.00"}
	if got := payments(b); b.Total != 25_00 || b.Change() != 15_00 || !slices.Equal(got, want) {
		t.Fatalf("sale: total %s change %s payments %v", b.Total, b.Change(), got)
	}
	read, err := e.s.BookingByKey(e.ctx, clerk, "split")
	if err != nil || !slices.Equal(payments(read), want) || read.Change() != 15_00 {
		t.Fatalf("read back: %v %v", payments(read), err)
	}
	cur, err := sh.CurrentShift(e.ctx, clerk)
	if err != nil {
		t.Fatal(err)
	}
	x := shiftReport(t, e, sh, cur.ID)
	if x.CashSales != 5_00 || x.CardSales != 10_00 || x.GiftCardSales != 10_00 || x.CardsSoldCash != 20_00 || x.Expected != Float+5_00+20_00 {
		t.Fatalf("X report after the sale: %+v", x)
	}
	if _, err := r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: b.Number, Seats: []string{"F5"}}); err != nil {
		t.Fatal(err)
	}
	if bal := balanceOf(t, e, g, number); bal != 20_00 {
		t.Fatalf("balance %s after a seat's refund, want 20.00", bal)
	}
	if _, err := r.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number}); err != nil {
		t.Fatal(err)
	}
	read, err = e.s.BookingByKey(e.ctx, clerk, "split")
	want = append(want, "refund giftcard 10.00", "refund card 2.50", "refund card 7.50", "refund cash 5.00")
	if err != nil || !slices.Equal(payments(read), want) {
		t.Fatalf("after the refunds: %v %v", payments(read), err)
	}
	if bal := balanceOf(t, e, g, number); bal != 20_00 {
		t.Fatalf("balance %s after the cancel, want 20.00", bal)
	}
	// The refunds came out of the supervisor's drawer; the clerk's keeps
	// the sale's cash and the card sold.
	if x := shiftReport(t, e, sh, cur.ID); x.Expected != Float+5_00+20_00 {
		t.Fatalf("clerk's X report after the refunds: %+v", x)
	}
	// The close counts the drawer the engine sums: the card sold for
	// cash is in it, the gift card's part is not.
	z, err := sh.CloseShift(e.ctx, clerk, booking.CloseShiftRequest{Counted: Float + 25_00})
	if err != nil || z.Expected != Float+25_00 || z.Variance != 0 || z.CardsSoldCash != 20_00 || z.GiftCardSales != 10_00 {
		t.Fatalf("Z report %+v %v", z, err)
	}
	rep, err := g.ReportGiftCards(e.ctx, manager, booking.ReportRange{From: e.clock.Now(), To: e.clock.Now()})
	if err != nil || rep.SoldCash != 20_00 || rep.Sold != 1 || rep.Redeemed != 10_00 || rep.Refilled != 10_00 || rep.Outstanding != 20_00 {
		t.Fatalf("gift card report %+v %v", rep, err)
	}
	// The takings count the sale once, every part of it, and not the card
	// sold: its 20.00 is the customer's until spent.
	tk := need[takings](t, e, "ReportTakings (booking.Reports)")
	day, err := tk.ReportTakings(e.ctx, manager, booking.TakingsQuery{ReportRange: booking.ReportRange{From: e.clock.Now(), To: e.clock.Now()}, By: booking.ByDay})
	if tot := day.Total; err != nil || tot.Sales != 25_00 || tot.Refunds != 25_00 || tot.Tickets != 2 || tot.Refunded != 2 {
		t.Fatalf("takings %+v %v", day, err)
	}
	e.whole(t)
}

// payments names a booking's payments in order: "sale card 10.00".
func payments(b *booking.Booking) []string {
	out := make([]string, len(b.Payments))
	for i, p := range b.Payments {
		out[i] = fmt.Sprintf("%s %s %s", p.Kind, p.Method, p.Amount)
	}
	return out
}

// shiftReport reads a shift's report as a supervisor.
func shiftReport(t *testing.T, e *env, sh booking.Shifts, id int64) *booking.ShiftReport {
	t.Helper()
	x, err := sh.ShiftReport(context.WithoutCancel(e.ctx), supervisor, id)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// giftCardsRefusals: a mistyped number, an unknown card, an amount out
// of bounds, a card short with no other part, and a clerk's balance read.
func giftCardsRefusals(t *testing.T, e *env) {
	g := need[booking.GiftCards](t, e, needGiftCards)
	_, err := g.GiftCardBalance(e.ctx, clerk, "6012 3456 7890 1235")
	wantMessage(t, "a wrong check digit", err, "6012 3456 7890 1235 is not a gift card number: check the digits.")
	_, err = g.GiftCardBalance(e.ctx, clerk, "6012-3456-7890-1234")
	wantMessage(t, "no such card", err, "No gift card 6012 3456 7890 1234.")
	_, err = g.IssueGiftCard(e.ctx, clerk, booking.GiftCardRequest{Amount: 50, Method: booking.Card})
	wantMessage(t, "a card for 0.50", err, "A gift card is for 1.00 to 1000.00, not 0.50.")
	number := issueCard(t, e, g, 5_00, booking.Card)
	h := e.hold(t, "short", "F5")
	_, err = e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "short", IdempotencyKey: "short",
		Tender: []booking.TenderPart{{Method: booking.GiftCard, Card: number}}})
	wantCode(t, "a card short", err, booking.EConflict)
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "short", IdempotencyKey: "short",
		Tender: []booking.TenderPart{{Method: booking.GiftCard, Card: number}, {Method: booking.Card}}})
	if err != nil || !slices.Equal(payments(b), []string{"sale giftcard 5.00", "sale card 7.50"}) {
		t.Fatalf("the rest by card: %v %v", b, err)
	}
	if bal := balanceOf(t, e, g, number); bal != 0 {
		t.Fatalf("balance %s, want 0.00", bal)
	}
	e.whole(t)
}
