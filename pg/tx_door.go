package pg

import (
	"errors"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// ScannedTicket reads a ticket with its booking and show for the door: a
// statement of its own, so under READ COMMITTED it sees every admission
// committed before it began.
func (t *tx) ScannedTicket(ticketID int64) (store.ScannedTicket, error) {
	var sc store.ScannedTicket
	err := t.QueryRow(t.ctx, `SELECT t.seat_id, t.type_code, t.status, coalesce(t.admitted_at, 0), t.admitted_by, b.id, b.number, b.status, b.show_id, s.status,
		coalesce((SELECT n.number FROM exchanges e JOIN bookings n ON n.id = e.to_booking WHERE e.id = t.exchange_id), '')
		FROM tickets t JOIN bookings b ON b.id = t.booking_id JOIN shows s ON s.id = b.show_id WHERE t.id = $1`, ticketID).
		Scan(&sc.SeatID, &sc.Type, &sc.Status, &sc.AdmittedAt, &sc.AdmittedBy, &sc.BookingID, &sc.Number, &sc.BookingStatus, &sc.ShowID, &sc.ShowStatus, &sc.ExchangedTo)
	if errors.Is(err, pgx.ErrNoRows) {
		return sc, booking.Errorf(booking.ENotFound, "Unknown ticket code.")
	}
	return sc, err
}

// AdmitTicket moves a ticket issued -> admitted by compare-and-set;
// PostgreSQL re-checks the condition on the newest version of the row, so
// of two doors at once one changes it.
func (t *tx) AdmitTicket(ticketID int64, by string) (bool, error) {
	tag, err := t.Exec(t.ctx, `UPDATE tickets SET status = 'admitted', admitted_at = $1, admitted_by = $2 WHERE id = $3 AND status = 'issued'`,
		t.nowMS(), by, ticketID)
	return tag.RowsAffected() == 1, err
}
