-- A voucher on a reservation (docs/kiosk.md): the reservation takes one
-- use when it is made, by the vouchers' guarded UPDATE, and keeps it in
-- this row until it ends once, by compare-and-set on ended: 'paid' (the
-- use passed to the booking's redemption, which a cancel gives back) or
-- 'returned' (the reservation lapsed and the use went back).

CREATE TABLE reservation_vouchers (
	reservation_id INTEGER PRIMARY KEY REFERENCES reservations(id),
	voucher_id     INTEGER NOT NULL REFERENCES vouchers(id),
	code           TEXT NOT NULL,
	discount       INTEGER NOT NULL CHECK (discount >= 0),
	at             INTEGER NOT NULL,
	ended          TEXT CHECK (ended IN ('paid', 'returned')),
	ended_at       INTEGER,
	CHECK ((ended IS NULL) = (ended_at IS NULL))
);
CREATE TRIGGER reservation_vouchers_end_once BEFORE UPDATE ON reservation_vouchers
WHEN OLD.ended IS NOT NULL OR NEW.ended IS NULL OR NEW.voucher_id IS NOT OLD.voucher_id
	OR NEW.reservation_id IS NOT OLD.reservation_id OR NEW.discount IS NOT OLD.discount OR NEW.code IS NOT OLD.code
BEGIN
	SELECT RAISE(ABORT, 'a reservation''s voucher ends once');
END;
CREATE TRIGGER reservation_vouchers_no_delete BEFORE DELETE ON reservation_vouchers
BEGIN
	SELECT RAISE(ABORT, 'a reservation''s voucher is never deleted');
END;

-- A gift card may belong to a customer account (sold for them at the
-- counter), and is listed on it; erasing the customer keeps the card and
-- its money.
ALTER TABLE giftcards ADD COLUMN customer_id INTEGER REFERENCES customers(id);
CREATE INDEX giftcards_by_customer ON giftcards(customer_id) WHERE customer_id IS NOT NULL;
