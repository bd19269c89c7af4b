package booking

// Booking and ticket statuses.
const (
	BookingConfirmed = "confirmed"
	BookingCompleted = "completed"
	BookingCancelled = "cancelled"
	BookingNoShow    = "no_show"

	TicketIssued   = "issued"
	TicketAdmitted = "admitted"
	TicketVoid     = "void"
)

// transitions is the one table of status moves. Anything not listed is
// refused.
var transitions = map[string][]string{
	BookingConfirmed: {BookingCompleted, BookingCancelled, BookingNoShow},
	TicketIssued:     {TicketAdmitted, TicketVoid},
}

// CanMove reports whether a booking or ticket may go from one status to
// another.
func CanMove(from, to string) bool {
	for _, t := range transitions[from] {
		if t == to {
			return true
		}
	}
	return false
}
