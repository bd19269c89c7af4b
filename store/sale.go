package store

import (
	"context"
	"errors"
	"time"

	"boxoffice/booking"
)

// The sale path (booking.Sales, and the counter's reads of shows and seat
// maps): holding seats, letting them go, extending a hold and selling it.
//
// A hold and a checkout each run first as one step (HoldNew, SellHold):
// the store decides everything from what it knows (the seats, the hold's
// seats it made, the price table at its generation, the show's price
// list, the clerk's shift) and the driver's one statement — or one batch
// — verifies what it decided as it writes, or writes nothing and says so
// (ok false). The store then takes the fully checked path in a
// transaction of its own: each decision read anew inside it, each
// refusal named. Either way the database enforces the invariants itself:
// one live claim per seat (a partial unique index), compare-and-set
// status moves, money append-only, cash in an open shift.

// SaleTx is what the sale path asks of a transaction.
type SaleTx interface {
	// HoldNew makes a new hold of h.SeatIDs of show h.ShowID for h.Owner
	// until h.Expires, made at the transaction's time, with its audit row
	// h.Audit, in one step that is the transaction's last (the driver may
	// commit with it). It returns the hold's id and the show's price list
	// (as stored), or ok false with nothing written when the database
	// disagrees: the show cancelled or its sales closed at the
	// transaction's time (booking.SalesOpen), a seat claimed live by
	// anyone (a lapsed hold's claim included: the checked path frees it),
	// a seat kept out of sale, or h.Actor no longer standing.
	HoldNew(h NewHold) (holdID int64, priceList string, ok bool, err error)
	// InsertHold makes a held hold of show showID for owner, made at the
	// transaction's time, lasting until expires, and returns its id.
	InsertHold(showID int64, owner string, expires time.Time) (int64, error)
	// RenewHold moves the expiry of owner's hold holdID of show showID to
	// expires, never past booking.MaxHoldLifetime after it was made, by
	// compare-and-set on a hold live at the transaction's time (HoldLive),
	// and returns the expiry it set; ok is false when no such hold was
	// live.
	RenewHold(holdID int64, owner string, showID int64, expires time.Time) (set time.Time, ok bool, err error)
	// SetHoldExpiry moves hold holdID's expiry to expires, by
	// compare-and-set on a held hold: false when it was not held.
	SetHoldExpiry(holdID int64, expires time.Time) (bool, error)
	// ClaimSeats claims seatIDs of show showID, held, for hold holdID, in
	// seat id order (so two holds racing for the same seats wait for each
	// other in one order), and returns the seats it did not claim because
	// the database skipped them: a live claim (held or sold, lapsed or
	// not) already has the seat, or the seat is kept out of sale. Nothing
	// is written for those.
	ClaimSeats(showID, holdID int64, seatIDs []int64) (missing []int64, err error)
	// UnclaimSeats removes the claims this transaction made for hold
	// holdID on seatIDs (HoldBest choosing again after losing a seat).
	UnclaimSeats(holdID int64, seatIDs []int64) error
	// ShowClaims lists every claim of show showID that is held or sold,
	// with its hold's owner and times, whether or not the hold lapsed.
	ShowClaims(showID int64) ([]SeatClaim, error)
	// ShowBlocks lists the blocks in force for show sh (its own, and its
	// hall's hall-wide ones made before it starts), as the transaction
	// sees them; the layout's blocked seats need not be among them.
	ShowBlocks(sh booking.Show) ([]BlockInForce, error)
	// ClaimedSeatIDs lists every seat hold holdID ever claimed, whatever
	// became of the claim.
	ClaimedSeatIDs(holdID int64) ([]int64, error)
	// ReleaseHold lets go of seatIDs of hold holdID of show showID (every
	// seat when none), held -> released, and of the hold itself once none
	// is left, and says how many claims and holds it moved: 0 for a hold
	// that had ended.
	ReleaseHold(holdID, showID int64, seatIDs []int64) (int, error)
	// GiveBackHolds releases every held hold whose owner is owner (with
	// prefix, starts with it), lapsed or not, with its claims, and says
	// how many holds and of which shows.
	GiveBackHolds(owner string, prefix bool) (n int, shows []int64, err error)
	// LapsedHoldShows lists the shows with a held hold that is not live
	// at the transaction's time (HoldLive): what ExpireStaleHolds frees.
	LapsedHoldShows() ([]int64, error)
	// ConfirmHold moves owner's hold holdID held -> confirmed by
	// compare-and-set, which requires it live at the transaction's time
	// (HoldLive); ok is false, and nothing is written, when it was not.
	// It returns the hold's show, the show's price list (as stored) and
	// the price generation (PriceGen) as the transaction sees them.
	ConfirmHold(holdID int64, owner string) (c Confirmed, ok bool, err error)
	// PayingReservation says this transaction sells reservation
	// number's hold, which the database lets only its payment confirm.
	PayingReservation(number string) error
	// PriceGen is the price generation: a value that moves whenever a
	// ticket type or a price is written, by anything. "" when the
	// database keeps none (then a copy of the table is never reused).
	PriceGen() (string, error)
	// PriceTable reads the ticket types and the prices (not the lists)
	// as the transaction sees them.
	PriceTable() (*booking.PriceTable, error)
	// InsertSale writes booking b, confirmed, at the transaction's time,
	// under number b.Number or, when that is "", a fresh random number,
	// with its customer's name words (booking.NameWords), and returns its
	// id and number. ErrKeyUsed, with nothing written, when b.Key made a
	// booking already or b.Number is taken.
	InsertSale(b NewBooking) (id int64, number string, err error)
	// SellHeldClaims moves the held claims of hold holdID to sold by
	// booking bookingID, adds them to show showID's sold seats and says
	// how many it moved.
	SellHeldClaims(holdID, bookingID, showID int64) (int, error)
	// SellHold sells hold s.HoldID as the store decided, in one step
	// that is the transaction's last (the driver may commit with it):
	// the hold confirmed, the booking s.Booking, its claims sold, its
	// tickets, its payment, its audit row and its name words. ok is
	// false, with nothing written, when the database disagrees with a
	// decision: the hold not owner's, not held or not live, its held
	// seats not exactly s.SeatIDs, the price generation or the show's
	// price list moved, the key used, the number taken, the cash shift
	// not open, or s.Actor no longer standing.
	SellHold(s Sale) (d SaleDone, ok bool, err error)
}

