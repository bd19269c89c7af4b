-- Reservations (issue 13): seats held for a customer to pay at the
-- counter before a cut-off. The seats are an ordinary hold whose expiry
-- is the cut-off, so the sweeper lapses a reservation by the same
-- compare-and-set that lapses any hold (and frees its seats and wakes the
-- waiting list); paying is a checkout of that hold. Bookings keep their
-- statuses: a reservation is not a booking until it is paid.
CREATE TABLE reservations (
	id           INTEGER PRIMARY KEY,
	number       TEXT NOT NULL UNIQUE,
	show_id      INTEGER NOT NULL REFERENCES shows(id),
	hold_id      INTEGER NOT NULL UNIQUE REFERENCES holds(id),
	name         TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
	phone        TEXT NOT NULL,
	phone_digits TEXT NOT NULL CHECK (length(phone_digits) BETWEEN 6 AND 15),
	types        TEXT NOT NULL DEFAULT '',   -- "A1=adult,A2=child"
	source       TEXT NOT NULL CHECK (source IN ('kiosk', 'counter')),
	status       TEXT NOT NULL CHECK (status IN ('reserved', 'paid', 'lapsed')),
	created_by   TEXT NOT NULL,
	addr         TEXT NOT NULL DEFAULT '',
	show_day     TEXT NOT NULL,              -- the show's local date, for the per-day cap
	created_at   INTEGER NOT NULL,
	cutoff_at    INTEGER NOT NULL,
	booking_id   INTEGER REFERENCES bookings(id),
	paid_at      INTEGER,
	lapsed_at    INTEGER,
	CHECK ((status = 'paid') = (booking_id IS NOT NULL))
);
-- The per-phone caps count a phone's unpaid reservations: few per phone.
CREATE INDEX reservations_unpaid_by_phone ON reservations(phone_digits, show_day) WHERE status = 'reserved';
-- The counter finds a customer's reservations by phone, newest first.
CREATE INDEX reservations_by_phone ON reservations(phone_digits, created_at);
-- The per-address limit counts an address's last hour.
CREATE INDEX reservations_by_addr ON reservations(addr, created_at) WHERE addr <> '';
-- The report reads a range of days by when they were made.
CREATE INDEX reservations_by_created ON reservations(created_at);
