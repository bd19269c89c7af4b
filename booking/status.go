package booking

// The statuses of bookings, tickets, holds and seat claims, each a type
// of its own so one kind's status cannot be stored on another's row. A
// hold and its seat claims share "held", and a booking and a hold share
// "confirmed": a status means something only with the kind of row it is
// on (see Statuses).
type (
	BookingStatus string
	TicketStatus  string
	HoldStatus    string
	ClaimStatus   string
)

const (
	BookingConfirmed BookingStatus = "confirmed"
	BookingCompleted BookingStatus = "completed"
	BookingCancelled BookingStatus = "cancelled"
	BookingNoShow    BookingStatus = "no_show"

	TicketIssued   TicketStatus = "issued"
	TicketAdmitted TicketStatus = "admitted"
	TicketVoid     TicketStatus = "void"
	// TicketRefunded is one ticket of a party refunded alone; its seat is
	// free again.
	TicketRefunded TicketStatus = "refunded"

	HoldHeld      HoldStatus = "held"
	HoldReleased  HoldStatus = "released"
	HoldExpired   HoldStatus = "expired"
	HoldConfirmed HoldStatus = "confirmed"

	ClaimHeld      ClaimStatus = "held"
	ClaimSold      ClaimStatus = "sold"
	ClaimReleased  ClaimStatus = "released"
	ClaimExpired   ClaimStatus = "expired"
	ClaimCancelled ClaimStatus = "cancelled"
)

// CanMove reports whether a booking may go from s to another status.
func (s BookingStatus) CanMove(to BookingStatus) bool {
	return BookingStatuses.CanMove(string(s), string(to))
}

// CanMove reports whether a ticket may go from s to another status.
func (s TicketStatus) CanMove(to TicketStatus) bool {
	return TicketStatuses.CanMove(string(s), string(to))
}

// CanMove reports whether a hold may go from s to another status.
func (s HoldStatus) CanMove(to HoldStatus) bool { return HoldStatuses.CanMove(string(s), string(to)) }

// CanMove reports whether a seat claim may go from s to another status.
func (s ClaimStatus) CanMove(to ClaimStatus) bool {
	return ClaimStatuses.CanMove(string(s), string(to))
}

// Statuses names one kind of row whose status moves by the table below:
// BookingStatuses.CanMove(BookingConfirmed, BookingCancelled).
type Statuses string

const (
	BookingStatuses Statuses = "booking"
	TicketStatuses  Statuses = "ticket"
	HoldStatuses    Statuses = "hold"
	ClaimStatuses   Statuses = "claim"
	ShiftStatuses   Statuses = "shift"

	// ShowStatuses: a show is on the programme until it is cancelled.
	ShowStatuses Statuses = "show"
)

// AllStatuses lists every kind of row with a status table.
func AllStatuses() []Statuses {
	return []Statuses{BookingStatuses, TicketStatuses, HoldStatuses, ClaimStatuses, ShiftStatuses, ShowStatuses,
		// kiosk
		ReservationStatuses}
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
	BookingStatuses: table(BookingConfirmed, map[BookingStatus][]BookingStatus{
		BookingConfirmed: {BookingCompleted, BookingCancelled, BookingNoShow},
		BookingCompleted: nil, BookingCancelled: nil, BookingNoShow: nil,
	}),
	TicketStatuses: table(TicketIssued, map[TicketStatus][]TicketStatus{
		TicketIssued: {TicketAdmitted, TicketVoid, TicketRefunded},
		// A show cancelled after its doors opened refunds the people it
		// let in too (CancelShow): their admitted tickets are voided.
		TicketAdmitted: {TicketVoid},
		TicketVoid:     nil, TicketRefunded: nil,
	}),
	// A hold ends once: let go, lapsed, or sold by a checkout.
	HoldStatuses: table(HoldHeld, map[HoldStatus][]HoldStatus{
		HoldHeld:     {HoldReleased, HoldExpired, HoldConfirmed},
		HoldReleased: nil, HoldExpired: nil, HoldConfirmed: nil,
	}),
	// A claim is one seat of a hold; a sold one is freed only by a
	// cancel. Released, expired and cancelled claims stay as history.
	ClaimStatuses: table(ClaimHeld, map[ClaimStatus][]ClaimStatus{
		ClaimHeld:     {ClaimSold, ClaimReleased, ClaimExpired},
		ClaimSold:     {ClaimCancelled},
		ClaimReleased: nil, ClaimExpired: nil, ClaimCancelled: nil,
	}),
	// A shift closes with a blind count; a supervisor may reopen it, the
	// one move back to a first status (its count stays in shift_events).
	ShiftStatuses: table(ShiftOpen, map[ShiftStatus][]ShiftStatus{
		ShiftOpen:   {ShiftClosed},
		ShiftClosed: {ShiftOpen},
	}),
	// A show's life: cancelling is for good.
	ShowStatuses: table(ShowScheduled, map[ShowStatus][]ShowStatus{
		ShowScheduled: {ShowCancelled},
		ShowCancelled: nil,
	}),
}

// table turns one kind's typed moves into the table's plain strings, the
// form SQL text is checked in.
func table[S ~string](initial S, moves map[S][]S) statusTable {
	t := statusTable{initial: string(initial), moves: map[string][]string{}}
	for from, tos := range moves {
		for _, to := range tos {
			t.moves[string(from)] = append(t.moves[string(from)], string(to))
		}
		if tos == nil {
			t.moves[string(from)] = nil
		}
	}
	return t
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
