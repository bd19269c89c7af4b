package pg

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// The unwinds of a booking on PostgreSQL run READ COMMITTED: the booking
// is read FOR UPDATE first, so a cancel, a refund and an exchange of one
// booking take turns on any server and each reads what the one before
// committed; every status moves by compare-and-set, which PostgreSQL
// re-checks on the newest version of the row, and a ticket whose move
// lost is read again by a statement of its own, which sees the admission
// that won it. The unique index payments_one_ticket_refund refuses a
// second refund of a ticket, and payments_refund_within_sale refunds
// beyond the sale, whatever the Go code does.

// qBookingRow reads a booking as an unwind does.
const qBookingRow = `SELECT id, show_id, hold_id, number, status, customer, phone FROM bookings`

// BookingByNumberForUpdate reads and locks the booking with number.
func (t *tx) BookingByNumberForUpdate(number string) (store.BookingRow, bool, error) {
	return t.bookingRow(qBookingRow+` WHERE number = $1 FOR UPDATE`, number)
}

// BookingForUpdate reads and locks booking id.
func (t *tx) BookingForUpdate(id int64) (store.BookingRow, bool, error) {
	return t.bookingRow(qBookingRow+` WHERE id = $1 FOR UPDATE`, id)
}

func (t *tx) bookingRow(query string, arg any) (store.BookingRow, bool, error) {
	var b store.BookingRow
	err := t.QueryRow(t.ctx, query, arg).Scan(&b.ID, &b.ShowID, &b.HoldID, &b.Number, &b.Status, &b.Customer, &b.Phone)
	if errors.Is(err, pgx.ErrNoRows) {
		return b, false, nil
	}
	return b, err == nil, err
}

// BookingStatus reads a booking's status.
func (t *tx) BookingStatus(id int64) (booking.BookingStatus, error) {
	var status booking.BookingStatus
	err := t.QueryRow(t.ctx, `SELECT status FROM bookings WHERE id = $1`, id).Scan(&status)
	return status, err
}

// CancelBooking moves a booking confirmed -> cancelled by compare-and-set.
func (t *tx) CancelBooking(id int64, c store.Cancellation) (bool, error) {
	tag, err := t.Exec(t.ctx, `UPDATE bookings SET status = 'cancelled', cancelled_by = $1, approved_by = $2, reason = $3, cancelled_at = $4
		WHERE id = $5 AND status = 'confirmed'`, c.By, c.ApprovedBy, c.Reason, t.nowMS(), id)
	return tag.RowsAffected() == 1, err
}

// BookingTickets reads a booking's tickets with their seats' labels.
func (t *tx) BookingTickets(bookingID int64) ([]store.TicketRow, error) {
	first, last := ticketRange(bookingID)
	rows, err := t.Query(t.ctx, `SELECT t.id, t.seat_id, s.label, t.type_code, t.price, t.status FROM tickets t JOIN seats s ON s.id = t.seat_id
		WHERE t.id BETWEEN $1 AND $2 ORDER BY t.id`, first, last)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.TicketRow, error) {
		var tk store.TicketRow
		return tk, r.Scan(&tk.ID, &tk.SeatID, &tk.Label, &tk.Type, &tk.Price, &tk.Status)
	})
}

// TicketStatus reads a ticket's status in a statement of its own.
func (t *tx) TicketStatus(ticketID int64) (booking.TicketStatus, error) {
	var status booking.TicketStatus
	err := t.QueryRow(t.ctx, `SELECT status FROM tickets WHERE id = $1`, ticketID).Scan(&status)
	return status, err
}

// ticketTakes are TakeTicket's compare-and-sets by the status a ticket
// goes to.
var ticketTakes = map[booking.TicketStatus]string{
	booking.TicketRefunded: `UPDATE tickets SET status = 'refunded' WHERE id = $1 AND status = 'issued'`,
	booking.TicketVoid:     `UPDATE tickets SET status = 'void' WHERE id = $1 AND status = 'issued'`,
}

// TakeTicket moves an issued ticket to refunded or void by
// compare-and-set: of it and a door admitting the ticket, one moves it.
func (t *tx) TakeTicket(ticketID int64, to booking.TicketStatus) (bool, error) {
	q, ok := ticketTakes[to]
	if !ok {
		return false, fmt.Errorf("take ticket: no move issued -> %s", to)
	}
	tag, err := t.Exec(t.ctx, q, ticketID)
	return tag.RowsAffected() == 1, err
}

// CountTickets counts a booking's tickets in any of statuses.
func (t *tx) CountTickets(bookingID int64, statuses ...booking.TicketStatus) (int, error) {
	first, last := ticketRange(bookingID)
	names := make([]string, len(statuses))
	for i, st := range statuses {
		names[i] = string(st)
	}
	var n int
	err := t.QueryRow(t.ctx, `SELECT count(*) FROM tickets WHERE id BETWEEN $1 AND $2 AND status = ANY($3)`, first, last, names).Scan(&n)
	return n, err
}

// FreeSeats frees the booking's sold claims; a show's sold count is the
// count of its sold claims.
func (t *tx) FreeSeats(b store.BookingRow, seatIDs []int64) (int, error) {
	query := `UPDATE seat_claims SET status = 'cancelled' WHERE hold_id = $1 AND booking_id = $2 AND status = 'sold'`
	args := []any{b.HoldID, b.ID}
	if seatIDs != nil {
		query += ` AND seat_id = ANY($3)`
		args = append(args, seatIDs)
	}
	tag, err := t.Exec(t.ctx, query, args...)
	return int(tag.RowsAffected()), err
}

// SaleMethod reads how a booking was paid.
func (t *tx) SaleMethod(bookingID int64) (booking.PayMethod, error) {
	var method booking.PayMethod
	err := t.QueryRow(t.ctx, `SELECT method FROM payments WHERE booking_id = $1 AND kind = 'sale'`, bookingID).Scan(&method)
	return method, err
}

// InsertPayment writes one payment.
func (t *tx) InsertPayment(p store.PaymentRow) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO payments (booking_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id, ticket_id, approved_by, reason)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id`,
		p.BookingID, string(p.Kind), string(p.Method), p.Amount, p.Tendered, p.Change, t.nowMS(), p.Staff, p.Terminal, nullID(p.ShiftID), nullID(p.TicketID), p.ApprovedBy, p.Reason).Scan(&id)
	return id, err
}

// ticketRange bounds the ticket ids of a booking.
func ticketRange(bookingID int64) (first, last int64) {
	return bookingID * ticketsPerBooking, bookingID*ticketsPerBooking + ticketsPerBooking - 1
}
