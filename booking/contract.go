package booking

import (
	"context"
	"time"
)

// The domain contract, by capability. Each interface is what one part of
// the box office does; a screen or a server asks for the few it uses, and
// a store implements them all (Store). Every method documents who may call
// it — the Action its actor needs, or, for methods without an actor, which
// part of the program may — and the error codes it returns beyond
// EInternal, which any of them may return for a failure of the store
// itself ("Internal error.", the details logged).
//
// Every write is one transaction that checks and acts, with every check
// that depends on state made inside it on the transaction's clock; after
// the commit the store publishes the changed shows on its Broker. A write
// whose actor carries a StaffID or TerminalID checks, in that transaction,
// that the person is still enabled with at least the role they act with
// and the terminal still registered, and refuses with ErrWithdrawn
// (EForbidden) otherwise. Every method that takes an actor authorizes it
// first and returns EForbidden when the role is too low.
//
// Methods without an actor trust their caller: they are for the program's
// own parts (the SSH server, the sweeper, the command line run by whoever
// owns the data directory), never for a screen to call on a person's word.

// Sales holds seats and sells them.
type Sales interface {
	// TicketTypes lists the price bands, by their sort order. Anyone.
	TicketTypes(ctx context.Context) ([]TicketType, error)

	// Hold holds the requested seats of a show for req.Owner, all or
	// nothing, or adds them to the owner's live hold req.AddTo. Needs
	// ActionHold. *SeatsTakenError (EConflict) when a seat is held or
	// sold elsewhere, or kept out of sale (OutOfSale, SeatBlocks), with
	// the free blocks nearest it; EInvalid for unknown seats, seats
	// blocked in the hall's layout, repeated seats, more than
	// MaxSeatsPerSale or a show whose sales closed (SalesOpen);
	// ENotFound for the show; EExpired when AddTo is no longer live.
	Hold(ctx context.Context, actor Actor, req HoldRequest) (*Hold, error)
	// HoldBest holds the best available N seats (BestAvailable), never
	// one kept out of sale; Together is false when only a split was
	// possible. Needs ActionHold.
	// EConflict, saying what is free, when fewer than N are; EInvalid for
	// N outside 1..MaxSeatsPerSale, a bad wheelchair count or a closed
	// sale; ENotFound for the show; EExpired as for Hold.
	HoldBest(ctx context.Context, actor Actor, req HoldBestRequest) (*Hold, error)
	// Release lets go of the given seats of owner's hold, or all of it
	// when seats is empty; releasing an ended hold or a seat it no longer
	// holds is not an error. Needs ActionHold. ENotFound when owner has no
	// such hold; EInvalid for unknown seats.
	Release(ctx context.Context, actor Actor, holdID int64, owner string, seats ...string) error
	// Extend moves owner's live hold's expiry to now+ttl, but never past
	// MaxHoldLifetime from its creation. Needs ActionHold. EExpired when
	// it lapsed or ended; EInvalid when it already ends at that limit;
	// ENotFound when owner has no such hold.
	Extend(ctx context.Context, actor Actor, holdID int64, owner string, ttl time.Duration) (*Hold, error)
	// ReleaseOwner releases every live hold of owner and says how many.
	// No actor: for the process that named owner (a counter signing out,
	// a server letting go of a dropped session).
	ReleaseOwner(ctx context.Context, owner string) (int, error)
	// ReleasePrefix releases every live hold whose owner starts with
	// prefix and says how many: a server shutting down gives back its own
	// sessions' seats and leaves another process's alone. It runs on a
	// quiesced store. No actor: for the server that made the prefix.
	// EInvalid for an empty prefix.
	ReleasePrefix(ctx context.Context, prefix string) (int, error)

	// Checkout sells a live hold of req.Owner, priced inside the
	// transaction; the same idempotency key again returns the booking the
	// first call made, whatever happened to the hold since. Needs
	// ActionSell. EInvalid for a bad request (CheckoutRequest.Validate),
	// an unknown ticket type or short cash; *PriceChangedError (EConflict)
	// when CheckTotal is set and the current prices give another total;
	// EExpired when the hold lapsed or was released; EConflict when it was
	// sold by another checkout; ENotFound when owner has no such hold.
	Checkout(ctx context.Context, actor Actor, req CheckoutRequest) (*Booking, error)

	// Quote prices seats of a show at the ticket types chosen, as a
	// checkout would now (PriceFor: the show's price list, each seat's
	// kind), line by line with where each price came from. The checkout
	// prices again inside its transaction; CheckoutRequest.ExpectedTotal
	// is what makes the two agree. Needs ActionSell. EInvalid for no
	// seats, more than MaxSeatsPerSale, a seat not in the show's hall or
	// an unknown ticket type; ENotFound for the show.
	Quote(ctx context.Context, actor Actor, req QuoteRequest) (*Quote, error)
}

