-- A hold's held claims, found by the hold. A checkout moves them held ->
-- sold with `WHERE hold_id = $1 AND status = 'held'`; with only
-- seat_claims_by_hold (hold_id) and the partial unique index of live
-- claims, the planner, costing a young table, ANDed the two bitmaps: the
-- partial index has no key for the hold, so every sale read every live
-- claim of the database, a cost that grows with history (a cached plan
-- keeps it after the table grew). This index answers the whole condition
-- by itself, at any size.
CREATE INDEX IF NOT EXISTS seat_claims_held_by_hold ON seat_claims(hold_id) WHERE status = 'held';
