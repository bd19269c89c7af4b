// Package booking is the domain of boxoffice: halls, shows, holds, bookings,
// tickets, staff and the rules that bind them. It imports only the standard
// library; the SQLite store (db/) implements Store and the terminal UI (tui/)
// consumes it.
package booking

import (
	"fmt"
	"time"
)

// SeatKind says what sort of place a seat is. Wheelchair and companion places
// are only offered when a customer asks for them.
type SeatKind int

const (
	Standard SeatKind = iota
	Premium
	Wheelchair
	Companion
)

func (k SeatKind) String() string {
	switch k {
	case Standard:
		return "standard"
	case Premium:
		return "premium"
	case Wheelchair:
		return "wheelchair"
	case Companion:
		return "companion"
	}
	return fmt.Sprintf("SeatKind(%d)", int(k))
}

// Accessible reports whether the seat is a wheelchair or companion place.
func (k SeatKind) Accessible() bool { return k == Wheelchair || k == Companion }

// ParseSeatKind is the inverse of String.
func ParseSeatKind(s string) (SeatKind, bool) {
	for k := Standard; k <= Companion; k++ {
		if k.String() == s {
			return k, true
		}
	}
	return 0, false
}

// Seat is one place in a hall. Row counts from the screen (0 is the front
// row); Col is the position across the hall, so two seats in one row are
// side by side exactly when their Cols differ by one. Aisles and gaps are
// columns without a seat.
type Seat struct {
	ID     int64
	Label  string // row label and number, "G7"
	RowTag string // "G"
	Number int    // 7
	Row    int
	Col    int
	Kind   SeatKind
	// Blocked seats exist but are never sold (broken, kept for crew).
	Blocked bool
}

// Hall is a screen room with its seats.
type Hall struct {
	ID    int64
	Name  string
	Rows  []string // row labels, front to back
	Width int      // number of columns, gaps included
	Seats []Seat   // ordered by Row, then Col

	// Site is the cinema of a chain the hall is in (MainSite on SQLite;
	// 0 in AddHall is MainSite).
	Site int64
}

// Capacity is the number of seats in the hall.
func (h *Hall) Capacity() int { return len(h.Seats) }

