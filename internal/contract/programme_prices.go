package contract

import (
	"context"
	"sync"
	"testing"

	"boxoffice/booking"
	"boxoffice/internal/storetest"
)

// The programme's price table and a cinema's setup beyond its seed (the
// programme's own cases: programme.go).

// priceTabler is booking.Programme's price table.
type priceTabler interface {
	SetPrice(ctx context.Context, actor booking.Actor, t booking.TicketType) error
	Prices(ctx context.Context, actor booking.Actor) (*booking.PriceTable, error)
	SetPriceEntry(ctx context.Context, actor booking.Actor, e booking.PriceEntry) error
	SetShowPriceList(ctx context.Context, actor booking.Actor, showID int64, list string) error
}

// priceTableCases: the price table's writes check what they are given
// and say why they refuse; a price list set on a show prices its quotes
// and sales from then on.
var priceTableCases = []testCase{
	{"Errors", priceTableErrors},
	{"ListsAndTypes", priceTableListsAndTypes},
}

// demoCases: the demo's rolling week, and whether a cinema sold anything.
var demoCases = []testCase{
	{"TopUpDemo", demoTopUp},
	{"TopUpRace", demoTopUpRace},
	{"HasSales", demoHasSales},
}

func init() {
	groups = append(groups, group{"PriceTable", priceTableCases}, group{"Demo", demoCases})
}

func entry(list, typ string, kind booking.SeatKind, amount booking.Money) booking.PriceEntry {
	return booking.PriceEntry{PriceKey: booking.PriceKey{List: list, Type: typ, Kind: kind}, Amount: amount}
}

func priceTableErrors(t *testing.T, e *env) {
	p := need[priceTabler](t, e, "SetPriceEntry (booking.Programme)")
	tab, err := p.Prices(e.ctx, clerk)
	if err != nil || len(tab.Types) != 4 || tab.Types[0] != (booking.TicketType{Code: "adult", Name: "Adult", Price: 1250}) || len(tab.Entries) != 0 || len(tab.Lists) != 0 {
		t.Fatalf("the seed's table: %+v (%v)", tab, err)
	}
	_, err = p.Prices(e.ctx, booking.Actor{Name: "nobody"})
	wantCode(t, "prices for no role", err, booking.EForbidden)
	for _, c := range []struct {
		name string
		err  error
		msg  string
	}{
		{"a code of spaces", p.SetPrice(e.ctx, manager, booking.TicketType{Code: "Adult Ticket", Name: "x", Price: 1}),
			"A ticket type code is 1 to 20 lower-case letters, digits, - or _."},
		{"a type without a name", p.SetPrice(e.ctx, manager, booking.TicketType{Code: "vip", Name: "\x1b", Price: 1}), "A ticket type needs a name."},
		{"a price too high", p.SetPrice(e.ctx, manager, booking.TicketType{Code: "vip", Name: "VIP", Price: 100_000_01}), "A price is between 0.00 and 100000.00."},
		{"a price of no type", p.SetPriceEntry(e.ctx, manager, entry("", "vip", booking.Premium, 100)),
			`There is no ticket type "vip"; add it with its own price first.`},
		{"a standing standard price", p.SetPriceEntry(e.ctx, manager, entry("", "adult", booking.Standard, 100)),
			"A standard seat on the standing list costs the ticket type's own price: set it with the type's name."},
		{"a bad list", p.SetPriceEntry(e.ctx, manager, entry("late night", "adult", booking.Standard, 100)), ""},
		{"a list nobody priced", p.SetShowPriceList(e.ctx, manager, e.show.ID, "Evening"), `There is no price list "evening": set a price on it first.`},
		{"a list for no show", p.SetShowPriceList(e.ctx, manager, 999, ""), "There is no show 999."},
	} {
		if booking.ErrorCode(c.err) == booking.EForbidden || c.err == nil {
			t.Fatalf("%s: %v", c.name, c.err)
		}
		if c.msg != "" {
			wantMessage(t, c.name, c.err, c.msg)
		}
	}
	wantCode(t, "a clerk's price", p.SetPrice(e.ctx, clerk, booking.TicketType{Code: "adult", Name: "Adult", Price: 1}), booking.EForbidden)
	wantCode(t, "a clerk's entry", p.SetPriceEntry(e.ctx, clerk, entry("", "adult", booking.Premium, 100)), booking.EForbidden)
	wantCode(t, "a clerk's list", p.SetShowPriceList(e.ctx, clerk, e.show.ID, ""), booking.EForbidden)
	_, err = e.s.Quote(e.ctx, clerk, booking.QuoteRequest{ShowID: 999, SeatIDs: []int64{1}})
	wantCode(t, "a quote of no show", err, booking.ENotFound)
	if tab, err := p.Prices(e.ctx, clerk); err != nil || tab.Types[0].Price != 1250 || len(tab.Entries) != 0 || len(tab.Lists) != 0 {
		t.Fatalf("refusals wrote %+v (%v)", tab, err)
	}
}

