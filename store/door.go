package store

import (
	"context"
	"time"

	"boxoffice/booking"
)

// DoorTx is what the door asks of a transaction.
type DoorTx interface {
	// ScannedTicket reads a ticket with its booking and show, as the
	// transaction sees them now (under READ COMMITTED, a statement of its
	// own: it sees every admission committed before it began). ENotFound
	// "Unknown ticket code." when there is no such ticket.
	ScannedTicket(ticketID int64) (ScannedTicket, error)
	// AdmitTicket moves a ticket issued -> admitted at the transaction's
	// time by name, by compare-and-set; false when it was no longer
	// issued.
	AdmitTicket(ticketID int64, by string) (bool, error)
}

// ScannedTicket is what the door reads of a ticket, its booking and its
// show.
type ScannedTicket struct {
	SeatID, ShowID, BookingID int64
	Type                      string
	Status                    booking.TicketStatus
	AdmittedAt                int64 // unix milliseconds; 0 when never
	AdmittedBy                string
	Number                    string // the booking's
	BookingStatus             booking.BookingStatus
	ShowStatus                booking.ShowStatus
	// ExchangedTo is the number of the booking a voided ticket was
	// exchanged into ("" when it was not).
	ExchangedTo string
}

// Admit checks a scanned ticket code and admits the ticket at most once:
// the move issued -> admitted is a compare-and-set, so two doors (on one
// server or two) scanning the same code at once admit it once, and the
// second is told when and by whom. A code that does not verify, with the
// ticket key or an old one, reads exactly like one never issued.
func (s *Store) Admit(ctx context.Context, actor booking.Actor, code string) (*booking.Admission, error) {
	if err := booking.Authorize(actor, booking.ActionAdmit); err != nil {
		return nil, err
	}
	ticketID, err := booking.VerifyTicket(s.opts.TicketKeys, code)
	if err != nil {
		return nil, err
	}
	// The door's day is its site's: the settings are read before the
	// write, which finds the show's site.
	settings, err := s.d.ReadSettings(ctx)
	if err != nil {
		return nil, err
	}
	return write(s, ctx, actor, Write{Op: "admit"}, func(tx Tx) (*booking.Admission, error) {
		return s.admit(tx, actor, ticketID, settings)
	})
}

// admit moves ticket ticketID issued -> admitted inside tx, after checking
// it is neither void, nor admitted, nor out of its door window. Of two
// doors at once, the one whose compare-and-set found the ticket moved
// reads it again (a new statement, so it sees the admission that won) and
// is told when and by whom.
func (s *Store) admit(tx Tx, actor booking.Actor, ticketID int64, settings []booking.SettingRow) (*booking.Admission, error) {
	sc, err := tx.ScannedTicket(ticketID)
	if err != nil {
		return nil, err
	}
	show, err := s.prog.Show(tx.Context(), sc.ShowID)
	if err != nil {
		return nil, err
	}
	hall, err := s.prog.Hall(tx.Context(), show.HallID)
	if err != nil {
		return nil, err
	}
	res := &booking.Admission{Booking: sc.Number, Show: show}
	res.Ticket.Seat, _ = s.prog.Seat(hall.ID, sc.SeatID)
	res.Ticket.ID, res.Ticket.Type = ticketID, sc.Type
	seat := res.Ticket.Seat.Label
	now := tx.Now()
	if at := booking.ResolveCinema(settings, s.settingSite(hall.Site)); at.Zoned() {
		now = now.In(at.Location())
		res.Show.Starts = res.Show.Starts.In(at.Location())
	}
	if err := refusal(now, sc, seat); err != nil {
		return nil, err
	}
	if err := booking.DoorWindow(now, show, seat); err != nil {
		return nil, err
	}
	ok, err := tx.AdmitTicket(ticketID, actor.Name)
	if err != nil {
		return nil, err
	}
	if !ok {
		if sc, err = tx.ScannedTicket(ticketID); err != nil {
			return nil, err
		}
		if err := refusal(now, sc, seat); err != nil {
			return nil, err
		}
		return nil, &booking.StaleError{What: "Ticket " + seat, Current: string(sc.Status)}
	}
	admitted := now
	res.Ticket.Status, res.Ticket.AdmittedAt, res.Ticket.AdmittedBy = booking.TicketAdmitted, &admitted, actor.Name
	return res, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditAdmit, ShowID: sc.ShowID, Detail: "seat " + seat}, sc.BookingID)
}

// refusal is why a ticket cannot come in, whatever the time: exchanged
// into another booking, of a cancelled show, cancelled, or admitted
// already (when, on now's clock, and by whom).
func refusal(now time.Time, sc ScannedTicket, seat string) error {
	switch {
	case sc.Status == booking.TicketVoid && sc.ExchangedTo != "":
		return booking.Errorf(booking.EConflict, "This ticket was exchanged for one in %s (seat %s of %s).", booking.Clean(sc.ExchangedTo), booking.Clean(seat), booking.Clean(sc.Number))
	case sc.ShowStatus == booking.ShowCancelled:
		return booking.Errorf(booking.EConflict, "This show was cancelled.")
	case sc.Status == booking.TicketVoid || sc.BookingStatus == booking.BookingCancelled:
		return booking.Errorf(booking.EConflict, "Ticket %s of %s was cancelled and refunded.", booking.Clean(seat), booking.Clean(sc.Number))
	case sc.Status == booking.TicketAdmitted:
		return booking.Errorf(booking.EConflict, "Ticket %s was already admitted at %s by %s.",
			booking.Clean(seat), time.UnixMilli(sc.AdmittedAt).In(now.Location()).Format("15:04:05"), booking.Clean(sc.AdmittedBy))
	}
	return nil
}
