package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/booking"
	"boxoffice/store"
)

// The audit chain's typed queries (store.ChainTx), on 0031_audit_chain.sql,
// and the seal that runs them.

// auditLinkColumns are a row of the trail as the chain hashes it.
const auditLinkColumns = `SELECT id, at, actor, role, terminal, action, coalesce(show_id, 0), coalesce(booking_id, 0),
	coalesce(shift_id, 0), coalesce(amount, 0), detail, hash FROM audit`

// scanLink reads one row of auditLinkColumns.
func scanLink(r pgx.Row) (store.AuditLink, error) {
	var l store.AuditLink
	var action string
	var amount int64
	row := &l.Row
	err := r.Scan(&l.ID, &row.At, &row.Actor, &row.Role, &row.Terminal, &action, &row.ShowID, &row.BookingID, &row.ShiftID, &amount, &row.Detail, &l.Hash)
	row.Action, row.Amount = booking.AuditAction(action), booking.Money(amount)
	return l, err
}

// LockAuditChain takes the lock that waits for every transaction still
// inserting audit rows and holds new ones off until this one ends (SHARE
// ROW EXCLUSIVE against their ROW EXCLUSIVE), so every id below the head
// is committed or never will be, and reads the last chained row. It
// gives up after a second rather than stall the sales queued behind it
// waiting for a long transaction: the next seal tries again.
func (t *tx) LockAuditChain() (store.ChainHead, error) {
	b := &pgx.Batch{}
	b.Queue(`SET LOCAL lock_timeout = '1s'`)
	b.Queue(`LOCK TABLE audit IN SHARE ROW EXCLUSIVE MODE`)
	b.Queue(`SELECT id, hash FROM audit WHERE hash IS NOT NULL ORDER BY id DESC LIMIT 1`)
	br := t.SendBatch(t.ctx, b)
	defer br.Close()
	var head store.ChainHead
	for range 2 {
		if _, err := br.Exec(); err != nil {
			return head, err
		}
	}
	err := br.QueryRow().Scan(&head.ID, &head.Hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ChainHead{}, br.Close()
	}
	if err != nil {
		return head, err
	}
	return head, br.Close()
}

// AuditUnchained reads up to limit rows after row afterID, in id order.
func (t *tx) AuditUnchained(afterID int64, limit int) ([]store.AuditLink, error) {
	rows, err := t.Query(t.ctx, auditLinkColumns+` WHERE id > $1 ORDER BY id LIMIT $2`, afterID, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.AuditLink, error) { return scanLink(r) })
}

// ChainAudit stores the hash of a row that had none (audit_append_only
// refuses any other change).
func (t *tx) ChainAudit(id int64, hash []byte) error {
	_, err := t.Exec(t.ctx, `UPDATE audit SET hash = $1 WHERE id = $2 AND hash IS NULL`, hash, id)
	return err
}

// seal chains the audit rows written since the last seal, in one
// transaction of its own.
func (s *Store) seal(ctx context.Context) (store.ChainHead, error) {
	return inTx(s, ctx, "seal the audit trail", txMode{iso: pgx.ReadCommitted}, func(t *tx) (store.ChainHead, error) {
		return store.SealAudit(t)
	})
}

// anchorEvery is how often the seal logs the chain head, the anchor an
// operator keeps outside the database (a whole trail rewritten with
// fresh hashes shows against it).
const anchorEvery = time.Minute

// sealLoop seals the trail every interval until ctx ends, logging the
// head when it moved and anchorEvery passed.
func (s *Store) sealLoop(ctx context.Context, interval time.Duration) {
	defer s.stopped.Done()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var logged store.ChainHead
	var loggedAt time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		head, err := s.seal(ctx)
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, errShuttingDown) {
				s.log.Warn("sealing the audit trail failed; the next seal tries again", "err", err)
			}
			continue
		}
		if head.ID != logged.ID && time.Since(loggedAt) >= anchorEvery {
			s.log.Info("audit chain head", "anchor", head.String())
			logged, loggedAt = head, time.Now()
		}
	}
}
