package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
)

var _ booking.Door = (*Store)(nil)

// Admit checks a scanned ticket code and admits the ticket at most once:
// the move issued -> admitted is a compare-and-set, so two doors (on one
// server or two) scanning the same code at once admit it once, and the
// second is told when and by whom. A code that does not verify, with the
// ticket key or an old one, reads exactly like one never issued.
func (s *Store) Admit(ctx context.Context, actor booking.Actor, code string) (*booking.Admission, error) {
	if err := booking.Authorize(actor, booking.ActionAdmit); err != nil {
		return nil, err
	}
	ticketID, err := booking.VerifyTicket(append([]booking.TicketKey{s.opts.TicketKey}, s.opts.OldTicketKeys...), code)
	if err != nil {
		return nil, err
	}
	return inTx(s, ctx, "admit", readCommitted, func(t *tx) (*booking.Admission, error) {
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		return s.admit(t, actor, ticketID)
	})
}

// scanned is what the door reads of a ticket, its booking and its show.
type scanned struct {
	seatID, showID int64
	typ            string
	status         booking.TicketStatus
	bookingStatus  booking.BookingStatus
	number, by     string
	at             int64 // admitted_at, 0 when never
	showStatus     booking.ShowStatus
}

// readTicket reads ticket id in t: a statement of its own, so under READ
// COMMITTED it sees every admission committed before it began.
func readTicket(t *tx, id int64) (scanned, error) {
	var sc scanned
	err := t.QueryRow(t.ctx, `SELECT t.seat_id, t.type_code, t.status, coalesce(t.admitted_at, 0), t.admitted_by, b.number, b.status, b.show_id, s.status
		FROM tickets t JOIN bookings b ON b.id = t.booking_id JOIN shows s ON s.id = b.show_id WHERE t.id = $1`, id).
		Scan(&sc.seatID, &sc.typ, &sc.status, &sc.at, &sc.by, &sc.number, &sc.bookingStatus, &sc.showID, &sc.showStatus)
	if errors.Is(err, pgx.ErrNoRows) {
		return sc, booking.Errorf(booking.ENotFound, "Unknown ticket code.")
	}
	return sc, err
}

// admit moves ticket ticketID issued -> admitted inside t (READ
// COMMITTED), after checking it is neither void, nor admitted, nor out of
// its door window. The move is a compare-and-set on the status, which
// PostgreSQL re-checks on the newest version of the row: of two doors at
// once, the one that waited finds it moved, reads it again (a new
// statement, so it sees the admission that won) and is told when and by
// whom, as db says it.
func (s *Store) admit(t *tx, actor booking.Actor, ticketID int64) (*booking.Admission, error) {
	sc, err := readTicket(t, ticketID)
	if err != nil {
		return nil, err
	}
	show, err := s.showInfo(t.ctx, sc.showID)
	if err != nil {
		return nil, err
	}
	hall, err := s.hall(t.ctx, show.HallID)
	if err != nil {
		return nil, err
	}
	res := &booking.Admission{Booking: sc.number, Show: show}
	res.Ticket.Seat, _ = s.seatByID(hall.ID, sc.seatID)
	res.Ticket.ID, res.Ticket.Type = ticketID, sc.typ
	if err := refusal(t.now, sc, res.Ticket.Seat.Label); err != nil {
		return nil, err
	}
	if err := booking.DoorWindow(t.now, show, res.Ticket.Seat.Label); err != nil {
		return nil, err
	}
	tag, err := t.Exec(t.ctx, `UPDATE tickets SET status = 'admitted', admitted_at = $1, admitted_by = $2 WHERE id = $3 AND status = 'issued'`,
		t.nowMS(), actor.Name, ticketID)
	if err != nil {
		return nil, err
	}
	if tag.RowsAffected() != 1 {
		return nil, s.lostAdmit(t, ticketID, res.Ticket.Seat.Label)
	}
	admitted := t.now
	res.Ticket.Status, res.Ticket.AdmittedAt, res.Ticket.AdmittedBy = booking.TicketAdmitted, &admitted, actor.Name
	return res, audit(t, actor, booking.AuditEntry{Action: booking.AuditAdmit, ShowID: sc.showID, Detail: "seat " + res.Ticket.Seat.Label}, ticketID/ticketsPerBooking)
}

// lostAdmit says why the compare-and-set of ticketID found it no longer
// issued: read again, it was admitted at another door (when and by whom)
// or cancelled meanwhile.
func (s *Store) lostAdmit(t *tx, ticketID int64, seat string) error {
	sc, err := readTicket(t, ticketID)
	if err != nil {
		return err
	}
	if err := refusal(t.now, sc, seat); err != nil {
		return err
	}
	return &booking.StaleError{What: "Ticket " + seat, Current: string(sc.status)}
}

// refusal is db's admit's refusals of a ticket that cannot come in,
// whatever the time: cancelled, of a cancelled show, or admitted already
// (when, on now's clock, and by whom). Exchanges are not on PostgreSQL
// yet, so there is no "exchanged for" case.
func refusal(now time.Time, sc scanned, seat string) error {
	switch {
	case sc.showStatus == booking.ShowCancelled:
		return booking.Errorf(booking.EConflict, "This show was cancelled.")
	case sc.status == booking.TicketVoid || sc.bookingStatus == booking.BookingCancelled:
		return booking.Errorf(booking.EConflict, "Ticket %s of %s was cancelled and refunded.", booking.Clean(seat), booking.Clean(sc.number))
	case sc.status == booking.TicketAdmitted:
		return booking.Errorf(booking.EConflict, "Ticket %s was already admitted at %s by %s.",
			booking.Clean(seat), time.UnixMilli(sc.at).In(now.Location()).Format("15:04:05"), booking.Clean(sc.by))
	}
	return nil
}