// Bookings finds sales and unwinds them.
type Bookings interface {
	// Booking looks a booking up by number ("BO-7KQ2X9TD", any case, the
	// prefix optional). Needs ActionViewBooking. ENotFound.
	Booking(ctx context.Context, actor Actor, number string) (*Booking, error)
	// BookingByKey returns the booking a checkout's idempotency key made:
	// how a retried or resumed checkout finds the sale it already made.
	// Needs ActionSell. ENotFound when none did.
	BookingByKey(ctx context.Context, actor Actor, key string) (*Booking, error)
	// FindBookings searches by booking number, phone or customer name,
	// newest first; an exact booking number is the only result. Needs
	// ActionFindBooking. EInvalid for empty text.
	FindBookings(ctx context.Context, actor Actor, q BookingQuery) ([]Booking, error)
	// Cancel claims confirmed -> cancelled first, then frees the seats,
	// voids the tickets and refunds, so it runs at most once. Needs
	// ActionCancel, or a req.Approver who has it (their PIN checked
	// against a lockout of its own). *StaleError (EConflict) when the
	// booking was no longer confirmed; EConflict when a ticket was
	// admitted; EForbidden without a supervisor or for a wrong approval;
	// ENotFound for the number.
	Cancel(ctx context.Context, actor Actor, req CancelRequest) (*Booking, error)
	// RefundTickets refunds the named seats' tickets of a confirmed
	// booking in one transaction: each ticket issued -> refunded by
	// compare-and-set, its seat freed, one refund payment for its price by
	// the way it was paid (a cash one out of the refunder's open shift, or
	// one opened with req.OpenFloat), approved_by naming the approver; the
	// booking is cancelled once no issued ticket is left. Needs
	// ActionRefund, or a req.Approver who has it; after the show started,
	// ActionCancelStarted (a manager), for the actor or the approver.
	// EInvalid for a bad request, a seat not in the booking or ErrNoShift;
	// *StaleError (EConflict) when a ticket was refunded already or the
	// booking is no longer confirmed; EConflict for an admitted ticket;
	// EForbidden as for Cancel; ENotFound for the number.
	RefundTickets(ctx context.Context, actor Actor, req RefundRequest) (*Booking, error)

	// Exchanges (issue 11).

	// Exchange moves tickets of a confirmed booking to other seats of its
	// show or of another, in one transaction: the new seats claimed, the
	// old ones freed, the moved tickets voided and a new booking issued
	// with new tickets (each keeping its type, at the new show's prices),
	// the difference paid or paid back by req.Method (a cash one through
	// the actor's open shift), both shows' sold counts kept, one audit
	// row. The booking left with no live ticket is cancelled, saying
	// where they went. The same idempotency key again returns the
	// exchange the first call made. Needs ActionExchange; when money goes
	// back, ActionRefund for the actor or req.Approver; after the
	// booking's show started, ActionCancelStarted. EInvalid for a bad
	// request (ExchangeRequest.Validate), a ticket not in the booking, a
	// seat not in the hall, a show whose sales closed, short cash or
	// ErrNoShift; *SeatsTakenError (EConflict) for a new seat taken, with
	// what is free next to it; *PriceChangedError (EConflict) when
	// CheckDifference is set and the difference is now another; EConflict
	// for an admitted ticket; *StaleError (EConflict) for a ticket no
	// longer issued or a booking no longer confirmed; EForbidden as for
	// RefundTickets; ENotFound for the number or the show.
	Exchange(ctx context.Context, actor Actor, req ExchangeRequest) (*ExchangeResult, error)
}

