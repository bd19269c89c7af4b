-- Customer accounts (booking/customers.go, store/customers.go): a name,
-- an e-mail address and optionally a phone, each address and phone in its
-- one normal form (booking.NormalEmail, booking.NormalPhone's digits).
-- The unique indexes below, not the Go code, decide between two sign-ups
-- for one address at the same moment. An erased account keeps its row
-- (what belonged to it still points at it) with every personal column
-- blanked.
CREATE TABLE customers (
	id         INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	email      TEXT NOT NULL,
	phone      TEXT NOT NULL DEFAULT '',   -- international digits, '' for none
	phone_rev  TEXT NOT NULL DEFAULT '',   -- phone's digits last first: search by its last digits
	created_at INTEGER NOT NULL,           -- unix milliseconds
	created_by TEXT NOT NULL,
	erased_at  INTEGER,
	erased_by  TEXT NOT NULL DEFAULT '',
	-- An address inserted in capitals, skipping the Go code, would slip
	-- past the unique index: refused.
	CHECK (email NOT GLOB '*[A-Z]*'),
	CHECK (phone NOT GLOB '*[^0-9]*' AND phone_rev NOT GLOB '*[^0-9]*' AND length(phone) = length(phone_rev)),
	CHECK (CASE WHEN erased_at IS NULL THEN length(name) BETWEEN 1 AND 60 AND email LIKE '_%@_%'
		ELSE name = '' AND email = '' AND phone = '' END)
);
CREATE UNIQUE INDEX customers_one_email ON customers(email) WHERE email <> '';
CREATE UNIQUE INDEX customers_one_phone ON customers(phone) WHERE phone <> '';
CREATE INDEX customers_by_phone_rev ON customers(phone_rev) WHERE phone_rev <> '';

-- A customer's name words (booking.NameWords), for the search by name as
-- booking_words is for bookings; an erased customer has none.
CREATE TABLE customer_words (
	word        TEXT NOT NULL,
	customer_id INTEGER NOT NULL REFERENCES customers(id),
	PRIMARY KEY (word, customer_id)
) WITHOUT ROWID;
CREATE INDEX customer_words_by_customer ON customer_words(customer_id, word);

-- What belongs to a customer. Partial indexes: a sale without a customer
-- (nearly every one) writes nothing to them.
ALTER TABLE bookings ADD COLUMN customer_id INTEGER REFERENCES customers(id);
CREATE INDEX bookings_by_customer ON bookings(customer_id) WHERE customer_id IS NOT NULL;
ALTER TABLE waitlist ADD COLUMN customer_id INTEGER REFERENCES customers(id);
CREATE INDEX waitlist_by_customer ON waitlist(customer_id) WHERE customer_id IS NOT NULL;

-- Reservations gain their customer, and an erased customer's reservation
-- keeps its row with name and phone blanked, which the checks of 0025
-- refuse. SQLite cannot change a CHECK in place, so the table is rebuilt
-- as it was with those checks widened; nothing references reservations.
CREATE TABLE reservations_new (
	id           INTEGER PRIMARY KEY,
	number       TEXT NOT NULL UNIQUE,
	show_id      INTEGER NOT NULL REFERENCES shows(id),
	hold_id      INTEGER NOT NULL UNIQUE REFERENCES holds(id),
	name         TEXT NOT NULL,
	phone        TEXT NOT NULL,
	phone_digits TEXT NOT NULL,
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
	customer_id  INTEGER REFERENCES customers(id),
	CHECK ((status = 'paid') = (booking_id IS NOT NULL)),
	-- A name and a phone of the lengths 0025 asked for, or, erased, none.
	CHECK ((length(name) BETWEEN 1 AND 60 AND length(phone_digits) BETWEEN 6 AND 15)
		OR (name = '' AND phone = '' AND phone_digits = '' AND customer_id IS NOT NULL))
);
INSERT INTO reservations_new (id, number, show_id, hold_id, name, phone, phone_digits, types, source, status, created_by, addr,
		show_day, created_at, cutoff_at, booking_id, paid_at, lapsed_at)
	SELECT id, number, show_id, hold_id, name, phone, phone_digits, types, source, status, created_by, addr,
		show_day, created_at, cutoff_at, booking_id, paid_at, lapsed_at FROM reservations;
DROP TABLE reservations;
ALTER TABLE reservations_new RENAME TO reservations;
CREATE INDEX reservations_unpaid_by_phone ON reservations(phone_digits, show_day) WHERE status = 'reserved';
CREATE INDEX reservations_by_phone ON reservations(phone_digits, created_at);
CREATE INDEX reservations_by_addr ON reservations(addr, created_at) WHERE addr <> '';
CREATE INDEX reservations_by_created ON reservations(created_at);
CREATE INDEX reservations_by_customer ON reservations(customer_id) WHERE customer_id IS NOT NULL;
