package contract

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
)

// watchCases: a film's watchers are told once, by the first show added,
// however many managers add shows at once; a call is claimed once.
var watchCases = []testCase{
	{"ToldOnceByRacingShows", watchToldOnce},
	{"Err", watchErr},
	{"CalledOnce", watchCalledOnce},
}

// newFilm adds a film with no shows, as a manager.
func (e *env) newFilm(t *testing.T, c accounts, title string) int64 {
	t.Helper()
	id, err := c.AddFilm(e.ctx, manager, booking.Film{Title: title, Minutes: 90})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// watchToldOnce: three people watch a film with no shows; two managers
// add 24 of its first shows at once, 12 each. Each watcher is listed to call exactly
// once, of one of those shows, and exactly one show's audit row says it
// told them.
func watchToldOnce(t *testing.T, e *env) {
	c := e.accounts(t)
	film := e.newFilm(t, c, "Awaited")
	ann := e.addCustomer(t, c, "Ann Lee", "ann@example.com", "07700 900123")
	watchers := map[int64]bool{}
	for _, req := range []booking.WatchRequest{
		{FilmID: film, Name: "Bo", Phone: "0123 456789", Email: "Bo@Example.com"},
		{FilmID: film, Name: "Cy", Phone: "0987 654321"},
		{FilmID: film, CustomerID: ann.ID},
	} {
		w, err := c.Watch(e.ctx, clerk, req)
		if err != nil {
			t.Fatal(err)
		}
		watchers[w.ID] = true
	}
	const racers = 24
	shows := make([]int64, racers)
	errs := make([]error, racers)
	start := e.clock.Now().Add(72 * time.Hour).Truncate(time.Hour)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			m := manager
			if i%2 == 1 {
				m = booking.Actor{Name: "mia", Role: booking.RoleManager}
			}
			shows[i], errs[i] = c.AddShow(e.ctx, m, film, 1, start.Add(time.Duration(i)*3*time.Hour))
		})
	}
	wg.Wait()
	added := map[int64]bool{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("show %d: %v", i, err)
		}
		added[shows[i]] = true
	}
	calls, err := c.WatchCalls(e.ctx, clerk)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != len(watchers) {
		t.Fatalf("%d watchers to call, want %d: %+v", len(calls), len(watchers), calls)
	}
	told := calls[0].ShowID
	for _, w := range calls {
		if !watchers[w.ID] || w.NotifiedAt == nil || w.ShowID != told || !added[w.ShowID] || w.Show.ID != w.ShowID || w.Film.ID != film {
			t.Fatalf("watcher %+v, want each of %v once, told of one of the shows added", w, watchers)
		}
		delete(watchers, w.ID)
	}
	// Told at once, listed in the order they asked; Ann's details are her
	// account's.
	if calls[0].Email != "bo@example.com" || calls[1].Email != "" || calls[2].CustomerID != ann.ID || calls[2].Name != "Ann Lee" ||
		calls[2].Phone != "+447700900123" || calls[2].Email != "ann@example.com" {
		t.Errorf("calls %+v", calls)
	}
	e.listedOnce(t, c, film, told, 3)
	if rows := e.toldRows(t, c, told); rows != 1 {
		t.Fatalf("%d shows' audit rows told the watchers, want 1", rows)
	}
	// On sale now: nobody more waits for it.
	_, err = c.Watch(e.ctx, clerk, booking.WatchRequest{FilmID: film, Name: "Di", Phone: "0111 222333"})
	wantCode(t, "a film on sale", err, booking.EConflict)
}

