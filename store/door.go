package store

import (
	"context"
	"strings"
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

// Admit checks a scanned ticket code, or a booking's number, and admits
// each ticket at most once: the move issued -> admitted is a
// compare-and-set, so two doors (on one server or two) scanning the same
// code at once admit it once, and the second is told when and by whom. A
// code that does not verify, with the ticket key or an old one, reads
// exactly like one never issued. A booking's number (a kiosk customer's
// screen, a phone call's confirmation) admits those of its tickets that
// have not come in yet; a reservation's number, not paid, sends the
// customer to the counter.
func (s *Store) Admit(ctx context.Context, actor booking.Actor, code string) (*booking.Admission, error) {
	if err := booking.Authorize(actor, booking.ActionAdmit); err != nil {
		return nil, err
	}
	number := booking.NormalizeNumber(booking.CleanLine(code, 16))
	byNumber := booking.IsBookingNumber(number)
	var ticketID int64
	if !byNumber {
		var err error
		if ticketID, err = booking.VerifyTicket(s.opts.TicketKeys, code); err != nil {
			return nil, err
		}
	}
	// The door's day is its site's: the settings are read before the
	// write, which finds the show's site.
	settings, err := s.d.ReadSettings(ctx)
	if err != nil {
		return nil, err
	}
	return write(s, ctx, actor, Write{Op: "admit"}, func(tx Tx) (*booking.Admission, error) {
		if byNumber {
			return s.admitBooking(tx, actor, number, settings)
		}
		return s.admit(tx, actor, ticketID, settings)
	})
}

// doorNow is a scan's show, its hall, and the transaction's time on the
// show's site's clock.
func (s *Store) doorNow(tx Tx, showID int64, settings []booking.SettingRow) (booking.Show, *booking.Hall, time.Time, error) {
	show, err := s.prog.Show(tx.Context(), showID)
	if err != nil {
		return show, nil, time.Time{}, err
	}
	hall, err := s.prog.Hall(tx.Context(), show.HallID)
	if err != nil {
		return show, nil, time.Time{}, err
	}
	now := tx.Now()
	if at := booking.ResolveCinema(settings, s.settingSite(hall.Site)); at.Zoned() {
		now = now.In(at.Location())
		show.Starts = show.Starts.In(at.Location())
	}
	return show, hall, now, nil
}

// admit moves ticket ticketID issued -> admitted inside tx, after checking
// it is neither void, nor admitted, nor out of its door window.
func (s *Store) admit(tx Tx, actor booking.Actor, ticketID int64, settings []booking.SettingRow) (*booking.Admission, error) {
	sc, err := tx.ScannedTicket(ticketID)
	if err != nil {
		return nil, err
	}
	show, hall, now, err := s.doorNow(tx, sc.ShowID, settings)
	if err != nil {
		return nil, err
	}
	res := &booking.Admission{Booking: sc.Number, Show: show}
	seat, _ := s.prog.Seat(hall.ID, sc.SeatID)
	if err := refusal(now, sc, seat.Label); err != nil {
		return nil, err
	}
	if err := booking.DoorWindow(now, show, seat.Label); err != nil {
		return nil, err
	}
	t, err := s.admitOne(tx, actor, ticketID, sc, seat, now)
	if err != nil {
		return nil, err
	}
	res.Ticket, res.Tickets = t, []booking.Ticket{t}
	return res, nil
}

// admitOne moves one ticket, checked, issued -> admitted, with its audit
// row. Of two doors at once, the one whose compare-and-set found the
// ticket moved reads it again (a new statement, so it sees the admission
// that won) and is told when and by whom.
func (s *Store) admitOne(tx Tx, actor booking.Actor, ticketID int64, sc ScannedTicket, seat booking.Seat, now time.Time) (booking.Ticket, error) {
	t := booking.Ticket{ID: ticketID, Seat: seat, Type: sc.Type}
	ok, err := tx.AdmitTicket(ticketID, actor.Name)
	if err != nil {
		return t, err
	}
	if !ok {
		if sc, err = tx.ScannedTicket(ticketID); err != nil {
			return t, err
		}
		if err := refusal(now, sc, seat.Label); err != nil {
			return t, err
		}
		return t, &booking.StaleError{What: "Ticket " + seat.Label, Current: string(sc.Status)}
	}
	admitted := now
	t.Status, t.AdmittedAt, t.AdmittedBy = booking.TicketAdmitted, &admitted, actor.Name
	return t, Audit(tx, actor, booking.AuditEntry{Action: booking.AuditAdmit, ShowID: sc.ShowID, Detail: "seat " + seat.Label}, sc.BookingID)
}

// admitBooking admits, by the one rule of admitOne, each ticket of the
// booking with number that may come in, and says why the others stay
// out. The booking's row is locked first, so two doors scanning one
// number take turns and the second finds the tickets in. A number no
// booking has may be a reservation's: not paid, it is sent to the
// counter.
func (s *Store) admitBooking(tx Tx, actor booking.Actor, number string, settings []booking.SettingRow) (*booking.Admission, error) {
	b, found, err := tx.BookingByNumberForUpdate(number)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, s.unpaidAtDoor(tx, number, settings)
	}
	show, hall, now, err := s.doorNow(tx, b.ShowID, settings)
	if err != nil {
		return nil, err
	}
	rows, err := tx.BookingTickets(b.ID)
	if err != nil {
		return nil, err
	}
	res := &booking.Admission{Booking: b.Number, Show: show}
	var first error
	for _, r := range rows {
		sc, err := tx.ScannedTicket(r.ID)
		if err != nil {
			return nil, err
		}
		seat, _ := s.prog.Seat(hall.ID, sc.SeatID)
		if err := refusal(now, sc, seat.Label); err != nil {
			if first == nil {
				first = err
			}
			res.Kept = append(res.Kept, booking.ErrorMessage(err))
			continue
		}
		if err := booking.DoorWindow(now, show, seatLabels(rows)); err != nil {
			return nil, err
		}
		t, err := s.admitOne(tx, actor, r.ID, sc, seat, now)
		if err != nil {
			return nil, err
		}
		res.Tickets = append(res.Tickets, t)
	}
	if len(res.Tickets) == 0 {
		if first == nil {
			first = booking.Errorf(booking.EConflict, "Booking %s has no tickets to admit.", booking.Clean(b.Number))
		}
		return nil, first
	}
	res.Ticket = res.Tickets[0]
	return res, nil
}

