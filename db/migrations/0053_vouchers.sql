-- Vouchers and promo codes (docs/vouchers.md): a code for an amount or a
-- percentage off a sale's tickets, used a number of times. A sale takes
-- a use by one guarded UPDATE (uses_left > 0); the CHECK refuses what
-- slips past. Each use is a redemption row naming its booking, given
-- back once (returned_at, by compare-and-set) when the booking is
-- cancelled.

CREATE TABLE vouchers (
	id          INTEGER PRIMARY KEY,
	code        TEXT NOT NULL UNIQUE CHECK (length(code) BETWEEN 3 AND 24 AND code = upper(code)),
	off         INTEGER NOT NULL DEFAULT 0 CHECK (off >= 0),
	percent     INTEGER NOT NULL DEFAULT 0 CHECK (percent BETWEEN 0 AND 100),
	uses        INTEGER NOT NULL CHECK (uses >= 1),
	uses_left   INTEGER NOT NULL CHECK (uses_left >= 0 AND uses_left <= uses),
	until       INTEGER,
	film_id     INTEGER REFERENCES films(id),
	show_id     INTEGER REFERENCES shows(id),
	ticket_type TEXT NOT NULL DEFAULT '',
	retired     INTEGER NOT NULL DEFAULT 0 CHECK (retired IN (0, 1)),
	created_at  INTEGER NOT NULL,
	CHECK ((off > 0) <> (percent > 0))
);
CREATE TRIGGER vouchers_no_delete BEFORE DELETE ON vouchers
BEGIN
	SELECT RAISE(ABORT, 'vouchers are retired, never deleted');
END;

CREATE TABLE voucher_redemptions (
	id          INTEGER PRIMARY KEY,
	voucher_id  INTEGER NOT NULL REFERENCES vouchers(id),
	booking_id  INTEGER NOT NULL UNIQUE REFERENCES bookings(id),
	code        TEXT NOT NULL,
	discount    INTEGER NOT NULL CHECK (discount >= 0),
	staff       TEXT NOT NULL,
	at          INTEGER NOT NULL,
	returned_at INTEGER
);
CREATE INDEX voucher_redemptions_by_at ON voucher_redemptions(at);
CREATE TRIGGER voucher_redemptions_fixed BEFORE UPDATE ON voucher_redemptions
WHEN OLD.returned_at IS NOT NULL OR NEW.returned_at IS NULL OR NEW.voucher_id IS NOT OLD.voucher_id
	OR NEW.booking_id IS NOT OLD.booking_id OR NEW.discount IS NOT OLD.discount OR NEW.code IS NOT OLD.code
BEGIN
	SELECT RAISE(ABORT, 'a redemption is only returned, once');
END;
CREATE TRIGGER voucher_redemptions_no_delete BEFORE DELETE ON voucher_redemptions
BEGIN
	SELECT RAISE(ABORT, 'redemptions are never deleted');
END;

-- The items sold on a ticket sale, found by their booking (its receipt,
-- its cancel).
CREATE INDEX item_orders_by_booking ON item_orders(booking_id) WHERE booking_id IS NOT NULL;