// Shifts are the drawers of the people who take money. A shift follows
// the person (actor.Name), not the terminal; at most one is open per
// person. Cash sales and refunds need one (ErrNoShift).
type Shifts interface {
	// OpenShift opens the actor's shift with the float counted into the
	// drawer. Needs ActionShift. EInvalid for a float out of range;
	// EConflict when the actor has a shift open already.
	OpenShift(ctx context.Context, actor Actor, req OpenShiftRequest) (*Shift, error)
	// CurrentShift returns the actor's open shift. Needs ActionShift.
	// ENotFound when none is open.
	CurrentShift(ctx context.Context, actor Actor) (*Shift, error)
	// CloseShift closes the actor's open shift with a blind count and
	// returns the Z report: expected (float + cash sales − cash refunds),
	// counted and the variance. Needs ActionShift. EInvalid for a count
	// out of range; ENotFound when no shift is open.
	CloseShift(ctx context.Context, actor Actor, req CloseShiftRequest) (*ShiftReport, error)
	// ShiftReport reports on one shift: an X report of an open shift
	// (nothing closed) or the Z report of a closed one. Needs ActionShift
	// for one's own shift, ActionReopenShift for anyone's. ENotFound;
	// EForbidden for another person's shift below supervisor.
	ShiftReport(ctx context.Context, actor Actor, id int64) (*ShiftReport, error)
	// ListShifts lists shifts newest first: one's own with ActionShift,
	// anyone's with ActionReopenShift (q.Staff filters).
	ListShifts(ctx context.Context, actor Actor, q ShiftQuery) ([]Shift, error)
	// ReopenShift reopens a closed shift with a reason, recorded in the
	// shift's events and the audit trail; its first count is kept there.
	// Needs ActionReopenShift. EInvalid without a reason; ENotFound;
	// EConflict when it is open or its person has another shift open.
	ReopenShift(ctx context.Context, actor Actor, req ReopenShiftRequest) (*Shift, error)
}

