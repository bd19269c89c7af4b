package db

import (
	"context"
	"fmt"
	"time"

	"boxoffice/booking"
)

// The history generator's plan of a day: how full each show ends up, and
// the customers who come to the counters.

// occupancy is how full a show ends up: weekends and evenings sell, the
// small hall fills first, some films sell better, and every show varies.
// It is decided once per show.
func (g *historyGen) occupancy(sh booking.Show) float64 {
	if occ, ok := g.occ[sh.ID]; ok {
		return occ
	}
	occ := g.drawOccupancy(sh)
	g.occ[sh.ID] = occ
	return occ
}

func (g *historyGen) drawOccupancy(sh booking.Show) float64 {
	weekday := [...]float64{0.50, 0.25, 0.25, 0.30, 0.35, 0.55, 0.65}[sh.Starts.Weekday()]
	slot := 0.7
	switch h := sh.Starts.Hour(); {
	case h >= 20:
		slot = 1.3
	case h >= 17:
		slot = 1.5
	case h >= 14:
		slot = 1.0
	}
	hall := 0.85
	switch {
	case sh.Capacity <= 80:
		hall = 1.5
	case sh.Capacity <= 200:
		hall = 1.1
	}
	f, ok := g.film[sh.Film.ID]
	if !ok {
		f = 0.8 + 0.4*g.rng.Float64()
		g.film[sh.Film.ID] = f
	}
	occ := weekday * slot * hall * f * (0.7 + 0.6*g.rng.Float64())
	if occ > 0.95 {
		return 1
	}
	return occ
}

// planDay lists the sales of one business day: for each show of the day
// most of its seats (walk-ins), for each of the next six days a share
// (advance sales), so a show's seats sell over the week before it.
func (g *historyGen) planDay(ctx context.Context, day time.Time) ([]plannedSale, error) {
	var plan []plannedSale
	for ahead := 0; ahead < 7; ahead++ {
		shows, err := g.s.Shows(ctx, g.opts.Actor, day.AddDate(0, 0, ahead))
		if err != nil {
			return plan, err
		}
		share := [...]float64{0.55, 0.15, 0.09, 0.07, 0.06, 0.04, 0.04}[ahead]
		for _, sh := range shows {
			seats := int(g.occupancy(sh)*float64(sh.Capacity)*share + 0.5)
			if ahead == 0 && sh.Free() > 0 && g.occupancy(sh) == 1 {
				seats = sh.Capacity // the day a show sells out, it sells out
			}
			for seats > 0 {
				p := g.planSale(sh)
				p.soldOut = g.occupancy(sh) == 1
				seats -= p.party
				plan = append(plan, p)
			}
		}
	}
	g.rng.Shuffle(len(plan), func(i, j int) { plan[i], plan[j] = plan[j], plan[i] })
	return plan, nil
}

// Customers' names, invented, with the accents and apostrophes a real
// list has.
var (
	historyFirst = []string{"Ann", "Ben", "Carol", "David", "Eve", "Farid", "Grace", "Hugo", "Ines", "Jack", "Kate", "Liam",
		"Maya", "Noah", "Olga", "Paul", "Rosa", "Sam", "Tara", "Umar", "Vera", "Will", "Yara", "Zoë", "Amir", "Beatriz",
		"Chen", "Dmitri", "Elena", "Fatima", "Giorgio", "Hana", "Jonas", "Kofi", "Lucía", "Mateo", "Nadia", "Oscar",
		"Priya", "Siobhán"}
	historyLast = []string{"Lee", "Smith", "Jones", "Brown", "García", "Müller", "Rossi", "Kowalski", "Nguyen", "Khan",
		"Patel", "Silva", "Novak", "Dubois", "Larsen", "Okafor", "Tanaka", "Kim", "Cohen", "Murphy", "O'Brien", "Walsh",
		"Fischer", "Moreau", "Haddad", "Ivanova", "Santos", "Costa", "Berg", "Lindqvist", "Yılmaz", "Sato", "Ahmed",
		"Hughes", "Evans", "Wright", "Clarke", "Price", "Bennett", "Øster"}
	historyParty = []int{1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 6}
)

func (g *historyGen) planSale(sh booking.Show) plannedSale {
	p := plannedSale{show: sh, party: historyParty[g.rng.IntN(len(historyParty))], card: g.rng.IntN(100) < 55}
	if g.rng.IntN(100) < 45 {
		// Booked by name: the customer gives a name and a mobile number.
		p.name = historyFirst[g.rng.IntN(len(historyFirst))] + " " + historyLast[g.rng.IntN(len(historyLast))]
		p.phone = fmt.Sprintf("07%03d %06d", g.rng.IntN(1000), g.rng.IntN(1000000))
	}
	switch r := g.rng.IntN(100); {
	case r < 6:
		p.abandon = true
	case r < 8:
		p.stay = true
	}
	if _, ok := g.prices["child"]; ok && p.party > 2 && sh.Film.Rating != "15" && sh.Film.Rating != "18" {
		p.children = g.rng.IntN(p.party - 1)
	}
	return p
}
