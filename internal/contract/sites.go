package contract

import (
	"context"
	"reflect"
	"testing"

	"boxoffice/booking"
)

// siter is booking.Sites.
type siter interface {
	Sites(ctx context.Context, actor booking.Actor) ([]booking.Site, error)
}

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
