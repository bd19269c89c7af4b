package store

import (
	"context"
	"fmt"
	"strconv"

	"boxoffice/booking"
)

// Cancelling a show: the show is marked cancelled first, in a transaction
// of its own that also lets go of its live holds, so no counter on any
// server can hold or sell a seat of it from then on; then each booking is
// unwound and refunded in a small transaction of its own, claimed by
// compare-and-set, so counters selling other shows wait behind one
// booking at a time, never behind the whole hall, and a run killed
// halfway, or two runs at once, refund each booking exactly once.

// ShowCancelTx is what cancelling a show asks of a transaction beyond
// RefundTx and CancelTx.
type ShowCancelTx interface {
	// HoldOffSales makes every transaction writing holds or seat claims
	// end first and holds off new ones until this one commits, where the
	// engine runs several at once: the holds the cancel lets go of are
	// then every hold of the show there is, and a hold that waited reads
	// the show cancelled.
	HoldOffSales() error
	// MarkShowCancelled moves a show scheduled -> cancelled, settled,
	// at the transaction's time, by compare-and-set, with why and by
	// whom, and says how many of its seats were sold; ok is false when
	// it was no longer scheduled.
	MarkShowCancelled(showID int64, reason, by string) (sold int, ok bool, err error)
	// ReleaseShowHolds lets go of every live hold of a show, lapsed or
	// not, with its claims, and lists them.
	ReleaseShowHolds(showID int64) ([]int64, error)
}

// ShowCancelReads are the reads of a show's cancel outside a transaction.
type ShowCancelReads interface {
	// ReadCashBookings counts a show's confirmed bookings paid in cash.
	ReadCashBookings(ctx context.Context, showID int64) (int, error)
	// ReadConfirmedBookings lists the ids of up to limit of a show's
	// confirmed bookings, lowest first.
	ReadConfirmedBookings(ctx context.Context, showID int64, limit int) ([]int64, error)
	// ReadCancellation fills in who cancelled a show and when, and the
	// bookings its cancel refunded — cancelled at or after it was — with
	// what went back to each, by booking number (ScanContacts).
	ReadCancellation(ctx context.Context, showID int64, into *booking.ShowCancellation) error
}

// cancelProgressKey carries a function told after each booking a
// CancelShow refunds (WithCancelProgress).
type cancelProgressKey struct{}

// WithCancelProgress returns ctx carrying fn, which CancelShow calls
// after each booking it refunded has committed, with how many it has
// refunded so far: for a command line that shows progress, and for the
// test that kills a cancel halfway.
func WithCancelProgress(ctx context.Context, fn func(refunded int)) context.Context {
	return context.WithValue(ctx, cancelProgressKey{}, fn)
}

// refundChunk is how many bookings refundShow reads at a time.
const refundChunk = 64

// CancelShow cancels a show and refunds every live booking of it, each
// once, resuming whatever an earlier run left.
func (s *Store) CancelShow(ctx context.Context, actor booking.Actor, showID int64, reason string) (*booking.ShowCancellation, error) {
	if err := booking.Authorize(actor, booking.ActionCancelShow); err != nil {
		return nil, err
	}
	reason, err := booking.CheckCancelReason(reason)
	if err != nil {
		return nil, err
	}
	if _, err := s.prog.Show(ctx, showID); err != nil {
		return nil, err
	}
	if err := s.cashNeedsShift(ctx, actor, showID); err != nil {
		return nil, err
	}
	if err := s.markCancelled(ctx, actor, showID, reason); err != nil {
		return nil, err
	}
	n, err := s.refundShow(ctx, actor, showID)
	if err != nil {
		return nil, err
	}
	sh, err := s.Show(ctx, booking.System, showID)
	if err != nil {
		return nil, err
	}
	out := &booking.ShowCancellation{Show: *sh, Reason: sh.CancelReason, RefundedNow: n}
	return out, s.d.ReadCancellation(ctx, showID, out)
}