// Programme is what is on where: halls, films, shows, seat maps and
// prices.
type Programme interface {
	// Shows lists the shows starting on the local day of day, by start.
	// Needs ActionViewShows.
	Shows(ctx context.Context, actor Actor, day time.Time) ([]Show, error)
	// Show returns one show with its sold and held counts. Needs
	// ActionViewShows. ENotFound.
	Show(ctx context.Context, actor Actor, showID int64) (*Show, error)
	// SeatMap returns every seat of a show with its state as seen by
	// owner; lapsed holds read as free. Needs ActionViewShows. ENotFound.
	SeatMap(ctx context.Context, actor Actor, showID int64, owner string) (*SeatMap, error)
	// Halls lists the halls with their seats, by name. Needs
	// ActionViewShows.
	Halls(ctx context.Context, actor Actor) ([]Hall, error)
	// Films lists the films, by title. Needs ActionViewShows.
	Films(ctx context.Context, actor Actor) ([]Film, error)

	// AddHall adds a hall (from ParseLayout) and returns its id. Needs
	// ActionManageHalls. EInvalid for a hall without seats; EConflict
	// when a hall of that name exists.
	AddHall(ctx context.Context, actor Actor, h Hall) (int64, error)
	// AddFilm adds a film and returns its id. Needs ActionManageHalls.
	// EInvalid without a title or for a running time out of range.
	AddFilm(ctx context.Context, actor Actor, f Film) (int64, error)
	// AddShow schedules a film in a hall and returns the show's id; a
	// hall is never double-booked, cleaning time included. Needs
	// ActionManageHalls. ENotFound for the film or hall; EConflict for an
	// overlap, naming the show in the way; EInvalid for a start in the
	// past or a retired film.
	AddShow(ctx context.Context, actor Actor, filmID, hallID int64, starts time.Time) (int64, error)
	// SetPrice adds or changes a ticket type; sales from then on use it,
	// tickets sold keep their price. Needs ActionManageHalls. EInvalid
	// for a bad code, name or price.
	SetPrice(ctx context.Context, actor Actor, t TicketType) error

	// Prices returns the price table: the ticket types with their own
	// prices, the prices set by seat kind and list, and the lists. Needs
	// ActionViewShows.
	Prices(ctx context.Context, actor Actor) (*PriceTable, error)
	// SetPriceEntry sets what a ticket type costs on a seat kind and/or a
	// price list (creating the list by name when it is new); sales from
	// then on use it, tickets sold keep their price, open counters
	// re-price. Needs ActionManageHalls. EInvalid for a bad entry
	// (PriceEntry.Validate) or an unknown ticket type.
	SetPriceEntry(ctx context.Context, actor Actor, e PriceEntry) error
	// SetShowPriceList puts a show on a price list, "" for the standing
	// list; its sales from then on are priced from it. Needs
	// ActionManageHalls. EInvalid for a bad name; ENotFound for the show
	// or a list nobody set a price on.
	SetShowPriceList(ctx context.Context, actor Actor, showID int64, list string) error

	// manager screens (issue 11): editing the programme.

	// EditFilm changes a film's title, running time and rating (f.ID
	// names it). Needs ActionManageHalls. EInvalid as for AddFilm or when
	// nothing changes; ENotFound; EConflict when a longer running time
	// makes a show still on sale overlap another in its hall, naming it.
	EditFilm(ctx context.Context, actor Actor, f Film) error
	// RetireFilm takes a film off the programme: its shows stay, it gets
	// no new ones (AddShow: EInvalid). Needs ActionManageHalls. ENotFound;
	// EConflict when retired already.
	RetireFilm(ctx context.Context, actor Actor, filmID int64) error
	// MoveShow moves a show to starts and, when hallID is neither 0 nor
	// its own, to that hall; its bookings keep their seats. Needs
	// ActionManageHalls. EInvalid for a start in the past or no change;
	// ENotFound for the show or hall; EConflict for an overlap (cleaning
	// included, naming the show in the way), a show that started or
	// admitted anyone, or a new hall for a show with bookings or holds.
	MoveShow(ctx context.Context, actor Actor, showID int64, starts time.Time, hallID int64) error
	// A show's life (booking/showlife.go).

	// CancelShow cancels a show and refunds every live booking of it: the
	// show is marked cancelled (no hold or sale from then on, its live
	// holds released), then each confirmed booking confirmed -> cancelled
	// by compare-and-set in a small transaction of its own with its audit
	// row, its seats freed, its issued and admitted tickets voided and
	// refunded by the way they were paid (cash out of the actor's open
	// shift). Run again — after an interruption, or at the same time as
	// another run — it refunds what is left, each booking once, and
	// returns every booking the cancellation refunded. Needs
	// ActionCancelShow. EInvalid without a reason, for a show that ended,
	// or ErrNoShift when a booking was paid in cash and the actor has no
	// shift open (checked before anything is written); ENotFound.
	CancelShow(ctx context.Context, actor Actor, showID int64, reason string) (*ShowCancellation, error)
	// SetSalesClose sets when a show's sales close relative to its start
	// (ValidateSalesClose), or with showID 0 the cinema's default for
	// every show without its own; a nil close puts a show back on the
	// default. Holds from then on obey it. Needs ActionManageHalls.
	// EInvalid for a bad close or a nil default; ENotFound for the show.
	SetSalesClose(ctx context.Context, actor Actor, showID int64, close *time.Duration) error
}

