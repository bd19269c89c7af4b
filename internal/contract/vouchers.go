package contract

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"boxoffice/booking"
)

const needVouchers = "AddVoucher, ListVouchers, RetireVoucher and ReportVouchers (booking.Vouchers)"

// voucherCases: vouchers and items on a ticket sale (invariant 16). A
// use is redeemed once under any concurrency and a refused sale keeps
// its hold and writes nothing; a cancel gives the use, the items' stock
// and all the money back once; the receipt's figures, the shift's and
// the takings agree.
var voucherCases = []testCase{
	{"SingleUseTwentyFourSales", vouchersTwentyFour},
	{"DiscountOnTheLines", vouchersDiscount},
	{"Refusals", vouchersRefusals},
	{"SoldOutItemRefusesTheSale", vouchersSoldOutItem},
	{"ItemsAndVoucherAddUp", vouchersAddUp},
}

func init() {
	probes[reflect.TypeFor[booking.Vouchers]()] = func(e *env, c any) error {
		_, err := c.(booking.Vouchers).ListVouchers(e.ctx, manager)
		return err
	}
}

// addVoucher adds v as the manager, or fails the case.
func addVoucher(t *testing.T, e *env, vs booking.Vouchers, v booking.Voucher) {
	t.Helper()
	if _, err := vs.AddVoucher(e.ctx, manager, v); err != nil {
		t.Fatalf("add voucher %s: %v", v.Code, err)
	}
}

// usesLeft reads a voucher's uses left.
func usesLeft(t *testing.T, e *env, vs booking.Vouchers, code string) int {
	t.Helper()
	all, err := vs.ListVouchers(e.ctx, manager)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range all {
		if v.Code == code {
			return v.UsesLeft
		}
	}
	t.Fatalf("no voucher %s in %+v", code, all)
	return 0
}

// vouchersTwentyFour: a single-use voucher offered by 24 sales at once:
// one redeemed, 23 refused "used up" with their holds still held and no
// booking; two cancels of the one at once: one cancels, one is stale,
// and one use is left.
func vouchersTwentyFour(t *testing.T, e *env) {
	vs := need[booking.Vouchers](t, e, needVouchers)
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	addVoucher(t, e, vs, booking.Voucher{Code: "once", Off: 2_00})
	holds := make([]*booking.Hold, 24)
	for i := range holds {
		holds[i] = e.hold(t, fmt.Sprint("o", i), fmt.Sprintf("%c%d", 'A'+i/12, 1+i%12))
	}
	sold := make([]*booking.Booking, 24)
	errs := make([]error, 24)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			sold[i], errs[i] = e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: holds[i].ID, Owner: fmt.Sprint("o", i),
				IdempotencyKey: fmt.Sprint("v", i), Method: booking.Card, Voucher: "ONCE"})
		})
	}
	wg.Wait()
	var won *booking.Booking
	for i, err := range errs {
		switch {
		case err == nil:
			if won != nil {
				t.Fatalf("two sales redeemed one use: %s and %s", won.Number, sold[i].Number)
			}
			won = sold[i]
		case booking.ErrorCode(err) == booking.EConflict:
			wantMessage(t, "a sale too many", err, "Voucher ONCE is used up.")
			e.noSale(t, fmt.Sprint("v", i))
			if st := e.state(t, fmt.Sprint("o", i), holds[i].Seats[0].Label); st != booking.SeatHeldByMe {
				t.Fatalf("sale %d refused, its seat reads %v, want still held", i, st)
			}
		default:
			t.Fatalf("sale %d: %v", i, err)
		}
	}
	if won == nil || won.Total != 12_50-2_00 || won.Voucher == nil || won.Voucher.Discount != 2_00 {
		t.Fatalf("the one redeemed: %+v", won)
	}
	if n := usesLeft(t, e, vs, "ONCE"); n != 0 {
		t.Fatalf("%d uses left after the sale", n)
	}
	e.counts(t, 1, 23)
	for i := range 2 {
		wg.Go(func() {
			_, errs[i] = c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: won.Number, Reason: fmt.Sprint("twice ", i)})
		})
	}
	wg.Wait()
	if ok := oneCancelled(t, errs[:2]); ok != 1 {
		t.Fatalf("%d cancels succeeded", ok)
	}
	if n := usesLeft(t, e, vs, "ONCE"); n != 1 {
		t.Fatalf("%d uses left after two cancels, want 1", n)
	}
	got, err := c.Booking(e.ctx, clerk, won.Number)
	if err != nil || got.Voucher == nil || !got.Voucher.Returned || refundedSum(got) != 10_50 {
		t.Fatalf("cancelled: %+v %v", got, err)
	}
	e.whole(t)
}

