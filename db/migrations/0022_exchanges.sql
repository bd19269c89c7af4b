-- Exchanges: tickets of a booking moved to other seats of its show or to
-- another show (db/exchange.go). The moved tickets are voided and a new
-- booking holds the new ones; this row ties the two, carries the moved
-- tickets' price over as credit and says what difference was paid
-- (positive) or paid back (negative). The invariant check reads it to
-- balance both bookings' money.
CREATE TABLE exchanges (
	id           INTEGER PRIMARY KEY,
	idem_key     TEXT NOT NULL UNIQUE,
	from_booking INTEGER NOT NULL REFERENCES bookings(id),
	to_booking   INTEGER NOT NULL UNIQUE REFERENCES bookings(id),
	credit       INTEGER NOT NULL CHECK (credit >= 0),
	difference   INTEGER NOT NULL,
	method       TEXT NOT NULL CHECK (method IN ('cash', 'card')),
	at           INTEGER NOT NULL,
	staff        TEXT NOT NULL,
	terminal     TEXT NOT NULL DEFAULT '',
	approved_by  TEXT NOT NULL DEFAULT '',
	CHECK (from_booking <> to_booking)
);
CREATE INDEX exchanges_by_from ON exchanges(from_booking);

-- An exchange, like a payment, is never changed or removed.
CREATE TRIGGER exchanges_no_update BEFORE UPDATE ON exchanges
BEGIN
	SELECT RAISE(ABORT, 'exchanges are never changed');
END;
CREATE TRIGGER exchanges_no_delete BEFORE DELETE ON exchanges
BEGIN
	SELECT RAISE(ABORT, 'exchanges are never deleted');
END;

-- The exchange that voided a ticket: the door tells an exchanged ticket
-- from a cancelled one, and the booking view names where it went.
ALTER TABLE tickets ADD COLUMN exchange_id INTEGER REFERENCES exchanges(id);

-- An exchange at the same price writes a 0.00 sale (the method later
-- refunds of its tickets go back by) and moves no cash: it needs no
-- drawer. A cash payment of any amount still needs an open shift of its
-- person.
DROP TRIGGER payments_cash_needs_shift;
CREATE TRIGGER payments_cash_needs_shift BEFORE INSERT ON payments
WHEN NEW.method = 'cash' AND NEW.amount > 0 AND (NEW.shift_id IS NULL
	OR NOT EXISTS (SELECT 1 FROM shifts s WHERE s.id = NEW.shift_id AND s.status = 'open' AND s.staff = NEW.staff))
BEGIN
	SELECT RAISE(ABORT, 'a cash payment needs an open shift of its staff');
END;
