package contract

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/internal/storetest"
)

// settingStore is booking.Settings and booking.Taxes.
type settingStore interface {
	booking.Settings
	booking.Taxes
}

const needSettings = "Cinema, SetSetting (booking.Settings) and the tax rates (booking.Taxes)"

// settingCases: the cinema's settings are checked by booking's rules on
// either engine, kept, audited and read back in force; money is written
// in their currency and locale, and a day named by a date is that date in
// their time zone.
var settingCases = []testCase{
	{"SetAndRead", settingsSetAndRead},
	{"Refusals", settingsRefusals},
	{"DayInTheZone", settingsDayInTheZone},
}

// taxCases: VAT per line, summed per rate, taken back at the rate of the
// sale, and the same to the cent on the shifts' Z reports and the tax
// report.
var taxCases = []testCase{
	{"AddsUpToTheCent", taxAddsUpToTheCent},
	{"NewRateFromNowOn", taxNewRateFromNowOn},
	{"Refusals", taxRefusals},
}

// zoneCases (on a chain): each site's shows, "today", reports and door
// read its own time zone.
var zoneCases = []testCase{
	{"TwoSitesTwoZones", zonesTwoSites},
}

func init() {
	groups = append(groups, group{"Settings", settingCases}, group{"Tax", taxCases}, group{"Zones", zoneCases})
}

func settingsSetAndRead(t *testing.T, e *env) {
	s := need[settingStore](t, e, needSettings)
	c, err := s.Cinema(e.ctx, clerk, booking.MainSite)
	if err != nil || c.Formatter().Money(1250) != "12.50" || c.Zoned() {
		t.Fatalf("a new cinema's settings: %+v, %v", c, err)
	}
	for _, kv := range [][2]string{{booking.SetSymbol, "€"}, {booking.SetLocale, "de"}, {booking.SetName, "Roxy"}} {
		got, err := s.SetSetting(e.ctx, manager, booking.AllSites, kv[0], kv[1])
		if err != nil || got.Value != kv[1] || got.From != "cinema" {
			t.Fatalf("set %s %s: %+v, %v", kv[0], kv[1], got, err)
		}
	}
	c, err = s.Cinema(e.ctx, clerk, booking.MainSite)
	if err != nil || c.Name != "Roxy" || c.Formatter().Money(1250) != "12,50 €" {
		t.Fatalf("after setting: %q %q, %v", c.Name, c.Formatter().Money(1250), err)
	}
	// An empty value puts the default back.
	got, err := s.SetSetting(e.ctx, manager, booking.AllSites, booking.SetLocale, "")
	if err != nil || got.Value != "" || got.From != "default" {
		t.Fatalf("unset locale: %+v, %v", got, err)
	}
	if c, _ = s.Cinema(e.ctx, clerk, booking.AllSites); c.Formatter().Money(1250) != "€12.50" {
		t.Fatalf("symbol without a locale: %q", c.Formatter().Money(1250))
	}
	a := need[auditor](t, e, "Audit (booking.Audit)")
	rows := auditRead(t, e, a, "the settings' audit rows", booking.AuditQuery{Limit: 10})
	var details []string
	for _, r := range rows {
		if r.Action == booking.AuditSettings {
			details = append(details, r.Detail)
		}
	}
	if want := []string{"locale: de → (unset)", "cinema.name: (unset) → Roxy", "locale: (unset) → de", "currency.symbol: (unset) → €"}; !reflect.DeepEqual(details, want) {
		t.Fatalf("audit rows %q, want %q", details, want)
	}
}

func settingsRefusals(t *testing.T, e *env) {
	s := need[settingStore](t, e, needSettings)
	_, err := s.SetSetting(e.ctx, clerk, booking.AllSites, booking.SetSymbol, "€")
	wantCode(t, "a clerk changing a setting", err, booking.EForbidden)
	_, err = s.SetSetting(e.ctx, manager, booking.AllSites, "currency.colour", "red")
	wantMessage(t, "an unknown key", err, booking.ErrorMessage(booking.ErrUnknownSetting("currency.colour")))
	_, err = s.SetSetting(e.ctx, manager, booking.AllSites, booking.SetTimeZone, "Mars/Olympus")
	wantCode(t, "a zone nobody has", err, booking.EInvalid)
	_, err = s.SetSetting(e.ctx, manager, 99, booking.SetName, "Nowhere")
	wantMessage(t, "site 99", err, "There is no site 99.")
	_, err = s.Cinema(e.ctx, clerk, 99)
	wantCode(t, "site 99's settings", err, booking.ENotFound)
	if c, err := s.Cinema(e.ctx, clerk, booking.MainSite); err != nil || c.Get(booking.SetTimeZone).Value != "" || c.Currency.Symbol != "" {
		t.Fatalf("after the refusals: %+v, %v", c, err)
	}
}

