package db

import (
	"strings"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// ExchangeByKey reads the exchange an idempotency key made.
func (w *wtx) ExchangeByKey(key string) (store.ExchangeRow, bool, error) {
	x := store.ExchangeRow{Key: key}
	err := w.queryRow(`SELECT from_booking, to_booking, credit, difference FROM exchanges WHERE idem_key = ?`, key).Scan(&x.From, &x.To, &x.Credit, &x.Difference)
	if isNoRows(err) {
		return x, false, nil
	}
	return x, err == nil, err
}

// ReleaseOwnHold lets go of owner's live hold and its claims.
func (w *wtx) ReleaseOwnHold(holdID int64, owner string) error {
	res, err := w.exec(`UPDATE holds SET status = 'released' WHERE id = ? AND owner = ? AND status = 'held'`, holdID, owner)
	if released, err := changedOne(res, err); err != nil || !released {
		return err
	}
	_, err = w.exec(`UPDATE seat_claims SET status = 'released' WHERE hold_id = ? AND status = 'held'`, holdID)
	return err
}

// ClaimSeats checks the seats free, after expiring lapsed holds (which
// never block), and makes a confirmed hold for them; SellSeats writes
// their claims sold. The writer runs one write at a time, so nothing
// claims them in between. A live claim on any seat is the clash a sale
// would meet; a seat kept out of sale is refused saying so (the
// database's trigger would refuse it without saying why).
func (w *wtx) ClaimSeats(hall *booking.Hall, showID int64, owner string, seats []booking.Seat) (int64, error) {
	s := w.s
	if _, err := expireStale(w, showID); err != nil {
		return 0, err
	}
	live, err := liveClaimsOf(w, showID, seats)
	if err != nil {
		return 0, err
	}
	var taken []booking.Seat
	for _, seat := range seats {
		if _, ok := live[seat.ID]; ok {
			taken = append(taken, seat)
		}
	}
	if len(taken) > 0 {
		return 0, s.clash(w, hall, showID, taken, len(seats), false)
	}
	sh, err := s.showInfo(w.ctx, showID)
	if err != nil {
		return 0, err
	}
	out, err := s.outOfSale(w, sh)
	if err != nil {
		return 0, err
	}
	for _, seat := range seats {
		if out[seat.ID] {
			taken = append(taken, seat)
		}
	}
	if len(taken) > 0 {
		return 0, s.clash(w, hall, showID, taken, len(seats), true)
	}
	var holdID int64
	err = w.queryRow(`INSERT INTO holds (show_id, owner, status, created_at, expires_at) VALUES (?, ?, 'confirmed', ?, ?) RETURNING id`,
		showID, owner, w.nowMS(), w.nowMS()).Scan(&holdID)
	return holdID, err
}

// PricesOf reads the price table and a show's price list inside the
// transaction. An exchange is rare: it reads the table rather than share
// the sale path's copy.
func (w *wtx) PricesOf(showID int64) (*booking.PriceTable, string, error) {
	prices, err := loadPriceTable(w.query)
	if err != nil {
		return nil, "", err
	}
	var list string
	if err := w.queryRow(qShowList, showID).Scan(&list); err != nil {
		return nil, "", err
	}
	return prices, strings.ToLower(list), nil
}

// InsertBooking writes a confirmed booking (insertBooking) and indexes
// its customer's name for the search.
func (w *wtx) InsertBooking(nb store.NewBooking) (int64, string, error) {
	b := &booking.Booking{Show: booking.Show{ID: nb.ShowID}, Customer: nb.Customer, Phone: nb.Phone, Total: nb.Total,
		SoldBy: nb.SoldBy, Terminal: nb.Terminal, CreatedAt: time.UnixMilli(w.nowMS())}
	if err := insertBooking(w, b, nb.HoldID, nb.Key); err != nil {
		return 0, "", err
	}
	return b.ID, b.Number, indexCustomer(w, b.ID, nb.Customer)
}

// SellSeats writes the seats' claims sold to the booking, for the hold
// ClaimSeats made, and adds them to the show's sold count.
func (w *wtx) SellSeats(holdID, bookingID, showID int64, seats []booking.Seat) error {
	args := make([]any, 0, 4*len(seats))
	for _, seat := range seats {
		args = append(args, showID, seat.ID, holdID, bookingID)
	}
	if _, err := w.exec(`INSERT INTO seat_claims (show_id, seat_id, hold_id, booking_id, status) VALUES `+placeholders("(?, ?, ?, ?, 'sold')", len(seats)), args...); err != nil {
		return err
	}
	_, err := w.exec(`UPDATE shows SET sold = sold + ? WHERE id = ?`, len(seats), showID)
	return err
}

// InsertTickets issues a booking's tickets in one statement
// (insertTickets).
func (w *wtx) InsertTickets(bookingID int64, lines []booking.QuoteLine) ([]booking.Ticket, error) {
	b := &booking.Booking{ID: bookingID}
	err := insertTickets(w, b, lines)
	return b.Tickets, err
}

// InsertExchange writes an exchange.
func (w *wtx) InsertExchange(x store.ExchangeRow) (int64, error) {
	var id int64
	err := w.queryRow(`INSERT INTO exchanges (idem_key, from_booking, to_booking, credit, difference, method, at, staff, terminal, approved_by)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, x.Key, x.From, x.To, x.Credit, x.Difference, string(x.Method), w.nowMS(),
		x.Staff, x.Terminal, x.Approver).Scan(&id)
	return id, err
}

// MarkExchanged marks the voided tickets with their exchange.
func (w *wtx) MarkExchanged(exchangeID int64, ticketIDs []int64) error {
	for _, id := range ticketIDs {
		if _, err := w.exec(`UPDATE tickets SET exchange_id = ? WHERE id = ?`, exchangeID, id); err != nil {
			return err
		}
	}
	return nil
}