// oneCancelled counts the cancels that went through; the rest must be
// stale.
func oneCancelled(t *testing.T, errs []error) int {
	t.Helper()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, booking.ErrStaleStatus):
		default:
			t.Fatal(err)
		}
	}
	return ok
}

// refundedSum is the money a booking's refunds paid out.
func refundedSum(b *booking.Booking) booking.Money {
	var sum booking.Money
	for _, p := range b.Payments {
		if p.Kind == booking.PaymentRefund {
			sum += p.Amount
		}
	}
	return sum
}

// vouchersDiscount: a percentage is taken off each ticket rounded half
// up; an amount off is shared over the tickets to the penny; each
// ticket is stored at what was paid for it, and a limit to a ticket
// type takes off only those.
func vouchersDiscount(t *testing.T, e *env) {
	vs := need[booking.Vouchers](t, e, needVouchers)
	addVoucher(t, e, vs, booking.Voucher{Code: "PCT15", Percent: 15})
	addVoucher(t, e, vs, booking.Voucher{Code: "OFF5", Off: 5_00, Uses: 3})
	addVoucher(t, e, vs, booking.Voucher{Code: "KIDS", Percent: 50, TicketType: "child"})
	sell := func(code, owner string, seats ...string) *booking.Booking {
		t.Helper()
		h := e.hold(t, owner, seats...)
		b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: owner, Method: booking.Card,
			Types: map[string]string{seats[0]: "child"}, Voucher: code})
		if err != nil {
			t.Fatalf("%s: %v", code, err)
		}
		return b
	}
	// 15% of 8.50 is 1.275 → 1.28; of 12.50, 1.875 → 1.88.
	b := sell("pct15", "p", "C1", "C2")
	if b.Total != 8_50+12_50-1_28-1_88 || b.Tickets[0].Price != 7_22 || b.Tickets[1].Price != 10_62 || b.Voucher.Discount != 3_16 {
		t.Fatalf("15%%: total %s, tickets %+v, %+v", b.Total, b.Tickets, b.Voucher)
	}
	// 5.00 over 8.50 + 12.50 + 12.50 (33.50): 1.27 + 1.87 + 1.86, the
	// pennies left by rounding down to the largest remainders first.
	b = sell("OFF5", "a", "C4", "C5", "C6")
	if b.Total != 33_50-5_00 || b.Voucher.Discount != 5_00 || b.Tickets[0].Price+b.Tickets[1].Price+b.Tickets[2].Price != 28_50 {
		t.Fatalf("5.00 off: total %s, tickets %+v", b.Total, b.Tickets)
	}
	b = sell("KIDS", "k", "C8", "C9")
	if b.Total != 4_25+12_50 || b.Tickets[1].Price != 12_50 {
		t.Fatalf("half off a child: total %s, tickets %+v", b.Total, b.Tickets)
	}
	got, err := e.s.BookingByKey(e.ctx, clerk, "k")
	if err != nil || got.Voucher == nil || got.Voucher.Code != "KIDS" || got.Voucher.Discount != 4_25 || got.Total != 16_75 {
		t.Fatalf("read back: %+v %v", got, err)
	}
	day := booking.DayStart(e.clock.Now())
	rep, err := vs.ReportVouchers(e.ctx, manager, booking.ReportRange{From: day, To: day})
	if err != nil || len(rep.Redemptions) != 3 || booking.VouchersSheet(rep).Total["discount"] != booking.Money(3_16+5_00+4_25) {
		t.Fatalf("report %+v %v", rep, err)
	}
}

