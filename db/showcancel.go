package db

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"boxoffice/booking"
)

// Cancelling a show: the show is marked cancelled first, in a
// transaction of its own that also lets go of its live holds, so no
// counter can hold or sell a seat of it from then on; then each booking
// is unwound and refunded in a small transaction of its own, claimed by
// compare-and-set, so counters selling other shows wait behind one
// booking at a time, never behind the whole hall, and a run killed
// halfway, or two runs at once, refund each booking exactly once.

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
	if _, err := s.showInfo(ctx, showID); err != nil {
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
	return s.cancellation(ctx, showID, n)
}

// cashNeedsShift refuses, before anything is written, to cancel a show
// with bookings paid in cash when the actor has no shift open: their
// refunds come out of the canceller's drawer, as a counter refund does,
// so the money handed back at the counter belongs to a shift that closes
// with it. Card refunds need no shift.
func (s *Store) cashNeedsShift(ctx context.Context, actor booking.Actor, showID int64) error {
	var cash int
	if err := s.readRow(ctx, `SELECT count(*) FROM bookings b JOIN payments p ON p.booking_id = b.id AND p.kind = 'sale' AND p.method = 'cash'
		WHERE b.show_id = ? AND b.status = 'confirmed'`, showID).Scan(&cash); err != nil {
		return s.translate("cancel show", err)
	}
	if cash == 0 {
		return nil
	}
	var shift int64
	err := s.readRow(ctx, qOpenShiftOf, actor.Name).Scan(&shift)
	if isNoRows(err) {
		return booking.Errorf(booking.EInvalid, "%s paid in cash: open a shift first (the float in the drawer); their refunds come out of it.", plural(cash, "booking", "bookings"))
	}
	return s.translate("cancel show", err)
}

// markCancelled moves the show scheduled -> cancelled by compare-and-set
// with why, by whom and when, releases its live holds and marks it
// settled (its bookings are refunded, not settled). A show cancelled
// already is left as it is: the run resumes the refunds. A show that
// ended is refused: its bookings are refunded one by one.
func (s *Store) markCancelled(ctx context.Context, actor booking.Actor, showID int64, reason string) error {
	return apply(s, ctx, actor, "cancel show", func(w *wtx) error {
		sh, err := s.liveShow(w, showID)
		if err != nil {
			return err
		}
		if sh.Cancelled() {
			return nil
		}
		if !w.now.Before(sh.Ends()) {
			return booking.Errorf(booking.EInvalid, "The %s show ended at %s: refund its bookings one by one.",
				sh.Starts.In(w.now.Location()).Format("Mon 15:04"), sh.Ends().In(w.now.Location()).Format("15:04"))
		}
		var sold int
		if err := w.queryRow(`UPDATE shows SET status = 'cancelled', cancel_reason = ?, cancelled_by = ?, cancelled_at = ?, settled_at = ?
			WHERE id = ? AND status = 'scheduled' RETURNING sold`, reason, actor.Name, w.nowMS(), w.nowMS(), showID).Scan(&sold); err != nil {
			return err // no row: the status read above was scheduled, in this transaction
		}
		released, err := releaseShowHolds(w, showID)
		if err != nil {
			return err
		}
		w.touch(showID)
		detail := fmt.Sprintf("show %d cancelled: %s (%d seats sold, %s released)", showID, reason, sold, plural(released, "hold", "holds"))
		return w.audit(actor, booking.AuditEntry{Action: booking.AuditCancelShow, ShowID: showID, Detail: detail}, 0)
	})
}

// releaseShowHolds lets go of every live hold of a show, lapsed or not,
// and says how many: a counter's held seats are no use on a cancelled
// show, and its checkout then finds the hold released.
func releaseShowHolds(w *wtx, showID int64) (int, error) {
	ids, err := queryList[int64](w, `UPDATE holds SET status = 'released' WHERE show_id = ? AND status = 'held' RETURNING id`, showID)
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		if _, err := w.exec(`UPDATE seat_claims SET status = 'released' WHERE hold_id = ? AND status = 'held'`, id); err != nil {
			return 0, err
		}
	}
	return len(ids), nil
}

// refundChunk is how many bookings refundShow reads at a time.
const refundChunk = 64

