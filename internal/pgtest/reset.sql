-- pgtest.reset puts a copy of the template back as the template was:
-- the tables' rows, the sequences' values, the planner's view of the
-- tables, once the catalog is seen unchanged. Run as a superuser
-- (pg_class, pg_statistic), alone on the database.
CREATE SCHEMA pgtest;

-- pgtest.catalog is a digest of what a test could change besides rows:
-- schemas, relations, columns, indexes, constraints, triggers (and
-- whether each fires), functions, the database's settings.
CREATE FUNCTION pgtest.catalog() RETURNS text LANGUAGE sql STABLE AS $f$
SELECT md5(coalesce(string_agg(x, E'\n' ORDER BY x), '')) FROM (
	SELECT format('schema %s', nspname) AS x FROM pg_namespace
		WHERE nspname NOT LIKE 'pg\_%' AND nspname <> 'information_schema'
	UNION ALL SELECT format('relation %s %s %s', c.oid::regclass, c.relkind, c.relpersistence) FROM pg_class c
		WHERE c.relnamespace = 'public'::regnamespace
	UNION ALL SELECT format('column %s %s %s %s %s', a.attrelid::regclass, a.attname, a.atttypid::regtype, a.attnotnull, pg_get_expr(d.adbin, d.adrelid))
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
	UNION ALL SELECT format('index %s', pg_get_indexdef(i.indexrelid)) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE c.relnamespace = 'public'::regnamespace
	UNION ALL SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) FROM pg_constraint
		WHERE connamespace = 'public'::regnamespace
	UNION ALL SELECT format('trigger %s %s %s %s', t.tgrelid::regclass, t.tgname, t.tgenabled, pg_get_triggerdef(t.oid)) FROM pg_trigger t
		JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = 'public'::regnamespace
	UNION ALL SELECT format('function %s %s', p.oid::regprocedure, md5(pg_get_functiondef(p.oid))) FROM pg_proc p
		WHERE p.pronamespace = 'public'::regnamespace AND p.prokind IN ('f', 'p')
	UNION ALL SELECT format('setting %s', s.setconfig) FROM pg_db_role_setting s
		WHERE s.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
) catalog $f$;

-- The sequences' values, the tables that hold rows (each copied to
-- pgtest.<table>) and the planner's sizes of every relation, as the
-- migrations left them.
CREATE TABLE pgtest.sequences (seq regclass PRIMARY KEY, last_value bigint NOT NULL, is_called boolean NOT NULL);
CREATE TABLE pgtest.rows (tab regclass PRIMARY KEY, copy regclass NOT NULL);
DO $d$ DECLARE r record; v bigint; called boolean; has boolean; BEGIN
	FOR r IN SELECT c.oid::regclass AS rel FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'S' LOOP
		EXECUTE format('SELECT last_value, is_called FROM %s', r.rel) INTO v, called;
		INSERT INTO pgtest.sequences VALUES (r.rel, v, called);
	END LOOP;
	FOR r IN SELECT c.oid::regclass AS rel, c.relname FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') LOOP
		EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s)', r.rel) INTO has;
		IF has THEN
			EXECUTE format('CREATE TABLE pgtest.%I AS SELECT * FROM %s', r.relname, r.rel);
			INSERT INTO pgtest.rows VALUES (r.rel, format('pgtest.%I', r.relname)::regclass);
		END IF;
	END LOOP;
END $d$;
CREATE TABLE pgtest.sizes AS SELECT oid, relpages, reltuples, relallvisible FROM pg_class
	WHERE relnamespace = 'public'::regnamespace;

CREATE TABLE pgtest.catalog_was AS SELECT pgtest.catalog() AS digest;

-- pgtest.reset is false, and changes nothing, when the catalog is not
-- the template's: the copy is then dropped. Else it deletes the rows of
-- every table a test may have written, fills back the migrations' rows,
-- sets the sequences back, and puts back the planner's sizes of the
-- relations and forgets its statistics of their columns: a query is
-- planned as on the template, but for a table the test grew past ten
-- pages (the planner reads a table's size from its file, which a DELETE
-- does not shrink: Template.FreshURL). DELETE, not TRUNCATE: a TRUNCATE
-- makes new files for every table and index it empties, and took ten
-- to fifty times as long. Triggers do not fire (session_replication_role):
-- the append-only tables refuse a DELETE.
CREATE FUNCTION pgtest.reset() RETURNS boolean LANGUAGE plpgsql AS $f$
DECLARE r record;
BEGIN
	IF pgtest.catalog() <> (SELECT digest FROM pgtest.catalog_was) THEN
		RETURN false;
	END IF;
	PERFORM set_config('session_replication_role', 'replica', true);
	FOR r IN SELECT c.oid::regclass AS tab FROM pg_class c
		WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
		AND (pg_relation_size(c.oid) > 0 OR c.oid IN (SELECT tab FROM pgtest.rows)) LOOP
		EXECUTE format('DELETE FROM %s', r.tab);
	END LOOP;
	FOR r IN SELECT tab, copy FROM pgtest.rows LOOP
		EXECUTE format('INSERT INTO %s OVERRIDING SYSTEM VALUE SELECT * FROM %s', r.tab, r.copy);
	END LOOP;
	PERFORM setval(seq, last_value, is_called) FROM pgtest.sequences;
	UPDATE pg_class c SET relpages = w.relpages, reltuples = w.reltuples, relallvisible = w.relallvisible
		FROM pgtest.sizes w
		WHERE c.oid = w.oid AND (c.relpages, c.reltuples, c.relallvisible) IS DISTINCT FROM (w.relpages, w.reltuples, w.relallvisible);
	DELETE FROM pg_statistic WHERE starelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace);
	RETURN true;
END $f$;
