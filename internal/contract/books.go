package contract

import (
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
)

// bookCases: the cinema's books. A distributor return agrees with the
// takings report; a day closes once, only when its shifts are closed; a
// "no sale" opening of the drawer and an ID check are audited.
var bookCases = []testCase{
	{"ReturnAgreesWithTakings", booksReturnAgreesWithTakings},
	{"ReturnRefusals", booksReturnRefusals},
	{"DayCloseOnce", booksDayCloseOnce},
	{"DrawerAndID", booksDrawerAndID},
}

func init() { groups = append(groups, group{"Books", bookCases}) }

const needBooks = "the books (booking.Books)"

// booksReturnAgreesWithTakings: a film over a week — adult sales on two
// days, a ticket refunded, one exchanged to the next day's show, a comp
// and a house seat — gives the takings report's admissions and net, the
// tax of the VAT rate and 35 % hire on the net.
func booksReturnAgreesWithTakings(t *testing.T, e *env) {
	b := need[booking.Books](t, e, needBooks)
	s := need[settingStore](t, e, needSettings)
	p := need[priceSetter](t, e, "SetPrice (booking.Programme)")
	r := need[refunder](t, e, needRefund)
	x := need[exchanger](t, e, needExchange)
	tk := need[takings](t, e, "ReportTakings (booking.Reports)")
	blocks := need[booking.SeatBlocks](t, e, "BlockSeats (booking.SeatBlocks)")
	film := e.show.Film.ID
	if err := p.SetPrice(e.ctx, manager, booking.TicketType{Code: "comp", Name: "Comp", Price: 0}); err != nil {
		t.Fatal(err)
	}
	setRate(t, e, s, "adult", 2000)
	if _, err := b.SetFilmHire(e.ctx, manager, booking.FilmHire{Film: film, Rate: 3500}); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(time.Second)
	a := e.sellTyped(t, "a", nil, "E1", "E2", "E3")
	e.sellTyped(t, "c", map[string]string{"E5": "comp"}, "E5")
	if _, err := r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: a.Number, Seats: []string{"E2"}, Reason: "ill"}); err != nil {
		t.Fatal(err)
	}
	// The film's show tomorrow (the seed's third) takes E1 as F1.
	if _, err := x.Exchange(e.ctx, clerk, booking.ExchangeRequest{Number: a.Number, Tickets: []string{"E1"}, ToShow: 3, Seats: []string{"F1"}, IdempotencyKey: "x1", Method: booking.Card}); err != nil {
		t.Fatal(err)
	}
	if _, err := blocks.BlockSeats(e.ctx, manager, booking.BlockRequest{ShowID: e.show.ID, Seats: []string{"F7"}, Kind: booking.BlockHouse, Reason: "press"}); err != nil {
		t.Fatal(err)
	}
	week := booking.DayStart(e.clock.Now())
	ret, err := b.DistributorReturn(e.ctx, manager, booking.ReturnQuery{Film: film, Week: week})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := tk.ReportTakings(e.ctx, manager, booking.TakingsQuery{ReportRange: booking.ReturnQuery{Week: week}.Range(), By: booking.ByFilm})
	if err != nil || len(tr.Rows) != 1 {
		t.Fatalf("takings by film: %+v, %v", tr, err)
	}
	tot, tf := ret.Total, tr.Rows[0]
	if tot.Paid+tot.Comps != tf.Tickets-tf.Refunded || tot.Gross != tf.Net {
		t.Fatalf("return paid %d comps %d gross %s; takings tickets %d refunded %d net %s", tot.Paid, tot.Comps, tot.Gross, tf.Tickets, tf.Refunded, tf.Net)
	}
	// E3 today, F1 tomorrow: 2 × 12.50 at 20 % VAT (2.08 each); one comp
	// and one house seat at no money.
	if tot.Paid != 2 || tot.Comps != 1 || tot.House != 1 || tot.Admissions() != 4 || tot.Gross != 2500 || tot.Tax != 416 || tot.Net != 2084 {
		t.Fatalf("return total %+v", tot)
	}
	if len(ret.Days) != 2 || ret.Days[0].Total.Paid != 1 || ret.Days[1].Total.Paid != 1 || ret.Days[0].Total.House != 1 {
		t.Fatalf("return days %+v", ret.Days)
	}
	if !ret.HireSet || ret.Hire != 3500 || ret.RunWeek != 1 || ret.Owed != 729 { // 35 % of 20.84 = 7.294
		t.Fatalf("hire %s set %v week %d owed %s", ret.Hire, ret.HireSet, ret.RunWeek, ret.Owed)
	}
	// The run's second week has its own hire; this week keeps the run's.
	if _, err := b.SetFilmHire(e.ctx, manager, booking.FilmHire{Film: film, Week: 2, Rate: 2500}); err != nil {
		t.Fatal(err)
	}
	if again, err := b.DistributorReturn(e.ctx, manager, booking.ReturnQuery{Film: film, Week: week}); err != nil || again.Hire != 3500 {
		t.Fatalf("week 1 after a week 2 hire: %+v, %v", again, err)
	}
	if next, err := b.DistributorReturn(e.ctx, manager, booking.ReturnQuery{Film: film, Week: week.AddDate(0, 0, 7)}); err != nil || next.Hire != 2500 || next.RunWeek != 2 || next.Total.Admissions() != 0 {
		t.Fatalf("week 2: %+v, %v", next, err)
	}
	sheet := booking.DistributorSheet(ret)
	if len(sheet.Rows) != 2 || sheet.Total["owed"] != booking.Money(729) {
		t.Fatalf("sheet %+v", sheet)
	}
}

