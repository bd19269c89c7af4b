package store

import (
	"context"

	"boxoffice/booking"
)

// CancelTx is what cancelling a booking asks of a transaction beyond
// RefundTx.
type CancelTx interface {
	// VoidTickets moves a booking's tickets in status from to void, each
	// by compare-and-set, and returns those it moved for their refunds.
	VoidTickets(bookingID int64, from booking.TicketStatus) ([]Refundable, error)
}

// Cancel claims confirmed -> cancelled first, then voids the tickets,
// frees the seats and writes one refund per ticket, so it runs at most
// once: of two cancels of one booking (on one server or two) one moves
// it and the other is told it is cancelled already, before any seat or
// money moves. After the show started it needs a manager, on the
// transaction's clock.
func (s *Store) Cancel(ctx context.Context, actor booking.Actor, req booking.CancelRequest) (*booking.Booking, error) {
	if req.OpenFloat != nil {
		if err := (booking.OpenShiftRequest{Float: *req.OpenFloat}).Validate(); err != nil {
			return nil, err
		}
	}
	number := booking.NormalizeNumber(req.Number)
	ok, err := Approve(s, ctx, actor, booking.ActionCancel, req.Approver, req.Addr, "cancel of "+number)
	if err != nil {
		return nil, err
	}
	reason := booking.CleanLine(req.Reason, 200)
	id, err := write(s, ctx, actor, Write{Op: "cancel"}, func(tx Tx) (int64, error) {
		b, err := lockBooking(tx, number)
		if err != nil {
			return 0, err
		}
		if err := s.afterStart(tx, b.ShowID, ok); err != nil {
			return 0, err
		}
		return b.ID, unwind(tx, actor, ok.Name, b, reason, req.OpenFloat)
	})
	if err != nil {
		s.approvalNotUsed(ctx, actor, ok, "cancel of "+number, err)
		return nil, err
	}
	return s.committedBooking(ctx, id)
}

// unwind claims the status first — a second or stale cancel stops there,
// before any seat or money moves — then voids the tickets, frees the
// seats and refunds each ticket. The admitted tickets are counted after
// the void: an admission that committed first left its ticket admitted
// (not voided) and shows there; one that comes after finds it void.
func unwind(tx Tx, actor booking.Actor, approver string, b BookingRow, reason string, openFloat *booking.Money) error {
	moved, err := tx.CancelBooking(b.ID, Cancellation{By: actor.Name, ApprovedBy: approver, Reason: reason})
	if err != nil {
		return err
	}
	if !moved {
		status, err := tx.BookingStatus(b.ID)
		if err != nil {
			return err
		}
		return staleBooking(b.Number, status)
	}
	voided, err := tx.VoidTickets(b.ID, booking.TicketIssued)
	if err != nil {
		return err
	}
	admitted, err := tx.CountTickets(b.ID, booking.TicketAdmitted)
	if err != nil {
		return err
	}
	if admitted > 0 {
		return booking.Errorf(booking.EConflict, "A ticket of %s was already admitted; it cannot be cancelled.", b.Number)
	}
	if _, err := tx.FreeSeats(b, nil); err != nil {
		return err
	}
	r, err := newRefunder(tx, actor, approver, reason, b.ID, openFloat)
	if err != nil {
		return err
	}
	refunded, err := r.refundAll(tx, voided)
	if err != nil {
		return err
	}
	if err := unwindExtras(tx, actor, approver, b, r.shift); err != nil {
		return err
	}
	tx.Touch(b.ShowID)
	return Audit(tx, actor, booking.AuditEntry{Action: booking.AuditCancel, ShowID: b.ShowID, ShiftID: r.shift, Amount: refunded, Detail: cancelDetail(approver, reason)}, b.ID)
}

// cancelDetail says why a booking was cancelled and who approved it.
func cancelDetail(approver, reason string) string {
	switch {
	case approver != "" && reason != "":
		return reason + " (approved by " + approver + ")"
	case approver != "":
		return "approved by " + approver
	}
	return reason
}