// watchErr: a watch needs a name and a phone to call, of a film that
// exists, is not retired and has no show to come; one untold watch per
// phone and film; the door keeps none.
func watchErr(t *testing.T, e *env) {
	c := e.accounts(t)
	film := e.newFilm(t, c, "Coming")
	if _, err := c.Watch(e.ctx, clerk, booking.WatchRequest{FilmID: film, Name: "Bo", Phone: "0123 456789"}); err != nil {
		t.Fatal(err)
	}
	for what, req := range map[string]booking.WatchRequest{
		"no name":     {FilmID: film, Phone: "0123 456789"},
		"no phone":    {FilmID: film, Name: "Cy"},
		"a bad phone": {FilmID: film, Name: "Cy", Phone: "12"},
		"a bad email": {FilmID: film, Name: "Cy", Phone: "0987 654321", Email: "cy@"},
	} {
		_, err := c.Watch(e.ctx, clerk, req)
		wantCode(t, what, err, booking.EInvalid)
	}
	_, err := c.Watch(e.ctx, clerk, booking.WatchRequest{FilmID: film, Name: "Bo again", Phone: "+44 123 456789"})
	wantMessage(t, "the same phone again", err, "That phone number is on the watchlist of Coming already.")
	_, err = c.Watch(e.ctx, clerk, booking.WatchRequest{FilmID: 1 << 40, Name: "Cy", Phone: "0987 654321"})
	wantCode(t, "an unknown film", err, booking.ENotFound)
	_, err = c.FilmWatchers(e.ctx, clerk, 1<<40)
	wantCode(t, "the list of an unknown film", err, booking.ENotFound)
	if list, err := c.FilmWatchers(e.ctx, clerk, film); err != nil || len(list) != 1 || list[0].Name != "Bo" || list[0].NotifiedAt != nil {
		t.Fatalf("the film's list before a show: %+v, %v", list, err)
	}
	_, err = c.Watch(e.ctx, clerk, booking.WatchRequest{FilmID: film, CustomerID: 1 << 40})
	wantCode(t, "an unknown customer", err, booking.ENotFound)
	_, err = c.Watch(e.ctx, door, booking.WatchRequest{FilmID: film, Name: "Cy", Phone: "0987 654321"})
	wantCode(t, "the door", err, booking.EForbidden)
	_, err = c.Watch(e.ctx, clerk, booking.WatchRequest{FilmID: e.show.Film.ID, Name: "Cy", Phone: "0987 654321"})
	wantCode(t, "a film on sale", err, booking.EConflict)
	if err := c.RetireFilm(e.ctx, manager, film); err != nil {
		t.Fatal(err)
	}
	_, err = c.Watch(e.ctx, clerk, booking.WatchRequest{FilmID: film, Name: "Cy", Phone: "0987 654321"})
	wantCode(t, "a retired film", err, booking.EInvalid)
	if calls, err := c.WatchCalls(e.ctx, clerk); err != nil || len(calls) != 0 {
		t.Fatalf("calls %+v, %v", calls, err)
	}
}

// watchCalledOnce: a watcher is called once; of two counters at once,
// one records the call and the other is told who made it; an untold
// watcher has nothing to be called about.
func watchCalledOnce(t *testing.T, e *env) {
	c := e.accounts(t)
	film := e.newFilm(t, c, "Soon")
	w, err := c.Watch(e.ctx, clerk, booking.WatchRequest{FilmID: film, Name: "Bo", Phone: "0123 456789"})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, "an untold watcher", c.MarkWatchCalled(e.ctx, clerk, w.ID), booking.EConflict)
	if _, err := c.AddShow(e.ctx, manager, film, 1, e.clock.Now().Add(72*time.Hour)); err != nil {
		t.Fatal(err)
	}
	callers := []booking.Actor{clerk, {Name: "cleo", Role: booking.RoleClerk}}
	errs := make([]error, len(callers))
	var wg sync.WaitGroup
	for i, a := range callers {
		wg.Go(func() { errs[i] = c.MarkWatchCalled(e.ctx, a, w.ID) })
	}
	wg.Wait()
	var stale *booking.StaleError
	switch {
	case errs[0] == nil && errors.As(errs[1], &stale) && stale.Current == "called by carl":
	case errs[1] == nil && errors.As(errs[0], &stale) && stale.Current == "called by cleo":
	default:
		t.Fatalf("two calls at once: %v, %v", errs[0], errs[1])
	}
	if calls, err := c.WatchCalls(e.ctx, clerk); err != nil || len(calls) != 0 {
		t.Fatalf("still to call: %+v, %v", calls, err)
	}
	wantCode(t, "an unknown watch", c.MarkWatchCalled(e.ctx, clerk, 1<<40), booking.ENotFound)
}

// toldRows counts the audit rows of shows the managers added that told
// three watchers, each of which must be show told's; a row that told
// any other number fails the case.
func (e *env) toldRows(t *testing.T, c accounts, told int64) int {
	t.Helper()
	rows := 0
	for _, m := range []string{"mgr", "mia"} {
		trail, err := c.Audit(e.ctx, manager, booking.AuditQuery{Staff: m, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range trail {
			if strings.Contains(r.Detail, "3 watchers to call") {
				rows++
				if r.ShowID != told {
					t.Errorf("the audit row that told them is of show %d, the calls of %d", r.ShowID, told)
				}
			} else if strings.Contains(r.Detail, "watchers to call") {
				t.Errorf("another show told watchers: %s", r.Detail)
			}
		}
	}
	return rows
}

// listedOnce: the film's list of watchers has each of its n watchers
// once, every one told of show told.
func (e *env) listedOnce(t *testing.T, c accounts, film, told int64, n int) {
	t.Helper()
	list, err := c.FilmWatchers(e.ctx, clerk, film)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, w := range list {
		if seen[w.ID] || w.FilmID != film || w.Film.ID != film || w.ShowID != told || w.Show.ID != told || w.NotifiedAt == nil {
			t.Fatalf("the film's list %+v, want each watcher once, told of show %d", list, told)
		}
		seen[w.ID] = true
	}
	if len(seen) != n {
		t.Fatalf("the film's list has %d watchers, want %d", len(seen), n)
	}
}