// settingsDayInTheZone: with a zone set, a day's shows are those
// starting on that date there, whatever the location of the date asked
// for, and each start reads in the zone.
func settingsDayInTheZone(t *testing.T, e *env) {
	s := need[settingStore](t, e, needSettings)
	const zone = "Pacific/Kiritimati" // UTC+14: its dates differ from most machines'
	if _, err := s.SetSetting(e.ctx, manager, booking.AllSites, booking.SetTimeZone, zone); err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation(zone)
	all := e.seedShows(t)
	y, m, d := all[0].Starts.In(loc).Date()
	asked := time.Date(y, m, d, 15, 0, 0, 0, time.UTC) // the date, in another location
	shows, err := e.s.Shows(e.ctx, clerk, asked)
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for _, sh := range all {
		if sy, sm, sd := sh.Starts.In(loc).Date(); sy == y && sm == m && sd == d {
			want = append(want, sh.ID)
		}
	}
	var got []int64
	for _, sh := range shows {
		got = append(got, sh.ID)
		if sh.Starts.Location().String() != zone {
			t.Errorf("show %d starts in %s, want %s", sh.ID, sh.Starts.Location(), zone)
		}
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Fatalf("shows of %04d-%02d-%02d in %s: %v, want %v", y, m, d, zone, got, want)
	}
}

// seedShows are every show of the seed, from the store.
func (e *env) seedShows(t *testing.T) []booking.Show {
	t.Helper()
	var out []booking.Show
	for id := int64(1); id <= int64(len(e.seed.Shows)); id++ {
		sh, err := e.s.Show(e.ctx, clerk, id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, *sh)
	}
	return out
}

// setRate sets code's rate from now on.
func setRate(t *testing.T, e *env, s settingStore, code string, rate booking.Rate) {
	t.Helper()
	if _, err := s.SetTaxRate(e.ctx, manager, booking.TaxRate{Key: booking.TicketTax(code), Rate: rate}); err != nil {
		t.Fatalf("rate %s %s: %v", code, rate, err)
	}
}

