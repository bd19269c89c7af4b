-- Marks the file as boxoffice's in the SQLite header (db/identity.go):
-- a SQLite file without it and with tables of its own is another
-- program's, and Open leaves it untouched.
PRAGMA application_id = 1113083718;
