package pg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// The invariant checks, as SQLite's (db/check.go) but for what PostgreSQL
// keeps: a show has no sold counter to compare (its counts are counted
// from the claims) and a shift no running totals (its cash-up sums its
// payments). They read every row on purpose: they run on demand, never
// at a counter.
const (
	pqTwoLiveClaims = `SELECT show_id, seat_id, coalesce((SELECT label FROM seats WHERE id = seat_id), '?'), count(*)
		FROM seat_claims WHERE status IN ('held', 'sold')
		GROUP BY show_id, seat_id HAVING count(*) > 1 LIMIT $1`
	pqAdmittedTwice = `SELECT b.show_id, coalesce((SELECT label FROM seats WHERE id = t.seat_id), '?'), count(*)
		FROM tickets t JOIN bookings b ON b.id = t.booking_id WHERE t.status = 'admitted'
		GROUP BY b.show_id, t.seat_id HAVING count(*) > 1 LIMIT $1`
	pqBookingMoney = `SELECT b.number, b.status, b.total,
		(SELECT coalesce(sum(t.price), 0) FROM tickets t WHERE t.id BETWEEN b.id * 32 AND b.id * 32 + 31),
		(SELECT coalesce(sum(t.price), 0) FROM tickets t WHERE t.id BETWEEN b.id * 32 AND b.id * 32 + 31 AND t.status IN ('issued', 'admitted')),
		(SELECT count(*) FROM tickets t WHERE t.id BETWEEN b.id * 32 AND b.id * 32 + 31 AND t.status IN ('issued', 'admitted')),
		(SELECT coalesce(sum(t.price), 0) FROM tickets t WHERE t.id BETWEEN b.id * 32 AND b.id * 32 + 31 AND t.status IN ('refunded', 'void')),
		(SELECT coalesce(sum(p.amount), 0) FROM payments p WHERE p.booking_id = b.id AND p.kind = 'sale'),
		(SELECT coalesce(sum(p.amount), 0) FROM payments p WHERE p.booking_id = b.id AND p.kind = 'refund'),
		(SELECT count(*) FROM seat_claims c WHERE c.hold_id = b.hold_id AND c.booking_id = b.id AND c.status = 'sold'),
		(SELECT count(*) FROM tickets t WHERE t.id BETWEEN b.id * 32 AND b.id * 32 + 31 AND t.booking_id <> b.id),
		(SELECT coalesce(sum(e.credit), 0) FROM exchanges e WHERE e.to_booking = b.id),
		(SELECT coalesce(sum(greatest(-e.difference, 0)), 0) FROM exchanges e WHERE e.to_booking = b.id),
		(SELECT coalesce(sum(e.credit), 0) FROM exchanges e WHERE e.from_booking = b.id)
		FROM bookings b`
	pqAdmittedUntimed = `SELECT count(*) FROM tickets WHERE status = 'admitted' AND (admitted_at IS NULL OR admitted_by = '')`
	// A ticket of a sale paid in parts (0035) is refunded a part a
	// method, whose sum is its price.
	pqTicketRefunds = `SELECT count(*) FROM (SELECT t.id FROM payments p JOIN tickets t ON t.id = p.ticket_id WHERE p.kind = 'refund'
		GROUP BY t.id HAVING sum(p.amount) <> max(t.price) OR bool_or(p.booking_id <> t.booking_id) OR bool_or(t.status NOT IN ('refunded', 'void'))) r`
	// A gift card's balance is the signed sum of its ledger.
	pqCardLedger = `SELECT count(*) FROM giftcards g WHERE g.balance <>
		(SELECT coalesce(sum(CASE m.kind WHEN 'redeem' THEN -m.amount ELSE m.amount END), 0) FROM giftcard_moves m WHERE m.card_id = g.id)`
	pqBlockedClaims = `SELECT c.show_id, coalesce((SELECT label FROM seats WHERE id = c.seat_id), '?'), b.kind
		FROM seat_claims c JOIN holds h ON h.id = c.hold_id
		JOIN seat_blocks b ON b.seat_id = c.seat_id AND (b.show_id = c.show_id OR (b.show_id IS NULL AND b.hall_id = (SELECT hall_id FROM shows WHERE id = c.show_id)))
		WHERE c.status IN ('held', 'sold') AND b.at < h.created_at LIMIT $1`
)

