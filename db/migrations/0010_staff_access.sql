-- Wrong approval PINs (typed in a clerk's cancel form) count apart from
-- wrong sign-in PINs, with the same bound: a clerk's typos must not lock
-- the supervisor out of signing in at their own counter.
CREATE TABLE approval_failures (
	name         TEXT PRIMARY KEY COLLATE NOCASE,
	failures     INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
	locked_until INTEGER NOT NULL DEFAULT 0
);

-- pin_changed is set once a PIN is changed after the staff row was made,
-- so the demo sign-in hint ("PIN 1234") can disappear without anyone
-- comparing a PIN to find out.
ALTER TABLE staff ADD COLUMN pin_changed INTEGER NOT NULL DEFAULT 0 CHECK (pin_changed IN (0, 1));
