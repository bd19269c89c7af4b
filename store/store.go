// Package store is the box office's store, written once: every rule that
// checks inside a write and then acts — the door, refunds and cancels,
// exchanges, shifts, the roster and its sign-in lockout, blocked and house
// seats, reservations and the kiosk, the waiting list, a show's life and
// the programme's edits — over the small typed transactions a driver gives
// it. Package db (SQLite) and package pg (PostgreSQL) are the drivers: each
// implements Driver and Tx in its own SQL and keeps what is truly its own
// (SQLite's writer and group commit, pgx batches and LISTEN/NOTIFY,
// migrations, backup).
//
// The shape is river's (riverqueue/river: one driver interface, one
// implementation per engine, one driver test suite): no SQL crosses the
// line, only typed queries such as "the live claims of these seats" or
// "insert a refund payment". A rule is written here once; a driver answers
// its queries.
//
// Import direction: db, pg -> store -> booking.
package store

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"boxoffice/booking"
)

// Driver is what an engine gives the store: write transactions and the
// reads the rules need outside them.
type Driver interface {
	// Write runs fn as one write transaction and commits it, or rolls it
	// back when fn fails, and returns fn's result. fn may run more than
	// once (a batch retried after another process's lock, a serialization
	// failure), so it must not act outside the transaction, and its
	// result travels back only through its return value. After the
	// commit the driver publishes the shows fn touched (Tx.Touch). A
	// failure of the engine comes back translated into a booking error
	// ("Internal error.", the details logged).
	Write(ctx context.Context, w Write, fn func(Tx) (any, error)) (any, error)

	// Now is the store's clock, outside any transaction.
	Now() time.Time

	Reads
}

// Write says how a driver runs one write transaction.
type Write struct {
	// Op names the write in logs and translated errors ("admit").
	Op string
	// Isolation is what the rule needs where the engine runs several
	// writes at once (PostgreSQL); SQLite runs one at a time.
	Isolation Isolation
	// Release marks a shutdown's own release of seats, which still runs
	// on a quiesced store.
	Release bool
	// Hold marks a write that only holds or frees seats: nothing paid
	// rests on it alone, so an engine may commit it without waiting for
	// the disk (a lost hold frees its seats; the checkout that sells a
	// hold waits, and that wait covers the hold's commit too).
	Hold bool
}

// Isolation is how a write is kept apart from others running at once.
type Isolation int

const (
	// ReadCommitted: each statement sees what committed before it. A rule
	// that reads a row and then changes it reads it with a typed query
	// that locks it (named …ForUpdate), so two such writes take turns.
	ReadCommitted Isolation = iota
	// Serializable: the transaction runs as if alone; the driver retries
	// it when the engine says it could not be.
	Serializable
)

// Options are what the rules need to know beyond the driver.
type Options struct {
	// TicketKeys verify ticket codes: the current key first, then the
	// keys of codes signed before a rotation.
	TicketKeys []booking.TicketKey
	// ReserveCutoff is how long before its show a reservation lapses
	// unpaid; booking.DefaultReserveCutoff when zero.
	ReserveCutoff time.Duration
	// PhoneCountry is the country code a phone number typed with a trunk
	// 0 is in, for booking.NormalPhone; booking.DefaultPhoneCountry when
	// empty.
	PhoneCountry string
	// Logger receives what the rules log; discarded when nil.
	Logger *slog.Logger
	// PINCost is the bcrypt cost of the PIN hashes the store makes;
	// bcrypt.DefaultCost when zero. Tests lower it: the race detector
	// makes each hash slow.
	PINCost int
	// PINChecks, when set, counts every PIN compared: what the lockout
	// bounds, for the driver's figures.
	PINChecks *atomic.Int64
}

// Store implements the capabilities of booking.Store that are rules
// written once. A driver's store embeds it, so its methods are the
// driver's exported methods.
type Store struct {
	d     Driver
	prog  *Programme
	opts  Options
	log   *slog.Logger
	sales *saleCache

	dummyOnce sync.Once // dummyHash
	dummy     []byte
	dummyErr  error
}

// New makes the store of driver d, with the programme's cache read
// through d (ProgrammeOf).
func New(d Driver, opts Options) *Store {
	if opts.ReserveCutoff <= 0 {
		opts.ReserveCutoff = booking.DefaultReserveCutoff
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Store{d: d, prog: NewProgramme(d), opts: opts, log: log, sales: newSaleCache()}
}

// ProgrammeOf is the cache of halls, seats and shows s's rules read: the
// driver reads the same one, and tells it what to forget. A function,
// not a method: a driver's store embeds Store, and every method it
// promotes is a capability of booking.Store.
func ProgrammeOf(s *Store) *Programme { return s.prog }

// write runs fn as one write transaction for actor: before fn, inside the
// transaction, it checks that the actor may still act (CheckActor), so a
// person disabled or a terminal removed since sign-in can do nothing from
// their next write on, whatever session they still hold.
func write[T any](s *Store, ctx context.Context, actor booking.Actor, w Write, fn func(tx Tx) (T, error)) (T, error) {
	out, err := s.d.Write(ctx, w, func(tx Tx) (any, error) {
		if err := CheckActor(tx, actor); err != nil {
			return nil, err
		}
		return fn(tx)
	})
	if err != nil {
		var zero T
		return zero, err
	}
	v, _ := out.(T)
	return v, nil
}

// apply is write for a write whose result is only its error.
func apply(s *Store, ctx context.Context, actor booking.Actor, w Write, fn func(tx Tx) error) error {
	_, err := write(s, ctx, actor, w, func(tx Tx) (struct{}, error) { return struct{}{}, fn(tx) })
	return err
}

// answerTimeout bounds the read that answers a write already committed:
// long, because under load a read can queue behind many others, and the
// write is done whatever the read says.
const answerTimeout = 30 * time.Second

// committed reads what a committed write made, on a context of its own:
// the caller's may end the moment after the commit, and the answer must
// not turn a sale that was made into an error. Should the read still
// fail, the error says the change was made (ErrSavedUnread): a clerk told
// "cancelled" must not be told "failed" for a cancel that happened.
func committed[T any](ctx context.Context, read func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), answerTimeout)
	defer cancel()
	v, err := read(ctx)
	if err != nil {
		return v, ErrSavedUnread(err)
	}
	return v, nil
}

// ErrSavedUnread is the answer to a write that committed but whose result
// could not be read back: the change was made, and the words say so.
func ErrSavedUnread(cause error) error {
	return &booking.Error{Code: booking.EInternal, Message: "Done and saved, but the result could not be read back (" +
		booking.ErrorMessage(cause) + "): look it up again."}
}

// committedBooking reads the booking a committed write made or changed,
// as the answer to that write (committed).
func (s *Store) committedBooking(ctx context.Context, id int64) (*booking.Booking, error) {
	return committed(ctx, func(ctx context.Context) (*booking.Booking, error) { return LoadBooking(s, ctx, id) })
}
