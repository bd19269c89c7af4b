package booking

// Statuses of bookings, tickets, holds and seat claims. A hold and its
// seat claims share "held", and a booking and a hold share "confirmed":
// a status means something only with the kind of row it is on (see
// Statuses).
const (
	BookingConfirmed = "confirmed"
	BookingCompleted = "completed"
	BookingCancelled = "cancelled"
	BookingNoShow    = "no_show"

	TicketIssued   = "issued"
	TicketAdmitted = "admitted"
	TicketVoid     = "void"
	// TicketRefunded is one ticket of a party refunded alone; its seat is
	// free again.
	TicketRefunded = "refunded"

	HoldHeld      = "held"
	HoldReleased  = "released"
	HoldExpired   = "expired"
	HoldConfirmed = "confirmed"

	ClaimHeld      = "held"
	ClaimSold      = "sold"
	ClaimReleased  = "released"
	ClaimExpired   = "expired"
	ClaimCancelled = "cancelled"
)

// Statuses names one kind of row whose status moves by the table below:
// BookingStatuses.CanMove(BookingConfirmed, BookingCancelled).
type Statuses string

const (
	BookingStatuses Statuses = "booking"
	TicketStatuses  Statuses = "ticket"
	HoldStatuses    Statuses = "hold"
	ClaimStatuses   Statuses = "claim"
)

// AllStatuses lists every kind of row with a status table.
func AllStatuses() []Statuses {
	return []Statuses{BookingStatuses, TicketStatuses, HoldStatuses, ClaimStatuses}
}

// statusTable is one kind's statuses: the one a new row starts in, and
// where each may move. A status with no moves is final.
type statusTable struct {
	initial string
	moves   map[string][]string
}

// transitions is the one table of status moves; the database obeys it
// (every status UPDATE in db/ is a compare-and-set that a test checks
// against it). Anything not listed is refused.
var transitions = map[Statuses]statusTable{
	BookingStatuses: {initial: BookingConfirmed, moves: map[string][]string{
		BookingConfirmed: {BookingCompleted, BookingCancelled, BookingNoShow},
		BookingCompleted: nil, BookingCancelled: nil, BookingNoShow: nil,
	}},
	TicketStatuses: {initial: TicketIssued, moves: map[string][]string{
		TicketIssued:   {TicketAdmitted, TicketVoid, TicketRefunded},
		TicketAdmitted: nil, TicketVoid: nil, TicketRefunded: nil,
	}},
	// A hold ends once: let go, lapsed, or sold by a checkout.
	HoldStatuses: {initial: HoldHeld, moves: map[string][]string{
		HoldHeld:     {HoldReleased, HoldExpired, HoldConfirmed},
		HoldReleased: nil, HoldExpired: nil, HoldConfirmed: nil,
	}},
	// A claim is one seat of a hold; a sold one is freed only by a
	// cancel. Released, expired and cancelled claims stay as history.
	ClaimStatuses: {initial: ClaimHeld, moves: map[string][]string{
		ClaimHeld:     {ClaimSold, ClaimReleased, ClaimExpired},
		ClaimSold:     {ClaimCancelled},
		ClaimReleased: nil, ClaimExpired: nil, ClaimCancelled: nil,
	}},
}

// CanMove reports whether a row of this kind may go from one status to
// another.
func (k Statuses) CanMove(from, to string) bool {
	for _, t := range transitions[k].moves[from] {
		if t == to {
			return true
		}
	}
	return false
}

// Initial is the status a new row of this kind is written with.
func (k Statuses) Initial() string { return transitions[k].initial }

// Known reports whether status is one this kind of row can have.
func (k Statuses) Known(status string) bool {
	_, ok := transitions[k].moves[status]
	return ok
}

// CanMove reports whether a booking or a ticket may go from one status to
// another. Their statuses are told apart by name, so one call serves both;
// holds and claims share names and need their kind's CanMove.
func CanMove(from, to string) bool {
	return BookingStatuses.CanMove(from, to) || TicketStatuses.CanMove(from, to)
}
