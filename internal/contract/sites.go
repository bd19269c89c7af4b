package contract

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"boxoffice/booking"
)

// siter is booking.Sites' Sites.
type siter interface {
	Sites(ctx context.Context, actor booking.Actor) ([]booking.Site, error)
}

// sitePlacer is booking.Sites whole, with the roster it places.
type sitePlacer interface {
	siter
	keyRoster
	AddSite(ctx context.Context, actor booking.Actor, name string) (booking.Site, error)
	SetTerminalSite(ctx context.Context, actor booking.Actor, name string, site int64) (*booking.Terminal, error)
	SetStaffSite(ctx context.Context, actor booking.Actor, name string, site int64) error
}

const needSites = "AddSite, SetTerminalSite and SetStaffSite (booking.Sites) and the roster"

// exchanger is booking.Bookings' Exchange.
type exchanger interface {
	Exchange(ctx context.Context, actor booking.Actor, req booking.ExchangeRequest) (*booking.ExchangeResult, error)
}

// takings is the one report the site cases add up.
type takings interface {
	ReportTakings(ctx context.Context, actor booking.Actor, q booking.TakingsQuery) (*booking.TakingsReport, error)
}

// siteCases (issue 14): a cinema made on either backend is one site,
// site 1, and a session at it sees and sells all of it; a session at a
// site the cinema does not have sees no show of it and may not sell one.
var siteCases = []testCase{
	{"OneSite", sitesOneSite},
	{"SiteOneSeesAll", sitesOneSeesAll},
	{"ErrOtherSite", sitesErrOtherSite},
	{"ReportOfSiteOne", sitesReportOfSiteOne},
	{"ErrExchangeToOtherSite", sitesErrExchangeToOtherSite},
	{"AddSite", sitesAddSite},
	{"ErrNoSite", sitesErrNoSite},
	{"AtTheMainSite", sitesAtTheMainSite},
	{"StaffAtOneSite", sitesStaffAtOneSite},
}

func sitesOneSite(t *testing.T, e *env) {
	s := need[siter](t, e, "Sites (booking.Sites)")
	list, err := s.Sites(e.ctx, clerk)
	if err != nil || !reflect.DeepEqual(list, []booking.Site{{ID: booking.MainSite, Name: "Main"}}) {
		t.Fatalf("sites of a new cinema: %+v, %v", list, err)
	}
	m, err := e.s.SeatMap(e.ctx, clerk, e.show.ID, "a")
	if err != nil || m.Hall.Site != booking.MainSite {
		t.Fatalf("the seed hall's site: %+v, %v", m, err)
	}
}

func sitesOneSeesAll(t *testing.T, e *env) {
	all, err := e.s.Shows(e.ctx, clerk, e.clock.Now())
	if err != nil || len(all) == 0 {
		t.Fatalf("shows: %d, %v", len(all), err)
	}
	at := clerk
	at.Site = booking.MainSite
	one, err := e.s.Shows(e.ctx, at, e.clock.Now())
	if err != nil || len(one) != len(all) {
		t.Fatalf("a counter at site 1 sees %d shows of %d: %v", len(one), len(all), err)
	}
	if _, err := e.s.Hold(e.ctx, at, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"E5"}, Owner: "a"}); err != nil {
		t.Fatalf("a hold at site 1: %v", err)
	}
}

// sitesErrOtherSite: a counter of a site without this hall lists none of
// its shows, and its seat map and best-available hold are refused with
// the same words (booking.ErrOtherSite), nothing held.
func sitesErrOtherSite(t *testing.T, e *env) {
	away := clerk
	away.Site = 2
	shows, err := e.s.Shows(e.ctx, away, e.clock.Now())
	if err != nil || len(shows) != 0 {
		t.Fatalf("a counter of another site sees %d shows: %v", len(shows), err)
	}
	want := booking.ErrorMessage(booking.ErrOtherSite(e.show.ID))
	_, err = e.s.SeatMap(e.ctx, away, e.show.ID, "a")
	wantCode(t, "another site's seat map", err, booking.ENotFound)
	if booking.ErrorMessage(err) != want {
		t.Fatalf("another site's seat map said %q, want %q", booking.ErrorMessage(err), want)
	}
	_, err = e.s.HoldBest(e.ctx, away, booking.HoldBestRequest{ShowID: e.show.ID, N: 2, Owner: "a"})
	wantCode(t, "another site's best seats", err, booking.ENotFound)
	if booking.ErrorMessage(err) != want {
		t.Fatalf("another site's best seats said %q, want %q", booking.ErrorMessage(err), want)
	}
	sh, err := e.s.Show(e.ctx, clerk, e.show.ID)
	if err != nil || sh.Held != 0 {
		t.Fatalf("held after the refusals: %+v, %v", sh, err)
	}
}