// seatLabels names a booking's seats for the door's messages.
func seatLabels(rows []TicketRow) string {
	labels := make([]string, len(rows))
	for i, r := range rows {
		labels[i] = r.Label
	}
	return strings.Join(labels, " ")
}

// unpaidAtDoor is the door's answer for a number no booking has: a
// reservation not paid yet is paid at the counter, one that lapsed is
// said to have, and anything else is no booking at all.
func (s *Store) unpaidAtDoor(tx Tx, number string, settings []booking.SettingRow) error {
	r, found, err := tx.ReservationForUpdate(number)
	if err != nil {
		return err
	}
	if !found {
		return booking.ErrNoBooking(number)
	}
	_, _, now, err := s.doorNow(tx, r.ShowID, settings)
	if err != nil {
		return err
	}
	cut := r.CutOff.In(now.Location()).Format("15:04")
	if r.Status == booking.ReservationReserved && now.Before(r.CutOff) {
		return booking.Errorf(booking.EConflict, "Not paid: pay at the counter (reservation %s, until %s).", booking.Clean(r.Number), cut)
	}
	return booking.Errorf(booking.EConflict, "Reservation %s was not paid; it lapsed at %s.", booking.Clean(r.Number), cut)
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
	case sc.Status == booking.TicketRefunded:
		return booking.Errorf(booking.EConflict, "Ticket %s of %s was refunded.", booking.Clean(seat), booking.Clean(sc.Number))
	case sc.Status == booking.TicketAdmitted:
		return booking.Errorf(booking.EConflict, "Ticket %s was already admitted at %s by %s.",
			booking.Clean(seat), time.UnixMilli(sc.AdmittedAt).In(now.Location()).Format("15:04:05"), booking.Clean(sc.AdmittedBy))
	}
	return nil
}