// sellTyped sells seats of the first show by card, each of the type
// types gives it.
func (e *env) sellTyped(t *testing.T, owner string, types map[string]string, seats ...string) *booking.Booking {
	t.Helper()
	h := e.hold(t, owner, seats...)
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: "k-" + owner, Method: booking.Card, Types: types})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// taxOfDay is the tax report of the clock's day, and every shift's tax
// rows added up by rate.
func taxOfDay(t *testing.T, e *env, s settingStore) (*booking.TaxReport, []booking.TaxRow) {
	t.Helper()
	rep, err := s.ReportTax(e.ctx, manager, booking.ReportRange{From: e.clock.Now(), To: e.clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	sh := need[booking.Shifts](t, e, "Shifts")
	list, err := sh.ListShifts(e.ctx, manager, booking.ShiftQuery{})
	if err != nil {
		t.Fatal(err)
	}
	byRate := map[booking.Rate]*booking.TaxRow{}
	for _, x := range list {
		z, err := sh.ShiftReport(e.ctx, manager, x.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range z.Tax {
			acc := byRate[r.Rate]
			if acc == nil {
				acc = &booking.TaxRow{Rate: r.Rate}
				byRate[r.Rate] = acc
			}
			acc.Sales, acc.Returns, acc.Gross = acc.Sales+r.Sales, acc.Returns+r.Returns, acc.Gross+r.Gross
			acc.Tax, acc.Net, acc.Sold, acc.Back = acc.Tax+r.Tax, acc.Net+r.Net, acc.Sold+r.Sold, acc.Back+r.Back
		}
	}
	var shifts []booking.TaxRow
	for _, r := range byRate {
		shifts = append(shifts, *r)
	}
	slices.SortFunc(shifts, func(a, b booking.TaxRow) int { return int(a.Rate - b.Rate) })
	return rep, shifts
}

// taxAddsUpToTheCent is must-show 1b: 20 % on adult tickets holds 2.08
// in a 12.50 line; three 0.10 lines at 33 % hold 0.02 each (0.06, not the
// 0.07 of 0.30 taken whole); a refund and an exchange take back exactly
// what their sale counted; the shifts' Z reports and the tax report agree
// to the cent, and their gross is the takings' net.
func taxAddsUpToTheCent(t *testing.T, e *env) {
	s := need[settingStore](t, e, needSettings)
	p := need[priceSetter](t, e, "SetPrice (booking.Programme)")
	r := need[refunder](t, e, needRefund)
	x := need[exchanger](t, e, needExchange)
	tk := need[takings](t, e, "ReportTakings (booking.Reports)")
	if err := p.SetPrice(e.ctx, manager, booking.TicketType{Code: "sweet", Name: "Sweet", Price: 10}); err != nil {
		t.Fatal(err)
	}
	setRate(t, e, s, "adult", 2000)
	setRate(t, e, s, "sweet", 3300)
	e.clock.Add(time.Second)
	a := e.sellTyped(t, "a", nil, "E1", "E2")
	if a.Tickets[0].Price != 1250 {
		t.Fatalf("an adult ticket costs %s, want 12.50", a.Tickets[0].Price)
	}
	e.sellTyped(t, "b", map[string]string{"E3": "sweet", "E4": "sweet", "E5": "sweet"}, "E3", "E4", "E5")
	if _, err := r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: a.Number, Seats: []string{"E2"}, Reason: "ill"}); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Exchange(e.ctx, clerk, booking.ExchangeRequest{Number: a.Number, Tickets: []string{"E1"}, Seats: []string{"F1"}, IdempotencyKey: "x1", Method: booking.Card}); err != nil {
		t.Fatal(err)
	}
	want := []booking.TaxRow{
		// Sold E1, E2 and F1; E2 refunded, E1 exchanged for F1.
		{Rate: 2000, Sales: 3750, Returns: 2500, Gross: 1250, Tax: 208, Net: 1042, Sold: 3, Back: 2},
		{Rate: 3300, Sales: 30, Gross: 30, Tax: 6, Net: 24, Sold: 3},
	}
	rep, shifts := taxOfDay(t, e, s)
	if !reflect.DeepEqual(rep.Rows, want) {
		t.Fatalf("tax report\n got %+v\nwant %+v", rep.Rows, want)
	}
	if !reflect.DeepEqual(shifts, want) {
		t.Fatalf("the shifts' Z reports\n got %+v\nwant %+v", shifts, want)
	}
	if rep.Total.Tax != 214 || rep.Total.Gross != 1280 {
		t.Fatalf("total %+v", rep.Total)
	}
	day := booking.ReportRange{From: e.clock.Now(), To: e.clock.Now()}
	tr, err := tk.ReportTakings(e.ctx, manager, booking.TakingsQuery{ReportRange: day, By: booking.ByDay})
	if err != nil || tr.Total.Net != rep.Total.Gross {
		t.Fatalf("takings net %s, tax report gross %s (%v)", tr.Total.Net, rep.Total.Gross, err)
	}
}

// taxNewRateFromNowOn: a new rate changes the sales from then on only; a
// ticket refunded afterwards gives back the tax of the rate it was sold
// at.
func taxNewRateFromNowOn(t *testing.T, e *env) {
	s := need[settingStore](t, e, needSettings)
	r := need[refunder](t, e, needRefund)
	setRate(t, e, s, "adult", 2000)
	e.clock.Add(time.Second)
	old := e.sellTyped(t, "a", nil, "E1")
	e.clock.Add(time.Minute)
	setRate(t, e, s, "adult", 1000)
	e.clock.Add(time.Second)
	e.sellTyped(t, "b", nil, "E2")
	if _, err := r.RefundTickets(e.ctx, supervisor, booking.RefundRequest{Number: old.Number, Seats: []string{"E1"}, Reason: "ill"}); err != nil {
		t.Fatal(err)
	}
	want := []booking.TaxRow{
		{Rate: 1000, Sales: 1250, Gross: 1250, Tax: 114, Net: 1136, Sold: 1}, // 113.6
		{Rate: 2000, Sales: 1250, Returns: 1250, Sold: 1, Back: 1},
	}
	rep, shifts := taxOfDay(t, e, s)
	if !reflect.DeepEqual(rep.Rows, want) || !reflect.DeepEqual(shifts, want) {
		t.Fatalf("rows\nreport %+v\nshifts %+v\nwant   %+v", rep.Rows, shifts, want)
	}
	rates, err := s.TaxRates(e.ctx, clerk)
	if err != nil || len(rates) != 2 || rates.At(booking.TicketTax("adult"), old.CreatedAt) != 2000 {
		t.Fatalf("rates %+v, %v", rates, err)
	}
}

func taxRefusals(t *testing.T, e *env) {
	s := need[settingStore](t, e, needSettings)
	_, err := s.SetTaxRate(e.ctx, clerk, booking.TaxRate{Key: booking.TicketTax("adult"), Rate: 2000})
	wantCode(t, "a clerk setting a rate", err, booking.EForbidden)
	_, err = s.SetTaxRate(e.ctx, manager, booking.TaxRate{Key: booking.TicketTax("adult"), Rate: 2000, From: e.clock.Now().Add(-time.Hour)})
	wantCode(t, "a rate reaching back", err, booking.EInvalid)
	if !strings.Contains(booking.ErrorMessage(err), "sales already made") {
		t.Fatalf("a rate reaching back: %q", booking.ErrorMessage(err))
	}
	_, err = s.SetTaxRate(e.ctx, manager, booking.TaxRate{Key: booking.TicketTax("nosuch"), Rate: 2000})
	wantMessage(t, "an unknown ticket type", err, `There is no ticket type "nosuch".`)
	_, err = s.SetTaxRate(e.ctx, manager, booking.TaxRate{Key: booking.TicketTax("adult"), Rate: booking.MaxRate + 1})
	wantCode(t, "a rate over 100 %", err, booking.EInvalid)
	// An item category needs no ticket type; a rate to come is kept.
	later := e.clock.Now().Add(24 * time.Hour)
	got, err := s.SetTaxRate(e.ctx, manager, booking.TaxRate{Key: booking.TaxKey{Kind: booking.TaxItemCategory, Code: "sweets"}, Rate: 700, From: later})
	if err != nil || !got.From.Equal(later) || got.SetBy != manager.Name {
		t.Fatalf("an item category's rate to come: %+v, %v", got, err)
	}
	if rates, err := s.TaxRates(e.ctx, clerk); err != nil || len(rates) != 1 {
		t.Fatalf("rates after the refusals: %+v, %v", rates, err)
	}
}

// zonesTwoSites is must-show 5: two sites of a chain in zones 19 to 21
// hours apart each read their own day — a day's shows, "today", the
// takings and tax reports and the door's words. It skips on a store of
// one site.
func zonesTwoSites(t *testing.T, e *env) {
	sp := need[sitePlacer](t, e, needSites)
	s := need[settingStore](t, e, needSettings)
	pb := need[programmeBuilder](t, e, "AddHall, AddFilm and AddShow (booking.Programme)")
	d := need[admitter](t, e, "Admit (booking.Door)")
	tk := need[takings](t, e, "ReportTakings (booking.Reports)")
	west, err := sp.AddSite(e.ctx, manager, "West")
	if booking.ErrorMessage(err) == booking.ErrorMessage(booking.ErrOneSite) {
		t.Skip("a store of one site has one zone")
	}
	if err != nil {
		t.Fatal(err)
	}
	zones := map[int64]string{booking.MainSite: "Pacific/Auckland", west.ID: "America/Los_Angeles"}
	locs := map[int64]*time.Location{}
	for site, zone := range zones {
		if _, err := s.SetSetting(e.ctx, manager, site, booking.SetTimeZone, zone); err != nil {
			t.Fatal(err)
		}
		locs[site], _ = time.LoadLocation(zone)
	}
	h := storetest.Hall()
	h.Name, h.Site = "West Hall", west.ID
	hallID, err := pb.AddHall(e.ctx, manager, h)
	if err != nil {
		t.Fatal(err)
	}
	filmID, err := pb.AddFilm(e.ctx, manager, booking.Film{Title: "West Film", Minutes: 90})
	if err != nil {
		t.Fatal(err)
	}
	// A show five hours on, at each site (the seed's first is two on).
	starts := e.clock.Now().Add(5 * time.Hour).Truncate(time.Minute)
	westShow, err := pb.AddShow(e.ctx, manager, filmID, hallID, starts)
	if err != nil {
		t.Fatal(err)
	}
	at := func(site int64) booking.Actor { a := clerk; a.Site = site; return a }
	for site, show := range map[int64]int64{booking.MainSite: e.show.ID, west.ID: westShow} {
		loc := locs[site]
		c, err := s.Cinema(e.ctx, clerk, site)
		if err != nil || c.Location().String() != zones[site] {
			t.Fatalf("site %d's zone: %v, %v", site, c.Location(), err)
		}
		today := c.Today(e.clock.Now())
		if wantY, wantM, wantD := e.clock.Now().In(loc).Date(); today.Location() != c.Location() || today.Hour() != 0 || today.Day() != wantD || today.Month() != wantM || today.Year() != wantY {
			t.Fatalf("site %d's today: %s", site, today)
		}
		sh, err := e.s.Show(e.ctx, clerk, show)
		if err != nil {
			t.Fatal(err)
		}
		// The show is listed on its date at its site, in its zone, and
		// not on the day before or after there.
		y, m, dd := sh.Starts.In(loc).Date()
		for _, delta := range []int{-1, 0, 1} {
			day := time.Date(y, m, dd+delta, 12, 0, 0, 0, time.UTC)
			list, err := e.s.Shows(e.ctx, at(site), day)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, x := range list {
				if x.ID == show {
					found = true
					if x.Starts.Location().String() != zones[site] {
						t.Errorf("site %d lists show %d in %s", site, show, x.Starts.Location())
					}
				}
			}
			if found != (delta == 0) {
				t.Fatalf("site %d, day %+d of show %d's date there: listed %v", site, delta, show, found)
			}
		}
		// A ticket sold now counts on today's date there, in each report.
		h, err := e.s.Hold(e.ctx, at(site), booking.HoldRequest{ShowID: show, Seats: []string{"C3"}, Owner: fmt.Sprint("z", site)})
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.s.Checkout(e.ctx, at(site), booking.CheckoutRequest{HoldID: h.ID, Owner: fmt.Sprint("z", site), IdempotencyKey: fmt.Sprint("z", site), Method: booking.Card})
		if err != nil {
			t.Fatal(err)
		}
		for _, delta := range []int{-1, 0, 1} {
			ty, tm, td := today.Date()
			day := time.Date(ty, tm, td+delta, 0, 0, 0, 0, time.UTC)
			r := booking.ReportRange{From: day, To: day, Site: site}
			tr, err := tk.ReportTakings(e.ctx, manager, booking.TakingsQuery{ReportRange: r, By: booking.ByDay})
			if err != nil {
				t.Fatal(err)
			}
			tax, err := s.ReportTax(e.ctx, manager, r)
			if err != nil {
				t.Fatal(err)
			}
			want := booking.Money(0)
			if delta == 0 {
				want = b.Total
			}
			if tr.Total.Sales != want || tax.Total.Gross != want {
				t.Fatalf("site %d, today%+d: takings %s, tax gross %s, want %s", site, delta, tr.Total.Sales, tax.Total.Gross, want)
			}
			if tax.From.Location().String() != zones[site] || tax.From.Hour() != 0 {
				t.Fatalf("site %d's tax report starts %s", site, tax.From)
			}
		}
		// The door says when its doors open in its zone.
		_, err = d.Admit(e.ctx, door, b.Tickets[0].Code)
		zsh := *sh
		zsh.Starts = sh.Starts.In(loc)
		wantMessage(t, fmt.Sprintf("site %d's door", site), err, booking.ErrorMessage(booking.DoorWindow(e.clock.Now().In(loc), zsh, b.Tickets[0].Seat.Label)))
	}
}
