// Package assets holds the data built into the binary: the hall layouts of
// the demo cinema and the demo programme that fills a new database.
package assets

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"time"

	"boxoffice/booking"
)

// DemoUser and DemoPIN sign in as the demo cinema's manager.
const (
	DemoUser = "demo"
	DemoPIN  = "1234"
)

// demoDays is how many days of programme Demo schedules.
const demoDays = 7

// Scheduling rules for the demo programme, in minutes.
const (
	firstShow    = 11 * 60    // the first hall opens at 11:00
	lastStart    = 22*60 + 30 // no show starts after 22:30
	stagger      = 25         // each further hall opens this much later, so the counter is not swamped
	trailers     = 20         // adverts and trailers before the film
	cleaning     = 15         // the room is swept between shows
	showsPerHall = 5          // at most this many shows per hall a day
	roundTo      = 5          // start times fall on the five minutes
	familyUntil  = 19 * 60    // U-rated films start before 19:00
)

//go:embed halls/*.hall
var hallFS embed.FS

// Halls parses the embedded hall layouts, sorted by file name.
func Halls() ([]booking.Hall, error) {
	names, err := fs.Glob(hallFS, "halls/*.hall")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	halls := make([]booking.Hall, 0, len(names))
	for _, name := range names {
		src, err := hallFS.ReadFile(name)
		if err != nil {
			return nil, err
		}
		h, err := booking.ParseLayout(path.Base(name), src)
		if err != nil {
			return nil, err
		}
		halls = append(halls, *h)
	}
	return halls, nil
}

// demoFilms is the demo programme. The titles are invented.
var demoFilms = []booking.Film{
	{Title: "The Lighthouse Keeper", Minutes: 112, Rating: "12A"},
	{Title: "Paper Moons", Minutes: 94, Rating: "U"},
	{Title: "Northbound Freight", Minutes: 128, Rating: "15"},
	{Title: "A Quiet Arithmetic", Minutes: 104, Rating: "PG"},
	{Title: "The Salt Road", Minutes: 141, Rating: "12A"},
}

// demoTicketTypes are the price bands, in pence.
var demoTicketTypes = []booking.TicketType{
	{Code: "adult", Name: "Adult", Price: 1250},
	{Code: "child", Name: "Child", Price: 850},
	{Code: "senior", Name: "Senior", Price: 950},
	{Code: "student", Name: "Student", Price: 1000},
}

// demoPrices make the premium seats (the centre of Grand's best rows, Screen
// 2's premium row) cost more, and set an evening list a show can be put on
// (boxoffice show price-list SHOW evening), in pence.
var demoPrices = []booking.PriceEntry{
	demoPrice("", "adult", booking.Premium, 1500),
	demoPrice("", "child", booking.Premium, 1100),
	demoPrice("", "senior", booking.Premium, 1200),
	demoPrice("", "student", booking.Premium, 1250),
	demoPrice("evening", "adult", booking.Standard, 1400),
	demoPrice("evening", "adult", booking.Premium, 1650),
	demoPrice("evening", "student", booking.Standard, 1150),
	demoPrice("evening", "student", booking.Premium, 1400),
}

func demoPrice(list, typ string, kind booking.SeatKind, amount booking.Money) booking.PriceEntry {
	return booking.PriceEntry{PriceKey: booking.PriceKey{List: list, Type: typ, Kind: kind}, Amount: amount}
}

// Demo returns the demo cinema: the embedded halls, five films, four ticket
// types with premium prices and an evening list, a week of shows from today's date in today's location, and one
// manager who signs in as DemoUser with DemoPIN.
func Demo(today time.Time) (booking.Seed, error) {
	halls, err := Halls()
	if err != nil {
		return booking.Seed{}, err
	}
	films := append([]booking.Film(nil), demoFilms...)
	return booking.Seed{
		Halls:       halls,
		Films:       films,
		TicketTypes: append([]booking.TicketType(nil), demoTicketTypes...),
		Prices:      append([]booking.PriceEntry(nil), demoPrices...),
		Shows:       schedule(today, len(halls), films),
		Staff:       []booking.SeedStaff{{Name: DemoUser, Role: booking.RoleManager, PIN: DemoPIN}},
	}, nil
}

// schedule plans demoDays days of shows. Each hall opens a little after the
// one before it and runs up to five shows back to back, each start the
// previous start plus trailers, the film and cleaning, rounded up to five
// minutes, so shows in one hall never overlap. The films rotate across
// halls, slots and days so every film plays in every hall during the week;
// a U-rated film gives its evening slots to the next film.
// Times are wall-clock times on the local date of today, so a change to or
// from summer time does not shift the programme.
func schedule(today time.Time, halls int, films []booking.Film) []booking.SeedShow {
	y, m, d := today.Date()
	loc := today.Location()
	var shows []booking.SeedShow
	for day := range demoDays {
		for h := range halls {
			at := firstShow + h*stagger
			for slot := 0; slot < showsPerHall && at <= lastStart; slot++ {
				f := (day + 2*h + slot) % len(films)
				for tries := 0; at >= familyUntil && films[f].Rating == "U" && tries < len(films); tries++ {
					f = (f + 1) % len(films)
				}
				shows = append(shows, booking.SeedShow{
					Film:   f,
					Hall:   h,
					Starts: time.Date(y, m, d+day, 0, at, 0, 0, loc),
				})
				at = roundUp(at+trailers+films[f].Minutes+cleaning, roundTo)
			}
		}
	}
	return shows
}

func roundUp(n, step int) int { return (n + step - 1) / step * step }
