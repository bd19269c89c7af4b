package pg

import (
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// ExchangeByKey reads the exchange an idempotency key made.
func (t *tx) ExchangeByKey(key string) (store.ExchangeRow, bool, error) {
	x := store.ExchangeRow{Key: key}
	err := t.QueryRow(t.ctx, `SELECT from_booking, to_booking, credit, difference FROM exchanges WHERE idem_key = $1`, key).Scan(&x.From, &x.To, &x.Credit, &x.Difference)
	if errors.Is(err, pgx.ErrNoRows) {
		return x, false, nil
	}
	return x, err == nil, err
}

// ReleaseOwnHold lets go of owner's live hold and its claims.
func (t *tx) ReleaseOwnHold(holdID int64, owner string) error {
	tag, err := t.Exec(t.ctx, `UPDATE holds SET status = 'released' WHERE id = $1 AND owner = $2 AND status = 'held'`, holdID, owner)
	if err != nil || tag.RowsAffected() != 1 {
		return err
	}
	_, err = t.Exec(t.ctx, `UPDATE seat_claims SET status = 'released' WHERE hold_id = $1 AND status = 'held'`, holdID)
	return err
}

// ClaimSeats claims the seats for a hold of the exchange's own as a hold
// claims them (claimAll: the partial unique index on live claims gives a
// seat to one claimant; a lapsed hold is expired and its seats claimed
// again), names the clash as a hold does (clashOutOfSale: another's claim,
// else a seat kept out of sale, which 0007's trigger skipped), and
// confirms the hold.
func (t *tx) ClaimSeats(hall *booking.Hall, showID int64, owner string, seats []booking.Seat) (int64, error) {
	holdID, _, err := openHold(t, showID, owner, time.Minute, 0)
	if err != nil {
		return 0, err
	}
	missing, err := claimAll(t, showID, holdID, seats)
	if err != nil {
		return 0, err
	}
	if len(missing) > 0 {
		if n, err := expireStale(t, showID); err != nil {
			return 0, err
		} else if n > 0 {
			if missing, err = claimAll(t, showID, holdID, missing); err != nil {
				return 0, err
			}
		}
	}
	if len(missing) > 0 {
		return 0, t.s.clashOutOfSale(t, hall, showID, holdID, seats, missing, len(seats))
	}
	_, err = t.Exec(t.ctx, `UPDATE holds SET status = 'confirmed' WHERE id = $1 AND status = 'held'`, holdID)
	return holdID, err
}

// PricesOf reads the price table and a show's price list inside t.
func (t *tx) PricesOf(showID int64) (*booking.PriceTable, string, error) {
	prices, err := priceTable(t)
	if err != nil {
		return nil, "", err
	}
	var list string
	if err := t.QueryRow(t.ctx, `SELECT price_list FROM shows WHERE id = $1`, showID).Scan(&list); err != nil {
		return nil, "", err
	}
	return prices, strings.ToLower(list), nil
}

// InsertBooking writes a confirmed booking under a fresh number, with
// its customer's name words for the search.
func (t *tx) InsertBooking(b store.NewBooking) (int64, string, error) {
	number := booking.NewBookingNumber()
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO bookings (number, show_id, hold_id, status, idem_key, customer, phone, total, sold_by, terminal, created_at)
		VALUES ($1, $2, $3, 'confirmed', $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
		number, b.ShowID, b.HoldID, b.Key, b.Customer, b.Phone, b.Total, b.SoldBy, b.Terminal, t.nowMS()).Scan(&id)
	if err != nil {
		return 0, "", err
	}
	return id, number, indexNames(t, id, b.Customer)
}

// SellSeats sells the hold's claims to the booking.
func (t *tx) SellSeats(holdID, bookingID, _ int64, _ []booking.Seat) error {
	_, err := t.Exec(t.ctx, `UPDATE seat_claims SET status = 'sold', booking_id = $1 WHERE hold_id = $2 AND status = 'held'`, bookingID, holdID)
	return err
}

// InsertTickets issues a booking's tickets (ids 32 x booking id + n, as
// a sale's).
func (t *tx) InsertTickets(bookingID int64, lines []booking.QuoteLine) ([]booking.Ticket, error) {
	out := make([]booking.Ticket, 0, len(lines))
	for i, l := range lines {
		id := bookingID*ticketsPerBooking + int64(i)
		if _, err := t.Exec(t.ctx, `INSERT INTO tickets (id, booking_id, seat_id, type_code, price, price_source, status) VALUES ($1, $2, $3, $4, $5, $6, 'issued')`,
			id, bookingID, l.Seat.ID, l.Type, l.Amount, l.Source); err != nil {
			return nil, err
		}
		out = append(out, booking.Ticket{ID: id, Seat: l.Seat, Type: l.Type, Price: l.Amount, PriceSource: l.Source, Status: booking.TicketIssued})
	}
	return out, nil
}

// InsertExchange writes an exchange.
func (t *tx) InsertExchange(x store.ExchangeRow) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO exchanges (idem_key, from_booking, to_booking, credit, difference, method, at, staff, terminal, approved_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`, x.Key, x.From, x.To, x.Credit, x.Difference, string(x.Method), t.nowMS(),
		x.Staff, x.Terminal, x.Approver).Scan(&id)
	return id, err
}

// MarkExchanged marks the voided tickets with their exchange.
func (t *tx) MarkExchanged(exchangeID int64, ticketIDs []int64) error {
	_, err := t.Exec(t.ctx, `UPDATE tickets SET exchange_id = $1 WHERE id = ANY($2)`, exchangeID, ticketIDs)
	return err
}