// ScanContacts reads the customers to call about a cancelled show from
// rows of booking number, name, phone, method, amount refunded and
// tickets, in that order.
func ScanContacts(rows Rows) ([]booking.CancelContact, error) {
	var out []booking.CancelContact
	for rows.Next() {
		var k booking.CancelContact
		if err := rows.Scan(&k.Booking, &k.Name, &k.Phone, &k.Method, &k.Refunded, &k.Tickets); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// cashNeedsShift refuses, before anything is written, to cancel a show
// with bookings paid in cash when the actor has no shift open: their
// refunds come out of the canceller's drawer, as a counter refund does,
// so the money handed back at the counter belongs to a shift that closes
// with it. Card refunds need no shift.
func (s *Store) cashNeedsShift(ctx context.Context, actor booking.Actor, showID int64) error {
	cash, err := s.d.ReadCashBookings(ctx, showID)
	if err != nil || cash == 0 {
		return err
	}
	_, open, err := s.d.ReadOpenShift(ctx, actor.Name)
	if err != nil || open {
		return err
	}
	return booking.NoShiftForCash(cash)
}

// markCancelled moves the show scheduled -> cancelled by compare-and-set
// with why, by whom and when, releases its live holds and marks it
// settled (its bookings are refunded, not settled). A show cancelled
// already is left as it is: the run resumes the refunds. A show that
// ended is refused: its bookings are refunded one by one.
func (s *Store) markCancelled(ctx context.Context, actor booking.Actor, showID int64, reason string) error {
	return apply(s, ctx, actor, Write{Op: "cancel show"}, func(tx Tx) error {
		if err := tx.HoldOffSales(); err != nil {
			return err
		}
		sh, err := LiveShow(tx, s.prog, showID)
		if err != nil {
			return err
		}
		if sh.Cancelled() {
			return nil
		}
		now := tx.Now()
		if !now.Before(sh.Ends()) {
			return booking.Errorf(booking.EInvalid, "The %s show ended at %s: refund its bookings one by one.",
				sh.Starts.In(now.Location()).Format("Mon 15:04"), sh.Ends().In(now.Location()).Format("15:04"))
		}
		sold, ok, err := tx.MarkShowCancelled(showID, reason, actor.Name)
		if err != nil || !ok {
			return err // not moved: another run cancelled it since the read
		}
		released, err := tx.ReleaseShowHolds(showID)
		if err != nil {
			return err
		}
		// The show's unpaid reservations go with their holds, and give
		// back the voucher uses they took, once.
		if err := LapseReservations(tx, released); err != nil {
			return err
		}
		tx.Touch(showID)
		detail := fmt.Sprintf("show %d cancelled: %s (%d seats sold, %s released)", showID, reason, sold, plural(len(released), "hold", "holds"))
		return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditCancelShow, ShowID: showID, Detail: detail}, 0)
	})
}

// refundShow unwinds every booking of the cancelled show still
// confirmed, one transaction each, and says how many this run refunded.
// Another run at the same time reads the same bookings; the
// compare-and-set on each gives it to one of them.
func (s *Store) refundShow(ctx context.Context, actor booking.Actor, showID int64) (int, error) {
	progress, _ := ctx.Value(cancelProgressKey{}).(func(int))
	n := 0
	for {
		ids, err := s.d.ReadConfirmedBookings(ctx, showID, refundChunk)
		if err != nil || len(ids) == 0 {
			return n, err
		}
		for _, id := range ids {
			done, err := write(s, ctx, actor, Write{Op: "cancel show booking"}, func(tx Tx) (bool, error) {
				return unwindForShow(tx, s.prog, actor, showID, id)
			})
			if err != nil {
				return n, err
			}
			if done {
				n++
				if progress != nil {
					progress(n)
				}
			}
		}
	}
}

// unwindForShow cancels one booking of a cancelled show: the status
// first, by compare-and-set (a booking another run took is left alone and
// nothing is written), then its tickets voided — admitted ones too, since
// the show they were let into did not happen — its seats freed, and a
// refund per ticket by the way it was paid, with its audit row.
func unwindForShow(tx Tx, prog *Programme, actor booking.Actor, showID, bookingID int64) (bool, error) {
	sh, err := LiveShow(tx, prog, showID)
	if err != nil {
		return false, err
	}
	if !sh.Cancelled() {
		return false, booking.Errorf(booking.EInternal, "cancel show %d: refunding a show that is %s", showID, sh.Status)
	}
	b, found, err := tx.BookingForUpdate(bookingID)
	if err != nil || !found || b.ShowID != showID || b.Status != booking.BookingConfirmed {
		return false, err
	}
	why := "show cancelled: " + sh.CancelReason
	moved, err := tx.CancelBooking(b.ID, Cancellation{By: actor.Name, Reason: why})
	if err != nil || !moved {
		return false, err
	}
	var voided []Refundable
	for _, from := range []booking.TicketStatus{booking.TicketIssued, booking.TicketAdmitted} {
		v, err := tx.VoidTickets(b.ID, from)
		if err != nil {
			return false, err
		}
		voided = append(voided, v...)
	}
	if _, err := tx.FreeSeats(b, nil); err != nil {
		return false, err
	}
	r, err := newRefunder(tx, actor, "", why, b.ID, nil)
	if err != nil {
		return false, err
	}
	refunded, err := r.refundAll(tx, voided)
	if err != nil {
		return false, err
	}
	if err := unwindExtras(tx, actor, "", b, r.shift); err != nil {
		return false, err
	}
	tx.Touch(showID)
	return true, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditCancel, ShowID: showID, ShiftID: r.shift, Amount: refunded,
		Detail: b.Number + " show cancelled: " + sh.CancelReason}, b.ID)
}

// plural writes "1 booking" or "3 bookings".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