// Roster is who may work the box office: staff with their PINs, roles
// and keys, and the registered counter terminals.
type Roster interface {
	// SignIn checks a name and PIN typed at a counter. Each attempt is
	// counted before the PIN is compared, so five attempts lock the name
	// for five minutes however many arrive at once; unknown names cost
	// the same as wrong PINs. Every failure is logged with req's terminal
	// and address. No actor: anyone at a counter (the server fills in
	// where). EForbidden for a wrong name or PIN, a locked name or a
	// removed terminal.
	SignIn(ctx context.Context, req SignInRequest) (*Staff, error)

	// AddStaff creates a member of staff with a PIN and optionally an
	// SSH public key in authorized_keys format. Needs ActionManageStaff.
	// EInvalid for a bad name, role, PIN or key; EConflict for a name or
	// key in use.
	AddStaff(ctx context.Context, actor Actor, name string, role Role, pin string, authorizedKey []byte) (*Staff, error)
	// ListStaff lists staff by name. Needs ActionManageStaff.
	ListStaff(ctx context.Context, actor Actor) ([]Staff, error)
	// DisableStaff stops a member of staff signing in by PIN or key; their
	// open sessions are refused from their next write on. Needs
	// ActionManageStaff. ENotFound for the name.
	DisableStaff(ctx context.Context, actor Actor, name string) error
	// EnableStaff lets a disabled member of staff sign in again. Needs
	// ActionManageStaff. ENotFound.
	EnableStaff(ctx context.Context, actor Actor, name string) error
	// SetRole changes what a member of staff may do; a lower role takes
	// effect at their next write. Needs ActionManageStaff. EInvalid for
	// the role; ENotFound for the name.
	SetRole(ctx context.Context, actor Actor, name string, role Role) error
	// SetPIN gives a member of staff a new PIN and lifts their lockouts.
	// Needs ActionManageStaff. EInvalid for the PIN; ENotFound.
	SetPIN(ctx context.Context, actor Actor, name, pin string) error
	// UnlockStaff lifts a lockout after wrong PINs, for sign-in and
	// approvals both. Needs ActionManageStaff. ENotFound.
	UnlockStaff(ctx context.Context, actor Actor, name string) error

	// AddTerminal registers a counter device's SSH key. Needs
	// ActionManageStaff. EInvalid for a bad name or key; EConflict for a
	// name or key in use.
	AddTerminal(ctx context.Context, actor Actor, name string, authorizedKey []byte) (*Terminal, error)
	// ListTerminals lists registered terminals by name. Needs
	// ActionManageStaff.
	ListTerminals(ctx context.Context, actor Actor) ([]Terminal, error)
	// RemoveTerminal deletes a terminal; its sessions are refused from
	// their next write on. Needs ActionManageStaff. ENotFound.
	RemoveTerminal(ctx context.Context, actor Actor, name string) error

	// IdentifyKey finds the enabled member of staff or the terminal a
	// wire-format SSH public key belongs to. No actor: for the SSH server
	// authenticating a connection. ENotFound for an unknown key;
	// EForbidden for a disabled member of staff.
	IdentifyKey(ctx context.Context, wireKey []byte) (*Staff, *Terminal, error)
	// PINUnchanged reports whether name is enabled staff whose PIN is the
	// one they were created with: whether the demo sign-in hint is true.
	// It compares no PIN. No actor: for the server's sign-in screen.
	PINUnchanged(ctx context.Context, name string) (bool, error)
	// Access lists who may still act: enabled staff with their roles and
	// the registered terminals. No actor: for the server closing the
	// sessions of anyone withdrawn.
	Access(ctx context.Context) (Access, error)

	// Printers (issue 12): where each counter prints.

	// SetTerminalPrinter sets where a registered terminal prints, a URL
	// ParsePrinter reads ("" for none); its sessions opened from then on
	// print there. Needs ActionManageStaff. EInvalid for a bad URL;
	// ENotFound for the name.
	SetTerminalPrinter(ctx context.Context, actor Actor, name, printer string) (*Terminal, error)
}

// Door admits tickets.
type Door interface {
	// Admit checks a scanned ticket code and admits the ticket at most
	// once, within its show's door window. Needs ActionAdmit. ENotFound
	// for a code that does not verify, exactly like one never issued;
	// EConflict for a second scan (naming when and by whom) or a
	// cancelled ticket or a ticket of a cancelled show ("This show was
	// cancelled."); EInvalid outside the door window, which closes when
	// the show ends ("This show ended at 21:40."). A booking's number
	// instead of a code admits, by the same rule, each of its tickets not
	// in yet (Admission.Tickets) and says why the others stay out
	// (Admission.Kept); EConflict when none may come in, or for a
	// reservation not paid ("Not paid: pay at the counter…"); ENotFound
	// ("No booking BO-….") for a number nobody has.
	Admit(ctx context.Context, actor Actor, code string) (*Admission, error)
}

