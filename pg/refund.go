package pg

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// answerTimeout bounds the read that answers a write already committed.
const answerTimeout = 5 * time.Second

// approval authorizes action for actor or an approver (store.Approve).
func (s *Store) approval(ctx context.Context, actor booking.Actor, action booking.Action, approver *booking.Credentials, addr, what string) (store.Approval, error) {
	return store.Approve(s.Store, ctx, actor, action, approver, addr, what)
}

// afterStart refuses, on the transaction's clock, a refund of a show that
// has started unless a manager made or approved it.
func (s *Store) afterStart(t *tx, showID int64, ok store.Approval) error {
	show, err := s.showInfo(t.ctx, showID)
	if err != nil {
		return err
	}
	if t.now.Before(show.Starts) || ok.Role >= booking.MinRole(booking.ActionCancelStarted) {
		return nil
	}
	return booking.Errorf(booking.EForbidden, "The %s show has started: a %s must approve the refund.",
		show.Starts.Format("Mon 15:04"), booking.MinRole(booking.ActionCancelStarted))
}

// refundable is a ticket whose price goes back.
type refundable struct {
	id    int64
	price booking.Money
}

// refunder writes a booking's refund payments: by the method it was paid,
// out of the refunding person's shift.
type refunder struct {
	actor            booking.Actor
	approver         string
	bookingID, shift int64
	method           booking.PayMethod
}

// newRefunder finds how the booking was paid and the shift its refunds
// belong to; a cash refund with no shift open needs openFloat.
func newRefunder(t *tx, actor booking.Actor, approver string, bookingID int64, openFloat *booking.Money) (*refunder, error) {
	r := &refunder{actor: actor, approver: approver, bookingID: bookingID}
	if err := t.QueryRow(t.ctx, `SELECT method FROM payments WHERE booking_id = $1 AND kind = 'sale'`, bookingID).Scan(&r.method); err != nil {
		return nil, err
	}
	shift, err := shiftFor(t, actor, r.method, openFloat)
	if err != nil {
		return nil, err
	}
	r.shift = shift
	return r, nil
}

// refund writes one ticket's refund payment; the unique index
// payments_one_ticket_refund makes a second one impossible, and
// payments_refund_within_sale refunds beyond the sale.
func (r *refunder) refund(t *tx, tk refundable) error {
	_, err := t.Exec(t.ctx, `INSERT INTO payments (booking_id, kind, method, amount, at, staff, terminal, shift_id, ticket_id, approved_by)
		VALUES ($1, 'refund', $2, $3, $4, $5, $6, $7, $8, $9)`,
		r.bookingID, string(r.method), tk.price, t.nowMS(), r.actor.Name, r.actor.Terminal, nullID(r.shift), tk.id, r.approver)
	return err
}

// RefundTickets refunds some tickets of a confirmed booking, each once.
// READ COMMITTED with the booking's row locked FOR UPDATE first: a
// refund and a cancel, or two refunds, of one booking take turns (on any
// server), and each reads the booking's status and tickets after the one
// before committed; each ticket moves issued -> refunded by
// compare-and-set.
func (s *Store) RefundTickets(ctx context.Context, actor booking.Actor, req booking.RefundRequest) (*booking.Booking, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	ok, err := s.approval(ctx, actor, booking.ActionRefund, req.Approver, req.Addr, "refund of "+normalizeNumber(req.Number))
	if err != nil {
		return nil, err
	}
	number := normalizeNumber(req.Number)
	reason := booking.CleanLine(req.Reason, 200)
	var seats []string
	for _, l := range req.Seats {
		if l = strings.ToUpper(booking.CleanLine(l, 8)); !slices.Contains(seats, l) {
			seats = append(seats, l)
		}
	}
	id, err := inTx(s, ctx, "refund", txMode{iso: pgx.ReadCommitted}, func(t *tx) (int64, error) {
		if err := checkActor(t, actor); err != nil {
			return 0, err
		}
		c, err := findCancelled(t, number, " FOR UPDATE")
		if err != nil {
			return 0, err
		}
		if c.status != booking.BookingConfirmed {
			return 0, &booking.StaleError{What: "Booking " + number, Current: string(c.status)}
		}
		if err := s.afterStart(t, c.showID, ok); err != nil {
			return 0, err
		}
		return c.id, c.refundSeats(t, actor, ok.Name, number, reason, seats, req.OpenFloat)
	})
	if err != nil {
		return nil, err
	}
	return s.committedBooking(ctx, id)
}

