-- A hold made later than the clock now says has lapsed: the clock was set
-- back after it was made (db/holds.go, liveHoldSQL). This index finds such
-- holds by when they were made, so the sweep and the transaction that
-- wants a show's seats ask for them with one probe that finds nothing
-- until a clock goes back. Only live holds that are not reservations (a
-- reservation keeps its cut-off): bounded by what is open at the counters.
CREATE INDEX holds_made_ahead ON holds(created_at) WHERE status = 'held' AND owner NOT GLOB 'reservation:*';
