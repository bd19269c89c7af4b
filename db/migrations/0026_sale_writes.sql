-- The price generation: a number that moves whenever a ticket type or a
-- price by seat kind and list is written, by whatever writes it (this
-- binary, another process, the sqlite3 shell). The writer keeps the price
-- table it last read beside the generation it read it at, and reads one
-- row per sale instead of the whole table; a sale is still priced at what
-- the database says inside its own transaction. The generation moves to a
-- random value, not the next one: a price write rolled back after a sale
-- read it cannot leave a generation that another process's write then
-- reuses for other prices.
INSERT INTO meta (key, value) VALUES ('price_gen', '1')
	ON CONFLICT (key) DO NOTHING;

CREATE TRIGGER ticket_types_gen_insert AFTER INSERT ON ticket_types
BEGIN UPDATE meta SET value = random() WHERE key = 'price_gen'; END;
CREATE TRIGGER ticket_types_gen_update AFTER UPDATE ON ticket_types
BEGIN UPDATE meta SET value = random() WHERE key = 'price_gen'; END;
CREATE TRIGGER ticket_types_gen_delete AFTER DELETE ON ticket_types
BEGIN UPDATE meta SET value = random() WHERE key = 'price_gen'; END;
CREATE TRIGGER prices_gen_insert AFTER INSERT ON prices
BEGIN UPDATE meta SET value = random() WHERE key = 'price_gen'; END;
CREATE TRIGGER prices_gen_update AFTER UPDATE ON prices
BEGIN UPDATE meta SET value = random() WHERE key = 'price_gen'; END;
CREATE TRIGGER prices_gen_delete AFTER DELETE ON prices
BEGIN UPDATE meta SET value = random() WHERE key = 'price_gen'; END;

-- The audit trail loses its index by person: keyed by who acted, it took
-- each write's row into another page for every clerk selling at once (a
-- page per counter per group commit, a third more bytes written per sale
-- at 64 counters). What one person did is read newest first through
-- audit_by_at instead; with a day it is that day's rows.
DROP INDEX audit_by_actor;

-- Each shift's takings by kind and method, kept by a trigger as payments
-- are written (by this binary or anything else: payments are never
-- updated or deleted, so the sums never drift). It replaces the index of
-- payments by shift: keyed by shift, that index took each sale into
-- another page for every clerk selling at once, where this table of a few
-- rows per shift stays in a page or two. `boxoffice check` compares it
-- with the payments.
CREATE TABLE shift_money (
	shift_id INTEGER NOT NULL REFERENCES shifts(id),
	kind     TEXT NOT NULL,
	method   TEXT NOT NULL,
	amount   INTEGER NOT NULL,
	n        INTEGER NOT NULL,
	PRIMARY KEY (shift_id, kind, method)
) WITHOUT ROWID;
INSERT INTO shift_money (shift_id, kind, method, amount, n)
	SELECT shift_id, kind, method, sum(amount), count(*) FROM payments WHERE shift_id IS NOT NULL GROUP BY shift_id, kind, method;
CREATE TRIGGER payments_shift_money AFTER INSERT ON payments WHEN NEW.shift_id IS NOT NULL
BEGIN
	INSERT INTO shift_money (shift_id, kind, method, amount, n) VALUES (NEW.shift_id, NEW.kind, NEW.method, NEW.amount, 1)
		ON CONFLICT (shift_id, kind, method) DO UPDATE SET amount = amount + excluded.amount, n = n + 1;
END;
DROP INDEX payments_by_shift;
