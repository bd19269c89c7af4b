package db

import (
	"context"
	"database/sql"
	"fmt"

	"boxoffice/booking"
	"boxoffice/store"
)

// The invariant checks read every row on purpose: they are run on demand
// (after generating history, by tests, before a migration), never by a
// counter, and the plan guard allows their scans by name. A booking's
// tickets are ids 32*id .. 32*id+31 (ticketsPerBooking).
const (
	qTwoLiveClaims = `SELECT show_id, seat_id, coalesce((SELECT label FROM seats WHERE id = seat_id), '?'), count(*)
		FROM seat_claims WHERE status IN ('held', 'sold')
		GROUP BY show_id, seat_id HAVING count(*) > 1 LIMIT ?`
	// qAdmittedTwice finds a seat of a show let in twice: two admitted
	// tickets for it (a ticket itself moves to admitted once, by
	// compare-and-set; a second ticket for the seat would be a sale or an
	// exchange gone wrong).
	qAdmittedTwice = `SELECT b.show_id, coalesce((SELECT label FROM seats WHERE id = t.seat_id), '?'), count(*)
		FROM tickets t JOIN bookings b ON b.id = t.booking_id WHERE t.status = 'admitted'
		GROUP BY b.show_id, t.seat_id HAVING count(*) > 1 LIMIT ?`
	qAdmittedUntimed = `SELECT count(*) FROM tickets WHERE status = 'admitted' AND (admitted_at IS NULL OR admitted_by = '')`
	qSoldCounts      = `SELECT id, sold, claims FROM (SELECT s.id, s.sold,
			(SELECT count(*) FROM seat_claims c WHERE c.show_id = s.id AND c.status IN ('held', 'sold') AND c.status = 'sold') AS claims
		FROM shows s) WHERE sold <> claims LIMIT ?`
	qBookingMoney = `SELECT b.number, b.status, b.total,
		(SELECT coalesce(sum(t.price), 0) FROM tickets t WHERE t.id BETWEEN b.id * 32 AND b.id * 32 + 31),
		(SELECT coalesce(sum(t.price), 0) FROM tickets t WHERE t.id BETWEEN b.id * 32 AND b.id * 32 + 31 AND t.status IN ('issued', 'admitted')),
		(SELECT count(*) FROM tickets t WHERE t.id BETWEEN b.id * 32 AND b.id * 32 + 31 AND t.status IN ('issued', 'admitted')),
		(SELECT coalesce(sum(t.price), 0) FROM tickets t WHERE t.id BETWEEN b.id * 32 AND b.id * 32 + 31 AND t.status IN ('refunded', 'void')),
		(SELECT coalesce(sum(p.amount), 0) FROM payments p WHERE p.booking_id = b.id AND p.kind = 'sale'),
		(SELECT coalesce(sum(p.amount), 0) FROM payments p WHERE p.booking_id = b.id AND p.kind = 'refund'),
		(SELECT count(*) FROM seat_claims c WHERE c.hold_id = b.hold_id AND c.booking_id = b.id AND c.status = 'sold'),
		(SELECT count(*) FROM tickets t WHERE t.id BETWEEN b.id * 32 AND b.id * 32 + 31 AND t.booking_id <> b.id),
		(SELECT coalesce(sum(e.credit), 0) FROM exchanges e WHERE e.to_booking = b.id),
		(SELECT coalesce(sum(max(-e.difference, 0)), 0) FROM exchanges e WHERE e.to_booking = b.id),
		(SELECT coalesce(sum(e.credit), 0) FROM exchanges e WHERE e.from_booking = b.id)
		FROM bookings b`
	qOrphanPayments = `SELECT count(*) FROM payments p WHERE NOT EXISTS (SELECT 1 FROM bookings b WHERE b.id = p.booking_id)`
	qOrphanTickets  = `SELECT count(*) FROM tickets t WHERE NOT EXISTS (SELECT 1 FROM bookings b WHERE b.id = t.booking_id)`
	// A ticket's refund is its price, on its booking, for a ticket no
	// longer usable; the unique index makes it at most one.
	// A ticket of a sale paid in parts (0050) is refunded a part a
	// method, whose sum is its price.
	qTicketRefunds = `SELECT count(*) FROM (SELECT t.id FROM payments p JOIN tickets t ON t.id = p.ticket_id WHERE p.kind = 'refund'
		GROUP BY t.id HAVING sum(p.amount) <> max(t.price) OR max(p.booking_id <> t.booking_id) OR max(t.status NOT IN ('refunded', 'void')))`
	// A gift card's balance is the signed sum of its ledger.
	qCardLedger = `SELECT count(*) FROM giftcards g WHERE g.balance <>
		(SELECT coalesce(sum(CASE m.kind WHEN 'redeem' THEN -m.amount ELSE m.amount END), 0) FROM giftcard_moves m WHERE m.card_id = g.id)`
	// qAuditChain reads the whole trail in id order (store.ChainCheck).
	qAuditChain = auditLinkColumns + ` ORDER BY id`
)

