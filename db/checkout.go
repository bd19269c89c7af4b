package db

import (
	"context"
	"database/sql"
	"strconv"

	"boxoffice/booking"
	"boxoffice/store"
)

// The sale's queries (store.SaleTx): a hold confirmed by compare-and-set,
// a booking, its claims sold, its tickets, its payment. The price table
// is read inside the transaction only when the price generation moved
// (migration 0026's triggers move it on every price write).

// qPriceGen reads the price generation as text ("" when the database has
// none): the same text for the same generation whichever statement reads
// it.
const qPriceGen = `coalesce((SELECT CAST(value AS TEXT) FROM meta WHERE key = 'price_gen'), '')`

// ConfirmHold moves owner's live hold held -> confirmed, and reads its
// show's price list and the price generation in the same statement.
func (w *wtx) ConfirmHold(holdID int64, owner string) (store.Confirmed, bool, error) {
	var c store.Confirmed
	err := w.queryRow(`UPDATE holds SET status = 'confirmed' WHERE id = ? AND owner = ? AND status = 'held' AND `+liveHoldSQL("holds")+`
		RETURNING show_id, (SELECT price_list FROM shows WHERE id = holds.show_id), `+qPriceGen,
		holdID, owner, w.nowMS(), w.nowMS()).Scan(&c.ShowID, &c.PriceList, &c.PriceGen)
	if isNoRows(err) {
		return c, false, nil
	}
	return c, err == nil, err
}

// PayingReservation: SQLite keeps no such guard; the store's checkout
// refuses a reservation's hold.
func (w *wtx) PayingReservation(string) error { return nil }

// PriceGen reads the price generation.
func (w *wtx) PriceGen() (string, error) {
	var gen string
	err := w.queryRow(`SELECT ` + qPriceGen).Scan(&gen)
	return gen, err
}

// PriceTable reads the price table inside the transaction.
func (w *wtx) PriceTable() (*booking.PriceTable, error) { return loadPriceTable(w.query) }

// ReadPrices reads the price table and its generation in one read
// transaction on the read pool.
func (d driver) ReadPrices(ctx context.Context) (*booking.PriceTable, string, error) {
	tx, err := d.s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, "", d.s.translate("prices", err)
	}
	defer tx.Rollback()
	var gen string
	if err := tx.QueryRowContext(ctx, `SELECT `+qPriceGen).Scan(&gen); err != nil {
		return nil, "", d.s.translate("prices", err)
	}
	t, err := loadPriceTable(func(q string, args ...any) (*sql.Rows, error) { return tx.QueryContext(ctx, q, args...) })
	return t, gen, d.s.translate("prices", err)
}

