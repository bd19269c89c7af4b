package booking

import (
	"context"
	"time"
)

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
	AddTo      int64
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
	Tendered int64
	// ExpectedTotal is the total the clerk saw and confirmed, minor units;
	// CheckTotal says it was sent. The store prices the seats itself,
	// inside the write transaction, from the ticket types current then,
	// and refuses with *PriceChangedError when its total differs: what was
	// on screen is what is recorded. Every caller that showed a person a
	// total sets both.
	ExpectedTotal int64
	CheckTotal    bool
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
}

// Admission is what the door sees after a scan that let someone in.
type Admission struct {
	Ticket  Ticket
	Booking string
	Show    Show
}

// BookingQuery finds bookings by number, phone or customer name.
type BookingQuery struct {
	Text  string
	Limit int
}

// Store is the booking core. Every write method is one BEGIN IMMEDIATE
// transaction that checks and acts; after its commit the store publishes the
// changed show on its Broker. Every method authorizes actor first and returns
// EForbidden when the role is too low.
type Store interface {
	// Shows lists the shows starting on the local day of day, by start.
	Shows(ctx context.Context, actor Actor, day time.Time) ([]Show, error)
	// Show returns one show. ENotFound.
	Show(ctx context.Context, actor Actor, showID int64) (*Show, error)
	// SeatMap returns every seat of a show with its state as seen by owner.
	SeatMap(ctx context.Context, actor Actor, showID int64, owner string) (*SeatMap, error)
	// TicketTypes lists the price bands.
	TicketTypes(ctx context.Context) ([]TicketType, error)

	// Hold holds the requested seats, all or nothing. A clash returns
	// *SeatsTakenError; EInvalid for unknown seats; ENotFound for the show.
	Hold(ctx context.Context, actor Actor, req HoldRequest) (*Hold, error)
	// HoldBest holds the best available block of N seats; Together is false
	// when only a split was possible. EConflict when fewer than N are free.
	HoldBest(ctx context.Context, actor Actor, req HoldBestRequest) (*Hold, error)
	// Release lets go of the given seats of a hold, or all of it when seats
	// is empty. Releasing an ended hold is not an error.
	Release(ctx context.Context, actor Actor, holdID int64, owner string, seats ...string) error
	// Extend moves a live hold's expiry to now+ttl, but never past
	// MaxHoldLifetime from its creation. EExpired when it lapsed; EInvalid
	// when it already ends at that limit.
	Extend(ctx context.Context, actor Actor, holdID int64, owner string, ttl time.Duration) (*Hold, error)
	// ReleaseOwner releases every live hold of owner (a closing session).
	ReleaseOwner(ctx context.Context, owner string) (int, error)

	// Checkout sells a live hold. EExpired when it lapsed; EInvalid for bad
	// payment or ticket types; *PriceChangedError (EConflict) when
	// CheckTotal is set and the current prices give another total; the same
	// idempotency key returns the first booking.
	Checkout(ctx context.Context, actor Actor, req CheckoutRequest) (*Booking, error)
	// Cancel claims confirmed -> cancelled first, then frees the seats and
	// refunds. *StaleError when it was not confirmed; EForbidden without a
	// supervisor.
	Cancel(ctx context.Context, actor Actor, req CancelRequest) (*Booking, error)
	// Booking looks a booking up by number. ENotFound.
	Booking(ctx context.Context, actor Actor, number string) (*Booking, error)
	// BookingByKey returns the booking a checkout's idempotency key made:
	// how a retried or resumed checkout finds the sale it already made.
	// ENotFound when none did.
	BookingByKey(ctx context.Context, actor Actor, key string) (*Booking, error)
	// FindBookings searches by number, phone or customer name.
	FindBookings(ctx context.Context, actor Actor, q BookingQuery) ([]Booking, error)

	// Admit checks a scanned ticket code and admits the ticket at most
	// once. A code that does not verify is ENotFound, exactly like one
	// never issued; a second scan is EConflict naming when and by whom.
	Admit(ctx context.Context, actor Actor, code string) (*Admission, error)

	// AddWaitlist puts a customer on a show's waiting list. EInvalid
	// without a name and phone.
	AddWaitlist(ctx context.Context, actor Actor, showID int64, name, phone string, seats int) (*WaitlistEntry, error)
	// WaitlistCalls lists the waiting customers whose seats came free and
	// whom nobody has called yet, for shows still on sale, oldest first.
	WaitlistCalls(ctx context.Context, actor Actor) ([]WaitlistEntry, error)
	// MarkCalled records that a clerk called a waiting customer, once:
	// *StaleError when another counter already did.
	MarkCalled(ctx context.Context, actor Actor, entryID int64) error
	// Waitlist lists a show's waiting list, first come first.
	Waitlist(ctx context.Context, actor Actor, showID int64) ([]WaitlistEntry, error)
	// RemoveWaitlist takes a customer off a waiting list. ENotFound when
	// the entry is gone already.
	RemoveWaitlist(ctx context.Context, actor Actor, entryID int64) error

	// SignIn checks a name and PIN. Each attempt is counted before the
	// PIN is compared, so five attempts lock the name for five minutes
	// however many arrive at once; unknown names cost the same as wrong
	// PINs. Every failure is logged with req's terminal and address.
	// EForbidden.
	SignIn(ctx context.Context, req SignInRequest) (*Staff, error)

	// Changes returns the broker that publishes committed show changes.
	Changes() *Broker
}
