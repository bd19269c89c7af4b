package storetest

import (
	"time"

	"boxoffice/booking"
)

// The reports fixture's cinema and days; internal/dbtest writes its
// history (ReportFixture) into a SQLite file.
//
// The days are 2026-11-01 (D0) to 2026-11-05 (D4), local in the zone the
// fixture is built in; the reports are asked for D1..D3.

// ReportDay is day n (0..4) of the fixture at hh:mm in loc.
func ReportDay(loc *time.Location, n, hh, mm int) time.Time {
	return time.Date(2026, 11, 1+n, hh, mm, 0, 0, loc)
}

// ReportSeed is the fixture's cinema: Hall A (140 seats) and Hall B (50),
// two films, the four prices of Seed, four shows — S1 First Film in
// Hall A on D1 19:00, S2 Second Film in Hall B on D1 21:00, S3 First
// Film in Hall B on D2 18:00, S4 Second Film in Hall A on D4 20:00 — and
// staff mgr, sue (supervisor), ann and bob (clerks).
func ReportSeed(loc *time.Location) booking.Seed {
	a, b := Hall(), CounterHall()
	a.Name, b.Name = "Hall A", "Hall B"
	seed := Seed(ReportDay(loc, 1, 10, 0))
	seed.Halls = []booking.Hall{a, b}
	seed.Shows = []booking.SeedShow{
		{Film: 0, Hall: 0, Starts: ReportDay(loc, 1, 19, 0)},
		{Film: 1, Hall: 1, Starts: ReportDay(loc, 1, 21, 0)},
		{Film: 0, Hall: 1, Starts: ReportDay(loc, 2, 18, 0)},
		{Film: 1, Hall: 0, Starts: ReportDay(loc, 4, 20, 0)},
	}
	seed.Staff = []booking.SeedStaff{
		{Name: "mgr", Role: booking.RoleManager, PIN: "1234"},
		{Name: "sue", Role: booking.RoleSupervisor, PIN: "1234"},
		{Name: "ann", Role: booking.RoleClerk, PIN: "1234"},
		{Name: "bob", Role: booking.RoleClerk, PIN: "1234"},
	}
	return seed
}