// sitesReportOfSiteOne: on a one-site cinema the takings of site 1 are
// the takings of all.
func sitesReportOfSiteOne(t *testing.T, e *env) {
	r := need[takings](t, e, "ReportTakings (booking.Reports)")
	e.sell(t, "a", "E1", "E2")
	day := booking.ReportRange{From: e.clock.Now(), To: e.clock.Now()}
	for _, by := range booking.TakingsBys() {
		all, err := r.ReportTakings(e.ctx, manager, booking.TakingsQuery{ReportRange: day, By: by})
		if err != nil {
			t.Fatal(err)
		}
		one := day
		one.Site = booking.MainSite
		mine, err := r.ReportTakings(e.ctx, manager, booking.TakingsQuery{ReportRange: one, By: by})
		if err != nil || !reflect.DeepEqual(mine, all) {
			t.Fatalf("by %s: site 1 %+v, %v; all %+v", by, mine, err, all)
		}
		if all.Total.Tickets != 2 || all.Total.Sales == 0 {
			t.Fatalf("by %s: %+v", by, all.Total)
		}
	}
}

// sitesErrExchangeToOtherSite: a counter of another site may not move a
// booking's tickets to seats of a show that is not on its programme;
// nothing moves.
func sitesErrExchangeToOtherSite(t *testing.T, e *env) {
	x := need[exchanger](t, e, "Exchange (booking.Bookings)")
	b := e.sell(t, "a", "E1")
	away := clerk
	away.Site = 2
	_, err := x.Exchange(e.ctx, away, booking.ExchangeRequest{Number: b.Number, Seats: []string{"F1"}, IdempotencyKey: "x-away", Method: booking.Card})
	wantCode(t, "an exchange at another site", err, booking.ENotFound)
	if want := booking.ErrorMessage(booking.ErrOtherSite(e.show.ID)); booking.ErrorMessage(err) != want {
		t.Fatalf("an exchange at another site said %q, want %q", booking.ErrorMessage(err), want)
	}
	m, err := e.s.SeatMap(e.ctx, clerk, e.show.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, seat := range m.Hall.Seats {
		if seat.Label == "F1" && m.State(seat.ID) != booking.SeatFree {
			t.Fatalf("F1 is %v after a refused exchange", m.State(seat.ID))
		}
	}
}

// sitesAddSite: a store of one site refuses a second, whatever its name,
// saying where a chain runs; a chain's store adds it, once by a name in
// any case, and lists it.
func sitesAddSite(t *testing.T, e *env) {
	s := need[sitePlacer](t, e, needSites)
	_, err := s.AddSite(e.ctx, clerk, "North")
	wantCode(t, "a clerk adding a site", err, booking.EForbidden)
	north, err := s.AddSite(e.ctx, manager, "North")
	if booking.ErrorMessage(err) == booking.ErrorMessage(booking.ErrOneSite) {
		for _, name := range []string{"South", "", "bad\x1bname"} {
			_, err := s.AddSite(e.ctx, manager, name)
			wantMessage(t, "a second site on a store of one", err, booking.ErrorMessage(booking.ErrOneSite))
		}
		if list, err := s.Sites(e.ctx, clerk); err != nil || len(list) != 1 {
			t.Fatalf("sites after the refusals: %+v, %v", list, err)
		}
		return
	}
	if err != nil || north.ID != 2 || north.Name != "North" {
		t.Fatalf("add North: %+v, %v", north, err)
	}
	_, err = s.AddSite(e.ctx, manager, "NORTH")
	wantCode(t, "a site name in use", err, booking.EConflict)
	wantMessage(t, "a site name in use", err, "There is already a site called NORTH.")
	for _, bad := range []string{"", "  ", "bad\x1bname"} {
		_, err := s.AddSite(e.ctx, manager, bad)
		wantCode(t, fmt.Sprintf("site name %q", bad), err, booking.EInvalid)
	}
	list, err := s.Sites(e.ctx, clerk)
	if err != nil || !reflect.DeepEqual(list, []booking.Site{{ID: 1, Name: "Main"}, {ID: 2, Name: "North"}}) {
		t.Fatalf("sites: %+v, %v", list, err)
	}
}

// sitesErrNoSite: a site nobody made, a terminal or a person nobody has,
// are refused by name; placing is for a manager.
func sitesErrNoSite(t *testing.T, e *env) {
	s := need[sitePlacer](t, e, needSites)
	line, _ := newKey(t)
	if _, err := s.AddTerminal(e.ctx, manager, "till-1", line); err != nil {
		t.Fatal(err)
	}
	_, err := s.SetTerminalSite(e.ctx, manager, "till-1", 9)
	wantMessage(t, "a terminal at site 9", err, "There is no site 9.")
	_, err = s.SetTerminalSite(e.ctx, manager, "till-1", booking.AllSites)
	wantMessage(t, "a terminal at every site", err, "There is no site 0.")
	wantMessage(t, "a clerk at site 9", s.SetStaffSite(e.ctx, manager, "carl", 9), "There is no site 9.")
	_, err = s.SetTerminalSite(e.ctx, manager, "till-0", booking.MainSite)
	wantMessage(t, "an unknown terminal", err, "No terminal called till-0.")
	wantMessage(t, "an unknown name", s.SetStaffSite(e.ctx, manager, "nobody", booking.MainSite), "No staff called nobody.")
	_, err = s.SetTerminalSite(e.ctx, supervisor, "till-1", booking.MainSite)
	wantCode(t, "a supervisor placing a terminal", err, booking.EForbidden)
	wantCode(t, "a supervisor placing staff", s.SetStaffSite(e.ctx, supervisor, "carl", booking.MainSite), booking.EForbidden)
}

// sitesAtTheMainSite: a terminal and a person placed at the main site
// are there, and a person placed at every site works at every one.
func sitesAtTheMainSite(t *testing.T, e *env) {
	s := need[sitePlacer](t, e, needSites)
	line, wire := newKey(t)
	if _, err := s.AddTerminal(e.ctx, manager, "till-1", line); err != nil {
		t.Fatal(err)
	}
	term, err := s.SetTerminalSite(e.ctx, manager, "TILL-1", booking.MainSite)
	if err != nil || term.Name != "till-1" || term.Site != booking.MainSite {
		t.Fatalf("till-1 at the main site: %+v, %v", term, err)
	}
	if _, found, err := s.IdentifyKey(e.ctx, wire); err != nil || found.Site != booking.MainSite {
		t.Fatalf("till-1's key: %+v, %v", found, err)
	}
	if err := s.SetStaffSite(e.ctx, manager, "carl", booking.MainSite); err != nil {
		t.Fatal(err)
	}
	if err := s.SetStaffSite(e.ctx, manager, "carl", booking.AllSites); err != nil {
		t.Fatal(err)
	}
	list, err := s.ListStaff(e.ctx, manager)
	if err != nil || list[0].Name != "carl" || list[0].Site != booking.AllSites {
		t.Fatalf("staff: %+v, %v", list, err)
	}
	if _, err := s.SignIn(e.ctx, booking.SignInRequest{Name: "carl", PIN: "1234", Terminal: "till-1", TerminalID: term.ID}); err != nil {
		t.Fatalf("carl at till-1: %v", err)
	}
}

// sitesStaffAtOneSite, on a chain: a terminal and a person placed at a
// second site are there; the person is refused at the first site's
// terminal, by name and site, after a right PIN and however often (no
// lockout), and at a local counter of the first site; placed at every
// site again, they sign in anywhere. A store of one site skips it.
func sitesStaffAtOneSite(t *testing.T, e *env) {
	s := need[sitePlacer](t, e, needSites)
	north, err := s.AddSite(e.ctx, manager, "North")
	if booking.ErrorMessage(err) == booking.ErrorMessage(booking.ErrOneSite) {
		t.Skip("the backend holds one site")
	}
	if err != nil {
		t.Fatal(err)
	}
	line1, _ := newKey(t)
	line2, wire2 := newKey(t)
	till1, err := s.AddTerminal(e.ctx, manager, "till-1", line1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddTerminal(e.ctx, manager, "till-2", line2); err != nil {
		t.Fatal(err)
	}
	till2, err := s.SetTerminalSite(e.ctx, manager, "till-2", north.ID)
	if err != nil || till2.Site != north.ID {
		t.Fatalf("till-2 to North: %+v, %v", till2, err)
	}
	if _, found, err := s.IdentifyKey(e.ctx, wire2); err != nil || found.Site != north.ID {
		t.Fatalf("till-2's key: %+v, %v", found, err)
	}
	if list, err := s.ListTerminals(e.ctx, manager); err != nil || len(list) != 2 || list[0].Site != booking.MainSite || list[1].Site != north.ID {
		t.Fatalf("terminals: %+v, %v", list, err)
	}
	if _, err := s.AddStaff(e.ctx, manager, "zed", booking.RoleClerk, "1234", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.SetStaffSite(e.ctx, manager, "ZED", north.ID); err != nil {
		t.Fatal(err)
	}
	staff, err := s.ListStaff(e.ctx, manager)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range staff {
		if want := map[bool]int64{true: north.ID, false: booking.AllSites}[st.Name == "zed"]; st.Site != want {
			t.Errorf("%s works at %d, want %d", st.Name, st.Site, want)
		}
	}
	at1 := booking.SignInRequest{Name: "zed", PIN: "1234", Terminal: "till-1", TerminalID: till1.ID}
	for i := range booking.MaxPINFailures + 2 {
		_, err := s.SignIn(e.ctx, at1)
		wantCode(t, fmt.Sprintf("zed at Main's terminal, attempt %d", i+1), err, booking.EForbidden)
		wantMessage(t, "zed at Main's terminal", err, "zed works at North, not at Main.")
	}
	bad := at1
	bad.PIN = "9999"
	_, err = s.SignIn(e.ctx, bad)
	wantMessage(t, "a wrong PIN at another site", err, "Wrong name or PIN.")
	if st, err := s.SignIn(e.ctx, booking.SignInRequest{Name: "zed", PIN: "1234", Terminal: "till-2", TerminalID: till2.ID}); err != nil || st.Site != north.ID {
		t.Fatalf("zed at North's terminal, never locked: %+v, %v", st, err)
	}
	_, err = s.SignIn(e.ctx, booking.SignInRequest{Name: "zed", PIN: "1234", Terminal: "local", Site: booking.MainSite})
	wantMessage(t, "zed at a local counter of Main", err, "zed works at North, not at Main.")
	if _, err := s.SignIn(e.ctx, booking.SignInRequest{Name: "zed", PIN: "1234", Terminal: "local"}); err != nil {
		t.Fatalf("zed at a counter of every site: %v", err)
	}
	for _, term := range []*booking.Terminal{till1, till2} {
		if _, err := s.SignIn(e.ctx, booking.SignInRequest{Name: "carl", PIN: "1234", Terminal: term.Name, TerminalID: term.ID}); err != nil {
			t.Fatalf("carl (every site) at %s: %v", term.Name, err)
		}
	}
	if err := s.SetStaffSite(e.ctx, manager, "zed", booking.AllSites); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignIn(e.ctx, at1); err != nil {
		t.Fatalf("zed of every site at Main's terminal: %v", err)
	}
}
