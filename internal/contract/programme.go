package contract

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"boxoffice/booking"
	"boxoffice/internal/storetest"
)

// programmeEditor is booking.Programme's EditFilm and MoveShow.
type programmeEditor interface {
	EditFilm(ctx context.Context, actor booking.Actor, f booking.Film) error
	MoveShow(ctx context.Context, actor booking.Actor, showID int64, starts time.Time, hallID int64) error
}

// programmeCases: a film's facts and a show's time change everywhere the
// show is read next, and a change that would double-book the hall is
// refused naming the show in the way.
var programmeCases = []testCase{
	{"EditFilm", programmeEditFilm},
	{"MoveShow", programmeMoveShow},
	{"AddHallAndFilm", programmeAddHallAndFilm},
	{"AddShow", programmeAddShow},
	{"AddShowRace", programmeAddShowRace},
	{"RetireFilm", programmeRetireFilm},
	{"EditFilmOverlaps", programmeEditFilmOverlaps},
	{"EditFilmRacesAddShow", programmeEditFilmRacesAddShow},
	{"MoveShowRefusals", programmeMoveShowRefusals},
	{"MoveShowRacesAddShow", programmeMoveShowRacesAddShow},
}

func init() { groups = append(groups, group{"Programme", programmeCases}) }

func programmeEditFilm(t *testing.T, e *env) {
	p := need[programmeEditor](t, e, "EditFilm (booking.Programme)")
	e.seatMap(t, "") // read, and cached where the backend caches
	f := e.show.Film
	f.Title, f.Minutes = "Renamed\x1b[2J", f.Minutes+10
	if err := p.EditFilm(e.ctx, manager, f); err != nil {
		t.Fatal(err)
	}
	m := e.seatMap(t, "")
	if m.Show.Film.Title != "Renamed[2J" || m.Show.Film.Minutes != f.Minutes {
		t.Fatalf("the map after the edit: %+v", m.Show.Film)
	}
	sh, err := e.s.Show(e.ctx, clerk, e.show.ID)
	if err != nil || sh.Film.Title != "Renamed[2J" || sh.Film.Minutes != f.Minutes {
		t.Fatalf("the show after the edit: %+v, %v", sh, err)
	}
	err = p.EditFilm(e.ctx, manager, booking.Film{ID: f.ID, Title: "Renamed[2J", Minutes: f.Minutes, Rating: f.Rating})
	wantCode(t, "an edit that changes nothing", err, booking.EInvalid)
	wantMessage(t, "an edit that changes nothing", err, "Nothing to change: Renamed[2J is already so.")
	err = p.EditFilm(e.ctx, manager, booking.Film{ID: 999, Title: "X", Minutes: 90})
	wantCode(t, "edit of no film", err, booking.ENotFound)
	wantMessage(t, "edit of no film", err, "There is no film 999.")
	err = p.EditFilm(e.ctx, clerk, f)
	wantCode(t, "a clerk's edit", err, booking.EForbidden)
}

func programmeMoveShow(t *testing.T, e *env) {
	p := need[programmeEditor](t, e, "MoveShow (booking.Programme)")
	e.hold(t, "a", "E5") // a hold, and the show cached
	to := e.show.Starts.Add(-30 * time.Minute)
	if err := p.MoveShow(e.ctx, manager, e.show.ID, to, 0); err != nil {
		t.Fatal(err)
	}
	m := e.seatMap(t, "a")
	if !m.Show.Starts.Equal(to) || m.State(mustSeat(t, m, "E5").ID) != booking.SeatHeldByMe {
		t.Fatalf("the map after the move: starts %s, want %s", m.Show.Starts, to)
	}
	// Its sales close with the new start.
	e.clock.Set(to.Add(booking.DefaultSalesClose))
	_, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: e.show.ID, Seats: []string{"E7"}, Owner: "late"})
	wantCode(t, "a hold after the moved show's sales closed", err, booking.EInvalid)
	e.clock.Set(e.show.Starts.Add(-2 * time.Hour))
	err = p.MoveShow(e.ctx, manager, e.show.ID, to, 0)
	wantMessage(t, "a move to where it is", err, "The show is at that time in that hall already.")
	past := e.clock.Now().Add(-time.Minute)
	err = p.MoveShow(e.ctx, manager, e.show.ID, past, 0)
	wantCode(t, "a move into the past", err, booking.EInvalid)
	wantMessage(t, "a move into the past", err, fmt.Sprintf("A show cannot start in the past (%s).", past.In(e.clock.Now().Location()).Format("Mon 02 Jan 15:04")))
	second, err := e.s.Show(e.ctx, clerk, 2)
	if err != nil {
		t.Fatal(err)
	}
	err = p.MoveShow(e.ctx, manager, e.show.ID, second.Starts.Add(10*time.Minute), 0)
	wantCode(t, "a move onto another show", err, booking.EConflict)
	wantMessage(t, "a move onto another show", err, fmt.Sprintf("The hall is taken by %s at %s (with cleaning).",
		second.Film.Title, second.Starts.In(second.Starts.Location()).Format("Mon 02 Jan 15:04")))
	err = p.MoveShow(e.ctx, manager, 999, to.Add(time.Hour), 0)
	wantCode(t, "a move of no show", err, booking.ENotFound)
}

