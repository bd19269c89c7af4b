-- The first schema. The database, not the Go code, is the final word on
-- what may never happen: a seat claimed twice, a second booking for one
-- idempotency key, a counter outside its bounds, a second refund.

CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);

CREATE TABLE halls (
	id    INTEGER PRIMARY KEY,
	name  TEXT NOT NULL UNIQUE,
	rows  TEXT NOT NULL,             -- row labels, front to back, space separated
	width INTEGER NOT NULL CHECK (width > 0)
);

CREATE TABLE seats (
	id      INTEGER PRIMARY KEY,
	hall_id INTEGER NOT NULL REFERENCES halls(id),
	label   TEXT NOT NULL,
	row_tag TEXT NOT NULL,
	number  INTEGER NOT NULL CHECK (number > 0),
	row_idx INTEGER NOT NULL CHECK (row_idx >= 0),
	col     INTEGER NOT NULL CHECK (col >= 0),
	kind    TEXT NOT NULL CHECK (kind IN ('standard', 'premium', 'wheelchair', 'companion')),
	blocked INTEGER NOT NULL DEFAULT 0 CHECK (blocked IN (0, 1)),
	UNIQUE (hall_id, label),
	UNIQUE (hall_id, row_idx, col)
);

CREATE TABLE films (
	id      INTEGER PRIMARY KEY,
	title   TEXT NOT NULL,
	minutes INTEGER NOT NULL CHECK (minutes > 0),
	rating  TEXT NOT NULL DEFAULT ''
);

CREATE TABLE ticket_types (
	code  TEXT PRIMARY KEY,
	name  TEXT NOT NULL,
	price INTEGER NOT NULL CHECK (price >= 0),
	sort  INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE shows (
	id        INTEGER PRIMARY KEY,
	film_id   INTEGER NOT NULL REFERENCES films(id),
	hall_id   INTEGER NOT NULL REFERENCES halls(id),
	starts_at INTEGER NOT NULL,      -- unix seconds
	capacity  INTEGER NOT NULL CHECK (capacity > 0),
	sold      INTEGER NOT NULL DEFAULT 0,
	CHECK (sold >= 0 AND sold <= capacity)
);
CREATE INDEX shows_by_start ON shows(starts_at);

CREATE TABLE holds (
	id         INTEGER PRIMARY KEY,
	show_id    INTEGER NOT NULL REFERENCES shows(id),
	owner      TEXT NOT NULL,
	status     TEXT NOT NULL CHECK (status IN ('held', 'released', 'expired', 'confirmed')),
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL     -- unix milliseconds
);
CREATE INDEX holds_live_by_show ON holds(show_id, expires_at) WHERE status = 'held';
-- A session's live holds (ReleaseOwner) are found through the index
-- above: only live holds are in it, so no second index per hold.

CREATE TABLE bookings (
	id           INTEGER PRIMARY KEY,
	number       TEXT NOT NULL UNIQUE,
	show_id      INTEGER NOT NULL REFERENCES shows(id),
	hold_id      INTEGER NOT NULL REFERENCES holds(id),
	status       TEXT NOT NULL CHECK (status IN ('confirmed', 'completed', 'cancelled', 'no_show')),
	idem_key     TEXT NOT NULL UNIQUE,
	customer     TEXT NOT NULL DEFAULT '',
	phone        TEXT NOT NULL DEFAULT '',
	total        INTEGER NOT NULL CHECK (total >= 0),
	sold_by      TEXT NOT NULL,
	terminal     TEXT NOT NULL DEFAULT '',
	created_at   INTEGER NOT NULL,
	cancelled_by TEXT NOT NULL DEFAULT '',
	approved_by  TEXT NOT NULL DEFAULT '',
	reason       TEXT NOT NULL DEFAULT '',
	cancelled_at INTEGER
);
-- No index on phone: finding a booking by phone is a rare counter
-- search, and every sale would pay for the index.

CREATE TABLE seat_claims (
	id         INTEGER PRIMARY KEY,
	show_id    INTEGER NOT NULL REFERENCES shows(id),
	seat_id    INTEGER NOT NULL REFERENCES seats(id),
	hold_id    INTEGER NOT NULL REFERENCES holds(id),
	booking_id INTEGER REFERENCES bookings(id),
	status     TEXT NOT NULL CHECK (status IN ('held', 'sold', 'released', 'expired', 'cancelled')),
	CHECK ((status = 'sold') = (booking_id IS NOT NULL) OR status = 'cancelled')
);
-- At most one live claim per seat per show. Released, expired and cancelled
-- claims stay as history and do not block.
CREATE UNIQUE INDEX seat_claims_one_live ON seat_claims(show_id, seat_id) WHERE status IN ('held', 'sold');
CREATE INDEX seat_claims_by_hold ON seat_claims(hold_id);
-- Claims of a booking are found through its hold (bookings.hold_id), so
-- no index on booking_id: one index less to write per sale.

CREATE TABLE tickets (
	id          INTEGER PRIMARY KEY,
	booking_id  INTEGER NOT NULL REFERENCES bookings(id),
	seat_id     INTEGER NOT NULL REFERENCES seats(id),
	type_code   TEXT NOT NULL REFERENCES ticket_types(code),
	price       INTEGER NOT NULL CHECK (price >= 0),
	status      TEXT NOT NULL CHECK (status IN ('issued', 'admitted', 'void')),
	-- No code column: a ticket's code is HMAC(key, id), computed on read.
	admitted_at INTEGER,
	admitted_by TEXT NOT NULL DEFAULT ''
);
-- A booking's tickets have ids 32*booking_id .. 32*booking_id+31 (see
-- db/checkout.go), so they are a range of the primary key: no index.

