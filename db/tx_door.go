package db

import (
	"database/sql"

	"boxoffice/booking"
	"boxoffice/store"
)

// ScannedTicket reads a ticket with its booking and show for the door.
func (w *wtx) ScannedTicket(ticketID int64) (store.ScannedTicket, error) {
	var sc store.ScannedTicket
	var at sql.NullInt64
	err := w.queryRow(`SELECT t.seat_id, t.type_code, t.status, t.admitted_at, t.admitted_by, b.id, b.number, b.status, b.show_id, s.status,
		coalesce((SELECT n.number FROM exchanges e JOIN bookings n ON n.id = e.to_booking WHERE e.id = t.exchange_id), '')
		FROM tickets t JOIN bookings b ON b.id = t.booking_id JOIN shows s ON s.id = b.show_id WHERE t.id = ?`, ticketID).
		Scan(&sc.SeatID, &sc.Type, &sc.Status, &at, &sc.AdmittedBy, &sc.BookingID, &sc.Number, &sc.BookingStatus, &sc.ShowID, &sc.ShowStatus, &sc.ExchangedTo)
	if isNoRows(err) {
		return sc, booking.Errorf(booking.ENotFound, "Unknown ticket code.")
	}
	sc.AdmittedAt = at.Int64
	return sc, err
}

// AdmitTicket moves a ticket issued -> admitted by compare-and-set.
func (w *wtx) AdmitTicket(ticketID int64, by string) (bool, error) {
	r, err := w.exec(`UPDATE tickets SET status = 'admitted', admitted_at = ?, admitted_by = ? WHERE id = ? AND status = 'issued'`,
		w.nowMS(), by, ticketID)
	if err != nil {
		return false, err
	}
	n, err := r.RowsAffected()
	return n == 1, err
}