// refundShow unwinds every booking of the cancelled show still
// confirmed, one transaction each, and says how many this run refunded.
// Another run at the same time reads the same bookings; the
// compare-and-set on each gives it to one of them.
func (s *Store) refundShow(ctx context.Context, actor booking.Actor, showID int64) (int, error) {
	progress, _ := ctx.Value(cancelProgressKey{}).(func(int))
	n := 0
	for {
		ids, err := s.readIDs(ctx, `SELECT id FROM bookings WHERE show_id = ? AND status = 'confirmed' ORDER BY id LIMIT `+fmt.Sprint(refundChunk), showID)
		if err != nil {
			return n, err
		}
		if len(ids) == 0 {
			return n, nil
		}
		for _, id := range ids {
			done, err := write(s, ctx, actor, "cancel show booking", func(w *wtx) (bool, error) {
				return unwindForShow(w, actor, showID, id)
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
// nothing is written), then its seats, its tickets voided — admitted ones
// too, since the show they were let into did not happen — and a refund
// per ticket by the way it was paid, with its audit row.
func unwindForShow(w *wtx, actor booking.Actor, showID, bookingID int64) (bool, error) {
	var reason string
	var status booking.ShowStatus
	if err := w.queryRow(`SELECT status, cancel_reason FROM shows WHERE id = ?`, showID).Scan(&status, &reason); err != nil {
		return false, err
	}
	if status != booking.ShowCancelled {
		return false, booking.Errorf(booking.EInternal, "cancel show %d: refunding a show that is %s", showID, status)
	}
	c := cancelled{showID: showID}
	var number string
	err := w.queryRow(`UPDATE bookings SET status = 'cancelled', cancelled_by = ?, reason = ?, cancelled_at = ?
		WHERE id = ? AND show_id = ? AND status = 'confirmed' RETURNING id, total, hold_id, number`,
		actor.Name, "show cancelled: "+reason, w.nowMS(), bookingID, showID).Scan(&c.id, &c.total, &c.holdID, &number)
	if isNoRows(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	voided, err := c.freeSeats(w)
	if err != nil {
		return false, err
	}
	admitted, err := voidAdmitted(w, c)
	if err != nil {
		return false, err
	}
	r, err := newRefunder(w, actor, "", c.id, nil)
	if err != nil {
		return false, err
	}
	var refunded booking.Money
	for _, t := range append(voided, admitted...) {
		if err := r.refund(w, t); err != nil {
			return false, err
		}
		refunded += t.price
	}
	w.touch(showID)
	return true, w.audit(actor, booking.AuditEntry{Action: booking.AuditCancel, ShowID: showID, ShiftID: r.shift, Amount: refunded,
		Detail: number + " show cancelled: " + reason}, c.id)
}

// voidAdmitted voids the booking's admitted tickets and returns them for
// their refunds. Their seats were freed with the rest (freeSeats frees
// every sold claim of the booking).
func voidAdmitted(w *wtx, c cancelled) ([]refundable, error) {
	return voidTickets(w, `UPDATE tickets SET status = 'void' WHERE id BETWEEN ? AND ? AND status = 'admitted' RETURNING id, price`, c)
}

// qCancelContacts lists the bookings a show's cancellation refunded —
// cancelled at or after the show was — with what went back to each, by
// booking number.
const qCancelContacts = `SELECT b.number, b.customer, b.phone, p.method,
		(SELECT coalesce(sum(r.amount), 0) FROM payments r WHERE r.booking_id = b.id AND r.kind = 'refund'),
		(SELECT count(*) FROM payments r WHERE r.booking_id = b.id AND r.kind = 'refund')
	FROM bookings b JOIN payments p ON p.booking_id = b.id AND p.kind = 'sale'
	WHERE b.show_id = ? AND b.status = 'cancelled' AND b.cancelled_at >= ? ORDER BY b.number`

// cancellation reads the cancelled show and the customers to contact.
func (s *Store) cancellation(ctx context.Context, showID int64, refundedNow int) (*booking.ShowCancellation, error) {
	sh, err := s.Show(ctx, booking.System, showID)
	if err != nil {
		return nil, err
	}
	out := &booking.ShowCancellation{Show: *sh, Reason: sh.CancelReason, RefundedNow: refundedNow}
	var at sql.NullInt64
	if err := s.readRow(ctx, `SELECT cancelled_by, cancelled_at FROM shows WHERE id = ?`, showID).Scan(&out.By, &at); err != nil {
		return nil, s.translate("cancel show", err)
	}
	out.At = time.UnixMilli(at.Int64)
	rows, err := s.readRows(ctx, qCancelContacts, showID, at.Int64)
	if err != nil {
		return nil, s.translate("cancel show", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k booking.CancelContact
		if err := rows.Scan(&k.Booking, &k.Name, &k.Phone, &k.Method, &k.Refunded, &k.Tickets); err != nil {
			return nil, s.translate("cancel show", err)
		}
		out.Contacts = append(out.Contacts, k)
	}
	return out, s.translate("cancel show", rows.Err())
}
