package db

// TriggerStatements are the lookups of seat_claims_not_blocked
// (migration 21), which every claim's insert runs: EXPLAIN QUERY PLAN of
// the insert does not show a trigger's plan, so the plan guard checks
// them as statements of their own.
func TriggerStatements() []string {
	return []string{
		`SELECT 1 FROM seat_blocks b WHERE b.show_id = ? AND b.seat_id = ?`,
		`SELECT 1 FROM shows s JOIN seat_blocks b ON b.hall_id = s.hall_id AND b.seat_id = ? AND b.show_id IS NULL WHERE s.id = ? AND b.at < s.starts_at * 1000`,
		`DELETE FROM seat_blocks WHERE show_id IS NULL AND hall_id = ? AND seat_id = ? AND blocked_by = 'layout'`,
	}
}