// vouchersRefusals: an unknown code, an expired one, a retired one, one
// for another show or a ticket type the sale has none of: each refused
// with nothing written and the hold still held. A voucher kept to a
// ticket type that does not exist is not added.
func vouchersRefusals(t *testing.T, e *env) {
	vs := need[booking.Vouchers](t, e, needVouchers)
	addVoucher(t, e, vs, booking.Voucher{Code: "OLD", Off: 1_00, Until: e.clock.Now()})
	addVoucher(t, e, vs, booking.Voucher{Code: "GONE", Off: 1_00})
	addVoucher(t, e, vs, booking.Voucher{Code: "SHOW2", Off: 1_00, ShowID: 2})
	addVoucher(t, e, vs, booking.Voucher{Code: "KIDS", Off: 1_00, TicketType: "child"})
	if _, err := vs.RetireVoucher(e.ctx, manager, "gone"); err != nil {
		t.Fatal(err)
	}
	_, err := vs.RetireVoucher(e.ctx, manager, "GONE")
	wantCode(t, "retired twice", err, booking.EConflict)
	_, err = vs.AddVoucher(e.ctx, manager, booking.Voucher{Code: "GONE", Percent: 5})
	wantCode(t, "a code taken", err, booking.EConflict)
	_, err = vs.AddVoucher(e.ctx, clerk, booking.Voucher{Code: "MINE", Percent: 5})
	wantCode(t, "a clerk adding", err, booking.EForbidden)
	_, err = vs.AddVoucher(e.ctx, manager, booking.Voucher{Code: "VIPS", Percent: 5, TicketType: "vip"})
	wantMessage(t, "a ticket type that is none", err, `There is no ticket type "vip".`)
	h := e.hold(t, "r", "E5")
	for code, want := range map[string]string{
		"NOPE":  `No voucher "NOPE".`,
		"OLD":   "Voucher OLD expired on " + e.clock.Now().Add(-1).Format("2 Jan 2006") + ".",
		"GONE":  "Voucher GONE is no longer valid.",
		"SHOW2": "Voucher SHOW2 is for another show (show 2).",
		"KIDS":  "Voucher KIDS is for child tickets; this sale has none.",
	} {
		_, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "r", IdempotencyKey: "r-" + code, Method: booking.Card, Voucher: code})
		wantMessage(t, code, err, want)
		e.noSale(t, "r-"+code)
	}
	if n := usesLeft(t, e, vs, "KIDS"); n != 1 {
		t.Fatalf("a refused voucher kept %d uses, want 1", n)
	}
	if b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "r", IdempotencyKey: "r", Method: booking.Card}); err != nil || b.Total != 12_50 {
		t.Fatalf("the hold after the refusals: %+v %v", b, err)
	}
}

// vouchersSoldOutItem: a sale with a voucher and an item of which too
// few are left is refused naming the item; the voucher keeps its use,
// the item its stock, the hold its seats, and nothing is sold.
func vouchersSoldOutItem(t *testing.T, e *env) {
	vs := need[booking.Vouchers](t, e, needVouchers)
	it := need[booking.Items](t, e, needItems)
	addVoucher(t, e, vs, booking.Voucher{Code: "ONCE", Off: 1_00})
	addItem(t, e, it, "popcorn", "Popcorn", "snacks", 4_50, count(1))
	h := e.hold(t, "s", "G7")
	req := booking.CheckoutRequest{HoldID: h.ID, Owner: "s", IdempotencyKey: "s", Method: booking.Card, Voucher: "ONCE",
		Items: []booking.ItemLine{{Code: "popcorn", Qty: 2}}}
	_, err := e.s.Checkout(e.ctx, clerk, req)
	wantCode(t, "two popcorns of one", err, booking.EConflict)
	wantMessage(t, "two popcorns of one", err, "Popcorn: 1 left; 2 asked.")
	e.noSale(t, "s")
	if n, u := stockOf(t, e, it, "popcorn"), usesLeft(t, e, vs, "ONCE"); n != 1 || u != 1 {
		t.Fatalf("after a refused sale: stock %d, uses %d", n, u)
	}
	req.Items[0].Qty = 1
	b, err := e.s.Checkout(e.ctx, clerk, req)
	if err != nil || b.Total != 11_50 || b.Items == nil || b.Items.Total() != 4_50 {
		t.Fatalf("the sale with one popcorn: %+v %v", b, err)
	}
	e.whole(t)
}

