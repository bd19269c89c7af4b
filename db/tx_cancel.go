package db

import (
	"fmt"

	"boxoffice/booking"
	"boxoffice/store"
)

// ticketVoids are VoidTickets' compare-and-sets by the status a booking's
// tickets leave, each spelled out for the status test.
var ticketVoids = map[booking.TicketStatus]string{
	booking.TicketIssued:   `UPDATE tickets SET status = 'void' WHERE id BETWEEN ? AND ? AND status = 'issued' RETURNING id, price`,
	booking.TicketAdmitted: `UPDATE tickets SET status = 'void' WHERE id BETWEEN ? AND ? AND status = 'admitted' RETURNING id, price`,
}

// VoidTickets voids a booking's tickets in status from and returns them
// for their refunds.
func (w *wtx) VoidTickets(bookingID int64, from booking.TicketStatus) ([]store.Refundable, error) {
	q, ok := ticketVoids[from]
	if !ok {
		return nil, fmt.Errorf("void tickets: no move %s -> void", from)
	}
	first, last := ticketRange(bookingID)
	rows, err := w.query(q, first, last)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Refundable
	for rows.Next() {
		var t store.Refundable
		if err := rows.Scan(&t.TicketID, &t.Price); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