func mustSeat(t *testing.T, m *booking.SeatMap, label string) booking.Seat {
	t.Helper()
	seat, ok := m.Hall.SeatByLabel(label)
	if !ok {
		t.Fatalf("no seat %s", label)
	}
	return seat
}

// programmeBuilder is booking.Programme's additions to the programme.
type programmeBuilder interface {
	AddHall(ctx context.Context, actor booking.Actor, h booking.Hall) (int64, error)
	Halls(ctx context.Context, actor booking.Actor) ([]booking.Hall, error)
	AddFilm(ctx context.Context, actor booking.Actor, f booking.Film) (int64, error)
	Films(ctx context.Context, actor booking.Actor) ([]booking.Film, error)
	AddShow(ctx context.Context, actor booking.Actor, filmID, hallID int64, starts time.Time) (int64, error)
	RetireFilm(ctx context.Context, actor booking.Actor, filmID int64) error
}

// The fixture's programme: in Test Hall, First Film (100 minutes) at
// +2h and +26h, Second Film (120 minutes) at +5h; the clock at midday.

// when is t as the programme's messages write it.
func when(t time.Time) string { return t.Format("Mon 02 Jan 15:04") }

// annex adds a hall of ten seats (A1 to A10) called Annex.
func (e *env) annex(t *testing.T, p programmeBuilder) int64 {
	t.Helper()
	h := storetest.Hall()
	h.Name, h.Seats = "Annex", h.Seats[:10]
	id, err := p.AddHall(e.ctx, manager, h)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// day is midnight of the clock's day plus n days, at hour.
func (e *env) day(n, hour int) time.Time {
	return booking.DayStart(e.clock.Now()).AddDate(0, 0, n).Add(time.Duration(hour) * time.Hour)
}

// sellAt sells seats of show showID to owner by card.
func (e *env) sellAt(t *testing.T, showID int64, owner string, seats ...string) *booking.Booking {
	t.Helper()
	h, err := e.s.Hold(e.ctx, clerk, booking.HoldRequest{ShowID: showID, Seats: seats, Owner: owner})
	if err != nil {
		t.Fatalf("hold %v of show %d: %v", seats, showID, err)
	}
	b, err := e.s.Checkout(e.ctx, clerk, booking.CheckoutRequest{HoldID: h.ID, Owner: owner, IdempotencyKey: fmt.Sprint("k-", owner, h.ID), Method: booking.Card})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// film is the film of id as Films lists it.
func (e *env) film(t *testing.T, p programmeBuilder, id int64) booking.Film {
	t.Helper()
	films, err := p.Films(e.ctx, clerk)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range films {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no film %d", id)
	return booking.Film{}
}

// programmeAddHallAndFilm: a hall and a film are added and listed, by
// name and title; a second hall of a name, a hall of no seats or of no
// site, a film without a title and a clerk's addition are refused.
func programmeAddHallAndFilm(t *testing.T, e *env) {
	p := need[programmeBuilder](t, e, "AddHall (booking.Programme)")
	annex := e.annex(t, p)
	halls, err := p.Halls(e.ctx, clerk)
	if err != nil || len(halls) != 2 || halls[0].ID != annex || halls[0].Name != "Annex" || len(halls[0].Seats) != 10 || len(halls[1].Seats) != 140 {
		t.Fatalf("halls: %+v, %v", halls, err)
	}
	_, err = p.AddHall(e.ctx, manager, storetest.Hall())
	wantCode(t, "a second hall of a name", err, booking.EConflict)
	wantMessage(t, "a second hall of a name", err, "There is already a hall called Test Hall.")
	_, err = p.AddHall(e.ctx, manager, booking.Hall{Name: "Empty", Width: 4, Rows: []string{"A"}})
	wantMessage(t, "a hall of no seats", err, "A hall needs seats.")
	nowhere := storetest.Hall()
	nowhere.Name, nowhere.Site = "Elsewhere", 1<<40
	_, err = p.AddHall(e.ctx, manager, nowhere)
	wantCode(t, "a hall of no site", err, booking.ENotFound)
	wantMessage(t, "a hall of no site", err, booking.ErrorMessage(booking.ErrNoSite(1<<40)))
	_, err = p.AddHall(e.ctx, clerk, booking.Hall{Name: "Clerk's"})
	wantCode(t, "a clerk's hall", err, booking.EForbidden)

	id, err := p.AddFilm(e.ctx, manager, booking.Film{Title: "Late \x1b[31mFilm", Minutes: 95, Rating: "15"})
	if err != nil {
		t.Fatal(err)
	}
	if f := e.film(t, p, id); f.Title != "Late [31mFilm" || f.Minutes != 95 || f.Rating != "15" || f.Retired {
		t.Fatalf("the film as listed: %+v", f)
	}
	_, err = p.AddFilm(e.ctx, manager, booking.Film{Title: "\x1b\x07\u202e", Minutes: 90})
	wantCode(t, "a title of control characters", err, booking.EInvalid)
	_, err = p.AddFilm(e.ctx, manager, booking.Film{Title: "Endless", Minutes: booking.MaxFilmMinutes + 1})
	wantCode(t, "a film too long", err, booking.EInvalid)
	_, err = p.AddFilm(e.ctx, supervisor, booking.Film{Title: "Sue's", Minutes: 90})
	wantCode(t, "a supervisor's film", err, booking.EForbidden)
}

// programmeAddShow: a show may follow another once the first has run
// and the hall been cleaned, not sooner; a show running into the next,
// one in the past, of no film or in no hall is refused, each saying so,
// and nothing is written.
func programmeAddShow(t *testing.T, e *env) {
	p := need[programmeBuilder](t, e, "AddShow (booking.Programme)")
	annex := e.annex(t, p)
	film, err := p.AddFilm(e.ctx, manager, booking.Film{Title: "Late Film", Minutes: 100})
	if err != nil {
		t.Fatal(err)
	}
	at := e.day(2, 10)
	id, err := p.AddShow(e.ctx, manager, film, annex, at)
	if err != nil {
		t.Fatal(err)
	}
	sh, err := e.s.Show(e.ctx, clerk, id)
	if err != nil || !sh.Starts.Equal(at) || sh.Capacity != 10 || sh.HallName != "Annex" || sh.Film.Title != "Late Film" {
		t.Fatalf("the new show: %+v, %v", sh, err)
	}
	if _, err := p.AddShow(e.ctx, manager, film, annex, at.Add(100*time.Minute+booking.Cleaning)); err != nil {
		t.Fatalf("the next show once the first ran and the hall was cleaned: %v", err)
	}
	taken := fmt.Sprintf("The hall is taken by Late Film at %s (with cleaning).", when(at))
	for _, c := range []struct {
		name string
		at   time.Time
	}{{"during the cleaning", at.Add(110 * time.Minute)}, {"running into the next", at.Add(-30 * time.Minute)}, {"at the same time", at}} {
		_, err := p.AddShow(e.ctx, manager, film, annex, c.at)
		wantCode(t, "a show "+c.name, err, booking.EConflict)
		wantMessage(t, "a show "+c.name, err, taken)
	}
	past := e.clock.Now().Add(-time.Hour)
	_, err = p.AddShow(e.ctx, manager, film, annex, past)
	wantMessage(t, "a show in the past", err, fmt.Sprintf("A show cannot start in the past (%s).", when(past)))
	_, err = p.AddShow(e.ctx, manager, film, annex, e.clock.Now())
	wantCode(t, "a show starting now", err, booking.EInvalid)
	_, err = p.AddShow(e.ctx, manager, 999, annex, at.Add(24*time.Hour))
	wantMessage(t, "a show of no film", err, "There is no film 999.")
	_, err = p.AddShow(e.ctx, manager, film, 999, at.Add(24*time.Hour))
	wantMessage(t, "a show in no hall", err, "There is no hall 999.")
	_, err = p.AddShow(e.ctx, clerk, film, annex, at.Add(24*time.Hour))
	wantCode(t, "a clerk's show", err, booking.EForbidden)
	shows, err := e.s.Shows(e.ctx, clerk, at)
	if err != nil || len(shows) != 2 {
		t.Fatalf("the day's shows after the refusals: %+v, %v", shows, err)
	}
}

// raceOnce starts a and b together and fails unless exactly one of them
// succeeded and the other met a conflict; it says which won.
func raceOnce(t *testing.T, what string, a, b func() error) (aWon bool) {
	t.Helper()
	var wg sync.WaitGroup
	start := make(chan struct{})
	var aErr, bErr error
	wg.Go(func() { <-start; aErr = a() })
	wg.Go(func() { <-start; bErr = b() })
	close(start)
	wg.Wait()
	switch {
	case aErr == nil && bErr == nil:
		t.Fatalf("%s: both won", what)
	case aErr == nil:
		wantCode(t, what+": the loser", bErr, booking.EConflict)
	case bErr == nil:
		wantCode(t, what+": the loser", aErr, booking.EConflict)
	default:
		t.Fatalf("%s: both lost: %v; %v", what, aErr, bErr)
	}
	return aErr == nil
}

// programmeAddShowRace: two managers schedule one hall at once, an hour
// apart, a film of 150 minutes: one show is scheduled, the other refused
// (on PostgreSQL the hall's row makes them take turns).
func programmeAddShowRace(t *testing.T, e *env) {
	p := need[programmeBuilder](t, e, "AddShow (booking.Programme)")
	annex := e.annex(t, p)
	film, err := p.AddFilm(e.ctx, manager, booking.Film{Title: "Long Film", Minutes: 150})
	if err != nil {
		t.Fatal(err)
	}
	for d := 3; d < 11; d++ {
		at := e.day(d, 10)
		raceOnce(t, fmt.Sprint("day ", d),
			func() error { _, err := p.AddShow(e.ctx, manager, film, annex, at); return err },
			func() error { _, err := p.AddShow(e.ctx, manager, film, annex, at.Add(time.Hour)); return err })
		if shows, err := e.s.Shows(e.ctx, clerk, at); err != nil || len(shows) != 1 {
			t.Fatalf("day %d: %d shows, %v", d, len(shows), err)
		}
	}
}

// programmeRetireFilm: a retired film gets no new shows, and its shows
// stay on sale; retiring it again says so.
func programmeRetireFilm(t *testing.T, e *env) {
	p := need[programmeBuilder](t, e, "RetireFilm (booking.Programme)")
	second, err := e.s.Show(e.ctx, clerk, 2)
	if err != nil {
		t.Fatal(err)
	}
	film := second.Film.ID
	wantCode(t, "a clerk's retirement", p.RetireFilm(e.ctx, clerk, film), booking.EForbidden)
	if err := p.RetireFilm(e.ctx, manager, film); err != nil {
		t.Fatal(err)
	}
	if f := e.film(t, p, film); !f.Retired {
		t.Fatalf("the film after retiring: %+v", f)
	}
	err = p.RetireFilm(e.ctx, manager, film)
	wantCode(t, "retired twice", err, booking.EConflict)
	wantMessage(t, "retired twice", err, "Second Film is retired already.")
	wantMessage(t, "retire no film", p.RetireFilm(e.ctx, manager, 999), "There is no film 999.")
	_, err = p.AddShow(e.ctx, manager, film, second.HallID, e.day(3, 10))
	wantCode(t, "a show of a retired film", err, booking.EInvalid)
	wantMessage(t, "a show of a retired film", err, "Second Film is retired: it gets no new shows.")
	e.sellAt(t, second.ID, "a", "A1")
}

// programmeEditFilmOverlaps: a film growing longer must still fit each
// of its shows not yet over, cleaning included; the refusal names the
// show and what is in its way, and changes nothing. A show long over
// does not count.
func programmeEditFilmOverlaps(t *testing.T, e *env) {
	p := need[programmeEditor](t, e, "EditFilm (booking.Programme)")
	b := need[programmeBuilder](t, e, "Films (booking.Programme)")
	first, second := e.show, mustShow(t, e, 2)
	f := first.Film
	f.Minutes = 190 // the +2h show would run into the +5h one
	err := p.EditFilm(e.ctx, manager, f)
	wantCode(t, "a running time into the next show", err, booking.EConflict)
	wantMessage(t, "a running time into the next show", err, fmt.Sprintf("At 190 minutes the show %d at %s would overlap: The hall is taken by Second Film at %s (with cleaning).",
		first.ID, when(first.Starts), when(second.Starts)))
	if got := e.film(t, b, f.ID); got.Minutes != 100 {
		t.Fatalf("a refused edit changed the film: %+v", got)
	}
	f.Minutes = 160 // 2h + 160 + 15 = 4h55, before 5h
	if err := p.EditFilm(e.ctx, manager, f); err != nil {
		t.Fatal(err)
	}
	if sh := mustShow(t, e, first.ID); sh.Film.Minutes != 160 {
		t.Fatalf("the show after the edit: %+v", sh.Film)
	}
	e.clock.Set(first.Starts.Add(2 * time.Hour)) // the +2h show is long over
	f.Minutes = 200
	if err := p.EditFilm(e.ctx, manager, f); err != nil {
		t.Fatalf("a clash only with a show long over: %v", err)
	}
	for _, bad := range []booking.Film{{ID: f.ID, Minutes: 90}, {ID: f.ID, Title: "X", Minutes: 0}} {
		wantCode(t, fmt.Sprintf("the edit %+v", bad), p.EditFilm(e.ctx, manager, bad), booking.EInvalid)
	}
	wantCode(t, "a supervisor's edit", p.EditFilm(e.ctx, supervisor, f), booking.EForbidden)
}

// programmeEditFilmRacesAddShow: a film growing longer and a show added
// right after one of its shows, at once: one of them is refused, and the
// hall is never double-booked.
func programmeEditFilmRacesAddShow(t *testing.T, e *env) {
	p := need[programmeEditor](t, e, "EditFilm (booking.Programme)")
	b := need[programmeBuilder](t, e, "AddShow (booking.Programme)")
	edits := 0
	for d := 3; d < 9; d++ {
		f := booking.Film{Title: fmt.Sprint("Film of day ", d), Minutes: 100}
		var err error
		if f.ID, err = b.AddFilm(e.ctx, manager, f); err != nil {
			t.Fatal(err)
		}
		if _, err := b.AddShow(e.ctx, manager, f.ID, e.show.HallID, e.day(d, 10)); err != nil {
			t.Fatal(err)
		}
		f.Minutes = 130 // to 12:25 with the cleaning
		if raceOnce(t, fmt.Sprint("day ", d),
			func() error { return p.EditFilm(e.ctx, manager, f) },
			func() error {
				_, err := b.AddShow(e.ctx, manager, e.show.Film.ID, e.show.HallID, e.day(d, 12))
				return err
			}) {
			edits++
		}
	}
	t.Logf("%d rounds to the edit, %d to the new show", edits, 6-edits)
}

// programmeMoveShowRefusals: a show moves in its hall with its bookings;
// a move onto another show, into the cleaning or the past, of a booked
// show to another hall, to no hall, of no show, or to where it is, is
// refused and moves nothing. A show with nobody booked moves to another
// hall and its map is that hall's at once. A show that started, or that
// admitted anyone, stays.
func programmeMoveShowRefusals(t *testing.T, e *env) {
	p := need[programmeEditor](t, e, "MoveShow (booking.Programme)")
	b := need[programmeBuilder](t, e, "AddHall (booking.Programme)")
	annex := e.annex(t, b)
	sold := e.sellAt(t, 3, "a", "A1", "A2")
	e.seatMap(t, "x") // show 1, cached where the backend caches
	to := e.clock.Now().Add(30 * time.Hour).Truncate(time.Minute)
	if err := p.MoveShow(e.ctx, manager, 3, to, 0); err != nil {
		t.Fatal(err)
	}
	if sh := mustShow(t, e, 3); !sh.Starts.Equal(to) || sh.Sold != 2 {
		t.Fatalf("show 3 after the move: %+v", sh)
	}
	if c, ok := e.s.(canceller); ok {
		if got, err := c.Booking(e.ctx, clerk, sold.Number); err != nil || got.Status != booking.BookingConfirmed || len(got.Tickets) != 2 {
			t.Fatalf("the booking after the move: %+v %v", got, err)
		}
	}
	first, second := e.show, mustShow(t, e, 2)
	for _, c := range []struct {
		name      string
		show      int64
		at        time.Time
		hall      int64
		code, msg string
	}{
		{"onto show 2", first.ID, second.Starts.Add(time.Hour), 0, booking.EConflict,
			fmt.Sprintf("The hall is taken by Second Film at %s (with cleaning).", when(second.Starts))},
		{"into show 3's cleaning", first.ID, to.Add(110 * time.Minute), 0, booking.EConflict,
			fmt.Sprintf("The hall is taken by First Film at %s (with cleaning).", when(to))},
		{"to the past", first.ID, e.clock.Now().Add(-time.Hour), 0, booking.EInvalid,
			fmt.Sprintf("A show cannot start in the past (%s).", when(e.clock.Now().Add(-time.Hour)))},
		{"booked, to another hall", 3, to, annex, booking.EConflict,
			"The show has bookings or held seats: it can move to another time in its hall, not to another hall."},
		{"to no hall", first.ID, first.Starts, 999, booking.ENotFound, "There is no hall 999."},
		{"of no show", 999, to, 0, booking.ENotFound, "There is no show 999."},
		{"to where it is", first.ID, first.Starts, 0, booking.EInvalid, "The show is at that time in that hall already."},
	} {
		err := p.MoveShow(e.ctx, manager, c.show, c.at, c.hall)
		wantCode(t, c.name, err, c.code)
		wantMessage(t, c.name, err, c.msg)
	}
	wantCode(t, "a clerk's move", p.MoveShow(e.ctx, clerk, first.ID, to.Add(24*time.Hour), 0), booking.EForbidden)
	if sh := mustShow(t, e, first.ID); !sh.Starts.Equal(first.Starts) || sh.HallID != first.HallID {
		t.Fatalf("refused moves moved show 1: %+v", sh)
	}

	if err := p.MoveShow(e.ctx, manager, first.ID, first.Starts, annex); err != nil {
		t.Fatal(err)
	}
	if m := e.seatMap(t, "x"); m.Hall.ID != annex || len(m.Hall.Seats) != 10 {
		t.Fatalf("show 1's map after the move: hall %d of %d seats", m.Hall.ID, len(m.Hall.Seats))
	}
	if sh := mustShow(t, e, first.ID); sh.Capacity != 10 || sh.HallName != "Annex" {
		t.Fatalf("show 1 after changing hall: %+v", sh)
	}

	if d, ok := e.s.(admitter); ok {
		code := e.sellAt(t, second.ID, "b", "C1").Tickets[0].Code
		e.clock.Set(second.Starts.Add(-30 * time.Minute)) // its doors are open
		if _, err := d.Admit(e.ctx, door, code); err != nil {
			t.Fatal(err)
		}
		err := p.MoveShow(e.ctx, manager, second.ID, to.Add(48*time.Hour), 0)
		wantMessage(t, "a show that admitted someone", err, "Tickets of the show were admitted already: it cannot move.")
	}
	e.clock.Set(first.Starts.Add(time.Minute))
	err := p.MoveShow(e.ctx, manager, first.ID, to.Add(48*time.Hour), 0)
	wantCode(t, "a started show", err, booking.EConflict)
	wantMessage(t, "a started show", err, fmt.Sprintf("The show started at %s: it cannot move.", when(first.Starts)))
}

// programmeMoveShowRacesAddShow: a show moved into a slot and a new show
// added to it, at once: one of them is refused.
func programmeMoveShowRacesAddShow(t *testing.T, e *env) {
	p := need[programmeEditor](t, e, "MoveShow (booking.Programme)")
	b := need[programmeBuilder](t, e, "AddShow (booking.Programme)")
	film := e.show.Film.ID
	moves := 0
	for d := 3; d < 9; d++ {
		id, err := b.AddShow(e.ctx, manager, film, e.show.HallID, e.day(d, 10))
		if err != nil {
			t.Fatal(err)
		}
		moved := raceOnce(t, fmt.Sprint("day ", d),
			func() error { return p.MoveShow(e.ctx, manager, id, e.day(d, 18), 0) },
			func() error {
				_, err := b.AddShow(e.ctx, manager, film, e.show.HallID, e.day(d, 18).Add(30*time.Minute))
				return err
			})
		want := 2 // the show at 10:00 and the new one
		if moved {
			moves, want = moves+1, 1
		}
		if shows, err := e.s.Shows(e.ctx, clerk, e.day(d, 0)); err != nil || len(shows) != want {
			t.Fatalf("day %d: %d shows, want %d (%v)", d, len(shows), want, err)
		}
	}
	t.Logf("%d rounds to the move, %d to the new show", moves, 6-moves)
}

// mustShow reads show id.
func mustShow(t *testing.T, e *env, id int64) booking.Show {
	t.Helper()
	sh, err := e.s.Show(e.ctx, clerk, id)
	if err != nil {
		t.Fatal(err)
	}
	return *sh
}
