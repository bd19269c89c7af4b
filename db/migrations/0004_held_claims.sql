-- A show's seats held right now. Every read of a show (the shows list, a
-- booking, the waiting list's free count) counts them; through
-- seat_claims_one_live that count visited every sold seat of the show as
-- well, up to the whole hall for each show of a search's results. This
-- index holds only claims in status 'held': a few rows per open counter.
CREATE INDEX seat_claims_held ON seat_claims(show_id, hold_id) WHERE status = 'held';