CREATE TABLE payments (
	id         INTEGER PRIMARY KEY,
	booking_id INTEGER NOT NULL REFERENCES bookings(id),
	kind       TEXT NOT NULL CHECK (kind IN ('sale', 'refund')),
	method     TEXT NOT NULL CHECK (method IN ('cash', 'card')),
	amount     INTEGER NOT NULL CHECK (amount >= 0),
	tendered   INTEGER NOT NULL DEFAULT 0 CHECK (tendered >= 0),
	change_due INTEGER NOT NULL DEFAULT 0 CHECK (change_due >= 0),
	at         INTEGER NOT NULL,
	staff      TEXT NOT NULL,
	CHECK (kind = 'refund' OR method = 'card' OR tendered >= amount),
	CHECK (change_due = CASE WHEN kind = 'sale' AND method = 'cash' THEN tendered - amount ELSE 0 END)
);
-- A booking is refunded at most once, whatever the Go code does.
CREATE UNIQUE INDEX payments_one_refund ON payments(booking_id) WHERE kind = 'refund';

CREATE TABLE staff (
	id        INTEGER PRIMARY KEY,
	name      TEXT NOT NULL UNIQUE COLLATE NOCASE,
	role      TEXT NOT NULL CHECK (role IN ('door', 'clerk', 'supervisor', 'manager')),
	pin_hash  TEXT NOT NULL,
	disabled  INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
	key_fp    TEXT UNIQUE,
	key_text  TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL
);

-- Failed sign-ins by name (known or not), so a restart does not reset a
-- lockout and an unknown name locks exactly like a known one.
CREATE TABLE signin_failures (
	name         TEXT PRIMARY KEY COLLATE NOCASE,
	failures     INTEGER NOT NULL DEFAULT 0 CHECK (failures >= 0),
	locked_until INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE terminals (
	id       INTEGER PRIMARY KEY,
	name     TEXT NOT NULL UNIQUE COLLATE NOCASE,
	key_fp   TEXT NOT NULL UNIQUE,
	key_text TEXT NOT NULL,
	created_at INTEGER NOT NULL
);

-- Every committed write appends the shows it changed, so a process that
-- notices another process's commit (PRAGMA data_version) can repaint just
-- those shows.
CREATE TABLE changes (
	seq     INTEGER PRIMARY KEY AUTOINCREMENT,
	show_id INTEGER NOT NULL
);

CREATE TABLE waitlist (
	id          INTEGER PRIMARY KEY,
	show_id     INTEGER NOT NULL REFERENCES shows(id),
	name        TEXT NOT NULL,
	phone       TEXT NOT NULL,
	seats       INTEGER NOT NULL CHECK (seats > 0),
	created_at  INTEGER NOT NULL,
	notified_at INTEGER
);
CREATE INDEX waitlist_waiting ON waitlist(show_id, created_at) WHERE notified_at IS NULL;
