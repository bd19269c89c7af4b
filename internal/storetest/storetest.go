// Package storetest is the backend-neutral half of the stores' test kit:
// a clock the test moves by hand, the fixture cinemas, their staff and the
// ticket key. It imports no driver, so the contract suite (and pg's tests
// through it) link neither SQLite nor PostgreSQL by way of it; the SQLite
// openers are internal/dbtest's.
package storetest

import (
	"fmt"
	"sync"
	"time"

	"boxoffice/booking"
)

// TicketKey signs the tickets of every test store.
var TicketKey = booking.TicketKey{ID: 1, Secret: []byte("0123456789abcdef0123456789abcdef")}

// Clock is a clock a test moves by hand; pass its Now as a store's clock
// (db.Options.Clock, pg.Options.Clock).
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// FixedClock returns a clock standing at midday today. Midday, not now:
// the demo's shows are seeded from the clock, and a suite run late in the
// evening would see them end after midnight, on another day, and every
// rule about "today" (the door, the day's report) answer differently.
func FixedClock() *Clock {
	y, m, d := time.Now().Date()
	return NewClock(time.Date(y, m, d, 12, 0, 0, 0, time.Local))
}

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock on by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Set puts the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Actors of the fixture cinemas' staff.
var (
	Clerk      = booking.Actor{Name: "carl", Role: booking.RoleClerk, Terminal: "till-1"}
	Supervisor = booking.Actor{Name: "sue", Role: booking.RoleSupervisor}
	Manager    = booking.Actor{Name: "mgr", Role: booking.RoleManager}
	Door       = booking.Actor{Name: "dora", Role: booking.RoleDoor}
)

// Float is the float of the shifts the test kits open.
const Float booking.Money = 100_00

// Hall is rows A–J of 2+10+2 seats with two aisles; row J has two
// wheelchair places and two companion seats at the left.
func Hall() booking.Hall {
	h := booking.Hall{Name: "Test Hall", Width: 16}
	for r := 0; r < 10; r++ {
		tag := string(rune('A' + r))
		h.Rows = append(h.Rows, tag)
		num := 1
		for col := 0; col < 16; col++ {
			if col == 2 || col == 13 {
				continue // aisles
			}
			kind := booking.Standard
			if tag == "J" && col < 2 {
				kind = booking.Wheelchair
			}
			if tag == "J" && (col == 3 || col == 4) {
				kind = booking.Companion
			}
			h.Seats = append(h.Seats, booking.Seat{Label: fmt.Sprintf("%s%d", tag, num), RowTag: tag, Number: num, Row: r, Col: col, Kind: kind})
			num++
		}
	}
	return h
}

// Seed is Hall, two films, four prices, three shows (start+2h, start+5h
// and start+26h) and staff of every role (PIN 1234 for all).
func Seed(start time.Time) booking.Seed {
	return booking.Seed{
		Halls: []booking.Hall{Hall()},
		Films: []booking.Film{{Title: "First Film", Minutes: 100, Rating: "PG"}, {Title: "Second Film", Minutes: 120, Rating: "15"}},
		TicketTypes: []booking.TicketType{
			{Code: "adult", Name: "Adult", Price: 1250},
			{Code: "child", Name: "Child", Price: 850},
			{Code: "senior", Name: "Senior", Price: 950},
			{Code: "student", Name: "Student", Price: 1000},
		},
		Shows: []booking.SeedShow{
			{Film: 0, Hall: 0, Starts: start.Add(2 * time.Hour)},
			{Film: 1, Hall: 0, Starts: start.Add(5 * time.Hour)},
			{Film: 0, Hall: 0, Starts: start.Add(26 * time.Hour)},
		},
		Staff: []booking.SeedStaff{
			{Name: "mgr", Role: booking.RoleManager, PIN: "1234"},
			{Name: "sue", Role: booking.RoleSupervisor, PIN: "1234"},
			{Name: "carl", Role: booking.RoleClerk, PIN: "1234"},
			{Name: "dora", Role: booking.RoleDoor, PIN: "1234"},
		},
	}
}

// CounterHall is rows A–E of ten seats, no aisles: seat N of a row is
// drawn in column N-1, which lets a test find a seat on a counter's
// screen.
func CounterHall() booking.Hall {
	h := booking.Hall{Name: "Test Hall", Width: 10}
	for r := 0; r < 5; r++ {
		tag := string(rune('A' + r))
		h.Rows = append(h.Rows, tag)
		for col := 0; col < 10; col++ {
			h.Seats = append(h.Seats, booking.Seat{Label: fmt.Sprintf("%s%d", tag, col+1), RowTag: tag, Number: col + 1, Row: r, Col: col, Kind: booking.Standard})
		}
	}
	return h
}

// TonightSeed is CounterHall with two shows tonight (20:00 and 22:00 of
// now's day), two prices and a manager, a supervisor and a clerk, all with
// PIN 1234.
func TonightSeed(now time.Time) booking.Seed {
	y, m, d := now.Date()
	tonight := time.Date(y, m, d, 20, 0, 0, 0, now.Location())
	return booking.Seed{
		Halls: []booking.Hall{CounterHall()},
		Films: []booking.Film{{Title: "First Film", Minutes: 100, Rating: "PG"}, {Title: "Second Film", Minutes: 90, Rating: "15"}},
		TicketTypes: []booking.TicketType{
			{Code: "adult", Name: "Adult", Price: 1250},
			{Code: "child", Name: "Child", Price: 850},
		},
		Shows: []booking.SeedShow{
			{Film: 0, Hall: 0, Starts: tonight},
			{Film: 1, Hall: 0, Starts: tonight.Add(2 * time.Hour)},
		},
		Staff: []booking.SeedStaff{
			{Name: "mgr", Role: booking.RoleManager, PIN: "1234"},
			{Name: "sue", Role: booking.RoleSupervisor, PIN: "1234"},
			{Name: "carl", Role: booking.RoleClerk, PIN: "1234"},
		},
	}
}
