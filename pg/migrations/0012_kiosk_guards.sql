-- The public kiosk's guards, as SQLite's 0029 (docs/kiosk.md; the rules
-- are booking's kioskguard.go).
--
-- collect_guesses counts the kiosk's collect tries per key ('number BO-…'
-- for the number typed, whether or not a booking has it, and 'addr …'
-- for where the kiosk is), before any digits are compared, on every
-- server alike: a collect's transaction locks its two rows (number, then
-- address) by one upsert and reads them, so tries at once for one key
-- queue on its row and each sees the count the one before it left.
CREATE TABLE collect_guesses (
	key          text PRIMARY KEY,
	tries        integer NOT NULL DEFAULT 0 CHECK (tries >= 0),
	pauses       integer NOT NULL DEFAULT 0 CHECK (pauses >= 0),
	paused_until bigint NOT NULL DEFAULT 0,
	last_at      bigint NOT NULL DEFAULT 0,
	keep_until   bigint NOT NULL DEFAULT 0
);
CREATE INDEX collect_guesses_by_keep ON collect_guesses(keep_until);

-- kiosk_holds names each hold a kiosk made: the kiosks' share of a show
-- is the seats of its live holds named here, and an address's holds let
-- go unbooked slow its next (SQLite's 0029 says how).
CREATE TABLE kiosk_holds (
	hold_id    bigint PRIMARY KEY REFERENCES holds(id),
	show_id    bigint NOT NULL,
	addr       text NOT NULL,
	seats      integer NOT NULL CHECK (seats > 0),
	created_at bigint NOT NULL,
	ended_at   bigint,
	outcome    text NOT NULL DEFAULT '' CHECK (outcome IN ('', 'moved', 'reserved', 'let go'))
);
CREATE INDEX kiosk_holds_by_addr ON kiosk_holds(addr, created_at);
CREATE INDEX kiosk_holds_by_created ON kiosk_holds(created_at) WHERE outcome <> 'reserved';

-- Wrong PINs typed after a kiosk's staff chord, apart from a counter's
-- sign-in (signin_failures' shape).
CREATE TABLE kiosk_unlock_failures (
	name         text PRIMARY KEY CHECK (name = lower(name)),
	failures     integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
	locked_until bigint NOT NULL DEFAULT 0
);
