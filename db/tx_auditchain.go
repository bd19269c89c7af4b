package db

import "boxoffice/store"

// The audit chain's typed queries (store.ChainTx), on 0046_audit_chain.sql.

// auditLinkColumns are a row of the trail as the chain hashes it.
const auditLinkColumns = `SELECT id, at, actor, role, terminal, action, coalesce(show_id, 0), coalesce(booking_id, 0),
	coalesce(shift_id, 0), coalesce(amount, 0), detail, hash FROM audit`

// AuditChainHead reads the last chained row.
func (w *wtx) AuditChainHead() (store.ChainHead, error) {
	var head store.ChainHead
	err := w.queryRow(`SELECT id, hash FROM audit WHERE hash IS NOT NULL ORDER BY id DESC LIMIT 1`).Scan(&head.ID, &head.Hash)
	if isNoRows(err) {
		return store.ChainHead{}, nil
	}
	return head, err
}

// AuditUnchained reads up to limit rows in (afterID, upTo], in id order.
func (w *wtx) AuditUnchained(afterID, upTo int64, limit int) ([]store.AuditLink, error) {
	rows, err := w.query(auditLinkColumns+` WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`, afterID, upTo, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.AuditLink
	for rows.Next() {
		l, err := store.ScanLink(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// ChainAudit stores each link's hash on its row, which had none
// (audit_hash_once refuses any other change).
func (w *wtx) ChainAudit(links []store.AuditLink) error {
	for _, l := range links {
		if _, err := w.exec(`UPDATE audit SET hash = ? WHERE id = ? AND hash IS NULL`, l.Hash, l.ID); err != nil {
			return err
		}
	}
	return nil
}
