package contract

import (
	"context"
	"fmt"
	"testing"
	"time"

	"boxoffice/booking"
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