// priceTableListsAndTypes: a new ticket type comes last; a price on a
// list makes the list (its name in lower case); a show put on it quotes
// and sells at the list's price, and back on the standing list at the
// type's own. Each change is one audit row.
func priceTableListsAndTypes(t *testing.T, e *env) {
	p := need[priceTabler](t, e, "SetPriceEntry (booking.Programme)")
	if err := p.SetPrice(e.ctx, manager, booking.TicketType{Code: " VIP ", Name: "V.I.P.\x1b[1m", Price: 2000}); err != nil {
		t.Fatal(err)
	}
	types, err := e.s.TicketTypes(e.ctx)
	if err != nil || len(types) != 5 || types[4] != (booking.TicketType{Code: "vip", Name: "V.I.P.[1m", Price: 2000}) {
		t.Fatalf("ticket types: %+v, %v", types, err)
	}
	if err := p.SetPriceEntry(e.ctx, manager, entry(" Evening ", "ADULT", booking.Standard, 1500)); err != nil {
		t.Fatal(err)
	}
	if err := p.SetPriceEntry(e.ctx, manager, entry("evening", "adult", booking.Standard, 1400)); err != nil {
		t.Fatal(err) // changes the one entry
	}
	tab, err := p.Prices(e.ctx, clerk)
	if err != nil || len(tab.Lists) != 1 || tab.Lists[0].Name != "evening" || len(tab.Entries) != 1 ||
		tab.Entries[booking.PriceKey{List: "evening", Type: "adult", Kind: booking.Standard}] != 1400 {
		t.Fatalf("the table: %+v, %v", tab, err)
	}
	d4, _ := e.seatMap(t, "").Hall.SeatByLabel("D4")
	quote := func(want booking.Money) {
		t.Helper()
		q, err := e.s.Quote(e.ctx, clerk, booking.QuoteRequest{ShowID: e.show.ID, SeatIDs: []int64{d4.ID}})
		if err != nil || q.Total != want {
			t.Fatalf("quote %+v, %v; want %s", q, err, want)
		}
	}
	quote(1250)
	if err := p.SetShowPriceList(e.ctx, manager, e.show.ID, "EVENING"); err != nil {
		t.Fatal(err)
	}
	if m := e.seatMap(t, ""); m.Show.PriceList != "evening" {
		t.Fatalf("the show's list: %q", m.Show.PriceList)
	}
	quote(1400)
	if b := e.sell(t, "a", "D5"); b.Total != 1400 {
		t.Fatalf("a sale on the evening list at %s", b.Total)
	}
	if err := p.SetShowPriceList(e.ctx, manager, e.show.ID, ""); err != nil {
		t.Fatal(err)
	}
	quote(1250)
	if a, ok := e.s.(auditor); ok {
		rows, err := a.Audit(e.ctx, manager, booking.AuditQuery{Day: e.clock.Now()})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range rows {
			if r.Action == booking.AuditPriceChange {
				n++
			}
		}
		if n != 5 {
			t.Fatalf("%d price change audit rows, want 5", n)
		}
	}
}

// demoTopper is booking.Setup's TopUpDemo.
type demoTopper interface {
	TopUpDemo(ctx context.Context, seed booking.Seed) (int, error)
}

// demoTopUp: a day of the seed with no shows gets the seed's, once; a
// day that has shows is left alone.
func demoTopUp(t *testing.T, e *env) {
	d := need[demoTopper](t, e, "TopUpDemo (booking.Setup)")
	later := storetest.Seed(e.clock.Now().AddDate(0, 0, 7))
	if n, err := d.TopUpDemo(e.ctx, later); err != nil || n != len(later.Shows) {
		t.Fatalf("added %d of %d: %v", n, len(later.Shows), err)
	}
	if shows, err := e.s.Shows(e.ctx, clerk, later.Shows[0].Starts); err != nil || len(shows) != 2 || shows[0].Film.Title != "First Film" {
		t.Fatalf("the topped up day: %+v, %v", shows, err)
	}
	if n, err := d.TopUpDemo(e.ctx, later); err != nil || n != 0 {
		t.Fatalf("a second top-up added %d: %v", n, err)
	}
	if n, err := d.TopUpDemo(e.ctx, e.seed); err != nil || n != 0 {
		t.Fatalf("topped up days that had shows: %d, %v", n, err)
	}
	gone := storetest.Seed(e.clock.Now().AddDate(0, 0, 14))
	gone.Halls[0].Name = "Demolished"
	_, err := d.TopUpDemo(e.ctx, gone)
	wantMessage(t, "a top-up of a hall gone", err, "The demo hall Demolished is gone.")
}

// demoTopUpRace: two servers opening at once top a day up once between
// them.
func demoTopUpRace(t *testing.T, e *env) {
	d := need[demoTopper](t, e, "TopUpDemo (booking.Setup)")
	later := storetest.Seed(e.clock.Now().AddDate(0, 0, 7))
	added := make([]int, 4)
	var wg sync.WaitGroup
	for i := range added {
		wg.Go(func() {
			var err error
			if added[i], err = d.TopUpDemo(e.ctx, later); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if added[0]+added[1]+added[2]+added[3] != len(later.Shows) {
		t.Fatalf("topped up %v shows, want %d in all", added, len(later.Shows))
	}
}

// salesReader is booking.Setup's HasSales.
type salesReader interface {
	HasSales(ctx context.Context) (bool, error)
}

func demoHasSales(t *testing.T, e *env) {
	r := need[salesReader](t, e, "HasSales (booking.Setup)")
	if sold, err := r.HasSales(e.ctx); sold || err != nil {
		t.Fatalf("sales before a sale: %v %v", sold, err)
	}
	e.sell(t, "a", "A1")
	if sold, err := r.HasSales(e.ctx); !sold || err != nil {
		t.Fatalf("sales after a sale: %v %v", sold, err)
	}
}
