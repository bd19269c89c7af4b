package booking

import "time"

// DefaultHoldTTL is how long seats stay held at a counter without a sale.
const DefaultHoldTTL = 5 * time.Minute

// DoorsOpen is how long before a show starts the door admits its tickets.
const DoorsOpen = 2 * time.Hour

// MaxHoldLifetime caps how long one hold can live, however often it is
// extended or grown: seats cannot be kept off sale forever.
const MaxHoldLifetime = 15 * time.Minute

// HoldRequest asks for specific seats of a show.
type HoldRequest struct {
	ShowID int64
	// Seats are labels ("G7") or, when SeatIDs is set, ignored.
	Seats   []string
	SeatIDs []int64
	Owner   string // the counter session that will own the hold
	TTL     time.Duration
	// AddTo, when non-zero, adds the seats to that live hold of Owner
	// instead of starting a new one (the seat map grows one selection).
	AddTo int64
	// ByHand says a person picked these seats (the counter's seat map,
	// `sell SHOW SEAT…`): the single-seat rule applies (CheckSingles), and
	// a hold that would strand a single empty seat is refused with a
	// *SingleSeatsError. Holds the program makes (an exchange's, a test's)
	// leave it unset.
	ByHand bool
	// AllowSingle, with ByHand, holds such seats all the same: the clerk's
	// override, which the store writes to the audit trail (SinglesAudit)
	// with the seats it strands.
	AllowSingle bool
}

// HoldBestRequest asks for the best N seats of a show.
type HoldBestRequest struct {
	ShowID int64
	N      int
	Owner  string
	TTL    time.Duration
	// Wheelchair is how many of the N must be wheelchair places; the
	// rest go to companion places next to them when there are any.
	Wheelchair int
	// Premium lets premium seats be chosen like standard ones (the
	// customer asked for them); without it they are chosen only when
	// nothing else holds the party together (BestOptions.Premium).
	Premium bool
	AddTo   int64
}

// CheckoutRequest turns a live hold into a paid booking.
type CheckoutRequest struct {
	HoldID int64
	Owner  string
	// IdempotencyKey is made once when the checkout screen opens. The same
	// key again returns the booking the first call made.
	IdempotencyKey string
	// Types maps seat label to ticket type code; seats not listed are adult.
	Types    map[string]string
	Customer string
	Phone    string
	Method   PayMethod
	// Tendered is the cash handed over, minor units; 0 means exact money.
	Tendered Money
	// ExpectedTotal is the total the clerk saw and confirmed, minor units;
	// CheckTotal says it was sent. The store prices the seats itself,
	// inside the write transaction, from the ticket types current then,
	// and refuses with *PriceChangedError when its total differs: what was
	// on screen is what is recorded. Every caller that showed a person a
	// total sets both.
	ExpectedTotal Money
	CheckTotal    bool
	// OpenFloat, when set, opens the seller's shift with this float in the
	// same transaction if the sale is cash and they have none open (the
	// counter asks for it when it meets ErrNoShift).
	OpenFloat *Money
	// CustomerID, when not 0, is the customer account the sale belongs
	// to (customers.go), stored in the sale's transaction: ENotFound for
	// an unknown customer, EInvalid for an erased one, EForbidden below a
	// clerk (a kiosk names none). A booking sold without one can be
	// attached later (AttachCustomer).
	CustomerID int64
	// Voucher is a voucher code to take off the tickets (ApplyVoucher),
	// "" for none; its use is taken in the sale's transaction.
	Voucher string
	// Items are concessions sold on the same sale, in the same
	// transaction: a sold-out item refuses the whole sale.
	Items []ItemLine
	// Tender, when set, pays the sale in parts (split tender: gift card,
	// card, cash) instead of by Method alone; Tendered is then the cash
	// part's money handed over (ValidateTender, SplitTender).
	Tender []TenderPart
}

// CancelRequest cancels and refunds a booking.
type CancelRequest struct {
	Number string
	Reason string
	// Approver is a supervisor who typed their name and PIN at the
	// counter of a clerk below supervisor. The store checks the PIN
	// against a lockout counter of its own, so wrong approvals never lock
	// the supervisor out of signing in.
	Approver *Credentials
	// Addr is where the approval was typed (an SSH session's remote
	// address), for the log of failed approvals; the server fills it in.
	Addr string
	// OpenFloat opens the canceller's shift with this float, in the same
	// transaction, when a cash refund meets no open shift.
	OpenFloat *Money
}

// Credentials are a name and PIN typed at a counter.
type Credentials struct {
	Name string
	PIN  string
}

// SignInRequest is a name and PIN typed at a counter, with where it was
// typed: every failure is logged with the terminal and address, and a
// removed terminal signs nobody in.
type SignInRequest struct {
	Name string
	PIN  string
	// Terminal names the counter ("till-2", "local:host"), for the log.
	Terminal string
	// TerminalID is the registered terminal the request came through; 0
	// for a local counter. The SSH server fills it in, never the screen.
	TerminalID int64
	// Addr is the remote address of an SSH session, "" for a local one.
	Addr string
	// Site is the site of a local counter (--site; 0: every site). A
	// registered terminal's site is the store's, read from TerminalID.
	// A member of staff who works at one site is refused at another's.
	Site int64
	// Kiosk says the name and PIN were typed at a public kiosk after the
	// staff chord: their wrong PINs count on a lockout of their own, so
	// the public cannot lock a name out of the counters from a kiosk.
	Kiosk bool
}

// Admission is what the door sees after a scan that let someone in.
type Admission struct {
	Ticket  Ticket // the first ticket let in
	Booking string
	Show    Show
	// Tickets are every ticket the scan let in: the one of a ticket's
	// code, or each ticket of a booking scanned by its number that had
	// not come in yet.
	Tickets []Ticket
	// Kept says, for a booking's number, why its other tickets stayed
	// out ("Ticket A3 was already admitted at 19:02:11 by dora.").
	Kept []string
}

// BookingQuery finds bookings by number, phone or customer name.
type BookingQuery struct {
	Text  string
	Limit int
}