// Waitlist is the waiting list of sold-out shows.
type Waitlist interface {
	// AddWaitlist puts a customer on a show's waiting list. Needs
	// ActionWaitlist. EInvalid without a name and phone, for a party
	// outside 1..MaxSeatsPerSale or a show whose sales closed; EConflict
	// when enough seats are free (and not promised) to sell them now;
	// ENotFound for the show.
	AddWaitlist(ctx context.Context, actor Actor, showID int64, name, phone string, seats int) (*WaitlistEntry, error)
	// Waitlist lists a show's waiting list, first come first. Needs
	// ActionWaitlist.
	Waitlist(ctx context.Context, actor Actor, showID int64) ([]WaitlistEntry, error)
	// WaitlistCalls lists the waiting customers whose seats came free and
	// whom nobody has called yet, for shows still on sale, oldest first.
	// Needs ActionWaitlist.
	WaitlistCalls(ctx context.Context, actor Actor) ([]WaitlistEntry, error)
	// MarkCalled records that a clerk called a waiting customer, once.
	// Needs ActionWaitlist. *StaleError (EConflict) when another counter
	// already did; EConflict when their seats have not come free;
	// EExpired when the offer lapsed uncalled; ENotFound.
	MarkCalled(ctx context.Context, actor Actor, entryID int64) error
	// RemoveWaitlist takes a customer off a waiting list. Needs
	// ActionWaitlist. ENotFound when the entry is gone already.
	RemoveWaitlist(ctx context.Context, actor Actor, entryID int64) error
	// NotifyWaitlist marks notified, at most once each, the waiting
	// parties that now fit the free, unpromised seats of their show, first
	// come first, and returns them to be called. No actor: for the
	// sweeper.
	NotifyWaitlist(ctx context.Context) ([]WaitlistEntry, error)
}

// Changes tells open screens what changed.
type Changes interface {
	// Changes returns the broker that publishes committed show changes,
	// this process's and (by polling) other processes'. Anyone.
	Changes() *Broker
}

// Setup makes a new cinema. No actor: for the command line, run by
// whoever owns the data directory.
type Setup interface {
	// Empty reports whether the database was never seeded.
	Empty(ctx context.Context) (bool, error)
	// IsDemo reports whether it was seeded with the demo cinema.
	IsDemo(ctx context.Context) (bool, error)
	// Seed fills an empty database in one transaction; an empty Seed
	// marks it a cinema to be set up by hand. EConflict when it has a
	// cinema already; EInvalid for a bad seed.
	Seed(ctx context.Context, seed Seed, demo bool) error
	// TopUpDemo adds the seed's shows of every day that has none yet, and
	// says how many. ENotFound when a seed hall or film is gone.
	TopUpDemo(ctx context.Context, seed Seed) (int, error)
	// HasSales reports whether any booking was ever made.
	HasSales(ctx context.Context) (bool, error)
}

// Upkeep is the store looking after itself. No actor: for the sweeper
// and the command line.
type Upkeep interface {
	// ExpireHolds marks every lapsed hold and its claims expired and says
	// how many holds it expired.
	ExpireHolds(ctx context.Context) (int, error)
	// TrimChanges drops the change log's oldest rows beyond its bound and
	// says how many.
	TrimChanges(ctx context.Context) (int, error)
	// CheckInvariants reads the whole database and names every broken
	// invariant it finds (two live claims on a seat, counts, money); none
	// is an empty list.
	CheckInvariants(ctx context.Context) ([]string, error)

	// Backup writes a consistent copy of the whole database to path while
	// counters go on selling, syncs it, checks the copy (SQLite's
	// integrity check and CheckInvariants) and only then puts it in place
	// under path. It never overwrites a file: EInternal, saying so, when
	// path exists (before or by the time the copy is ready; exit 1 at the
	// command line, like any backup that could not be made); EInvalid
	// when the copy fails its checks, which is then removed.
	Backup(ctx context.Context, path string) (BackupInfo, error)

	// A show's life.

	// SettleShows moves each confirmed booking of every show that ended
	// SettleGrace ago to completed (a ticket was admitted) or no_show
	// (none was) by compare-and-set, and says how many it moved; however
	// many servers sweep, each booking moves once. It reads first and
	// writes only when an ended show is still unsettled.
	SettleShows(ctx context.Context) (int, error)
}