// CheckInvariants reads the whole database in one read transaction and
// names every broken invariant it finds (at most store.MaxProblems of a kind):
// no seat with two live claims, each show's sold count equal to its sold
// claims, each booking's tickets, claims and payments agreeing with its
// total and status, no payment or ticket without a booking, and no seat
// of a show admitted twice nor a ticket admitted without when and by whom,
// each shift's running totals equal to its payments, each gift card's
// balance its ledger's sum, no live claim on a seat blocked before the
// claim was made, and the audit trail's hash chain whole (its first
// broken link named).
// No problems is an empty list.
func (s *Store) CheckInvariants(ctx context.Context) ([]string, error) {
	for _, q := range []string{qTwoLiveClaims, qSoldCounts, qBookingMoney, qOrphanPayments, qOrphanTickets, qAdmittedTwice, qAdmittedUntimed, qTicketRefunds, qCardLedger, qShiftMoneyDrift, qBlockedClaims} {
		if _, err := s.readStmt(ctx, q); err != nil {
			return nil, s.translate("check invariants", err)
		}
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, s.translate("check invariants", err)
	}
	defer tx.Rollback()
	var problems []string
	for _, check := range []func(context.Context, *sql.Tx) ([]string, error){s.checkClaims, s.checkSold, s.checkBookings, s.checkOrphans, s.checkAdmitted, s.checkShiftMoney, s.checkBlocked, s.checkChain} {
		p, err := check(ctx, tx)
		if err != nil {
			return nil, s.translate("check invariants", err)
		}
		problems = append(problems, p...)
	}
	return problems, nil
}

func (s *Store) checkClaims(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := s.txRows(ctx, tx, qTwoLiveClaims, store.MaxProblems)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var show, seat, n int64
		var label string
		if err := rows.Scan(&show, &seat, &label, &n); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("show %d seat %s (id %d) has %d live claims", show, booking.CleanLine(label, 16), seat, n))
	}
	return out, rows.Err()
}

func (s *Store) checkSold(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := s.txRows(ctx, tx, qSoldCounts, store.MaxProblems)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var show, sold, claims int64
		if err := rows.Scan(&show, &sold, &claims); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("show %d counts %d sold but has %d sold claims", show, sold, claims))
	}
	return out, rows.Err()
}

func (s *Store) checkBookings(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := s.txRows(ctx, tx, qBookingMoney)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var b booking.BookingSums
		if err := rows.Scan(&b.Number, &b.Status, &b.Total, &b.TicketSum, &b.LiveSum, &b.LiveCount, &b.Gone, &b.Sale, &b.Refund, &b.SoldClaims, &b.Misplaced, &b.CreditIn, &b.Back, &b.CreditOut); err != nil {
			return nil, err
		}
		if p := b.Problem(); p != "" && len(out) < store.MaxProblems {
			out = append(out, "booking "+b.Number+": "+p)
		}
	}
	return out, rows.Err()
}

func (s *Store) checkOrphans(ctx context.Context, tx *sql.Tx) ([]string, error) {
	var out []string
	for _, c := range []struct{ query, what string }{
		{qOrphanPayments, "payments without a booking"}, {qOrphanTickets, "tickets without a booking"},
		{qTicketRefunds, "ticket refunds not matching their ticket"}, {qCardLedger, booking.MsgCardLedgerDrift},
	} {
		var n int64
		rows, err := s.txRows(ctx, tx, c.query)
		if err != nil {
			return nil, err
		}
		if rows.Next() {
			err = rows.Scan(&n)
		}
		rows.Close()
		if err != nil {
			return nil, err
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, c.what))
		}
	}
	return out, nil
}

// checkAdmitted names every seat of a show admitted on two tickets, and
// counts admitted tickets that do not say when or by whom.
func (s *Store) checkAdmitted(ctx context.Context, tx *sql.Tx) ([]string, error) {
	out, err := s.admittedTwice(ctx, tx)
	if err != nil {
		return nil, err
	}
	rows, err := s.txRows(ctx, tx, qAdmittedUntimed)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var untimed int64
	if rows.Next() {
		if err := rows.Scan(&untimed); err != nil {
			return nil, err
		}
	}
	if untimed > 0 {
		out = append(out, fmt.Sprintf("%d admitted tickets do not say when or by whom", untimed))
	}
	return out, rows.Err()
}

func (s *Store) admittedTwice(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := s.txRows(ctx, tx, qAdmittedTwice, store.MaxProblems)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var show, n int64
		var label string
		if err := rows.Scan(&show, &label, &n); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("show %d seat %s was admitted on %d tickets", show, booking.CleanLine(label, 16), n))
	}
	return out, rows.Err()
}

// checkChain walks the audit trail in id order and names its first
// broken link; a file from before the chain (an old backup checked or
// restored) has none to walk.
func (s *Store) checkChain(ctx context.Context, tx *sql.Tx) ([]string, error) {
	if chained, err := hasAuditChain(ctx, tx); err != nil || !chained {
		return nil, err
	}
	rows, err := s.txRows(ctx, tx, qAuditChain)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return store.FirstBrokenLink(rows)
}

// hasAuditChain reports whether the file's audit rows carry hashes
// (migration 0046).
func hasAuditChain(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('audit') WHERE name = 'hash'`).Scan(&n)
	return n > 0, err
}
