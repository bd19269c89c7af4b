-- Gift cards and split tender (docs/giftcards.md).
--
-- A gift card is sold for money (not takings: the money is the
-- customer's until a sale spends it) and spent on sales. Its balance
-- never goes below zero: a sale takes its part by one guarded UPDATE
-- ("… SET balance = balance - ? WHERE id = ? AND balance >= ?"), and the
-- CHECK refuses whatever slips past. Every movement is a row of
-- giftcard_moves, append-only, whose signed sum is the balance (`check`
-- verifies it).

-- Payments take a third method, the gift card, and a sale may be paid in
-- parts (split tender): one payment a part, numbered from 0, at most one
-- part a method; the tickets of a sale count once, with its part 0. A
-- refund of a ticket of such a sale goes back in parts too, once a
-- method. SQLite changes a CHECK only by building the table anew.
CREATE TABLE payments_new (
	id          INTEGER PRIMARY KEY,
	booking_id  INTEGER NOT NULL REFERENCES bookings(id),
	kind        TEXT NOT NULL CHECK (kind IN ('sale', 'refund')),
	method      TEXT NOT NULL CHECK (method IN ('cash', 'card', 'giftcard')),
	amount      INTEGER NOT NULL CHECK (amount >= 0),
	tendered    INTEGER NOT NULL DEFAULT 0 CHECK (tendered >= 0),
	change_due  INTEGER NOT NULL DEFAULT 0 CHECK (change_due >= 0),
	at          INTEGER NOT NULL,
	staff       TEXT NOT NULL,
	terminal    TEXT NOT NULL DEFAULT '',
	shift_id    INTEGER REFERENCES shifts(id),
	ticket_id   INTEGER REFERENCES tickets(id),
	approved_by TEXT NOT NULL DEFAULT '',
	reason      TEXT,
	part        INTEGER NOT NULL DEFAULT 0 CHECK (part BETWEEN 0 AND 2),
	CHECK (kind = 'refund' OR method <> 'cash' OR tendered >= amount),
	CHECK (change_due = CASE WHEN kind = 'sale' AND method = 'cash' THEN tendered - amount ELSE 0 END),
	CHECK (kind = 'refund' OR ticket_id IS NULL)
);
INSERT INTO payments_new (id, booking_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id, ticket_id, approved_by, reason)
	SELECT id, booking_id, kind, method, amount, tendered, change_due, at, staff, terminal, shift_id, ticket_id, approved_by, reason FROM payments;
DROP TABLE payments;
ALTER TABLE payments_new RENAME TO payments;
CREATE INDEX payments_by_booking ON payments(booking_id);
CREATE INDEX payments_by_at ON payments(at);
CREATE INDEX payments_refunds_by_at ON payments(at) WHERE kind = 'refund';
CREATE UNIQUE INDEX payments_one_ticket_refund ON payments(ticket_id, method) WHERE kind = 'refund' AND ticket_id IS NOT NULL;
CREATE UNIQUE INDEX payments_one_whole_refund ON payments(booking_id) WHERE kind = 'refund' AND ticket_id IS NULL;
CREATE TRIGGER payments_no_update BEFORE UPDATE ON payments
BEGIN
	SELECT RAISE(ABORT, 'payments are never changed');
END;
CREATE TRIGGER payments_no_delete BEFORE DELETE ON payments
BEGIN
	SELECT RAISE(ABORT, 'payments are never deleted');
END;
CREATE TRIGGER payments_cash_needs_shift BEFORE INSERT ON payments
WHEN NEW.method = 'cash' AND NEW.amount > 0 AND (NEW.shift_id IS NULL
	OR NOT EXISTS (SELECT 1 FROM shifts s WHERE s.id = NEW.shift_id AND s.status = 'open' AND s.staff = NEW.staff))
BEGIN
	SELECT RAISE(ABORT, 'a cash payment needs an open shift of its staff');
END;
CREATE TRIGGER payments_shift_money AFTER INSERT ON payments WHEN NEW.shift_id IS NOT NULL
BEGIN
	INSERT INTO shift_money (shift_id, kind, method, amount, n) VALUES (NEW.shift_id, NEW.kind, NEW.method, NEW.amount, 1)
		ON CONFLICT (shift_id, kind, method) DO UPDATE SET amount = amount + excluded.amount, n = n + 1;
END;

CREATE TABLE giftcards (
	id         INTEGER PRIMARY KEY,
	number     TEXT NOT NULL UNIQUE CHECK (length(number) = 16),
	amount     INTEGER NOT NULL CHECK (amount > 0),
	balance    INTEGER NOT NULL CHECK (balance >= 0),
	staff      TEXT NOT NULL,
	terminal   TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL
);
-- The balance outstanding on every card is read through the cards with
-- money left: a spent card leaves the index.
CREATE INDEX giftcards_with_balance ON giftcards(balance) WHERE balance > 0;
CREATE TRIGGER giftcards_no_delete BEFORE DELETE ON giftcards
BEGIN
	SELECT RAISE(ABORT, 'gift cards are never deleted');
END;

-- A card's ledger: its sale (issue: how it was paid, into which shift),
-- each sale it paid part of (redeem) and each refund that gave it back
-- (refill), the payment row of the booking's money named.
CREATE TABLE giftcard_moves (
	id         INTEGER PRIMARY KEY,
	card_id    INTEGER NOT NULL REFERENCES giftcards(id),
	kind       TEXT NOT NULL CHECK (kind IN ('issue', 'redeem', 'refill')),
	amount     INTEGER NOT NULL CHECK (amount > 0),
	booking_id INTEGER REFERENCES bookings(id),
	payment_id INTEGER UNIQUE REFERENCES payments(id),
	method     TEXT CHECK (method IN ('cash', 'card')),
	tendered   INTEGER NOT NULL DEFAULT 0 CHECK (tendered >= 0),
	change_due INTEGER NOT NULL DEFAULT 0 CHECK (change_due >= 0),
	shift_id   INTEGER REFERENCES shifts(id),
	at         INTEGER NOT NULL,
	staff      TEXT NOT NULL,
	terminal   TEXT NOT NULL DEFAULT '',
	CHECK ((kind = 'issue') = (method IS NOT NULL)),
	CHECK ((kind = 'issue') = (payment_id IS NULL)),
	CHECK (kind <> 'issue' OR method = 'card' OR tendered >= amount),
	CHECK (change_due = CASE WHEN kind = 'issue' AND method = 'cash' THEN tendered - amount ELSE 0 END)
);
CREATE INDEX giftcard_moves_by_card ON giftcard_moves(card_id);
CREATE INDEX giftcard_moves_by_booking ON giftcard_moves(booking_id) WHERE booking_id IS NOT NULL;
CREATE INDEX giftcard_moves_by_at ON giftcard_moves(at);
CREATE UNIQUE INDEX giftcard_moves_one_issue ON giftcard_moves(card_id) WHERE kind = 'issue';
CREATE TRIGGER giftcard_moves_no_update BEFORE UPDATE ON giftcard_moves
BEGIN
	SELECT RAISE(ABORT, 'gift card moves are never changed');
END;
CREATE TRIGGER giftcard_moves_no_delete BEFORE DELETE ON giftcard_moves
BEGIN
	SELECT RAISE(ABORT, 'gift card moves are never deleted');
END;
-- Cash for a card sold belongs to an open shift of its person, as a
-- payment's does (0022).
CREATE TRIGGER giftcard_moves_cash_needs_shift BEFORE INSERT ON giftcard_moves
WHEN NEW.method = 'cash' AND (NEW.shift_id IS NULL
	OR NOT EXISTS (SELECT 1 FROM shifts s WHERE s.id = NEW.shift_id AND s.status = 'open' AND s.staff = NEW.staff))
BEGIN
	SELECT RAISE(ABORT, 'a cash payment needs an open shift of its staff');
END;
-- The money taken for a card counts in its shift's running totals (0026)
-- as kind 'issue': in the drawer, not in the takings.
CREATE TRIGGER giftcard_moves_shift_money AFTER INSERT ON giftcard_moves WHEN NEW.kind = 'issue' AND NEW.shift_id IS NOT NULL
BEGIN
	INSERT INTO shift_money (shift_id, kind, method, amount, n) VALUES (NEW.shift_id, 'issue', NEW.method, NEW.amount, 1)
		ON CONFLICT (shift_id, kind, method) DO UPDATE SET amount = amount + excluded.amount, n = n + 1;
END;
