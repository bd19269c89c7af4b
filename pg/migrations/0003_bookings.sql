-- Bookings after the sale: cancels, refunds, the cash-up and the search
-- for a booking. What 0001 lacks for them.

-- A shift's cash-up sums its payments: read through this index, so a
-- cash-up costs the same after a year of sales as on the first day.
-- (SQLite keeps a running table, shift_money; here the payments are
-- summed in the closing transaction, so nothing can drift from them.)
CREATE INDEX payments_by_shift ON payments(shift_id) WHERE shift_id IS NOT NULL;

-- A booking's refunds never add up to more than its sale, whatever the
-- Go code does. The store refunds a booking with its row locked (FOR
-- UPDATE or the cancel's compare-and-set), so the sum this reads is not
-- raced by another refund of the same booking.
CREATE FUNCTION refund_within_sale() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	paid bigint;
	back bigint;
BEGIN
	SELECT coalesce(sum(amount) FILTER (WHERE kind = 'sale'), 0), coalesce(sum(amount) FILTER (WHERE kind = 'refund'), 0)
		INTO paid, back FROM payments WHERE booking_id = NEW.booking_id;
	IF back > paid THEN
		RAISE EXCEPTION 'refunds of booking % (%) exceed its sale (%)', NEW.booking_id, back, paid USING ERRCODE = 'check_violation';
	END IF;
	RETURN NULL;
END;
$$;
CREATE TRIGGER payments_refund_within_sale AFTER INSERT ON payments FOR EACH ROW WHEN (NEW.kind = 'refund')
	EXECUTE FUNCTION refund_within_sale();

-- Finding a booking by the last digits of its phone: the phone's digits,
-- last first, so "ends with" is a range of this index (db's phone_rev,
-- computed here by PostgreSQL from the phone as stored).
CREATE INDEX bookings_by_phone ON bookings ((reverse(regexp_replace(phone, '[^0-9]', '', 'g')) COLLATE "C"))
	WHERE phone <> '';

-- name_words folds a customer name into the words a search matches, as
-- db's nameWords does: lower case, accents off, apostrophes dropped, any
-- other ASCII character that is not a letter or digit a separator; at
-- most eight distinct words of at most 32 bytes. Both the stored names
-- and the typed text go through it, so they always fold alike.
CREATE FUNCTION name_words(name text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT coalesce(array_agg(w ORDER BY n), '{}') FROM (
		SELECT w, min(n) AS n FROM (
			SELECT CASE WHEN octet_length(w) <= 32 THEN w
				ELSE (SELECT left(w, k) FROM generate_series(32, 1, -1) AS k WHERE octet_length(left(w, k)) <= 32 LIMIT 1) END AS w, n
			FROM regexp_split_to_table(
				translate(
					replace(replace(replace(replace(replace(replace(replace(lower(name),
						'ß', 'ss'), 'æ', 'ae'), 'Æ', 'ae'), 'œ', 'oe'), 'Œ', 'oe'), 'þ', 'th'), 'Þ', 'th'),
					'àÀáÁâÂãÃäÄåÅāĀăĂąĄçÇćĆĉĈċĊčČďĎèÈéÉêÊëËēĒĕĔėĖęĘěĚĝĜğĞġĠģĢĥĤħĦìÌíÍîÎïÏĩĨīĪĭĬįĮĵĴķĶĺĹļĻľĽŀĿñÑńŃņŅňŇŉòÒóÓôÔõÕöÖōŌŏŎőŐŕŔŗŖřŘśŚŝŜşŞšŠșȘţŢťŤŧŦțȚùÙúÚûÛüÜũŨūŪŭŬůŮűŰųŲŵŴýÝÿŸŷŶźŹżŻžŽøØłŁđĐðÐı''’',
					'aaaaaaaaaaaaaaaaaaccccccccccddeeeeeeeeeeeeeeeeeegggggggghhhhiiiiiiiiiiiiiiiijjkkllllllllnnnnnnnnnoooooooooooooooorrrrrrssssssssssttttttttuuuuuuuuuuuuuuuuuuuuwwyyyyyyzzzzzzoollddddi'),
				'[^0-9a-z\u00c0-\u1fff\u2070-\U0010ffff]+') WITH ORDINALITY AS x(w, n)
			WHERE w <> '') AS cut
		GROUP BY w ORDER BY min(n) LIMIT 8) AS words;
$$;

-- booking_words: each booking's name words (db's table of that name),
-- written by PostgreSQL as a booking is inserted, so the sale path sends
-- nothing more. A name search reads each matching word's newest
-- bookings backwards through the primary key.
CREATE TABLE booking_words (
	word       text COLLATE "C" NOT NULL,
	booking_id bigint NOT NULL,
	PRIMARY KEY (word, booking_id)
);
CREATE FUNCTION index_booking_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO booking_words (word, booking_id) SELECT w, NEW.id FROM unnest(name_words(NEW.customer)) AS w;
	RETURN NULL;
END;
$$;
CREATE TRIGGER bookings_words AFTER INSERT ON bookings FOR EACH ROW WHEN (NEW.customer <> '')
	EXECUTE FUNCTION index_booking_words();
INSERT INTO booking_words (word, booking_id) SELECT w, b.id FROM bookings b, unnest(name_words(b.customer)) AS w;

-- Every cash movement belongs to an open shift: a payment naming a shift
-- locks the shift's row FOR SHARE and finds it open, or (cash) is
-- refused, or (card, which names a shift only when one is open) belongs
-- to none. A close locks the row FOR UPDATE before it sums the shift's
-- payments, so a payment either commits before that sum (and is in it)
-- or waits and finds the shift closed: no payment lands in a shift after
-- its cash-up. One shift's row is one person's, so this lock is never
-- shared by the sales of different clerks.
CREATE FUNCTION payment_shift_open() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	st text;
BEGIN
	SELECT status INTO st FROM shifts WHERE id = NEW.shift_id FOR SHARE;
	IF st IS DISTINCT FROM 'open' THEN
		IF NEW.method = 'cash' THEN
			RAISE EXCEPTION 'shift % is closed', NEW.shift_id USING ERRCODE = 'check_violation';
		END IF;
		NEW.shift_id := NULL;
	END IF;
	RETURN NEW;
END;
$$;
CREATE TRIGGER payments_shift_open BEFORE INSERT ON payments FOR EACH ROW WHEN (NEW.shift_id IS NOT NULL)
	EXECUTE FUNCTION payment_shift_open();
