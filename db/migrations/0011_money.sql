-- Money a cinema can close the day on: prices by seat kind and price
-- list, shifts that every cash movement belongs to, refunds ticket by
-- ticket, and an audit trail that SQLite itself keeps append-only.

-- Prices. A ticket type's own price (ticket_types.price) is what a
-- standard seat costs on the standing list; a row here overrides it for
-- one seat kind, on the standing list ('') or on a named price list
-- ("evening") that a show can carry. db/prices.go resolves a seat's price
-- and booking.PriceFor states the order.
CREATE TABLE price_lists (
	name  TEXT PRIMARY KEY COLLATE NOCASE CHECK (name <> ''),
	label TEXT NOT NULL DEFAULT ''
);

CREATE TABLE prices (
	list      TEXT NOT NULL DEFAULT '' COLLATE NOCASE,
	type_code TEXT NOT NULL REFERENCES ticket_types(code),
	seat_kind TEXT NOT NULL CHECK (seat_kind IN ('standard', 'premium', 'wheelchair', 'companion')),
	amount    INTEGER NOT NULL CHECK (amount >= 0),
	PRIMARY KEY (list, type_code, seat_kind)
) WITHOUT ROWID;

-- The price list a show sells at; '' is the standing list.
ALTER TABLE shows ADD COLUMN price_list TEXT NOT NULL DEFAULT '' COLLATE NOCASE;

-- Shifts. A shift is one person's drawer from the float they counted in
-- to the blind count that closes it; it follows the person (staff name,
-- or "system" for the command line), not the terminal. One open shift per
-- person, whatever the Go code does.
CREATE TABLE shifts (
	id        INTEGER PRIMARY KEY,
	staff     TEXT NOT NULL COLLATE NOCASE,
	staff_id  INTEGER REFERENCES staff(id),
	terminal  TEXT NOT NULL DEFAULT '',
	status    TEXT NOT NULL CHECK (status IN ('open', 'closed')),
	opened_at INTEGER NOT NULL,
	float     INTEGER NOT NULL CHECK (float >= 0),
	closed_at INTEGER,
	counted   INTEGER CHECK (counted >= 0),
	expected  INTEGER,
	closed_by TEXT NOT NULL DEFAULT '',
	CHECK ((status = 'closed') = (closed_at IS NOT NULL AND counted IS NOT NULL AND expected IS NOT NULL))
);
CREATE UNIQUE INDEX shifts_one_open ON shifts(staff) WHERE status = 'open';
CREATE INDEX shifts_by_opened ON shifts(opened_at);

