package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"boxoffice/store"
)

// The audit chain's typed queries (store.ChainTx), on 0031_audit_chain.sql,
// and the seal that runs them.

// auditLinkColumns are a row of the trail as the chain hashes it.
const auditLinkColumns = `SELECT id, at, actor, role, terminal, action, coalesce(show_id, 0), coalesce(booking_id, 0),
	coalesce(shift_id, 0), coalesce(amount, 0), detail, hash FROM audit`

// AuditChainHead reads the last chained row.
func (t *tx) AuditChainHead() (store.ChainHead, error) {
	var head store.ChainHead
	err := t.QueryRow(t.ctx, `SELECT id, hash FROM audit WHERE hash IS NOT NULL ORDER BY id DESC LIMIT 1`).Scan(&head.ID, &head.Hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ChainHead{}, nil
	}
	return head, err
}

// auditHorizon is the last audit row's id once every transaction still
// inserting audit rows ended: a SHARE lock waits for their ROW EXCLUSIVE
// and holds new ones off for the moment the transaction lasts, so every
// row up to the id it returns is committed or never will be (an id taken
// later is larger). It gives up after a second rather than stall the
// sales queued behind it waiting for a long transaction: the next seal
// tries again.
func (t *tx) auditHorizon() (int64, error) {
	b := &pgx.Batch{}
	b.Queue(`SET LOCAL lock_timeout = '1s'`)
	b.Queue(`LOCK TABLE audit IN SHARE MODE`)
	b.Queue(`SELECT coalesce(max(id), 0) FROM audit`)
	br := t.SendBatch(t.ctx, b)
	defer br.Close()
	for range 2 {
		if _, err := br.Exec(); err != nil {
			return 0, err
		}
	}
	var id int64
	if err := br.QueryRow().Scan(&id); err != nil {
		return 0, err
	}
	return id, br.Close()
}

// AuditUnchained reads up to limit rows in (afterID, upTo], in id order.
func (t *tx) AuditUnchained(afterID, upTo int64, limit int) ([]store.AuditLink, error) {
	rows, err := t.Query(t.ctx, auditLinkColumns+` WHERE id > $1 AND id <= $2 ORDER BY id LIMIT $3`, afterID, upTo, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.AuditLink, error) { return store.ScanLink(r) })
}

// ChainAudit stores each link's hash on its row, which had none
// (audit_append_only refuses any other change), in one statement: the
// seal holds the trail's lock, and sales wait, for as long as it takes.
func (t *tx) ChainAudit(links []store.AuditLink) error {
	ids, hashes := make([]int64, len(links)), make([][]byte, len(links))
	for i, l := range links {
		ids[i], hashes[i] = l.ID, l.Hash
	}
	_, err := t.Exec(t.ctx, `UPDATE audit a SET hash = x.hash FROM unnest($1::bigint[], $2::bytea[]) AS x(id, hash)
		WHERE a.id = x.id AND a.hash IS NULL`, ids, hashes)
	return err
}

// seal chains the audit rows written since the last seal: a short
// transaction finds the horizon (auditHorizon), then another hashes up
// to it with no lock on the trail, so sales wait only for the first.
func (s *Store) seal(ctx context.Context) (store.ChainHead, error) {
	mode := txMode{iso: pgx.ReadCommitted}
	upTo, err := inTx(s, ctx, "seal the audit trail", mode, func(t *tx) (int64, error) { return t.auditHorizon() })
	if err != nil {
		return store.ChainHead{}, err
	}
	return inTx(s, ctx, "seal the audit trail", mode, func(t *tx) (store.ChainHead, error) {
		return store.SealAudit(t, upTo)
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

// SealNow chains the audit rows written so far, as the next seal would
// (bench counts a run's seal with its sales).
func (s *Store) SealNow(ctx context.Context) error {
	_, err := s.seal(ctx)
	return err
}
