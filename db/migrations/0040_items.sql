-- Concessions (docs/concessions.md): the items a counter sells beside
-- seats, with a stock count or none (unlimited), and their sale alone at
-- the counter as an order of its own. An order's money is its own ledger,
-- item_payments, kept like payments: append-only, cash only into an open
-- shift of its person, and counted in the shift's running totals, so a
-- drawer's expected cash has the items in it.

CREATE TABLE items (
	id         INTEGER PRIMARY KEY,
	code       TEXT NOT NULL UNIQUE CHECK (length(code) BETWEEN 1 AND 16 AND code = lower(code)),
	name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 40),
	category   TEXT NOT NULL DEFAULT '' CHECK (length(category) <= 24),
	price      INTEGER NOT NULL CHECK (price >= 0),
	-- How many are left; NULL for an item sold without a count. Never
	-- below zero, whatever writes it: a sale takes its lines off by one
	-- guarded UPDATE each, and this refuses what slips past.
	stock      INTEGER CHECK (stock >= 0),
	retired    INTEGER NOT NULL DEFAULT 0 CHECK (retired IN (0, 1)),
	created_at INTEGER NOT NULL
);
-- An item is retired, never removed: its orders name it.
CREATE TRIGGER items_no_delete BEFORE DELETE ON items
BEGIN
	SELECT RAISE(ABORT, 'items are retired, never deleted');
END;

-- An order: items sold alone (booking_id NULL) or with a ticket sale.
-- One order per idempotency key, as one booking per checkout's.
CREATE TABLE item_orders (
	id         INTEGER PRIMARY KEY,
	number     TEXT NOT NULL UNIQUE,
	idem_key   TEXT NOT NULL UNIQUE CHECK (idem_key <> '' AND length(idem_key) <= 128),
	booking_id INTEGER REFERENCES bookings(id),
	total      INTEGER NOT NULL CHECK (total >= 0),
	staff      TEXT NOT NULL,
	terminal   TEXT NOT NULL DEFAULT '',
	at         INTEGER NOT NULL
);
CREATE TRIGGER item_orders_no_update BEFORE UPDATE ON item_orders
BEGIN
	SELECT RAISE(ABORT, 'orders are never changed');
END;
CREATE TRIGGER item_orders_no_delete BEFORE DELETE ON item_orders
BEGIN
	SELECT RAISE(ABORT, 'orders are never deleted');
END;

-- An order's lines: each item as it was sold (its name, category and
-- price then). A line is refunded once, by compare-and-set on
-- refunded_at; nothing else of it ever changes.
CREATE TABLE item_lines (
	id          INTEGER PRIMARY KEY,
	order_id    INTEGER NOT NULL REFERENCES item_orders(id),
	item_id     INTEGER NOT NULL REFERENCES items(id),
	code        TEXT NOT NULL,
	name        TEXT NOT NULL,
	category    TEXT NOT NULL,
	qty         INTEGER NOT NULL CHECK (qty BETWEEN 1 AND 99),
	price       INTEGER NOT NULL CHECK (price >= 0),
	refunded_at INTEGER
);
CREATE INDEX item_lines_by_order ON item_lines(order_id);
CREATE TRIGGER item_lines_fixed BEFORE UPDATE ON item_lines
WHEN OLD.refunded_at IS NOT NULL OR NEW.refunded_at IS NULL OR NEW.order_id IS NOT OLD.order_id OR NEW.item_id IS NOT OLD.item_id
	OR NEW.qty IS NOT OLD.qty OR NEW.price IS NOT OLD.price OR NEW.code IS NOT OLD.code OR NEW.name IS NOT OLD.name
	OR NEW.category IS NOT OLD.category
BEGIN
	SELECT RAISE(ABORT, 'an order line is only refunded, once');
END;
CREATE TRIGGER item_lines_no_delete BEFORE DELETE ON item_lines
BEGIN
	SELECT RAISE(ABORT, 'order lines are never deleted');
END;

-- The orders' money, as payments is the bookings': one sale an order,
-- one refund a line.
CREATE TABLE item_payments (
	id          INTEGER PRIMARY KEY,
	order_id    INTEGER NOT NULL REFERENCES item_orders(id),
	line_id     INTEGER REFERENCES item_lines(id),
	kind        TEXT NOT NULL CHECK (kind IN ('sale', 'refund')),
	method      TEXT NOT NULL CHECK (method IN ('cash', 'card')),
	amount      INTEGER NOT NULL CHECK (amount >= 0),
	tendered    INTEGER NOT NULL DEFAULT 0 CHECK (tendered >= 0),
	change_due  INTEGER NOT NULL DEFAULT 0 CHECK (change_due >= 0),
	at          INTEGER NOT NULL,
	staff       TEXT NOT NULL,
	terminal    TEXT NOT NULL DEFAULT '',
	shift_id    INTEGER REFERENCES shifts(id),
	approved_by TEXT NOT NULL DEFAULT '',
	CHECK (kind = 'refund' OR method = 'card' OR tendered >= amount),
	CHECK (change_due = CASE WHEN kind = 'sale' AND method = 'cash' THEN tendered - amount ELSE 0 END),
	CHECK ((kind = 'refund') = (line_id IS NOT NULL))
);
CREATE INDEX item_payments_by_order ON item_payments(order_id);
CREATE INDEX item_payments_by_at ON item_payments(at);
-- A shift's items on its X and Z reports.
CREATE INDEX item_payments_by_shift ON item_payments(shift_id) WHERE shift_id IS NOT NULL;
CREATE UNIQUE INDEX item_payments_one_sale ON item_payments(order_id) WHERE kind = 'sale';
CREATE UNIQUE INDEX item_payments_one_refund ON item_payments(line_id) WHERE kind = 'refund';

CREATE TRIGGER item_payments_no_update BEFORE UPDATE ON item_payments
BEGIN
	SELECT RAISE(ABORT, 'payments are never changed');
END;
CREATE TRIGGER item_payments_no_delete BEFORE DELETE ON item_payments
BEGIN
	SELECT RAISE(ABORT, 'payments are never deleted');
END;
-- Cash belongs to an open shift of the person who took it (as payments,
-- 0014 and 0022).
CREATE TRIGGER item_payments_cash_needs_shift BEFORE INSERT ON item_payments
WHEN NEW.method = 'cash' AND NEW.amount > 0 AND (NEW.shift_id IS NULL
	OR NOT EXISTS (SELECT 1 FROM shifts s WHERE s.id = NEW.shift_id AND s.status = 'open' AND s.staff = NEW.staff))
BEGIN
	SELECT RAISE(ABORT, 'a cash payment needs an open shift of its staff');
END;
-- The shift's running totals (0026) count the items' money with the
-- tickets': its cash-up, X and Z reports read them.
CREATE TRIGGER item_payments_shift_money AFTER INSERT ON item_payments WHEN NEW.shift_id IS NOT NULL
BEGIN
	INSERT INTO shift_money (shift_id, kind, method, amount, n) VALUES (NEW.shift_id, NEW.kind, NEW.method, NEW.amount, 1)
		ON CONFLICT (shift_id, kind, method) DO UPDATE SET amount = amount + excluded.amount, n = n + 1;
END;
