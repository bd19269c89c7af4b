package booking

import "strings"

// ErrTooManySeats refuses a hold or sale of more seats than one sale may
// have (MaxSeatsPerSale).
func ErrTooManySeats() error {
	return Errorf(EInvalid, "One sale can hold at most %d seats.", MaxSeatsPerSale)
}

// ResolveSeats turns labels, or ids when there are any, into the hall's
// seats, once each in the order asked: EInvalid for an unknown or blocked
// seat, none at all, or more than one sale may hold. The layout never
// changes, so a store resolves seats before its transaction; both
// backends resolve them here, so both refuse alike.
func (h *Hall) ResolveSeats(labels []string, ids []int64) ([]Seat, error) {
	var seats []Seat
	seen := map[int64]bool{}
	add := func(seat Seat) error {
		if seat.Blocked {
			return Errorf(EInvalid, "%s is blocked and cannot be sold.", seat.Label)
		}
		if !seen[seat.ID] {
			seen[seat.ID] = true
			seats = append(seats, seat)
		}
		return nil
	}
	if len(ids) > 0 {
		byID := make(map[int64]Seat, len(h.Seats))
		for _, seat := range h.Seats {
			byID[seat.ID] = seat
		}
		for _, id := range ids {
			seat, ok := byID[id]
			if !ok {
				return nil, Errorf(EInvalid, "No such seat in %s.", h.Name)
			}
			if err := add(seat); err != nil {
				return nil, err
			}
		}
	} else {
		for _, l := range labels {
			seat, ok := h.SeatByLabel(strings.TrimSpace(l))
			if !ok {
				return nil, Errorf(EInvalid, "There is no seat %s in %s.", CleanLine(l, 8), h.Name)
			}
			if err := add(seat); err != nil {
				return nil, err
			}
		}
	}
	if len(seats) == 0 {
		return nil, Errorf(EInvalid, "Choose at least one seat.")
	}
	if len(seats) > MaxSeatsPerSale {
		return nil, ErrTooManySeats()
	}
	return seats, nil
}
