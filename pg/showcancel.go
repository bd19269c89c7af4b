package pg

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// Cancelling a show, as db's showcancel.go: the show is marked cancelled
// first, in a transaction of its own that also lets go of its live holds,
// so no counter on any server can hold or sell a seat of it from then on;
// then each booking is unwound and refunded in a small transaction of its
// own, claimed by compare-and-set, so a run killed halfway, or two runs
// at once (on one server or two), refund each booking exactly once.

// cancelShowMode is how the show is marked cancelled. READ COMMITTED,
// with holds and seat_claims locked against writes first (blockLockSQL,
// as a block locks them): the lock waits for every hold and checkout writing claims
// to end and holds off new ones until the cancel commits, so the holds
// the cancel releases are every hold of the show there is, and a hold
// that waited reads the show cancelled (salesOpen reads it after its
// claims). Without it a hold whose salesOpen read the show an instant
// before the cancel committed could outlive the cancel and be sold. A
// cancel is a manager's rare act; the pause is its own few milliseconds.
var cancelShowMode = txMode{iso: pgx.ReadCommitted}

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
// refunds come out of the canceller's drawer.
func (s *Store) cashNeedsShift(ctx context.Context, actor booking.Actor, showID int64) error {
	var cash, shifts int
	err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM bookings b JOIN payments p ON p.booking_id = b.id AND p.kind = 'sale' AND p.method = 'cash'
		WHERE b.show_id = $1 AND b.status = 'confirmed'),
		(SELECT count(*) FROM shifts WHERE lower(staff) = lower($2) AND status = 'open')`, showID, actor.Name).Scan(&cash, &shifts)
	if err != nil {
		return s.translate("cancel show", err)
	}
	if cash > 0 && shifts == 0 {
		return booking.Errorf(booking.EInvalid, "%s paid in cash: open a shift first (the float in the drawer); their refunds come out of it.", plural(cash, "booking", "bookings"))
	}
	return nil
}

// plural writes "1 seat" or "3 seats".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// markCancelled moves the show scheduled -> cancelled by compare-and-set
// with why, by whom and when, releases its live holds and marks it
// settled. A show cancelled already is left as it is: the run resumes the
// refunds. A show that ended is refused.
func (s *Store) markCancelled(ctx context.Context, actor booking.Actor, showID int64, reason string) error {
	_, err := inTx(s, ctx, "cancel show", cancelShowMode, func(t *tx) (struct{}, error) {
		if _, err := t.Exec(t.ctx, blockLockSQL); err != nil {
			return struct{}{}, err
		}
		if err := checkActor(t, actor); err != nil {
			return struct{}{}, err
		}
		sh, err := s.showInfo(t.ctx, showID)
		if err != nil {
			return struct{}{}, err
		}
		if err := t.QueryRow(t.ctx, `SELECT status FROM shows WHERE id = $1`, showID).Scan(&sh.Status); err != nil {
			return struct{}{}, err
		}
		if sh.Cancelled() {
			return struct{}{}, nil
		}
		if !t.now.Before(sh.Ends()) {
			return struct{}{}, booking.Errorf(booking.EInvalid, "The %s show ended at %s: refund its bookings one by one.",
				sh.Starts.In(t.now.Location()).Format("Mon 15:04"), sh.Ends().In(t.now.Location()).Format("15:04"))
		}
		tag, err := t.Exec(t.ctx, `UPDATE shows SET status = 'cancelled', cancel_reason = $1, cancelled_by = $2, cancelled_at = $3, settled_at = $3
			WHERE id = $4 AND status = 'scheduled'`, reason, actor.Name, t.nowMS(), showID)
		if err != nil {
			return struct{}{}, err
		}
		if tag.RowsAffected() == 0 {
			return struct{}{}, nil // another run cancelled it since the read
		}
		var sold int
		if err := t.QueryRow(t.ctx, `SELECT count(*) FROM seat_claims WHERE show_id = $1 AND status IN ('held', 'sold') AND status = 'sold'`, showID).Scan(&sold); err != nil {
			return struct{}{}, err
		}
		released, err := releaseShowHolds(t, showID)
		if err != nil {
			return struct{}{}, err
		}
		t.touch(showID)
		detail := fmt.Sprintf("show %d cancelled: %s (%d seats sold, %s released)", showID, reason, sold, plural(released, "hold", "holds"))
		return struct{}{}, audit(t, actor, booking.AuditEntry{Action: booking.AuditCancelShow, ShowID: showID, Detail: detail}, 0)
	})
	return err
}

// releaseShowHolds lets go of every live hold of a show, lapsed or not,
// and says how many.
func releaseShowHolds(t *tx, showID int64) (int, error) {
	rows, err := t.Query(t.ctx, `UPDATE holds SET status = 'released' WHERE show_id = $1 AND status = 'held' RETURNING id`, showID)
	if err != nil {
		return 0, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	_, err = t.Exec(t.ctx, `UPDATE seat_claims SET status = 'released' WHERE hold_id = ANY($1) AND status = 'held'`, ids)
	return len(ids), err
}

// refundChunk is how many bookings refundShow reads at a time.
const refundChunk = 64

// refundShow unwinds every booking of the cancelled show still
// confirmed, one transaction each, and says how many this run refunded.
// Another run at the same time reads the same bookings; the
// compare-and-set on each gives it to one of them.
func (s *Store) refundShow(ctx context.Context, actor booking.Actor, showID int64) (int, error) {
	n := 0
	for {
		rows, err := s.pool.Query(ctx, `SELECT id FROM bookings WHERE show_id = $1 AND status = 'confirmed' ORDER BY id LIMIT `+strconv.Itoa(refundChunk), showID)
		if err != nil {
			return n, s.translate("cancel show", err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return n, s.translate("cancel show", err)
		}
		if len(ids) == 0 {
			return n, nil
		}
		for _, id := range ids {
			// READ COMMITTED: the booking is claimed by compare-and-set.
			done, err := inTx(s, ctx, "cancel show booking", txMode{iso: pgx.ReadCommitted}, func(t *tx) (bool, error) {
				return unwindForShow(t, actor, showID, id)
			})
			if err != nil {
				return n, err
			}
			if done {
				n++
			}
		}
	}
}

// unwindForShow cancels one booking of a cancelled show: the status
// first, by compare-and-set (a booking another run took is left alone and
// nothing is written), then its tickets voided — admitted ones too, since
// the show they were let into did not happen — its seats freed, and a
// refund per ticket by the way it was paid, with its audit row.
func unwindForShow(t *tx, actor booking.Actor, showID, bookingID int64) (bool, error) {
	var reason string
	var status booking.ShowStatus
	if err := t.QueryRow(t.ctx, `SELECT status, cancel_reason FROM shows WHERE id = $1`, showID).Scan(&status, &reason); err != nil {
		return false, err
	}
	if status != booking.ShowCancelled {
		return false, booking.Errorf(booking.EInternal, "cancel show %d: refunding a show that is %s", showID, status)
	}
	c := cancelled{showID: showID}
	var number string
	err := t.QueryRow(t.ctx, `UPDATE bookings SET status = 'cancelled', cancelled_by = $1, reason = $2, cancelled_at = $3
		WHERE id = $4 AND show_id = $5 AND status = 'confirmed' RETURNING id, hold_id, number`,
		actor.Name, "show cancelled: "+reason, t.nowMS(), bookingID, showID).Scan(&c.id, &c.holdID, &number)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	voided, err := c.voidTickets(t)
	if err != nil {
		return false, err
	}
	rows, err := t.Query(t.ctx, `UPDATE tickets SET status = 'void' WHERE id BETWEEN $1 AND $2 AND status = 'admitted' RETURNING id, price`,
		c.firstTicket(), c.lastTicket())
	if err != nil {
		return false, err
	}
	admitted, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (refundable, error) {
		var tk refundable
		return tk, r.Scan(&tk.id, &tk.price)
	})
	if err != nil {
		return false, err
	}
	if _, err := t.Exec(t.ctx, `UPDATE seat_claims SET status = 'cancelled' WHERE hold_id = $1 AND booking_id = $2 AND status = 'sold'`, c.holdID, c.id); err != nil {
		return false, err
	}
	r, err := newRefunder(t, actor, "", c.id, nil)
	if err != nil {
		return false, err
	}
	var refunded booking.Money
	for _, tk := range append(voided, admitted...) {
		if err := r.refund(t, tk); err != nil {
			return false, err
		}
		refunded += tk.price
	}
	t.touch(showID)
	return true, audit(t, actor, booking.AuditEntry{Action: booking.AuditCancel, ShowID: showID, ShiftID: r.shift, Amount: refunded,
		Detail: number + " show cancelled: " + reason}, c.id)
}

// qCancelContacts lists the bookings a show's cancellation refunded —
// cancelled at or after the show was — with what went back to each, by
// booking number.
const qCancelContacts = `SELECT b.number, b.customer, b.phone, p.method,
		(SELECT coalesce(sum(r.amount), 0) FROM payments r WHERE r.booking_id = b.id AND r.kind = 'refund'),
		(SELECT count(*) FROM payments r WHERE r.booking_id = b.id AND r.kind = 'refund')
	FROM bookings b JOIN payments p ON p.booking_id = b.id AND p.kind = 'sale'
	WHERE b.show_id = $1 AND b.status = 'cancelled' AND b.cancelled_at >= $2 ORDER BY b.number`

// cancellation reads the cancelled show and the customers to contact.
func (s *Store) cancellation(ctx context.Context, showID int64, refundedNow int) (*booking.ShowCancellation, error) {
	sh, err := s.Show(ctx, booking.System, showID)
	if err != nil {
		return nil, err
	}
	out := &booking.ShowCancellation{Show: *sh, Reason: sh.CancelReason, RefundedNow: refundedNow}
	var at *int64
	if err := s.pool.QueryRow(ctx, `SELECT cancelled_by, cancelled_at FROM shows WHERE id = $1`, showID).Scan(&out.By, &at); err != nil {
		return nil, s.translate("cancel show", err)
	}
	var since int64
	if at != nil {
		since = *at
	}
	out.At = time.UnixMilli(since)
	err = eachRow(ctx, s.pool, qCancelContacts, []any{showID, since}, func(r pgx.Rows) error {
		var k booking.CancelContact
		if err := r.Scan(&k.Booking, &k.Name, &k.Phone, &k.Method, &k.Refunded, &k.Tickets); err != nil {
			return err
		}
		out.Contacts = append(out.Contacts, k)
		return nil
	})
	return out, s.translate("cancel show", err)
}
