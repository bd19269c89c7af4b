-- The audit trail becomes a hash chain (store/auditchain.go): each row
-- carries SHA-256 over the row before it and its own fields, so a row
-- removed or changed breaks every later link and check names the first.
-- Writers run side by side here, so a row is inserted without its hash
-- and a seal chains the new rows in id order every few seconds, rows
-- from before this migration first. That is the one update the trail
-- allows: a hash set once on a row that had none, nothing else changed.
ALTER TABLE audit ADD COLUMN hash bytea CHECK (hash IS NULL OR length(hash) = 32);
CREATE FUNCTION audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'UPDATE' AND OLD.hash IS NULL AND NEW.hash IS NOT NULL
		AND to_jsonb(NEW) - 'hash' = to_jsonb(OLD) - 'hash' THEN
		RETURN NEW;
	END IF;
	RAISE EXCEPTION '% rows are never changed or removed', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$;
DROP TRIGGER audit_append_only ON audit;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE ON audit FOR EACH ROW EXECUTE FUNCTION audit_append_only();