func booksReturnRefusals(t *testing.T, e *env) {
	b := need[booking.Books](t, e, needBooks)
	week := booking.DayStart(e.clock.Now())
	_, err := b.DistributorReturn(e.ctx, clerk, booking.ReturnQuery{Film: e.show.Film.ID, Week: week})
	wantCode(t, "a clerk reading a return", err, booking.EForbidden)
	_, err = b.DistributorReturn(e.ctx, manager, booking.ReturnQuery{Film: 1 << 40, Week: week})
	wantCode(t, "a return of no film", err, booking.ENotFound)
	_, err = b.SetFilmHire(e.ctx, manager, booking.FilmHire{Film: e.show.Film.ID, Rate: booking.MaxRate + 1})
	wantCode(t, "hire over 100 %", err, booking.EInvalid)
	_, err = b.SetFilmHire(e.ctx, manager, booking.FilmHire{Film: 1 << 40, Rate: 3500})
	wantCode(t, "hire of no film", err, booking.ENotFound)
	_, err = b.SetFilmHire(e.ctx, clerk, booking.FilmHire{Film: e.show.Film.ID, Rate: 3500})
	wantCode(t, "a clerk setting hire", err, booking.EForbidden)
}

// booksDayCloseOnce: a day with a shift open is refused naming it; once
// every shift is closed the day closes, adds the Z reports up, and is
// stored once: a second close is refused and the report reads back.
func booksDayCloseOnce(t *testing.T, e *env) {
	b := need[booking.Books](t, e, needBooks)
	sh := need[booking.Shifts](t, e, "Shifts")
	h := e.hold(t, "cash", "E1")
	if _, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: "cash", IdempotencyKey: "k-cash", Method: booking.Cash, Tendered: 2000}); err != nil {
		t.Fatal(err)
	}
	e.sell(t, "card", "E2")
	day := e.clock.Now()
	_, err := b.CloseDay(e.ctx, manager, day, booking.AllSites)
	wantCode(t, "a day with shifts open", err, booking.EConflict)
	if msg := booking.ErrorMessage(err); !strings.Contains(msg, "4 shift(s) still open") || !strings.Contains(msg, clerk.Name) {
		t.Fatalf("the refusal names the open shifts: %q", msg)
	}
	for _, a := range []booking.Actor{booking.System, manager, supervisor, clerk} {
		counted := Float
		if a.Name == clerk.Name {
			counted = Float + 1250 - 100 // the clerk's drawer is 1.00 short
		}
		if _, err := sh.CloseShift(e.ctx, a, booking.CloseShiftRequest{Counted: counted}); err != nil {
			t.Fatalf("close %s's shift: %v", a.Name, err)
		}
	}
	_, err = b.CloseDay(e.ctx, clerk, day, booking.AllSites)
	wantCode(t, "a clerk closing the day", err, booking.EForbidden)
	e.clock.Add(time.Minute)
	rep, err := b.CloseDay(e.ctx, manager, day, booking.AllSites)
	if err != nil {
		t.Fatal(err)
	}
	cash, card := rep.Methods[0], rep.Methods[1]
	if len(rep.Shifts) != 4 || cash.Sales != 1250 || card.Sales != 1250 || rep.Variance != -100 ||
		rep.Floats != 4*Float || rep.CashToBank != 1150 || rep.Total().Net != 2500 {
		t.Fatalf("day report %+v", rep)
	}
	_, err = b.CloseDay(e.ctx, manager, day, booking.AllSites)
	wantCode(t, "a second close", err, booking.EConflict)
	again, err := b.DayReport(e.ctx, manager, day, booking.AllSites)
	if err != nil || again.CashToBank != rep.CashToBank || again.ClosedBy != manager.Name || len(again.Shifts) != 4 {
		t.Fatalf("the day read back: %+v, %v", again, err)
	}
	_, err = b.DayReport(e.ctx, manager, day.AddDate(0, 0, -1), booking.AllSites)
	wantCode(t, "a day not closed", err, booking.ENotFound)
	_, err = b.CloseDay(e.ctx, manager, day.AddDate(0, 0, 1), booking.AllSites)
	wantCode(t, "a day to come", err, booking.EInvalid)
}

// booksDrawerAndID: a "no sale" needs a reason and a shift and is
// audited; an ID check is for a film rated above rating.id_above and is
// audited.
func booksDrawerAndID(t *testing.T, e *env) {
	b := need[booking.Books](t, e, needBooks)
	a := need[auditor](t, e, "Audit (booking.Audit)")
	err := b.OpenDrawer(e.ctx, clerk, "  ")
	wantCode(t, "a no sale without a reason", err, booking.EInvalid)
	err = b.OpenDrawer(e.ctx, booking.Actor{Name: "nobody", Role: booking.RoleClerk}, "change")
	wantMessage(t, "a no sale without a shift", err, booking.ErrorMessage(booking.ErrNoShift))
	if err := b.OpenDrawer(e.ctx, clerk, "change for the kiosk"); err != nil {
		t.Fatal(err)
	}
	// The seed's first film is PG: no ID; its second is 15.
	err = b.ConfirmID(e.ctx, clerk, e.show.ID)
	wantCode(t, "an ID check for a PG film", err, booking.EInvalid)
	if err := b.ConfirmID(e.ctx, clerk, 2); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range auditRead(t, e, a, "the books' audit rows", booking.AuditQuery{Limit: 10}) {
		if r.Action == booking.AuditNoSale || r.Action == booking.AuditIDCheck {
			got = append(got, string(r.Action)+" "+r.Detail)
		}
	}
	want := []string{"id_check ID checked for Second Film (15)", "no_sale no sale: change for the kiosk"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("audit rows %q, want %q", got, want)
	}
	on, err := b.TerminalDrawer(e.ctx, clerk, "no such terminal")
	if err != nil || !on {
		t.Fatalf("an unregistered counter's drawer: %v, %v", on, err)
	}
}
