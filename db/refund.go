package db

import (
	"context"
	"slices"
	"strings"

	"boxoffice/booking"
	"boxoffice/store"
)

// approval authorizes action for actor or an approver (store.Approve).
func (s *Store) approval(ctx context.Context, actor booking.Actor, action booking.Action, approver *booking.Credentials, addr, what string) (store.Approval, error) {
	return store.Approve(s.Store, ctx, actor, action, approver, addr, what)
}

// afterStart refuses, on the transaction's clock, a refund of a show that
// has started unless a manager made or approved it.
func (s *Store) afterStart(w *wtx, showID int64, ok store.Approval) error {
	show, err := s.showInfo(w.ctx, showID)
	if err != nil {
		return err
	}
	if w.now.Before(show.Starts) || ok.Role >= booking.MinRole(booking.ActionCancelStarted) {
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
func newRefunder(w *wtx, actor booking.Actor, approver string, bookingID int64, openFloat *booking.Money) (*refunder, error) {
	r := &refunder{actor: actor, approver: approver, bookingID: bookingID}
	if err := w.queryRow(`SELECT method FROM payments WHERE booking_id = ? AND kind = 'sale'`, bookingID).Scan(&r.method); err != nil {
		return nil, err
	}
	shift, err := shiftFor(w, actor, r.method, openFloat)
	if err != nil {
		return nil, err
	}
	r.shift = shift
	return r, nil
}

// refund writes one ticket's refund payment; the unique index on
// payments(ticket_id) makes a second one impossible.
func (r *refunder) refund(w *wtx, t refundable) error {
	_, err := w.exec(`INSERT INTO payments (booking_id, kind, method, amount, at, staff, terminal, shift_id, ticket_id, approved_by) VALUES (?, 'refund', ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.bookingID, string(r.method), t.price, w.nowMS(), r.actor.Name, r.actor.Terminal, nullID(r.shift), t.id, r.approver)
	return err
}

// RefundTickets refunds some tickets of a confirmed booking, each once.
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
	id, err := write(s, ctx, actor, "refund", func(w *wtx) (int64, error) {
		var c cancelled
		var status booking.BookingStatus
		err := w.queryRow(`SELECT id, show_id, total, hold_id, status FROM bookings WHERE number = ?`, number).Scan(&c.id, &c.showID, &c.total, &c.holdID, &status)
		if isNoRows(err) {
			return 0, notFoundBooking(number)
		}
		if err != nil {
			return 0, err
		}
		if status != booking.BookingConfirmed {
			return 0, &booking.StaleError{What: "Booking " + number, Current: string(status)}
		}
		if err := s.afterStart(w, c.showID, ok); err != nil {
			return 0, err
		}
		return c.id, c.refundSeats(w, actor, ok.Name, number, reason, seats, req.OpenFloat)
	})
	if err != nil {
		return nil, err
	}
	return s.committedBooking(ctx, id)
}

// refundSeats refunds the named seats' tickets of c and cancels c when none
// is left to use.
func (c cancelled) refundSeats(w *wtx, actor booking.Actor, approver, number, reason string, seats []string, openFloat *booking.Money) error {
	r, err := newRefunder(w, actor, approver, c.id, openFloat)
	if err != nil {
		return err
	}
	var refunded booking.Money
	for _, label := range seats {
		t, err := c.refundSeat(w, number, label)
		if err != nil {
			return err
		}
		if err := r.refund(w, t); err != nil {
			return err
		}
		refunded += t.price
	}
	if _, err := w.exec(`UPDATE shows SET sold = sold - ? WHERE id = ?`, len(seats), c.showID); err != nil {
		return err
	}
	var left int
	if err := w.queryRow(`SELECT count(*) FROM tickets WHERE id BETWEEN ? AND ? AND status IN ('issued', 'admitted')`, c.firstTicket(), c.lastTicket()).Scan(&left); err != nil {
		return err
	}
	if left == 0 {
		if _, err := w.exec(`UPDATE bookings SET status = 'cancelled', cancelled_by = ?, approved_by = ?, reason = ?, cancelled_at = ? WHERE id = ? AND status = 'confirmed'`,
			actor.Name, approver, reason, w.nowMS(), c.id); err != nil {
			return err
		}
	}
	w.touch(c.showID)
	detail := number + " " + strings.Join(seats, " ")
	if reason != "" {
		detail += ": " + reason
	}
	return w.audit(actor, booking.AuditEntry{Action: booking.AuditRefund, ShowID: c.showID, ShiftID: r.shift, Amount: refunded, Detail: detail}, c.id)
}

// refundSeat moves the ticket on seat label issued -> refunded by
// compare-and-set and frees its seat; a ticket refunded already, voided or
// admitted stops the whole refund.
func (c cancelled) refundSeat(w *wtx, number, label string) (refundable, error) {
	var t refundable
	var seatID int64
	var status booking.TicketStatus
	err := w.queryRow(`SELECT t.id, t.price, t.seat_id, t.status FROM tickets t JOIN seats s ON s.id = t.seat_id
		WHERE t.id BETWEEN ? AND ? AND s.label = ? COLLATE NOCASE`, c.firstTicket(), c.lastTicket(), label).Scan(&t.id, &t.price, &seatID, &status)
	if isNoRows(err) {
		return t, booking.Errorf(booking.EInvalid, "%s is not a seat of %s.", label, number)
	}
	if err != nil {
		return t, err
	}
	if status == booking.TicketAdmitted {
		return t, booking.Errorf(booking.EConflict, "The ticket for %s was already admitted; it cannot be refunded.", label)
	}
	res, err := w.exec(`UPDATE tickets SET status = 'refunded' WHERE id = ? AND status = 'issued'`, t.id)
	if err != nil {
		return t, err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return t, &booking.StaleError{What: "The ticket for " + label, Current: string(status)}
	}
	res, err = w.exec(`UPDATE seat_claims SET status = 'cancelled' WHERE hold_id = ? AND booking_id = ? AND seat_id = ? AND status = 'sold'`, c.holdID, c.id, seatID)
	if err != nil {
		return t, err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return t, booking.Errorf(booking.EInternal, "refund: %d claims freed for %s", n, label)
	}
	return t, nil
}
