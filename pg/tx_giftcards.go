package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// Gift cards on PostgreSQL (the store's GiftCardTx and GiftCardReads),
// READ COMMITTED: a sale reads its card FOR UPDATE, so the sales and
// refunds of one card take turns on any server, and spends it by one
// guarded UPDATE, re-checked on the row's newest version, that must
// change one row; the CHECK (balance >= 0) refuses whatever slips past.
// Migration 0035 has the schema.

const (
	qCardHead = `SELECT g.id, g.number, g.amount, g.balance, g.staff, g.created_at, m.method
		FROM giftcards g JOIN giftcard_moves m ON m.card_id = g.id AND m.kind = 'issue' WHERE g.number = $1`
	qCardMoves = `SELECT m.kind, m.amount, coalesce(b.number, ''), m.at, m.staff
		FROM giftcard_moves m LEFT JOIN bookings b ON b.id = m.booking_id WHERE m.card_id = $1 ORDER BY m.id`
	// qCardTally adds up a range's moves at a site by kind and method,
	// and the balance of every card (a card is spent at any site).
	qCardTally = `SELECT
		coalesce(sum(amount) FILTER (WHERE kind = 'issue' AND method = 'cash'), 0)::bigint,
		coalesce(sum(amount) FILTER (WHERE kind = 'issue' AND method = 'card'), 0)::bigint,
		count(*) FILTER (WHERE kind = 'issue'),
		coalesce(sum(amount) FILTER (WHERE kind = 'redeem'), 0)::bigint, count(*) FILTER (WHERE kind = 'redeem'),
		coalesce(sum(amount) FILTER (WHERE kind = 'refill'), 0)::bigint, count(*) FILTER (WHERE kind = 'refill'),
		(SELECT coalesce(sum(balance), 0)::bigint FROM giftcards WHERE balance > 0)
		FROM giftcard_moves WHERE at >= $1 AND at < $2 AND ($3::bigint = 0 OR site_id = $3)`
)

// InsertGiftCard adds a card unless its number is taken; ON CONFLICT DO
// NOTHING, so the transaction lives on.
func (t *tx) InsertGiftCard(c store.NewGiftCard) (int64, bool, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO giftcards (number, amount, balance, staff, terminal, created_at) VALUES ($1, $2, $2, $3, $4, $5)
		ON CONFLICT (number) DO NOTHING RETURNING id`, c.Number, c.Amount, c.Staff, c.Terminal, t.nowMS()).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return id, err == nil, err
}

// GiftCardForUpdate reads and locks a card.
func (t *tx) GiftCardForUpdate(number string) (int64, booking.Money, bool, error) {
	var id int64
	var balance booking.Money
	err := t.QueryRow(t.ctx, `SELECT id, balance FROM giftcards WHERE number = $1 FOR UPDATE`, number).Scan(&id, &balance)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, 0, false, nil
	}
	return id, balance, err == nil, err
}

// TakeGiftCard spends amount of a card by one guarded statement.
func (t *tx) TakeGiftCard(cardID int64, amount booking.Money) (bool, error) {
	tag, err := t.Exec(t.ctx, `UPDATE giftcards SET balance = balance - $1 WHERE id = $2 AND balance >= $1`, amount, cardID)
	return tag.RowsAffected() == 1, err
}

// RefillGiftCard gives amount back to a card.
func (t *tx) RefillGiftCard(cardID int64, amount booking.Money) error {
	_, err := t.Exec(t.ctx, `UPDATE giftcards SET balance = balance + $1 WHERE id = $2`, amount, cardID)
	return err
}

// InsertGiftCardMove appends a ledger row at its site.
func (t *tx) InsertGiftCardMove(m store.GiftCardMoveRow) error {
	var method *string
	if m.Kind == booking.CardIssued {
		s := string(m.Method)
		method = &s
	}
	_, err := t.Exec(t.ctx, `INSERT INTO giftcard_moves (card_id, kind, amount, booking_id, payment_id, method, tendered, change_due, shift_id, site_id, at, staff, terminal)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, m.CardID, string(m.Kind), m.Amount, nullID(m.BookingID), nullID(m.PaymentID), method,
		m.Tendered, m.Change, nullID(m.ShiftID), max(m.Site, booking.MainSite), t.nowMS(), m.Staff, m.Terminal)
	return err
}