// SaleReads are the sale path's reads outside a transaction.
type SaleReads interface {
	// ReadShows reads the shows starting in [from, to) with their counts
	// at now (sold, held by live holds, kept out of sale) and life, of
	// site's halls (0: every site's), by start and hall name.
	ReadShows(ctx context.Context, from, to time.Time, site int64, now time.Time) ([]booking.Show, error)
	// ReadShow reads one show with its counts at now and its life; found
	// is false when there is no such show.
	ReadShow(ctx context.Context, showID int64, now time.Time) (sh booking.Show, found bool, err error)
	// ReadSeatMap reads show sh's claims (held or sold), blocks in force,
	// price list and life as of one moment. A driver may answer from a
	// copy it drops whenever the show changes.
	ReadSeatMap(ctx context.Context, sh booking.Show) (*SeatSnapshot, error)
	// ReadShowPriceList reads a show's price list (as stored); ENotFound
	// for no such show.
	ReadShowPriceList(ctx context.Context, showID int64) (string, error)
	// ReadHeldHolds lists the held holds whose owner starts with prefix,
	// lapsed or not, with the seats they still hold, by id.
	ReadHeldHolds(ctx context.Context, prefix string) ([]HeldHold, error)
	// ReadPrices reads the ticket types and the prices (not the lists)
	// with the price generation they are at (PriceGen), as of one moment.
	ReadPrices(ctx context.Context) (t *booking.PriceTable, gen string, err error)
	// ReadLapsedHolds reports whether a held hold is not live at now
	// (HoldLive): a sweep that finds none need not write.
	ReadLapsedHolds(ctx context.Context, now time.Time) (bool, error)
}

// ActorCheck is what a one-step write verifies of its actor in the
// database, as CheckActor does: the staff row StaffID (0: none) enabled
// with one of Roles, the terminal TerminalID (0: none) still registered.
type ActorCheck struct {
	StaffID    int64
	Roles      []string
	TerminalID int64
}