-- Every open, close and reopen of a shift, with the count and the reason:
-- a reopened shift keeps the count it was first closed with.
CREATE TABLE shift_events (
	id        INTEGER PRIMARY KEY,
	shift_id  INTEGER NOT NULL REFERENCES shifts(id),
	kind      TEXT NOT NULL CHECK (kind IN ('open', 'close', 'reopen')),
	at        INTEGER NOT NULL,
	by        TEXT NOT NULL,
	counted   INTEGER,
	expected  INTEGER,
	breakdown TEXT NOT NULL DEFAULT '', -- the count by denomination, "50x2 20x3 …", when typed so
	reason    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX shift_events_by_shift ON shift_events(shift_id);

-- Tickets gain the refunded status (one ticket of a party refunded alone)
-- and say where their price came from. SQLite cannot change a CHECK in
-- place, so the table is rebuilt; nothing references tickets yet.
CREATE TABLE tickets_new (
	id           INTEGER PRIMARY KEY,
	booking_id   INTEGER NOT NULL REFERENCES bookings(id),
	seat_id      INTEGER NOT NULL REFERENCES seats(id),
	type_code    TEXT NOT NULL REFERENCES ticket_types(code),
	price        INTEGER NOT NULL CHECK (price >= 0),
	price_source TEXT NOT NULL DEFAULT '',
	status       TEXT NOT NULL CHECK (status IN ('issued', 'admitted', 'void', 'refunded')),
	admitted_at  INTEGER,
	admitted_by  TEXT NOT NULL DEFAULT ''
);
INSERT INTO tickets_new (id, booking_id, seat_id, type_code, price, status, admitted_at, admitted_by)
	SELECT id, booking_id, seat_id, type_code, price, status, admitted_at, admitted_by FROM tickets;
DROP TABLE tickets;
ALTER TABLE tickets_new RENAME TO tickets;

-- Payments belong to a shift (cash always; card when the person has one
-- open), name the ticket a refund is for, who approved it and where it
-- was taken. A ticket is refunded at most once and so is a whole booking
-- refunded before refunds went ticket by ticket.
CREATE TABLE payments_new (
	id          INTEGER PRIMARY KEY,
	booking_id  INTEGER NOT NULL REFERENCES bookings(id),
	kind        TEXT NOT NULL CHECK (kind IN ('sale', 'refund')),
	method      TEXT NOT NULL CHECK (method IN ('cash', 'card')),
	amount      INTEGER NOT NULL CHECK (amount >= 0),
	tendered    INTEGER NOT NULL DEFAULT 0 CHECK (tendered >= 0),
	change_due  INTEGER NOT NULL DEFAULT 0 CHECK (change_due >= 0),
	at          INTEGER NOT NULL,
	staff       TEXT NOT NULL,
	terminal    TEXT NOT NULL DEFAULT '',
	shift_id    INTEGER REFERENCES shifts(id),
	ticket_id   INTEGER REFERENCES tickets(id),
	approved_by TEXT NOT NULL DEFAULT '',
	CHECK (kind = 'refund' OR method = 'card' OR tendered >= amount),
	CHECK (change_due = CASE WHEN kind = 'sale' AND method = 'cash' THEN tendered - amount ELSE 0 END),
	CHECK (kind = 'refund' OR ticket_id IS NULL)
);
INSERT INTO payments_new (id, booking_id, kind, method, amount, tendered, change_due, at, staff)
	SELECT id, booking_id, kind, method, amount, tendered, change_due, at, staff FROM payments;
DROP TABLE payments;
ALTER TABLE payments_new RENAME TO payments;
CREATE INDEX payments_by_booking ON payments(booking_id);
CREATE INDEX payments_by_shift ON payments(shift_id) WHERE shift_id IS NOT NULL;
-- Takings reports read a range of days.
CREATE INDEX payments_by_at ON payments(at);
CREATE UNIQUE INDEX payments_one_ticket_refund ON payments(ticket_id) WHERE kind = 'refund' AND ticket_id IS NOT NULL;
CREATE UNIQUE INDEX payments_one_whole_refund ON payments(booking_id) WHERE kind = 'refund' AND ticket_id IS NULL;

-- A payment, once written, is never changed or removed: a mistake is put
-- right by another payment.
CREATE TRIGGER payments_no_update BEFORE UPDATE ON payments
BEGIN
	SELECT RAISE(ABORT, 'payments are never changed');
END;
CREATE TRIGGER payments_no_delete BEFORE DELETE ON payments
BEGIN
	SELECT RAISE(ABORT, 'payments are never deleted');
END;

-- The audit trail: one row per state change, written in the transaction
-- that made it (db/audit.go). Who (staff name and role, terminal), when,
-- what, on which show, booking or shift, and the amount.
CREATE TABLE audit (
	id         INTEGER PRIMARY KEY,
	at         INTEGER NOT NULL,         -- unix milliseconds
	actor      TEXT NOT NULL,
	role       TEXT NOT NULL DEFAULT '',
	terminal   TEXT NOT NULL DEFAULT '',
	action     TEXT NOT NULL,
	show_id    INTEGER,
	booking_id INTEGER,
	shift_id   INTEGER,
	amount     INTEGER,
	detail     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_by_at ON audit(at);
CREATE INDEX audit_by_actor ON audit(actor COLLATE NOCASE, at);
CREATE INDEX audit_by_booking ON audit(booking_id) WHERE booking_id IS NOT NULL;
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN
	SELECT RAISE(ABORT, 'the audit trail is append-only');
END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
BEGIN
	SELECT RAISE(ABORT, 'the audit trail is append-only');
END;