// vouchersAddUp: tickets, items and a voucher on one cash sale: the
// booking, the shift's X and Z reports and the takings (tickets net of
// the discount, items apart) agree to the penny; a cancel pays it all
// back once, the stock and the use with it.
func vouchersAddUp(t *testing.T, e *env) {
	vs := need[booking.Vouchers](t, e, needVouchers)
	it := need[booking.Items](t, e, needItems)
	sh := need[booking.Shifts](t, e, needShifts)
	rp := need[booking.Reports](t, e, "ReportTakings (booking.Reports)")
	c := need[canceller](t, e, "Booking and Cancel (booking.Bookings)")
	addVoucher(t, e, vs, booking.Voucher{Code: "TENPC", Percent: 10})
	addItem(t, e, it, "popcorn", "Popcorn", "snacks", 4_50, count(10))
	h := e.hold(t, "u", "F5", "F6")
	// Adult 12.50 − 1.25, child 8.50 − 0.85: 18.90; two popcorns 9.00.
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "u", IdempotencyKey: "u", Method: booking.Cash, Tendered: 30_00,
		Types: map[string]string{"F6": "child"}, Voucher: "TENPC", Items: []booking.ItemLine{{Code: "popcorn", Qty: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if b.Total != 18_90 || b.Voucher.Discount != 2_10 || b.Items.Total() != 9_00 || b.Items.Tendered != 30_00-18_90 || b.Items.Change != 30_00-18_90-9_00 {
		t.Fatalf("sale: total %s, voucher %+v, items %+v", b.Total, b.Voucher, b.Items)
	}
	cur, err := sh.CurrentShift(e.ctx, clerk)
	if err != nil {
		t.Fatal(err)
	}
	x, err := sh.ShiftReport(e.ctx, clerk, cur.ID)
	if err != nil || x.CashSales != 27_90 || x.Expected != Float+27_90 || len(x.Items) != 1 || x.Items[0].Sales != 9_00 {
		t.Fatalf("X report %+v %v", x, err)
	}
	day := booking.DayStart(e.clock.Now())
	tk, err := rp.ReportTakings(e.ctx, manager, booking.TakingsQuery{ReportRange: booking.ReportRange{From: day, To: day}, By: booking.ByMethod})
	if err != nil || tk.Total.Sales != 18_90 || tk.Total.Tickets != 2 {
		t.Fatalf("takings %+v %v", tk, err)
	}
	its, err := it.ReportItemTakings(e.ctx, manager, booking.ReportRange{From: day, To: day})
	if err != nil || its.Total.Net() != 9_00 {
		t.Fatalf("item takings %+v %v", its, err)
	}
	if _, err := c.Cancel(e.ctx, supervisor, booking.CancelRequest{Number: b.Number, Reason: "changed plans"}); err != nil {
		t.Fatal(err)
	}
	got, err := c.Booking(e.ctx, clerk, b.Number)
	if err != nil || refundedSum(got) != 18_90 || got.Items == nil || got.Items.Lines[0].RefundedAt.IsZero() {
		t.Fatalf("cancelled: %+v %v", got, err)
	}
	if n, u := stockOf(t, e, it, "popcorn"), usesLeft(t, e, vs, "TENPC"); n != 10 || u != 1 {
		t.Fatalf("after the cancel: stock %d, uses %d", n, u)
	}
	// The sale is in the clerk's drawer, the refund of all of it in the
	// supervisor's, who paid it out.
	z, err := sh.CloseShift(e.ctx, clerk, booking.CloseShiftRequest{Counted: Float + 27_90})
	if err != nil || z.CashSales != 27_90 || z.CashSaleCount != 2 || z.Expected != Float+27_90 || z.Variance != 0 || z.Items[0].Sold != 2 {
		t.Fatalf("Z report %+v %v", z, err)
	}
	sup, err := sh.CurrentShift(e.ctx, supervisor)
	if err != nil {
		t.Fatal(err)
	}
	if x, err = sh.ShiftReport(e.ctx, supervisor, sup.ID); err != nil || x.CashRefunds != 27_90 || x.Expected != Float-27_90 || x.Items[0].Refunded != 2 {
		t.Fatalf("the supervisor's X report %+v %v", x, err)
	}
	e.whole(t)
}