// InsertSale writes a booking under its number or a fresh random one,
// and indexes its customer's name for the search.
func (w *wtx) InsertSale(nb store.NewBooking) (int64, string, error) {
	for attempt := 0; ; attempt++ {
		number := nb.Number
		if number == "" {
			number = booking.NewBookingNumber()
		}
		var id int64
		err := w.queryRow(`INSERT INTO bookings (number, show_id, hold_id, status, idem_key, customer, phone, phone_rev, total, sold_by, terminal, created_at)
			VALUES (?, ?, ?, 'confirmed', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			number, nb.ShowID, nb.HoldID, nb.Key, nb.Customer, nb.Phone, booking.ReverseDigits(nb.Phone), nb.Total, nb.SoldBy, nb.Terminal, w.nowMS()).Scan(&id)
		if err == nil {
			return id, number, indexCustomer(w, id, nb.Customer)
		}
		if !isConstraint(err) || attempt > 5 {
			return 0, "", err
		}
		var used int
		if err := w.queryRow(`SELECT count(*) FROM bookings WHERE idem_key = ?`, nb.Key).Scan(&used); err != nil {
			return 0, "", err
		}
		if used > 0 || nb.Number != "" {
			return 0, "", store.ErrKeyUsed
		}
	}
}

// SellHeldClaims moves a hold's held claims to sold and adds them to the
// show's sold count.
func (w *wtx) SellHeldClaims(holdID, bookingID, showID int64) (int, error) {
	res, err := w.exec(`UPDATE seat_claims SET status = 'sold', booking_id = ? WHERE hold_id = ? AND status = 'held'`, bookingID, holdID)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return int(n), err
	}
	_, err = w.exec(`UPDATE shows SET sold = sold + ? WHERE id = ?`, n, showID)
	return int(n), err
}

// InsertTickets issues a booking's tickets in one statement
// (insertTickets).
func (w *wtx) InsertTickets(bookingID int64, lines []booking.QuoteLine) ([]booking.Ticket, error) {
	args := make([]any, 0, 6*len(lines))
	out := make([]booking.Ticket, len(lines))
	for i, l := range lines {
		id := bookingID*store.TicketsPerBooking + int64(i)
		args = append(args, id, bookingID, l.Seat.ID, l.Type, l.Amount, l.Source)
		out[i] = booking.Ticket{ID: id, Seat: l.Seat, Type: l.Type, Price: l.Amount, PriceSource: l.Source, Status: booking.TicketIssued}
	}
	_, err := w.exec(`INSERT INTO tickets (id, booking_id, seat_id, type_code, price, price_source, status) VALUES `+
		placeholders("(?, ?, ?, ?, ?, ?, 'issued')", len(lines)), args...)
	return out, err
}

// qSellHold confirms a hold for SellHold only when every decision the
// store made still holds: the hold live and owner's, its held seats
// exactly ?6 (ids ascending, comma separated), the price generation ?7
// and the show's price list ?8, the key ?9 and the number ?10 unused,
// the cash shift ?11 (0: card) open and the seller's (?12), and the actor
// standing (?3-?5). Its parameters ?1 and ?2 are now and the hold.
const qSellHold = `UPDATE holds SET status = 'confirmed' WHERE id = ?2 AND owner = ?13 AND status = 'held'
	AND holds.expires_at > ?1 AND (holds.created_at <= ?1 + 2000 OR holds.owner GLOB 'reservation:*')
	AND (SELECT group_concat(seat_id) FROM (SELECT seat_id FROM seat_claims WHERE hold_id = ?2 AND status = 'held' ORDER BY seat_id)) = ?6
	AND ` + qPriceGen + ` = ?7 AND (SELECT price_list FROM shows WHERE id = holds.show_id) = ?8
	AND NOT EXISTS (SELECT 1 FROM bookings WHERE idem_key = ?9) AND NOT EXISTS (SELECT 1 FROM bookings WHERE number = ?10)
	AND (?11 = 0 OR EXISTS (SELECT 1 FROM shifts WHERE id = ?11 AND status = 'open' AND staff = ?12))
	AND ` + qActorStands + ` RETURNING show_id`

// SellHold sells a hold as the store decided: the compare-and-set that
// checks every decision (qSellHold) is the only statement that can
// refuse; the rest then cannot.
func (w *wtx) SellHold(s store.Sale) (store.SaleDone, bool, error) {
	var done store.SaleDone
	nb := s.Booking
	if nb.Number == "" {
		nb.Number = booking.NewBookingNumber()
	}
	seats := make([]byte, 0, 8*len(s.SeatIDs))
	for i, id := range s.SeatIDs {
		if i > 0 {
			seats = append(seats, ',')
		}
		seats = strconv.AppendInt(seats, id, 10)
	}
	args := append([]any{w.nowMS(), s.HoldID}, actorArgs(s.Actor)...)
	args = append(args, string(seats), s.PriceGen, s.PriceList, nb.Key, nb.Number, s.ShiftID, nb.SoldBy, s.Owner)
	var showID int64
	if err := w.queryRow(qSellHold, args...).Scan(&showID); isNoRows(err) {
		return done, false, nil
	} else if err != nil {
		return done, false, err
	}
	id, number, err := w.InsertSale(nb)
	if err != nil {
		return done, false, err
	}
	if _, err := w.SellHeldClaims(s.HoldID, id, showID); err != nil {
		return done, false, err
	}
	if _, err := w.InsertTickets(id, s.Lines); err != nil {
		return done, false, err
	}
	done.BookingID, done.Number = id, number
	if done.PaymentID, done.ShiftID, err = insertSalePayment(w, id, s, nb); err != nil {
		return done, false, err
	}
	s.Audit.BookingID = id
	w.touch(showID)
	return done, true, w.InsertAudit(s.Audit)
}

// insertSalePayment records a sale's payment, in the cash sale's shift
// or, for a card sale, in the seller's open shift if there is one, and
// returns its id and shift.
func insertSalePayment(w *wtx, bookingID int64, s store.Sale, nb store.NewBooking) (int64, int64, error) {
	var id int64
	var shift sql.NullInt64
	err := w.queryRow(`INSERT INTO payments (booking_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id)
		VALUES (?, 'sale', ?, ?, ?, ?, ?, ?, ?, COALESCE(?, (SELECT id FROM shifts WHERE staff = ? AND status = 'open'))) RETURNING id, shift_id`,
		bookingID, string(s.Method), nb.Total, s.Tendered, s.Change, w.nowMS(), nb.SoldBy, nb.Terminal, nullID(s.ShiftID), nb.SoldBy).Scan(&id, &shift)
	return id, shift.Int64, err
}

// ticketsPerBooking spaces ticket ids (store.TicketsPerBooking).
const ticketsPerBooking = store.TicketsPerBooking
