package db

import (
	"context"
	"database/sql"
	"fmt"

	"boxoffice/store"
)

// qShiftMoneyDrift finds each shift, kind and method whose running total
// in shift_money (kept by a trigger, migration 0026) differs from its
// payments, its item payments (0040) and its gift cards sold (0050): the drawer's expected cash is
// read from those totals.
const qShiftMoneyDrift = `SELECT shift_id, kind, method, sum(a), sum(n) FROM (
		SELECT shift_id, kind, method, amount AS a, n FROM shift_money
		UNION ALL SELECT shift_id, kind, method, -amount, -1 FROM payments WHERE shift_id IS NOT NULL
		UNION ALL SELECT shift_id, kind, method, -amount, -1 FROM item_payments WHERE shift_id IS NOT NULL
		UNION ALL SELECT shift_id, 'issue', method, -amount, -1 FROM giftcard_moves WHERE kind = 'issue' AND shift_id IS NOT NULL)
	GROUP BY shift_id, kind, method HAVING sum(a) <> 0 OR sum(n) <> 0 LIMIT ?`

// checkShiftMoney names each shift whose running totals disagree with
// its payments.
func (s *Store) checkShiftMoney(ctx context.Context, tx *sql.Tx) ([]string, error) {
	rows, err := s.txRows(ctx, tx, qShiftMoneyDrift, store.MaxProblems)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var shift, amount, n int64
		var kind, method string
		if err := rows.Scan(&shift, &kind, &method, &amount, &n); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("shift %d: its %s %s total is off its payments by %d cents over %d payments", shift, kind, method, amount, n))
	}
	return out, rows.Err()
}