// SeatByLabel finds a seat by its label ("G7"), case-insensitively.
func (h *Hall) SeatByLabel(label string) (Seat, bool) {
	for _, s := range h.Seats {
		if equalFold(s.Label, label) {
			return s, true
		}
	}
	return Seat{}, false
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Film is a title on the programme.
type Film struct {
	ID      int64
	Title   string
	Minutes int
	Rating  string

	// manager screens: a retired film keeps its shows but gets no new ones.
	Retired bool
}

// Show is one screening of a film in a hall.
type Show struct {
	ID       int64
	Film     Film
	HallID   int64
	HallName string
	Starts   time.Time
	Capacity int
	Sold     int
	Held     int
	// PriceList is the price list the show sells at, "" for the standing
	// list, as current as the read that filled in Sold.
	PriceList string

	// A show's life (booking/showlife.go), as current as the read that
	// filled in Sold: cancelled or not and why, and when its sales close
	// relative to the start (the show's own or the cinema's default).
	Status       ShowStatus
	CancelReason string
	SalesClose   time.Duration
	// Blocked is the seats kept out of sale (blocked or house seats) that
	// are neither sold nor held, as the read that filled in Sold saw them.
	Blocked int
}

// Free is the number of seats neither sold, held nor kept out of sale.
func (s Show) Free() int { return s.Capacity - s.Sold - s.Held - s.Blocked }

// TicketType is a price band: adult, child, senior, student.
type TicketType struct {
	Code  string // "adult"
	Name  string // "Adult"
	Price Money
}

// SeatState is what a seat map shows for one seat of one show.
type SeatState int

const (
	SeatFree SeatState = iota
	SeatHeldByMe
	SeatHeldByOther
	SeatSold
	SeatBlocked

	// SeatHouse is a house seat, held back for this show until a
	// supervisor releases it.
	SeatHouse
)

func (s SeatState) String() string {
	switch s {
	case SeatFree:
		return "free"
	case SeatHeldByMe:
		return "held_by_me"
	case SeatHeldByOther:
		return "held_by_other"
	case SeatSold:
		return "sold"
	case SeatBlocked:
		return "blocked"
	case SeatHouse:
		return "house"
	}
	return fmt.Sprintf("SeatState(%d)", int(s))
}

// SeatMap is the state of every seat of a show, as one query saw it.
type SeatMap struct {
	Show   Show
	Hall   *Hall
	States map[int64]SeatState // by seat ID; missing means free
	HoldID map[int64]int64     // seat ID -> hold ID, for seats held by the asking owner

	// Blocks are the seats kept out of sale (blocked or house), by seat
	// ID, whatever their state: a sold seat blocked later keeps its block.
	Blocks map[int64]SeatBlock
	// Reserved are the seats held for a reservation still to pay, by
	// seat ID, with its cut-off: held, but for a customer who pays at a
	// counter, not by another counter's sale under way.
	Reserved map[int64]time.Time
}

// State returns the state of a seat, free when nothing claims it.
func (m *SeatMap) State(seatID int64) SeatState { return m.States[seatID] }

// Taken reports whether a seat cannot be offered to the asking owner.
func (m *SeatMap) Taken(seatID int64) bool {
	st := m.States[seatID]
	return st == SeatHeldByOther || st == SeatSold || st == SeatBlocked || st == SeatHouse
}

// Hold is a set of seats kept for one owner (a counter session) until it
// expires, is released, or is confirmed by a checkout.
type Hold struct {
	ID        int64
	ShowID    int64
	Owner     string
	Seats     []Seat
	ExpiresAt time.Time
	Status    HoldStatus
	// Together is false when HoldBest could not find one block and held
	// the best split instead.
	Together bool
}

// PayMethod is how a customer paid.
type PayMethod string

const (
	Cash PayMethod = "cash"
	Card PayMethod = "card"
)

// PaymentKind tells money in from money out.
type PaymentKind string

const (
	PaymentSale   PaymentKind = "sale"
	PaymentRefund PaymentKind = "refund"
)

// Payment is money in (a sale) or out (a refund).
type Payment struct {
	ID       int64
	Kind     PaymentKind
	Method   PayMethod
	Amount   Money
	Tendered Money
	Change   Money
	At       time.Time
	Staff    string
	// Terminal is where it was taken; ShiftID the shift it belongs to (0
	// for a card payment by someone with no shift open, and payments
	// before shifts).
	Terminal string
	ShiftID  int64
	// TicketID is the ticket a refund is for (0 for a sale and for a
	// whole-booking refund made before refunds went ticket by ticket);
	// ApprovedBy the supervisor or manager who approved a refund.
	TicketID   int64
	ApprovedBy string
	// Reason is why a refund was made, as typed with it ("" for none,
	// and for refunds made before refunds kept their own reason).
	Reason string
}

// Ticket admits one person to one seat.
type Ticket struct {
	ID    int64
	Seat  Seat
	Type  string
	Price Money
	// PriceSource says where the price came from (see Priced): "" for
	// the ticket type's own price, else "premium seat", "evening list"…
	PriceSource string
	Status      TicketStatus
	Code        string
	AdmittedAt  *time.Time
	AdmittedBy  string

	// ExchangedTo is the booking whose new ticket replaced this one when
	// an exchange voided it; "" otherwise.
	ExchangedTo string
}

// Booking is a paid sale of one or more seats of a show.
type Booking struct {
	ID          int64
	Number      string // BO-7KQ2X9TD
	Show        Show
	Status      BookingStatus
	Customer    string
	Phone       string
	Tickets     []Ticket
	Total       Money
	Payments    []Payment
	SoldBy      string
	Terminal    string
	CreatedAt   time.Time
	CancelledBy string
	ApprovedBy  string
	Reason      string

	// ExchangedFrom is the booking an exchange moved these tickets from
	// ("" for a sale); its sale payment is the difference paid then.
	ExchangedFrom string

	// Voucher is the voucher the sale's tickets were discounted by (their
	// prices are net of it), nil for none.
	Voucher *VoucherUse
	// Items are the concessions sold on the sale, nil for none.
	Items *SaleItems
}

// Change is the change due on the sale payment, zero for cards: on a
// sale paid in parts, its cash part's.
func (b *Booking) Change() Money {
	var c Money
	for _, p := range b.Payments {
		if p.Kind == PaymentSale {
			c += p.Change
		}
	}
	return c
}

// SeatLabels lists the booked seats' labels in ticket order.
func (b *Booking) SeatLabels() []string {
	out := make([]string, len(b.Tickets))
	for i, t := range b.Tickets {
		out[i] = t.Seat.Label
	}
	return out
}

// Staff is a person who signs in at a counter or over SSH.
type Staff struct {
	ID       int64
	Name     string
	Role     Role
	Disabled bool
	HasKey   bool

	// manager screens: locked out after wrong PINs, for sign-in or
	// approvals, until UnlockStaff or the lockout ends.
	Locked bool

	// Site is where they work: one site, or AllSites (0), who may sign in
	// at any terminal.
	Site int64
}

// Terminal is a registered counter device (an SSH key that opens on the
// sign-in screen).
type Terminal struct {
	ID   int64
	Name string
	// Printer is where the terminal prints (a URL ParsePrinter reads), ""
	// for none.
	Printer string

	// Site is the cinema of a chain the terminal is at (MainSite on
	// SQLite): its counter shows that site's programme.
	Site int64
}

// WaitlistEntry is a customer waiting for seats of a sold-out show.
type WaitlistEntry struct {
	ID         int64
	ShowID     int64
	Show       Show // filled in the list of customers to call
	Name       string
	Phone      string
	Seats      int
	NotifiedAt *time.Time // seats came free: call them
	CalledAt   *time.Time
	CalledBy   string
	// Bought is set when a booking for the show was made with their
	// phone number after they were told: the promise was kept.
	Bought bool
}
