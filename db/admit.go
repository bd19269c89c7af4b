package db

import (
	"context"
	"database/sql"
	"time"

	"boxoffice/booking"
)

// Admit checks a scanned ticket code and admits the ticket at most once:
// the move issued -> admitted is a compare-and-set, so two doors scanning
// the same code at once admit it once, and the second is told when and by
// whom. A code that does not verify reads exactly like one never issued.
func (s *Store) Admit(ctx context.Context, actor booking.Actor, code string) (*booking.Admission, error) {
	if err := booking.Authorize(actor, booking.ActionAdmit); err != nil {
		return nil, err
	}
	ticketID, err := booking.VerifyTicket(append([]booking.TicketKey{s.opts.TicketKey}, s.opts.OldTicketKeys...), code)
	if err != nil {
		return nil, err
	}
	return write(s, ctx, actor, "admit", func(w *wtx) (*booking.Admission, error) {
		return s.admit(w, actor, ticketID)
	})
}

// admit moves ticket ticketID issued -> admitted inside the transaction,
// after checking it is neither void, nor admitted, nor out of its door
// window.
func (s *Store) admit(w *wtx, actor booking.Actor, ticketID int64) (*booking.Admission, error) {
	res := &booking.Admission{}
	var seatID, showID int64
	var status booking.TicketStatus
	var bookingStatus booking.BookingStatus
	var number, by, exchangedTo string
	var at sql.NullInt64
	var showStatus booking.ShowStatus
	err := w.queryRow(`SELECT t.seat_id, t.type_code, t.status, t.admitted_at, t.admitted_by, b.number, b.status, b.show_id, s.status,
		coalesce((SELECT n.number FROM exchanges e JOIN bookings n ON n.id = e.to_booking WHERE e.id = t.exchange_id), '')
		FROM tickets t JOIN bookings b ON b.id = t.booking_id JOIN shows s ON s.id = b.show_id WHERE t.id = ?`, ticketID).
		Scan(&seatID, &res.Ticket.Type, &status, &at, &by, &number, &bookingStatus, &showID, &showStatus, &exchangedTo)
	if isNoRows(err) {
		return nil, booking.Errorf(booking.ENotFound, "Unknown ticket code.")
	}
	if err != nil {
		return nil, err
	}
	show, err := s.showInfo(w.ctx, showID)
	if err != nil {
		return nil, err
	}
	hall, err := s.hall(w.ctx, show.HallID)
	if err != nil {
		return nil, err
	}
	res.Ticket.Seat, _ = s.seatByID(hall.ID, seatID)
	res.Ticket.ID, res.Booking, res.Show = ticketID, number, show
	switch {
	case status == booking.TicketVoid && exchangedTo != "":
		return nil, booking.Errorf(booking.EConflict, "This ticket was exchanged for one in %s (seat %s of %s).", booking.Clean(exchangedTo), booking.Clean(res.Ticket.Seat.Label), booking.Clean(number))
	case showStatus == booking.ShowCancelled:
		return nil, booking.Errorf(booking.EConflict, "This show was cancelled.")
	case status == booking.TicketVoid || bookingStatus == booking.BookingCancelled:
		return nil, booking.Errorf(booking.EConflict, "Ticket %s of %s was cancelled and refunded.", booking.Clean(res.Ticket.Seat.Label), booking.Clean(number))
	case status == booking.TicketAdmitted:
		return nil, booking.Errorf(booking.EConflict, "Ticket %s was already admitted at %s by %s.",
			booking.Clean(res.Ticket.Seat.Label), time.UnixMilli(at.Int64).In(w.now.Location()).Format("15:04:05"), booking.Clean(by))
	}
	if err := booking.DoorWindow(w.now, show, res.Ticket.Seat.Label); err != nil {
		return nil, err
	}
	r, err := w.exec(`UPDATE tickets SET status = 'admitted', admitted_at = ?, admitted_by = ? WHERE id = ? AND status = 'issued'`,
		w.nowMS(), actor.Name, ticketID)
	if err != nil {
		return nil, err
	}
	if n, _ := r.RowsAffected(); n != 1 {
		return nil, &booking.StaleError{What: "Ticket " + res.Ticket.Seat.Label, Current: string(booking.TicketAdmitted)}
	}
	admitted := w.now
	res.Ticket.Status, res.Ticket.AdmittedAt, res.Ticket.AdmittedBy = booking.TicketAdmitted, &admitted, actor.Name
	return res, w.audit(actor, booking.AuditEntry{Action: booking.AuditAdmit, ShowID: showID, Detail: "seat " + res.Ticket.Seat.Label}, ticketID/ticketsPerBooking)
}
