package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// Reading whole bookings, for every method that answers with one.

// idList is ids as a JSON array, for json_each: one statement serves any
// number of ids.
func idList(ids []int64) string {
	b := make([]byte, 0, 8*len(ids)+2)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}

// jsonStrings is words as a JSON array, for json_each.
func jsonStrings(words []string) string {
	b, _ := json.Marshal(words)
	return string(b)
}

// ReadBookings reads the rows of whole bookings in four queries whatever
// their number (bookings, their shows, tickets, payments), all in one read
// transaction so a booking cancelled meanwhile is never seen half
// cancelled.
func (d driver) ReadBookings(ctx context.Context, ids []int64) (store.BookingRows, error) {
	s := d.s
	var out store.BookingRows
	// Prepare before taking a connection for the transaction: preparing
	// on the pool while every connection sits in such a transaction
	// would wait for ever.
	for _, q := range loadQueries {
		if _, err := s.readStmt(ctx, q); err != nil {
			return out, s.translate("load booking", err)
		}
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return out, s.translate("load booking", err)
	}
	defer tx.Rollback()
	list := idList(ids)
	var showIDs []int64
	if out.Bookings, showIDs, err = s.readBookingRows(ctx, tx, list); err != nil {
		return out, s.translate("load booking", err)
	}
	if out.Shows, err = s.readShowsByID(ctx, tx, showIDs); err != nil {
		return out, s.translate("load booking", err)
	}
	if out.Tickets, err = s.readTickets(ctx, tx, list); err != nil {
		return out, s.translate("load booking", err)
	}
	if out.Payments, err = s.readPayments(ctx, tx, list); err != nil {
		return out, s.translate("load booking", err)
	}
	return out, nil
}

// The four reads of loadBookings.
const (
	qBookingRows = `SELECT id, number, show_id, status, customer, phone, total, sold_by, terminal, created_at,
		cancelled_by, approved_by, reason, cancelled_at,
		coalesce((SELECT f.number FROM exchanges e JOIN bookings f ON f.id = e.from_booking WHERE e.to_booking = bookings.id), '')
		FROM bookings WHERE id IN (SELECT value FROM json_each(?))`
	qShowsByID = `SELECT ` + showColumns + `
		FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id WHERE s.id IN (SELECT value FROM json_each(?))`
	qTickets = `SELECT t.id, t.booking_id, t.seat_id, t.type_code, t.price, t.price_source, t.status, t.admitted_at, t.admitted_by,
		coalesce((SELECT n.number FROM exchanges e JOIN bookings n ON n.id = e.to_booking WHERE e.id = t.exchange_id), '')
		FROM json_each(?) j CROSS JOIN tickets t ON t.id BETWEEN j.value * ? AND j.value * ? + ? ORDER BY t.id`
	qPayments = `SELECT booking_id, id, kind, method, amount, tendered, change_due, at, staff, terminal, coalesce(shift_id, 0), coalesce(ticket_id, 0), approved_by, coalesce(reason, '')
		FROM payments WHERE booking_id IN (SELECT value FROM json_each(?)) ORDER BY id`
)

var loadQueries = []string{qBookingRows, qShowsByID, qTickets, qPayments}

// txRows runs a statement already prepared on the read pool inside tx.
func (s *Store) txRows(ctx context.Context, tx *sql.Tx, query string, args ...any) (*sql.Rows, error) {
	st, err := s.readStmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
}

func (s *Store) readBookingRows(ctx context.Context, tx *sql.Tx, list string) ([]booking.Booking, []int64, error) {
	rows, err := s.txRows(ctx, tx, qBookingRows, list)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var out []booking.Booking
	var showIDs []int64
	for rows.Next() {
		var b booking.Booking
		var created int64
		var cancelledAt sql.NullInt64
		if err := rows.Scan(&b.ID, &b.Number, &b.Show.ID, &b.Status, &b.Customer, &b.Phone, &b.Total, &b.SoldBy, &b.Terminal, &created,
			&b.CancelledBy, &b.ApprovedBy, &b.Reason, &cancelledAt, &b.ExchangedFrom); err != nil {
			return nil, nil, err
		}
		b.CreatedAt = time.UnixMilli(created)
		out = append(out, b)
		if !slices.Contains(showIDs, b.Show.ID) {
			showIDs = append(showIDs, b.Show.ID)
		}
	}
	return out, showIDs, rows.Err()
}

func (s *Store) readShowsByID(ctx context.Context, tx *sql.Tx, ids []int64) (map[int64]booking.Show, error) {
	rows, err := s.txRows(ctx, tx, qShowsByID, s.opts.Clock().UnixMilli(), idList(ids))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[int64]booking.Show, len(ids))
	for rows.Next() {
		sh, err := scanShow(rows)
		if err != nil {
			return nil, err
		}
		out[sh.ID] = sh
	}
	return out, rows.Err()
}

// readTickets reads the tickets of the bookings in list. A booking's
// tickets are a range of ticket ids (see ticketsPerBooking), so each
// booking costs one primary-key range.
func (s *Store) readTickets(ctx context.Context, tx *sql.Tx, list string) ([]store.BookingTicket, error) {
	rows, err := s.txRows(ctx, tx, qTickets, list, ticketsPerBooking, ticketsPerBooking, ticketsPerBooking-1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.BookingTicket
	for rows.Next() {
		var t store.BookingTicket
		var admitted sql.NullInt64
		if err := rows.Scan(&t.ID, &t.BookingID, &t.Seat.ID, &t.Type, &t.Price, &t.PriceSource, &t.Status, &admitted, &t.AdmittedBy, &t.ExchangedTo); err != nil {
			return nil, err
		}
		if admitted.Valid {
			at := time.UnixMilli(admitted.Int64)
			t.AdmittedAt = &at
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func (s *Store) readPayments(ctx context.Context, tx *sql.Tx, list string) ([]store.BookingPayment, error) {
	rows, err := s.txRows(ctx, tx, qPayments, list)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.BookingPayment
	for rows.Next() {
		var p store.BookingPayment
		var at int64
		var method string
		if err := rows.Scan(&p.BookingID, &p.ID, &p.Kind, &method, &p.Amount, &p.Tendered, &p.Change, &at, &p.Staff, &p.Terminal, &p.ShiftID, &p.TicketID, &p.ApprovedBy, &p.Reason); err != nil {
			return nil, err
		}
		p.Method = booking.PayMethod(method)
		p.At = time.UnixMilli(at)
		out = append(out, p)
	}
	return out, rows.Err()
}
