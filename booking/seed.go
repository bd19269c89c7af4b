package booking

import "time"

// Seed is what a new database is filled with: the demo cinema, or a
// cinema's own halls and programme.
type Seed struct {
	Halls       []Hall
	Films       []Film
	TicketTypes []TicketType
	// Prices are the prices by seat kind and price list beyond the
	// ticket types' own (a list named here is created).
	Prices []PriceEntry
	Shows  []SeedShow
	Staff  []SeedStaff
}

// SeedShow schedules a film (by index into Seed.Films) in a hall (by index
// into Seed.Halls).
type SeedShow struct {
	Film   int
	Hall   int
	Starts time.Time
}

// SeedStaff is a member of staff created with a PIN.
type SeedStaff struct {
	Name string
	Role Role
	PIN  string
}
