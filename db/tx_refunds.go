package db

import (
	"fmt"

	"boxoffice/booking"
	"boxoffice/store"
)

// The unwinds of a booking on SQLite: one writer runs one write at a time,
// so a read the rule then acts on needs no lock. A booking's tickets are a
// range of ids (ticketsPerBooking), read through the primary key.

// qBookingRow reads a booking as an unwind does.
const qBookingRow = `SELECT id, show_id, hold_id, number, status, customer, phone FROM bookings`

// BookingByNumberForUpdate reads the booking with number.
func (w *wtx) BookingByNumberForUpdate(number string) (store.BookingRow, bool, error) {
	return w.bookingRow(qBookingRow+` WHERE number = ?`, number)
}

// BookingForUpdate reads booking id.
func (w *wtx) BookingForUpdate(id int64) (store.BookingRow, bool, error) {
	return w.bookingRow(qBookingRow+` WHERE id = ?`, id)
}

func (w *wtx) bookingRow(query string, arg any) (store.BookingRow, bool, error) {
	var b store.BookingRow
	err := w.queryRow(query, arg).Scan(&b.ID, &b.ShowID, &b.HoldID, &b.Number, &b.Status, &b.Customer, &b.Phone)
	if isNoRows(err) {
		return b, false, nil
	}
	return b, err == nil, err
}

// BookingStatus reads a booking's status.
func (w *wtx) BookingStatus(id int64) (booking.BookingStatus, error) {
	var status booking.BookingStatus
	err := w.queryRow(`SELECT status FROM bookings WHERE id = ?`, id).Scan(&status)
	return status, err
}

// CancelBooking moves a booking confirmed -> cancelled by compare-and-set.
func (w *wtx) CancelBooking(id int64, c store.Cancellation) (bool, error) {
	res, err := w.exec(`UPDATE bookings SET status = 'cancelled', cancelled_by = ?, approved_by = ?, reason = ?, cancelled_at = ? WHERE id = ? AND status = 'confirmed'`,
		c.By, c.ApprovedBy, c.Reason, w.nowMS(), id)
	return changedOne(res, err)
}

// BookingTickets reads a booking's tickets with their seats' labels.
func (w *wtx) BookingTickets(bookingID int64) ([]store.TicketRow, error) {
	first, last := ticketRange(bookingID)
	rows, err := w.query(`SELECT t.id, t.seat_id, s.label, t.type_code, t.price, t.status FROM tickets t JOIN seats s ON s.id = t.seat_id
		WHERE t.id BETWEEN ? AND ? ORDER BY t.id`, first, last)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.TicketRow
	for rows.Next() {
		var t store.TicketRow
		if err := rows.Scan(&t.ID, &t.SeatID, &t.Label, &t.Type, &t.Price, &t.Status); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// TicketStatus reads a ticket's status.
func (w *wtx) TicketStatus(ticketID int64) (booking.TicketStatus, error) {
	var status booking.TicketStatus
	err := w.queryRow(`SELECT status FROM tickets WHERE id = ?`, ticketID).Scan(&status)
	return status, err
}

// ticketTakes are TakeTicket's compare-and-sets by the status a ticket
// goes to, each spelled out for the status test.
var ticketTakes = map[booking.TicketStatus]string{
	booking.TicketRefunded: `UPDATE tickets SET status = 'refunded' WHERE id = ? AND status = 'issued'`,
	booking.TicketVoid:     `UPDATE tickets SET status = 'void' WHERE id = ? AND status = 'issued'`,
}

// TakeTicket moves an issued ticket to refunded or void by
// compare-and-set.
func (w *wtx) TakeTicket(ticketID int64, to booking.TicketStatus) (bool, error) {
	q, ok := ticketTakes[to]
	if !ok {
		return false, fmt.Errorf("take ticket: no move issued -> %s", to)
	}
	res, err := w.exec(q, ticketID)
	return changedOne(res, err)
}

// CountTickets counts a booking's tickets in any of statuses.
func (w *wtx) CountTickets(bookingID int64, statuses ...booking.TicketStatus) (int, error) {
	first, last := ticketRange(bookingID)
	args := []any{first, last}
	for _, st := range statuses {
		args = append(args, string(st))
	}
	var n int
	err := w.queryRow(`SELECT count(*) FROM tickets WHERE id BETWEEN ? AND ? AND status IN (`+placeholders("?", len(statuses))+`)`, args...).Scan(&n)
	return n, err
}

// FreeSeats frees the booking's sold claims and takes them off its show's
// sold count.
func (w *wtx) FreeSeats(b store.BookingRow, seatIDs []int64) (int, error) {
	query := `UPDATE seat_claims SET status = 'cancelled' WHERE hold_id = ? AND booking_id = ? AND status = 'sold'`
	args := []any{b.HoldID, b.ID}
	if seatIDs != nil {
		query += ` AND seat_id IN (` + placeholders("?", len(seatIDs)) + `)`
		for _, id := range seatIDs {
			args = append(args, id)
		}
	}
	res, err := w.exec(query, args...)
	if err != nil {
		return 0, err
	}
	freed, err := res.RowsAffected()
	if err != nil || freed == 0 {
		return 0, err
	}
	_, err = w.exec(`UPDATE shows SET sold = sold - ? WHERE id = ?`, freed, b.ShowID)
	return int(freed), err
}

// SaleMethod reads how a booking was paid.
func (w *wtx) SaleMethod(bookingID int64) (booking.PayMethod, error) {
	var method booking.PayMethod
	err := w.queryRow(`SELECT method FROM payments WHERE booking_id = ? AND kind = 'sale'`, bookingID).Scan(&method)
	return method, err
}

// InsertPayment writes one payment; the unique index on payments(ticket_id)
// makes a second refund of a ticket impossible.
func (w *wtx) InsertPayment(p store.PaymentRow) (int64, error) {
	var id int64
	err := w.queryRow(`INSERT INTO payments (booking_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id, ticket_id, approved_by, reason)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		p.BookingID, string(p.Kind), string(p.Method), p.Amount, p.Tendered, p.Change, w.nowMS(), p.Staff, p.Terminal, nullID(p.ShiftID), nullID(p.TicketID), p.ApprovedBy, p.Reason).Scan(&id)
	return id, err
}

// ticketRange bounds the ticket ids of a booking.
func ticketRange(bookingID int64) (first, last int64) {
	return bookingID * ticketsPerBooking, bookingID*ticketsPerBooking + ticketsPerBooking - 1
}

// changedOne reports whether a compare-and-set changed its one row.
func changedOne(res interface{ RowsAffected() (int64, error) }, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