// querier is what the checks read through: the pool, or a transaction
// (Carry checks what it copied before it commits).
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// CheckInvariants reads the whole database in one REPEATABLE READ
// transaction (one snapshot, so no check sees another's half) and names
// every broken invariant it finds, at most store.MaxProblems of a kind: no seat
// with two live claims, each booking's tickets, claims, payments and
// exchanges agreeing with its total and status (booking.BookingSums), no
// seat of a show admitted twice nor a ticket admitted without when and by
// whom, ticket refunds matching their tickets, each gift card's balance
// its ledger's sum, no live claim on a seat blocked before the claim was
// made, and the audit trail's hash chain whole (its first broken link
// named), sealed first.
func (s *Store) CheckInvariants(ctx context.Context) ([]string, error) {
	if _, err := s.seal(ctx); err != nil {
		return nil, s.translate("seal the audit trail", err)
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, s.translate("check invariants", err)
	}
	defer tx.Rollback(context.Background())
	problems, err := checkAll(ctx, tx)
	return problems, s.translate("check invariants", err)
}

func checkAll(ctx context.Context, q querier) ([]string, error) {
	var problems []string
	for _, check := range []func(context.Context, querier) ([]string, error){checkClaims, checkBookings, checkAdmitted, checkCounts, checkChain} {
		p, err := check(ctx, q)
		if err != nil {
			return nil, err
		}
		problems = append(problems, p...)
	}
	return problems, nil
}

func checkClaims(ctx context.Context, q querier) ([]string, error) {
	var out []string
	err := eachRow(ctx, q, pqTwoLiveClaims, []any{store.MaxProblems}, func(r pgx.Rows) error {
		var show, seat, n int64
		var label string
		if err := r.Scan(&show, &seat, &label, &n); err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("show %d seat %s (id %d) has %d live claims", show, booking.CleanLine(label, 16), seat, n))
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = eachRow(ctx, q, pqBlockedClaims, []any{store.MaxProblems}, func(r pgx.Rows) error {
		var show int64
		var label, kind string
		if err := r.Scan(&show, &label, &kind); err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("show %d seat %s is claimed though it was %s before", show, booking.CleanLine(label, 16), kind))
		return nil
	})
	return out, err
}

func checkBookings(ctx context.Context, q querier) ([]string, error) {
	var out []string
	err := eachRow(ctx, q, pqBookingMoney, nil, func(r pgx.Rows) error {
		var b booking.BookingSums
		var status string
		var total, ticketSum, liveSum, gone, sale, refund, creditIn, back, creditOut int64
		if err := r.Scan(&b.Number, &status, &total, &ticketSum, &liveSum, &b.LiveCount, &gone, &sale, &refund, &b.SoldClaims, &b.Misplaced, &creditIn, &back, &creditOut); err != nil {
			return err
		}
		b.Status = booking.BookingStatus(status)
		b.Total, b.TicketSum, b.LiveSum, b.Gone = booking.Money(total), booking.Money(ticketSum), booking.Money(liveSum), booking.Money(gone)
		b.Sale, b.Refund, b.CreditIn, b.Back, b.CreditOut = booking.Money(sale), booking.Money(refund), booking.Money(creditIn), booking.Money(back), booking.Money(creditOut)
		if p := b.Problem(); p != "" && len(out) < store.MaxProblems {
			out = append(out, "booking "+b.Number+": "+p)
		}
		return nil
	})
	return out, err
}

func checkAdmitted(ctx context.Context, q querier) ([]string, error) {
	var out []string
	err := eachRow(ctx, q, pqAdmittedTwice, []any{store.MaxProblems}, func(r pgx.Rows) error {
		var show, n int64
		var label string
		if err := r.Scan(&show, &label, &n); err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("show %d seat %s was admitted on %d tickets", show, booking.CleanLine(label, 16), n))
		return nil
	})
	return out, err
}

// checkCounts names the kinds of row that should be none.
func checkCounts(ctx context.Context, q querier) ([]string, error) {
	var out []string
	for _, c := range []struct{ query, what string }{
		{pqAdmittedUntimed, "admitted tickets do not say when or by whom"},
		{pqTicketRefunds, "ticket refunds not matching their ticket"},
		{pqCardLedger, booking.MsgCardLedgerDrift},
	} {
		var n int64
		if err := eachRow(ctx, q, c.query, nil, func(r pgx.Rows) error { return r.Scan(&n) }); err != nil {
			return nil, err
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, c.what))
		}
	}
	return out, nil
}

func eachRow(ctx context.Context, q querier, sql string, args []any, fn func(pgx.Rows) error) error {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return store.Each(rows, func() error { return fn(rows) })
}

// CountBookings sets *n to how many bookings the database holds, for
// check's report.
func (s *Store) CountBookings(ctx context.Context, n *int64) error {
	return s.translate("count bookings", s.pool.QueryRow(ctx, `SELECT count(*) FROM bookings`).Scan(n))
}

// checkChain walks the audit trail in id order and names its first
// broken link.
func checkChain(ctx context.Context, q querier) ([]string, error) {
	rows, err := q.Query(ctx, auditLinkColumns+` ORDER BY id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return store.FirstBrokenLink(rows)
}
