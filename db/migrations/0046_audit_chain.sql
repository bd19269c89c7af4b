-- The audit trail becomes a hash chain (store/auditchain.go): each row
-- carries SHA-256 over the row before it and its own fields, so a row
-- removed or changed breaks every later link and check names the first.
-- The writer hashes each row as it inserts it; rows from before this
-- migration carry none until the writer's first write chains them, in id
-- order, which is the one update the trail allows: a hash set once on a
-- row that had none. Nothing else about a row may change, nor a row go.
ALTER TABLE audit ADD COLUMN hash BLOB CHECK (hash IS NULL OR length(hash) = 32);
DROP TRIGGER audit_no_update;
CREATE TRIGGER audit_no_update BEFORE UPDATE OF id, at, actor, role, terminal, action, show_id, booking_id, shift_id, amount, detail ON audit
BEGIN
	SELECT RAISE(ABORT, 'the audit trail is append-only');
END;
CREATE TRIGGER audit_hash_once BEFORE UPDATE OF hash ON audit
	WHEN OLD.hash IS NOT NULL OR NEW.hash IS NULL
BEGIN
	SELECT RAISE(ABORT, 'the audit trail is append-only');
END;
