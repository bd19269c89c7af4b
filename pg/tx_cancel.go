package pg

import (
	"fmt"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// ticketVoids are VoidTickets' compare-and-sets by the status a booking's
// tickets leave.
var ticketVoids = map[booking.TicketStatus]string{
	booking.TicketIssued:   `UPDATE tickets SET status = 'void' WHERE id BETWEEN $1 AND $2 AND status = 'issued' RETURNING id, price`,
	booking.TicketAdmitted: `UPDATE tickets SET status = 'void' WHERE id BETWEEN $1 AND $2 AND status = 'admitted' RETURNING id, price`,
}

// VoidTickets voids a booking's tickets in status from and returns them
// for their refunds. A door admitting one of them at once waits for the
// row; whichever commits first moves it, and the other's compare-and-set
// finds it moved.
func (t *tx) VoidTickets(bookingID int64, from booking.TicketStatus) ([]store.Refundable, error) {
	q, ok := ticketVoids[from]
	if !ok {
		return nil, fmt.Errorf("void tickets: no move %s -> void", from)
	}
	first, last := ticketRange(bookingID)
	rows, err := t.Query(t.ctx, q, first, last)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Refundable, error) {
		var tk store.Refundable
		return tk, r.Scan(&tk.TicketID, &tk.Price)
	})
}
