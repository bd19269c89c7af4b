package pg

import (
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"boxoffice/booking"
	"boxoffice/store"
)

// The messages a clerk reads while the database server cannot be reached.
// A write's say what became of it, and that the counter, which keeps what
// it was doing, tries the same call again (a checkout with the same
// idempotency key). A read's say neither: nothing was to be saved, and a
// command that only reads (boxoffice shows, report…) tries nothing again.
const (
	// msgReadUnreachable: a read, or opening the store.
	msgReadUnreachable = store.MsgReadUnreachable
	// msgUnreachable: the failure came before any COMMIT went out, so
	// the server rolled the transaction back (or never saw it).
	msgUnreachable = store.MsgUnreachable
	// msgSaleMaybeMade: a checkout's COMMIT went out and its answer was
	// lost. The retry with the same key answers with the booking if it
	// was made, or makes it now; never two (settleCheckout).
	msgSaleMaybeMade = store.MsgSaleMaybeMade
	// msgMaybeSaved: any other write whose COMMIT answer was lost (a
	// hold that committed holds its seats until it runs out).
	msgMaybeSaved = "The database server cannot be reached: the change may have been saved. Trying again…"
)

// commitUnknownError is a connection that failed after the transaction's
// COMMIT was sent: the server may have committed it before it went.
type commitUnknownError struct{ err error }

func (e *commitUnknownError) Error() string { return "commit sent, answer lost: " + e.err.Error() }
func (e *commitUnknownError) Unwrap() error { return e.err }

// unreachable reports a failure to reach the server, or a connection to
// it that broke: refused or reset, the server shutting down (57P01
// admin_shutdown, 57P02 crash_shutdown), starting up or recovering (57P03
// cannot_connect_now), a connection exception (class 08), or a
// connection pgx closed after one of those. A server that answered and
// refused (a wrong password, a missing database) is not unreachable: it
// is a setting to fix, and stays an internal error.
func unreachable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || pgconn.SafeToRetry(err) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE)
}

// unavailable is the clerk's error for an unreachable server (translate),
// EUnavailable in every case; the words depend on whether it was a write
// (inTx) and whether a COMMIT went out before the connection broke.
func (s *Store) unavailable(op string, err error, wrote bool) error {
	s.faults.markDown()
	var cu *commitUnknownError
	switch {
	case !wrote:
		s.log.Error("database unreachable", "op", op, "err", err)
		return booking.Errorf(booking.EUnavailable, msgReadUnreachable)
	case errors.As(err, &cu) && op == "checkout":
		s.log.Error("database unreachable after COMMIT was sent", "op", op, "err", err)
		return booking.Errorf(booking.EUnavailable, msgSaleMaybeMade)
	case errors.As(err, &cu):
		s.log.Error("database unreachable after COMMIT was sent", "op", op, "err", err)
		return booking.Errorf(booking.EUnavailable, msgMaybeSaved)
	}
	s.log.Error("database unreachable", "op", op, "err", err)
	return booking.Errorf(booking.EUnavailable, msgUnreachable)
}

// faults is what a store remembers of the server going away: when it
// last found it unreachable, and the idempotency keys whose checkout's
// COMMIT answer was lost and not yet settled (fault.go).
type faults struct {
	downAt atomic.Int64 // unix nanoseconds; 0: never
	unsure sync.Map     // key -> struct{}
}

func (f *faults) markDown() { f.downAt.Store(time.Now().UnixNano()) }

// pingWindow is how long after the server was last found unreachable the
// pool pings every connection it hands out.
const pingWindow = 10 * time.Second

// shouldPing is the pool's ShouldPing: pgxpool's default (ping a
// connection idle for over a second) and, for pingWindow after the
// server was found unreachable, every connection. A server that went and
// came back within a second leaves connections in the pool that look
// fresh but are dead; without the ping the next transaction on one would
// fail, for a hold after its COMMIT went out (one batch), as "may have
// been saved".
func (f *faults) shouldPing(idle time.Duration) bool {
	at := f.downAt.Load()
	return idle > time.Second || (at != 0 && time.Since(time.Unix(0, at)) < pingWindow)
}
