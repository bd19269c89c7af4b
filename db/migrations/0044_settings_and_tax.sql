-- The cinema's settings and its tax rates (docs/settings-and-tax.md; the
-- rules are booking's settings.go and tax.go).
--
-- settings keeps a key's value at a site: 0 is the cinema's own, and the
-- embedded store, one site, keeps every value there. A key nobody set
-- has no row (its default is booking's).
CREATE TABLE settings (
	key   TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 40),
	site  INTEGER NOT NULL DEFAULT 0 CHECK (site >= 0),
	value TEXT NOT NULL CHECK (length(value) BETWEEN 1 AND 400),
	PRIMARY KEY (key, site)
) WITHOUT ROWID;

-- tax_rates is every rate ever set, for a ticket type or an item
-- category, in hundredths of a percent (2000 is 20 %), in force from
-- valid_from (unix milliseconds) until a later row of the same key. A
-- sale's tax is worked out from the rate in force when it was sold, so a
-- rate may never reach back before it was set (that would change sales
-- already made), and no row is ever changed or removed.
CREATE TABLE tax_rates (
	id         INTEGER PRIMARY KEY,
	kind       TEXT NOT NULL CHECK (kind IN ('ticket type', 'item category')),
	code       TEXT NOT NULL CHECK (length(code) BETWEEN 1 AND 30),
	rate       INTEGER NOT NULL CHECK (rate BETWEEN 0 AND 10000),
	valid_from INTEGER NOT NULL,
	set_by     TEXT NOT NULL,
	set_at     INTEGER NOT NULL,
	CHECK (valid_from >= set_at)
);
CREATE TRIGGER tax_rates_no_update BEFORE UPDATE ON tax_rates
BEGIN
	SELECT RAISE(ABORT, 'tax rates are never changed: set a new one from now on');
END;
CREATE TRIGGER tax_rates_no_delete BEFORE DELETE ON tax_rates
BEGIN
	SELECT RAISE(ABORT, 'tax rates are never deleted: set a new one from now on');
END;
