-- The roster and the door on PostgreSQL (SQLite's signin_failures,
-- approval_failures and terminals.printer).
--
-- PIN attempts are counted per name, known or not, before any PIN is
-- compared: one row per name, moved by one atomic upsert, so attempts
-- arriving at once for one name queue on its row and each sees the count
-- the one before it left. Names compare without case, as SQLite's
-- COLLATE NOCASE did: they are stored lower case.
CREATE TABLE signin_failures (
	name         text PRIMARY KEY CHECK (name = lower(name)),
	failures     integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
	locked_until bigint NOT NULL DEFAULT 0 -- unix milliseconds; 0: not locked
);

-- A supervisor's PIN typed at a clerk's counter to approve a cancel
-- counts here, so wrong approvals never lock their own sign-in.
CREATE TABLE approval_failures (
	name         text PRIMARY KEY CHECK (name = lower(name)),
	failures     integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
	locked_until bigint NOT NULL DEFAULT 0
);

-- Where a terminal prints: a URL booking.ParsePrinter reads, '' for none.
ALTER TABLE terminals ADD COLUMN printer text NOT NULL DEFAULT '';
