package kiosk

import (
	"strings"

	"boxoffice/booking"
)

// The totals a kiosk customer sees: from what the tickets counted cost on
// standard seats, then exactly what the seats held cost at the types
// counted (a premium seat at its price), and the same figure once
// reserved, to pay at the counter. Each is the store's price table run
// through booking's one pricing rule (QuoteSeats), never a sum of the
// kiosk's own.

// countFrom is what the tickets counted cost on standard seats of the
// show; false when the price table is not read.
func (m *Model) countFrom() (booking.Money, bool) {
	if m.prices == nil || !m.listKnown {
		return 0, false
	}
	var sum booking.Money
	for i, t := range m.types {
		if i >= len(m.counts) || m.counts[i] == 0 {
			continue
		}
		p, ok := booking.PriceFor(m.prices, strings.ToLower(m.show.PriceList), t.Code, booking.Standard)
		if !ok {
			return 0, false
		}
		sum += p.Amount * booking.Money(m.counts[i])
	}
	return sum, true
}

// seatsTotal is what seats cost at the show's price list, each at its
// type in types (adult when none); false when it cannot be priced.
func (m *Model) seatsTotal(list string, seats []booking.Seat, types map[string]string) (booking.Money, bool) {
	if m.prices == nil || len(seats) == 0 {
		return 0, false
	}
	q, err := booking.QuoteSeats(m.prices, strings.ToLower(list), seats, types)
	if err != nil {
		return 0, false
	}
	return q.Total, true
}

// heldTotal is what the seats held cost at the types counted.
func (m *Model) heldTotal() (booking.Money, bool) {
	if m.hold == nil || m.seats == nil {
		return 0, false
	}
	return m.seatsTotal(m.seats.Show.PriceList, m.hold.Seats, m.seatTypes())
}
