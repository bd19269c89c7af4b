-- Seats kept out of sale (blocked and house seats, seat_blocks of 0005)
-- are kept off the sale path by PostgreSQL itself, as SQLite's
-- seat_claims_not_blocked does: a live claim of such a seat is not
-- inserted. It is skipped (the trigger returns NULL) rather than raised,
-- as the unique index skips a seat claimed already (ON CONFLICT DO
-- NOTHING), so the hold's own count of its claims finds the seat missing
-- and takes the clash path, naming it.
--
-- A block and a claim of one seat, racing: the block locks seat_claims
-- (and holds) against writes before it reads the seats' claims (pg's
-- blockLockSQL), which waits for every transaction writing claims to end and holds off
-- new ones until the block commits. The block then sees every claim that
-- committed; a claim that waited sees the block, since this trigger's
-- queries each take a snapshot of their own under READ COMMITTED. Claims
-- take no lock here and never wait for each other; a block, a manager's
-- rare act, pauses the sale path for its own few milliseconds. (A lock
-- per claimed seat would have cost every sale, and overflowed the lock
-- table when migrate --to copies a cinema's claims in one transaction.)
--
-- A hall-wide block applies to the shows starting after it was made; the
-- show's start is read only when the seat has one (a probe of this
-- index, empty for nearly every seat).
CREATE INDEX IF NOT EXISTS seat_blocks_hall_wide_by_seat ON seat_blocks(seat_id) WHERE show_id IS NULL;

CREATE FUNCTION claim_not_blocked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF EXISTS (SELECT 1 FROM seat_blocks b WHERE b.show_id = NEW.show_id AND b.seat_id = NEW.seat_id)
		OR EXISTS (SELECT 1 FROM seat_blocks b WHERE b.show_id IS NULL AND b.seat_id = NEW.seat_id
			AND b.at < (SELECT s.starts_at * 1000 FROM shows s WHERE s.id = NEW.show_id)) THEN
		RETURN NULL;
	END IF;
	RETURN NEW;
END;
$$;
CREATE TRIGGER seat_claims_not_blocked BEFORE INSERT ON seat_claims
	FOR EACH ROW WHEN (NEW.status IN ('held', 'sold')) EXECUTE FUNCTION claim_not_blocked();

-- A reservation's hold (owner 'reservation:' || its number) is sold only
-- by paying the reservation, which says so for its own transaction
-- (set_config('boxoffice.paying', number, true), pg's payIn): a checkout
-- naming the hold's owner is refused here, whatever the Go code does, so
-- the reservation is never left unpaid on a sold hold. The WHEN clause
-- keeps every other sale's confirm off this function.
CREATE FUNCTION reservation_paid_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF coalesce(current_setting('boxoffice.paying', true), '') <> substr(OLD.owner, 13) THEN
		RAISE EXCEPTION 'hold % is a reservation: it is sold by paying the reservation', OLD.id USING ERRCODE = 'check_violation';
	END IF;
	RETURN NEW;
END;
$$;
CREATE TRIGGER holds_reservation_paid_only BEFORE UPDATE OF status ON holds
	FOR EACH ROW WHEN (OLD.status = 'held' AND NEW.status = 'confirmed' AND OLD.owner LIKE 'reservation:%') EXECUTE FUNCTION reservation_paid_only();
