-- A booking's name words are folded by booking.NameWords, in Go, and
-- written with the booking (the sale's statement, an exchange, a carry),
-- as SQLite writes them. The SQL copy of that rule (name_words, 0003) had
-- drifted from it: the cluster's C locale lowers only ASCII, so
-- "Дмитрий" or "İstanbul" were indexed under words no search types. The
-- index is emptied here and written anew by the store, in Go, right after
-- this migration (pg.reindexNames, while the migration lock is held).
DROP TRIGGER bookings_words ON bookings;
DROP FUNCTION index_booking_words();
DROP FUNCTION name_words(text);
DELETE FROM booking_words;
INSERT INTO meta (key, value) VALUES ('name_words', 'to index');