// actorCheck is what CheckActor would ask of actor's rows.
func actorCheck(actor booking.Actor) ActorCheck {
	c := ActorCheck{StaffID: actor.StaffID, TerminalID: actor.TerminalID}
	for r := max(actor.Role, booking.RoleDoor); r <= booking.RoleManager; r++ {
		c.Roles = append(c.Roles, r.String())
	}
	return c
}

// NewHold is a hold HoldNew makes in one step.
type NewHold struct {
	ShowID  int64
	Owner   string
	SeatIDs []int64 // ascending
	Labels  string  // the seats' labels, space separated, for the audit row
	Expires time.Time
	Actor   ActorCheck
	// Audit is the hold's audit row; the driver sets its Detail to
	// HoldDetail of the new hold's id and Labels.
	Audit AuditRow
}

// SeatClaim is a claim of a seat that is held or sold, with its hold.
type SeatClaim struct {
	SeatID, HoldID   int64
	Sold             bool
	Owner            string // its hold's
	Created, Expires int64  // its hold's, unix ms
}

// live reports whether the claim keeps its seat from others at now (unix
// ms): sold, or held by a live hold.
func (c SeatClaim) live(now int64) bool {
	return c.Sold || HoldLive(c.Owner, c.Created, c.Expires, now)
}

// BlockInForce is a block of a seat in force for a show, as stored.
type BlockInForce struct {
	SeatID     int64
	Kind       string
	Reason, By string
	At         int64 // unix ms
	HallWide   bool
}

// HeldHold is a held hold with the seats it still holds.
type HeldHold struct {
	ID, ShowID       int64
	Owner            string
	Created, Expires int64 // unix ms
	SeatIDs          []int64
}

// SeatSnapshot is a show's claims, blocks in force, price list and life
// as of one moment.
type SeatSnapshot struct {
	PriceList string
	Life      Life
	Claims    []SeatClaim
	Blocks    []BlockInForce
}

// Confirmed is what ConfirmHold read of the hold it confirmed.
type Confirmed struct {
	ShowID    int64
	PriceList string
	PriceGen  string
}

// Sale is a checkout as the store decided it, for SellHold to verify and
// write.
type Sale struct {
	HoldID  int64
	Owner   string
	SeatIDs []int64 // the hold's held seats, ascending
	// PriceGen and PriceList are what the lines were priced at: the
	// price generation and the show's price list (as stored).
	PriceGen, PriceList string
	Booking             NewBooking
	Lines               []booking.QuoteLine
	Method              booking.PayMethod
	Tendered, Change    booking.Money
	// ShiftID is the cash sale's shift, which must be open and the
	// seller's; a card sale (0) joins the seller's open shift, if any.
	ShiftID int64
	Actor   ActorCheck
	// Audit is the sale's audit row; the driver fills in its booking.
	Audit AuditRow
}

// SaleDone is what SellHold wrote.
type SaleDone struct {
	BookingID, PaymentID int64
	Number               string // the booking's
	ShiftID              int64  // the payment's; 0: none
}

// errMissed says a one-step write found the database disagreeing with
// what the store decided and wrote nothing: the store takes the fully
// checked path. A *booking.Error, so every driver hands it back as it
// is; its words are what a clerk would read were it ever to leak.
var errMissed = &booking.Error{Code: booking.EConflict, Message: "That was changed at another counter; try again."}

// oneStep runs fn as a write transaction whose one step verifies its
// actor itself (ActorCheck), so CheckActor does not run first: missed,
// with nothing written, when fn's step was not ok.
func oneStep[T any](s *Store, ctx context.Context, w Write, fn func(tx Tx) (T, bool, error)) (out T, missed bool, err error) {
	out, err = write(s, ctx, booking.System, w, func(tx Tx) (T, error) {
		v, ok, err := fn(tx)
		if err == nil && !ok {
			err = errMissed
		}
		return v, err
	})
	if errors.Is(err, errMissed) {
		return out, true, nil
	}
	return out, false, err
}
