package db

import (
	"context"
	"database/sql"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// Gift cards on SQLite (the store's GiftCardTx and GiftCardReads): one
// writer runs one write at a time, so a card read then spent needs no
// lock; the guarded UPDATE and the CHECK (balance >= 0) keep a second
// process writing the same file honest. Migration 0050 has the schema.

const (
	qCardHead = `SELECT g.number, g.amount, g.balance, g.staff, g.created_at, m.method
		FROM giftcards g JOIN giftcard_moves m ON m.card_id = g.id AND m.kind = 'issue' WHERE g.number = ?`
	qCardMoves = `SELECT m.kind, m.amount, coalesce(b.number, ''), m.at, m.staff
		FROM giftcard_moves m LEFT JOIN bookings b ON b.id = m.booking_id
		WHERE m.card_id = (SELECT id FROM giftcards WHERE number = ?) ORDER BY m.id`
	// qCardTally adds up a range's moves by kind and method, and the
	// balance of every card.
	qCardTally = `SELECT
		coalesce(sum(CASE WHEN kind = 'issue' AND method = 'cash' THEN amount END), 0),
		coalesce(sum(CASE WHEN kind = 'issue' AND method = 'card' THEN amount END), 0),
		count(CASE WHEN kind = 'issue' THEN 1 END),
		coalesce(sum(CASE WHEN kind = 'redeem' THEN amount END), 0), count(CASE WHEN kind = 'redeem' THEN 1 END),
		coalesce(sum(CASE WHEN kind = 'refill' THEN amount END), 0), count(CASE WHEN kind = 'refill' THEN 1 END),
		(SELECT coalesce(sum(balance), 0) FROM giftcards WHERE balance > 0)
		FROM giftcard_moves WHERE at >= ? AND at < ?`
)

// InsertGiftCard adds a card unless its number is taken.
func (w *wtx) InsertGiftCard(c store.NewGiftCard) (int64, bool, error) {
	var id int64
	err := w.queryRow(`INSERT INTO giftcards (number, amount, balance, staff, terminal, created_at) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (number) DO NOTHING RETURNING id`, c.Number, c.Amount, c.Amount, c.Staff, c.Terminal, w.nowMS()).Scan(&id)
	if isNoRows(err) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// GiftCardForUpdate reads a card (one writer: nothing to lock).
func (w *wtx) GiftCardForUpdate(number string) (int64, booking.Money, bool, error) {
	var id int64
	var balance booking.Money
	err := w.queryRow(`SELECT id, balance FROM giftcards WHERE number = ?`, number).Scan(&id, &balance)
	if isNoRows(err) {
		return 0, 0, false, nil
	}
	return id, balance, err == nil, err
}

// TakeGiftCard spends amount of a card by one guarded statement.
func (w *wtx) TakeGiftCard(cardID int64, amount booking.Money) (bool, error) {
	res, err := w.exec(`UPDATE giftcards SET balance = balance - ?1 WHERE id = ?2 AND balance >= ?1`, amount, cardID)
	return changedOne(res, err)
}

// RefillGiftCard gives amount back to a card.
func (w *wtx) RefillGiftCard(cardID int64, amount booking.Money) error {
	_, err := w.exec(`UPDATE giftcards SET balance = balance + ? WHERE id = ?`, amount, cardID)
	return err
}

// InsertGiftCardMove appends a ledger row; SQLite keeps one site.
func (w *wtx) InsertGiftCardMove(m store.GiftCardMoveRow) error {
	var method any
	if m.Kind == booking.CardIssued {
		method = string(m.Method)
	}
	_, err := w.exec(`INSERT INTO giftcard_moves (card_id, kind, amount, booking_id, payment_id, method, tendered, change_due, shift_id, at, staff, terminal)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, m.CardID, string(m.Kind), m.Amount, nullID(m.BookingID), nullID(m.PaymentID), method,
		m.Tendered, m.Change, nullID(m.ShiftID), w.nowMS(), m.Staff, m.Terminal)
	return err
}

// InsertTenderPayment writes one part of a sale paid in parts.
func (w *wtx) InsertTenderPayment(p store.PaymentRow, part int) (int64, error) {
	var id int64
	err := w.queryRow(`INSERT INTO payments (booking_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id, part)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		p.BookingID, string(p.Kind), string(p.Method), p.Amount, p.Tendered, p.Change, w.nowMS(), p.Staff, p.Terminal, nullID(p.ShiftID), part).Scan(&id)
	return id, err
}

// BookingTender reads how a booking was paid, a row a method.
func (w *wtx) BookingTender(bookingID int64) ([]store.TenderRow, error) {
	rows, err := w.query(`SELECT p.method, coalesce(sum(CASE p.kind WHEN 'sale' THEN p.amount END), 0),
		coalesce(sum(CASE p.kind WHEN 'refund' THEN p.amount END), 0), coalesce(max(m.card_id), 0)
		FROM payments p LEFT JOIN giftcard_moves m ON m.payment_id = p.id
		WHERE p.booking_id = ? GROUP BY p.method`, bookingID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.TenderRow
	for rows.Next() {
		var r store.TenderRow
		if err := rows.Scan(&r.Method, &r.Paid, &r.Refunded, &r.CardID); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ReadGiftCard reads a card and its ledger in one snapshot.
func (d driver) ReadGiftCard(ctx context.Context, number string) (booking.GiftCardInfo, bool, error) {
	var c booking.GiftCardInfo
	err := d.s.inReport(ctx, []string{qCardHead, qCardMoves}, func(tx *sql.Tx) error {
		var at int64
		if err := tx.QueryRowContext(ctx, qCardHead, number).Scan(&c.Number, &c.Amount, &c.Balance, &c.IssuedBy, &at, &c.Method); err != nil {
			return err
		}
		c.IssuedAt = time.UnixMilli(at)
		rows, err := d.s.txRows(ctx, tx, qCardMoves, number)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m booking.GiftCardMove
			if err := rows.Scan(&m.Kind, &m.Amount, &m.Booking, &at, &m.Staff); err != nil {
				return err
			}
			m.At = time.UnixMilli(at)
			c.Moves = append(c.Moves, m)
		}
		return rows.Err()
	})
	if isNoRows(err) {
		return c, false, nil
	}
	return c, err == nil, d.s.translate("gift card", err)
}

// GiftCardTally adds up the gift cards' moves of a window.
func (d driver) GiftCardTally(ctx context.Context, w store.ReportWindow) (store.GiftCardTotals, error) {
	var t store.GiftCardTotals
	if err := oneSite(w.Site); err != nil {
		return t, err
	}
	err := d.s.readRow(ctx, qCardTally, w.From.UnixMilli(), w.To.UnixMilli()).Scan(&t.SoldCash, &t.SoldCard, &t.SoldN,
		&t.Redeemed, &t.RedeemedN, &t.Refilled, &t.RefilledN, &t.Outstanding)
	return t, d.s.translate("gift card report", err)
}

// qCardList is the manager's list of cards, each with when a sale or a
// refund last moved it (through giftcard_moves_by_card).
const qCardList = `SELECT g.number, g.amount, g.balance, g.staff, g.created_at,
	coalesce((SELECT max(m.at) FROM giftcard_moves m WHERE m.card_id = g.id AND m.kind <> 'issue'), 0) FROM giftcards g `

// ReadGiftCardList reads one card by number, or the newest cards from
// the end of the primary key, stopped by LIMIT.
func (d driver) ReadGiftCardList(ctx context.Context, number string, limit int) ([]store.GiftCardListRow, error) {
	q, args := qCardList+`ORDER BY g.id DESC LIMIT ?`, []any{limit}
	if number != "" {
		q, args = qCardList+`WHERE g.number = ?`, []any{number}
	}
	return d.cardList(ctx, q, args...)
}

// CustomerGiftCards reads a customer's newest cards, through
// giftcards_by_customer.
func (d driver) CustomerGiftCards(ctx context.Context, customerID int64, limit int) ([]store.GiftCardListRow, error) {
	return d.cardList(ctx, qCardList+`WHERE g.customer_id = ? ORDER BY g.id DESC LIMIT ?`, customerID, limit)
}

// SetGiftCardCustomer makes a card a customer's.
func (w *wtx) SetGiftCardCustomer(cardID, customerID int64) error {
	_, err := w.exec(`UPDATE giftcards SET customer_id = ? WHERE id = ?`, customerID, cardID)
	return err
}

// cardList reads the rows of a qCardList statement.
func (d driver) cardList(ctx context.Context, q string, args ...any) ([]store.GiftCardListRow, error) {
	rows, err := d.s.readRows(ctx, q, args...)
	if err != nil {
		return nil, d.s.translate("gift cards", err)
	}
	defer rows.Close()
	var out []store.GiftCardListRow
	for rows.Next() {
		var r store.GiftCardListRow
		var created, used int64
		if err := rows.Scan(&r.Number, &r.Amount, &r.Balance, &r.Staff, &created, &used); err != nil {
			return nil, d.s.translate("gift cards", err)
		}
		r.Created = time.UnixMilli(created)
		if used != 0 {
			r.LastUsed = time.UnixMilli(used)
		}
		out = append(out, r)
	}
	return out, d.s.translate("gift cards", rows.Err())
}