// InsertTenderPayment writes one part of a sale paid in parts.
func (t *tx) InsertTenderPayment(p store.PaymentRow, part int) (int64, error) {
	var id int64
	err := t.QueryRow(t.ctx, `INSERT INTO payments (booking_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id, part)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
		p.BookingID, string(p.Kind), string(p.Method), p.Amount, p.Tendered, p.Change, t.nowMS(), p.Staff, p.Terminal, nullID(p.ShiftID), part).Scan(&id)
	return id, err
}

// BookingTender reads how a booking was paid, a row a method.
func (t *tx) BookingTender(bookingID int64) ([]store.TenderRow, error) {
	rows, err := t.Query(t.ctx, `SELECT p.method, coalesce(sum(p.amount) FILTER (WHERE p.kind = 'sale'), 0)::bigint,
		coalesce(sum(p.amount) FILTER (WHERE p.kind = 'refund'), 0)::bigint, coalesce(max(m.card_id), 0)
		FROM payments p LEFT JOIN giftcard_moves m ON m.payment_id = p.id
		WHERE p.booking_id = $1 GROUP BY p.method`, bookingID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.TenderRow, error) {
		var tr store.TenderRow
		return tr, r.Scan(&tr.Method, &tr.Paid, &tr.Refunded, &tr.CardID)
	})
}

// ReadGiftCard reads a card and its ledger in one snapshot.
func (d driver) ReadGiftCard(ctx context.Context, number string) (booking.GiftCardInfo, bool, error) {
	var c booking.GiftCardInfo
	err := pgx.BeginTxFunc(ctx, d.s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var id, at int64
		if err := tx.QueryRow(ctx, qCardHead, number).Scan(&id, &c.Number, &c.Amount, &c.Balance, &c.IssuedBy, &at, &c.Method); err != nil {
			return err
		}
		c.IssuedAt = time.UnixMilli(at)
		rows, err := tx.Query(ctx, qCardMoves, id)
		if err != nil {
			return err
		}
		c.Moves, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (booking.GiftCardMove, error) {
			var m booking.GiftCardMove
			err := r.Scan(&m.Kind, &m.Amount, &m.Booking, &at, &m.Staff)
			m.At = time.UnixMilli(at)
			return m, err
		})
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return c, false, nil
	}
	return c, err == nil, d.s.translate("gift card", err)
}

// GiftCardTally adds up the gift cards' moves of a window at a site.
func (d driver) GiftCardTally(ctx context.Context, w store.ReportWindow) (store.GiftCardTotals, error) {
	var t store.GiftCardTotals
	err := d.s.pool.QueryRow(ctx, qCardTally, w.From.UnixMilli(), w.To.UnixMilli(), w.Site).Scan(&t.SoldCash, &t.SoldCard, &t.SoldN,
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
	q, args := qCardList+`ORDER BY g.id DESC LIMIT $1`, []any{limit}
	if number != "" {
		q, args = qCardList+`WHERE g.number = $1`, []any{number}
	}
	return d.cardList(ctx, q, args...)
}

// CustomerGiftCards reads a customer's newest cards, through
// giftcards_by_customer.
func (d driver) CustomerGiftCards(ctx context.Context, customerID int64, limit int) ([]store.GiftCardListRow, error) {
	return d.cardList(ctx, qCardList+`WHERE g.customer_id = $1 ORDER BY g.id DESC LIMIT $2`, customerID, limit)
}

// SetGiftCardCustomer makes a card a customer's.
func (t *tx) SetGiftCardCustomer(cardID, customerID int64) error {
	_, err := t.Exec(t.ctx, `UPDATE giftcards SET customer_id = $1 WHERE id = $2`, customerID, cardID)
	return err
}

// cardList reads the rows of a qCardList statement.
func (d driver) cardList(ctx context.Context, q string, args ...any) ([]store.GiftCardListRow, error) {
	rows, err := d.s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, d.s.translate("gift cards", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.GiftCardListRow, error) {
		var r store.GiftCardListRow
		var created, used int64
		err := row.Scan(&r.Number, &r.Amount, &r.Balance, &r.Staff, &created, &used)
		r.Created = time.UnixMilli(created)
		if used != 0 {
			r.LastUsed = time.UnixMilli(used)
		}
		return r, err
	})
	return out, d.s.translate("gift cards", err)
}
