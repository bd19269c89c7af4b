-- The film watchlist (booking/customers.go, store/watchlist.go): people
-- waiting for a film that has no show to come. The show added next marks
-- each of them told (notified_at, show_id) by compare-and-set on
-- notified_at IS NULL, in the transaction that adds it; a clerk then
-- calls them (called_at, called_by).
CREATE TABLE film_watchers (
	id          INTEGER PRIMARY KEY,
	film_id     INTEGER NOT NULL REFERENCES films(id),
	customer_id INTEGER REFERENCES customers(id),
	name        TEXT NOT NULL,
	phone       TEXT NOT NULL,              -- as typed, cleaned
	phone_key   TEXT NOT NULL,              -- booking.NormalPhone's digits
	email       TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,           -- unix milliseconds
	created_by  TEXT NOT NULL,
	notified_at INTEGER,
	show_id     INTEGER REFERENCES shows(id),
	called_at   INTEGER,
	called_by   TEXT NOT NULL DEFAULT '',
	CHECK ((notified_at IS NULL) = (show_id IS NULL)),
	CHECK (called_at IS NULL OR notified_at IS NOT NULL),
	-- A phone to call, or, erased, no personal details at all.
	CHECK (length(phone_key) BETWEEN 6 AND 15
		OR (name = '' AND phone = '' AND phone_key = '' AND email = '' AND customer_id IS NOT NULL))
);
-- One untold watch per phone and film; the watchers a new show tells are
-- a range of it.
CREATE UNIQUE INDEX film_watchers_waiting ON film_watchers(film_id, phone_key) WHERE notified_at IS NULL AND phone_key <> '';
-- A film's watchers, in the order they asked (watch list FILM).
CREATE INDEX film_watchers_by_film ON film_watchers(film_id, id);
-- The watchers to call: told, never called. Only those are in it.
CREATE INDEX film_watchers_to_call ON film_watchers(notified_at) WHERE notified_at IS NOT NULL AND called_at IS NULL;
CREATE INDEX film_watchers_by_customer ON film_watchers(customer_id) WHERE customer_id IS NOT NULL;
