package booking

import "strconv"

// NotEnoughFree explains why best available found no block of req.N in
// hall, in words a clerk can act on: sold out, only accessible places
// left, or how many seats are free (taken says which seats are not).
// Every store's HoldBest answers with it (EConflict), so the counter reads
// the same on every backend.
func NotEnoughFree(hall *Hall, taken func(seatID int64) bool, req HoldBestRequest) error {
	var free, accessible int
	for _, seat := range hall.Seats {
		if taken(seat.ID) {
			continue
		}
		free++
		if seat.Kind.Accessible() {
			accessible++
		}
	}
	standard := free - accessible
	switch {
	case free == 0:
		return Errorf(EConflict, "This show is sold out.")
	case req.Wheelchair > 0:
		return Errorf(EConflict, "No %s with %s free for this show.", countOf(req.N, "seat", "seats"), countOf(req.Wheelchair, "wheelchair place", "wheelchair places"))
	case standard == 0:
		return Errorf(EConflict, "Only wheelchair and companion places are free (%d); hold one by hand for a customer who needs it.", accessible)
	case accessible > 0:
		return Errorf(EConflict, "Only %s free for this show, not %d (and %d wheelchair or companion places).", countOf(standard, "seat is", "seats are"), req.N, accessible)
	}
	return Errorf(EConflict, "Only %s free for this show, not %d.", countOf(standard, "seat is", "seats are"), req.N)
}

// countOf writes "1 seat" or "3 seats".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
