-- A voucher on a reservation (SQLite's 0054; docs/kiosk.md): the
-- reservation takes one use when it is made, by the vouchers' guarded
-- UPDATE, and keeps it in this row until it ends once, by compare-and-set
-- on ended: 'paid' (the use passed to the booking's redemption) or
-- 'returned' (the reservation lapsed and the use went back).

CREATE TABLE reservation_vouchers (
	reservation_id bigint PRIMARY KEY REFERENCES reservations(id),
	voucher_id     bigint NOT NULL REFERENCES vouchers(id),
	code           text NOT NULL,
	discount       bigint NOT NULL CHECK (discount >= 0),
	at             bigint NOT NULL,
	ended          text CHECK (ended IN ('paid', 'returned')),
	ended_at       bigint,
	CHECK ((ended IS NULL) = (ended_at IS NULL))
);
CREATE FUNCTION reservation_voucher_end_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF OLD.ended IS NOT NULL OR NEW.ended IS NULL
		OR (NEW.reservation_id, NEW.voucher_id, NEW.code, NEW.discount) IS DISTINCT FROM (OLD.reservation_id, OLD.voucher_id, OLD.code, OLD.discount) THEN
		RAISE EXCEPTION 'a reservation''s voucher ends once' USING ERRCODE = 'restrict_violation';
	END IF;
	RETURN NEW;
END;
$$;
CREATE TRIGGER reservation_vouchers_end_once BEFORE UPDATE ON reservation_vouchers FOR EACH ROW EXECUTE FUNCTION reservation_voucher_end_once();
CREATE TRIGGER reservation_vouchers_no_delete BEFORE DELETE ON reservation_vouchers FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER reservation_vouchers_no_truncate BEFORE TRUNCATE ON reservation_vouchers EXECUTE FUNCTION refuse_change();

-- A gift card may belong to a customer account (sold for them at the
-- counter), and is listed on it; erasing the customer keeps the card and
-- its money.
ALTER TABLE giftcards ADD COLUMN customer_id bigint REFERENCES customers(id);
CREATE INDEX giftcards_by_customer ON giftcards(customer_id) WHERE customer_id IS NOT NULL;
