package pg

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

// Cancel claims confirmed -> cancelled first, then frees the seats, voids
// the tickets and writes one refund per ticket, so it runs at most once.
// After the show started it needs a manager, on the transaction's clock.
//
// READ COMMITTED: the claim is an UPDATE … WHERE status = 'confirmed',
// and PostgreSQL re-checks that WHERE on the newest version of the row
// once a concurrent cancel (on this server or another) commits, so of
// two cancels of one booking exactly one moves it; the other changes no
// row and is told the booking is already cancelled (*StaleError), before
// any seat or money moves. The unique index payments_one_ticket_refund
// refuses a second refund of a ticket whatever the Go code does.
func (s *Store) Cancel(ctx context.Context, actor booking.Actor, req booking.CancelRequest) (*booking.Booking, error) {
	if req.OpenFloat != nil {
		if err := (booking.OpenShiftRequest{Float: *req.OpenFloat}).Validate(); err != nil {
			return nil, err
		}
	}
	ok, err := s.approval(ctx, actor, booking.ActionCancel, req.Approver, req.Addr, "cancel of "+normalizeNumber(req.Number))
	if err != nil {
		return nil, err
	}
	number := normalizeNumber(req.Number)
	reason := booking.CleanLine(req.Reason, 200)
	id, err := inTx(s, ctx, "cancel", txMode{iso: pgx.ReadCommitted}, func(t *tx) (int64, error) {
		if err := checkActor(t, actor); err != nil {
			return 0, err
		}
		c, err := findCancelled(t, number, "")
		if err != nil {
			return 0, err
		}
		if err := s.afterStart(t, c.showID, ok); err != nil {
			return 0, err
		}
		return c.id, c.unwind(t, actor, ok.Name, number, reason, req.OpenFloat)
	})
	if err != nil {
		return nil, err
	}
	return s.committedBooking(ctx, id)
}

// committedBooking reads a booking a write just committed, even when the
// caller's context ended meanwhile: the change is made, and the answer
// says so.
func (s *Store) committedBooking(ctx context.Context, id int64) (*booking.Booking, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), answerTimeout)
	defer cancel()
	return s.wholeBooking(ctx, id)
}

// cancelled is the booking a cancel or refund unwinds.
type cancelled struct {
	id, showID, holdID int64
	status             booking.BookingStatus
}

// findCancelled reads the booking with number in t; lock, when not
// empty, is the row lock to take (" FOR UPDATE").
func findCancelled(t *tx, number, lock string) (cancelled, error) {
	var c cancelled
	err := t.QueryRow(t.ctx, `SELECT id, show_id, hold_id, status FROM bookings WHERE number = $1`+lock, number).Scan(&c.id, &c.showID, &c.holdID, &c.status)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, notFoundBooking(number)
	}
	return c, err
}

// firstTicket and lastTicket bound the ticket ids of the booking.
func (c cancelled) firstTicket() int64 { return c.id * ticketsPerBooking }
func (c cancelled) lastTicket() int64  { return c.id*ticketsPerBooking + ticketsPerBooking - 1 }

// unwind claims the status first — a second or stale cancel stops there,
// before any seat or money moves — then voids the tickets, frees the
// seats and refunds each ticket.
func (c cancelled) unwind(t *tx, actor booking.Actor, approver, number, reason string, openFloat *booking.Money) error {
	tag, err := t.Exec(t.ctx, `UPDATE bookings SET status = 'cancelled', cancelled_by = $1, approved_by = $2, reason = $3, cancelled_at = $4
		WHERE id = $5 AND status = 'confirmed'`, actor.Name, approver, reason, t.nowMS(), c.id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() != 1 {
		var current string
		if err := t.QueryRow(t.ctx, `SELECT status FROM bookings WHERE id = $1`, c.id).Scan(&current); err != nil {
			return err
		}
		return &booking.StaleError{What: "Booking " + number, Current: current}
	}
	voided, err := c.voidTickets(t)
	if err != nil {
		return err
	}
	// Counted after the void: an admission that committed first left its
	// ticket admitted (not voided) and shows here; one still waiting for
	// the ticket's row finds it void.
	var admitted int
	if err := t.QueryRow(t.ctx, `SELECT count(*) FROM tickets WHERE id BETWEEN $1 AND $2 AND status = 'admitted'`,
		c.firstTicket(), c.lastTicket()).Scan(&admitted); err != nil {
		return err
	}
	if admitted > 0 {
		return booking.Errorf(booking.EConflict, "A ticket of %s was already admitted; it cannot be cancelled.", number)
	}
	if _, err := t.Exec(t.ctx, `UPDATE seat_claims SET status = 'cancelled' WHERE hold_id = $1 AND booking_id = $2 AND status = 'sold'`, c.holdID, c.id); err != nil {
		return err
	}
	r, err := newRefunder(t, actor, approver, c.id, openFloat)
	if err != nil {
		return err
	}
	var refunded booking.Money
	for _, tk := range voided {
		if err := r.refund(t, tk); err != nil {
			return err
		}
		refunded += tk.price
	}
	if err := audit(t, actor, booking.AuditEntry{Action: booking.AuditCancel, ShowID: c.showID, ShiftID: r.shift, Amount: refunded, Detail: cancelDetail(approver, reason)}, c.id); err != nil {
		return err
	}
	t.touch(c.showID)
	return nil
}

// voidTickets moves c's issued tickets to void and returns them for their
// refunds.
func (c cancelled) voidTickets(t *tx) ([]refundable, error) {
	rows, err := t.Query(t.ctx, `UPDATE tickets SET status = 'void' WHERE id BETWEEN $1 AND $2 AND status = 'issued' RETURNING id, price`,
		c.firstTicket(), c.lastTicket())
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (refundable, error) {
		var tk refundable
		return tk, r.Scan(&tk.id, &tk.price)
	})
}

// cancelDetail says why a booking was cancelled and who approved it (db's,
// repeated: the audit rows read the same on either backend).
func cancelDetail(approver, reason string) string {
	switch {
	case approver != "" && reason != "":
		return reason + " (approved by " + approver + ")"
	case approver != "":
		return "approved by " + approver
	}
	return reason
}