// refundSeats refunds the named seats' tickets of c and cancels c when none
// is left to use.
func (c cancelled) refundSeats(t *tx, actor booking.Actor, approver, number, reason string, seats []string, openFloat *booking.Money) error {
	r, err := newRefunder(t, actor, approver, c.id, openFloat)
	if err != nil {
		return err
	}
	var refunded booking.Money
	for _, label := range seats {
		tk, err := c.refundSeat(t, number, label)
		if err != nil {
			return err
		}
		if err := r.refund(t, tk); err != nil {
			return err
		}
		refunded += tk.price
	}
	var left int
	if err := t.QueryRow(t.ctx, `SELECT count(*) FROM tickets WHERE id BETWEEN $1 AND $2 AND status IN ('issued', 'admitted')`,
		c.firstTicket(), c.lastTicket()).Scan(&left); err != nil {
		return err
	}
	if left == 0 {
		if _, err := t.Exec(t.ctx, `UPDATE bookings SET status = 'cancelled', cancelled_by = $1, approved_by = $2, reason = $3, cancelled_at = $4
			WHERE id = $5 AND status = 'confirmed'`, actor.Name, approver, reason, t.nowMS(), c.id); err != nil {
			return err
		}
	}
	t.touch(c.showID)
	detail := number + " " + strings.Join(seats, " ")
	if reason != "" {
		detail += ": " + reason
	}
	return audit(t, actor, booking.AuditEntry{Action: booking.AuditRefund, ShowID: c.showID, ShiftID: r.shift, Amount: refunded, Detail: detail}, c.id)
}

// refundSeat moves the ticket on seat label issued -> refunded by
// compare-and-set and frees its seat; a ticket refunded already, voided or
// admitted stops the whole refund.
func (c cancelled) refundSeat(t *tx, number, label string) (refundable, error) {
	var tk refundable
	var seatID int64
	var status booking.TicketStatus
	err := t.QueryRow(t.ctx, `SELECT t.id, t.price, t.seat_id, t.status FROM tickets t JOIN seats s ON s.id = t.seat_id
		WHERE t.id BETWEEN $1 AND $2 AND upper(s.label) = $3`, c.firstTicket(), c.lastTicket(), label).Scan(&tk.id, &tk.price, &seatID, &status)
	if errors.Is(err, pgx.ErrNoRows) {
		return tk, booking.Errorf(booking.EInvalid, "%s is not a seat of %s.", label, number)
	}
	if err != nil {
		return tk, err
	}
	if status == booking.TicketAdmitted {
		return tk, booking.Errorf(booking.EConflict, "The ticket for %s was already admitted; it cannot be refunded.", label)
	}
	tag, err := t.Exec(t.ctx, `UPDATE tickets SET status = 'refunded' WHERE id = $1 AND status = 'issued'`, tk.id)
	if err != nil {
		return tk, err
	}
	if tag.RowsAffected() != 1 {
		// Read again: an admission may have won the row since the SELECT.
		if err := t.QueryRow(t.ctx, `SELECT status FROM tickets WHERE id = $1`, tk.id).Scan(&status); err != nil {
			return tk, err
		}
		if status == booking.TicketAdmitted {
			return tk, booking.Errorf(booking.EConflict, "The ticket for %s was already admitted; it cannot be refunded.", label)
		}
		return tk, &booking.StaleError{What: "The ticket for " + label, Current: string(status)}
	}
	tag, err = t.Exec(t.ctx, `UPDATE seat_claims SET status = 'cancelled' WHERE hold_id = $1 AND booking_id = $2 AND seat_id = $3 AND status = 'sold'`, c.holdID, c.id, seatID)
	if err != nil {
		return tk, err
	}
	if tag.RowsAffected() != 1 {
		return tk, booking.Errorf(booking.EInternal, "refund: %d claims freed for %s", tag.RowsAffected(), label)
	}
	return tk, nil
}