// Quiescer lets a server stop writing without cutting a write in half.
type Quiescer interface {
	// Quiesce refuses every write asked for from now on with EInternal
	// "The box office is shutting down.", except the releases a
	// shutdown needs (ReleaseOwner, ReleasePrefix), and returns once the
	// writes already under way have answered, or with ctx's error when
	// ctx ends first. Reads go on. It is for good: a quiesced store is
	// closed next. No actor: for the server shutting down.
	Quiesce(ctx context.Context) error

	// A bounded shutdown (issue 15): writes stuck on another process's lock, and what is left held.
	// GiveUpWaiting makes every write still waiting for another
	// process's write lock, and every one not yet begun, fail with
	// EInternal "The box office is shutting down.", except ReleaseOwner
	// and ReleasePrefix, which wait as long as their context lets them:
	// for a shutdown whose Quiesce ran out of time. For good.
	GiveUpWaiting()
	// LiveHolds lists the live holds whose owner starts with prefix, with
	// their seats and expiry: what a shutdown could not release, to name
	// in its log. EInvalid for an empty prefix. No actor.
	LiveHolds(ctx context.Context, prefix string) ([]Hold, error)
}

// Store is the whole booking core: every capability. *db.Store implements
// it; callers ask for the few interfaces they use.
type Store interface {
	Sales
	Bookings
	Programme
	Roster
	Door
	Waitlist
	Changes
	Setup
	Upkeep
	Quiescer
	Audit
	Reports
	Shifts

	// Blocked and house seats.
	SeatBlocks
	// issue 13
	Kiosk
	Reservations
	// issue 14: the cinemas of a chain
	Sites
	// Concessions: items with stock, sold at the counter (items.go).
	Items
	// Vouchers and promo codes (vouchers.go).
	Vouchers
	// The cinema's settings and its tax rates (booking/settings.go, tax.go).
	Settings
	Taxes
	// Customer accounts and the film watchlist (customers.go).
	Customers
	Watchlist
	// Gift cards: sold for money, spent in part or whole (giftcards.go).
	GiftCards
	// The cinema's books: distributor returns, the day close, the cash
	// drawer and age checks (books.go, distributor.go).
	Books
}

// Audit reads the audit trail: one row for every state change, written
// in the transaction that made it, that nothing can edit or delete.
type Audit interface {
	// Audit lists the rows matching q, newest first, at most
	// q.AuditLimit(). Needs ActionViewAudit. ENotFound for a booking
	// number that names no booking.
	Audit(ctx context.Context, actor Actor, q AuditQuery) ([]AuditEntry, error)
}

// SeatBlocks keeps seats out of sale: blocked seats (broken, kept for
// crew) and house seats (held back for staff, press or guests). A seat
// kept out of sale never counts as free, is never offered by best
// available or a clash's suggestions, and a hold of it is refused in the
// hold's transaction (*SeatsTakenError with OutOfSale, EConflict).
type SeatBlocks interface {
	// BlockSeats keeps the named seats of a show out of sale, all or
	// nothing: as blocked (req.HallWide: for every show of the show's
	// hall that starts from now on) or as house seats of this show.
	// Needs ActionBlockSeats. EInvalid for a bad request
	// (BlockRequest.Validate), an unknown seat, a seat already out of
	// sale or a show whose sales closed; EConflict naming each seat that
	// is sold or held (for HallWide, in any show to come); ENotFound for
	// the show.
	BlockSeats(ctx context.Context, actor Actor, req BlockRequest) ([]SeatBlock, error)
	// UnblockSeats puts the named seats back on sale, all or nothing:
	// blocked seats (needing ActionBlockSeats) or house seats, released
	// into sale (needing ActionReleaseHouse). EInvalid for a bad request, an
	// unknown seat, a seat not kept out of sale that way (a hall-wide
	// block is lifted only with HallWide; a seat blocked in the hall's
	// layout not at all) or a show whose sales closed; ENotFound for the
	// show.
	UnblockSeats(ctx context.Context, actor Actor, req BlockRequest) ([]SeatBlock, error)
}
