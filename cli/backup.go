package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"boxoffice/booking"
	"boxoffice/db"
	"boxoffice/pg"
)

// backup, check and restore: the database file as a whole.

// lockFile is the data dir's advisory lock (see dataDir.lock).
const lockFile = "boxoffice.lock"

// errLocked says another process holds the data dir's lock.
var errLocked = errors.New("data dir locked")

const (
	backupLong = `Copies the whole database to FILE while counters go on selling (SQLite's
VACUUM INTO, a consistent copy of one instant), syncs it, checks the copy
(SQLite's integrity check, the schema and every invariant, as check does)
and only then puts it in place. FILE must not exist: a backup never
overwrites. With --with-key the data dir's ticket keys go into it too,
sealed with a passphrase (see boxoffice help key): without them, a backup
restored on a new machine holds tickets that get "Unknown ticket code." at
the door.`
	checkLong = `Checks the data dir's database, or FILE, opened read-only (safe while
counters sell): SQLite's integrity check; the schema, which must be
exactly the tables, indexes, triggers and views boxoffice's migrations
make (each one missing, added or changed is named, and the data of a file
whose tables are not boxoffice's is left unread); then every invariant —
no seat with two live claims, each show's sold count equal to its sold
seats, each booking's tickets, seats and payments agreeing with its total
and status, no payment or ticket without a booking, no seat let in twice.
Names each problem and exits 1 when there is any. With --db, the same
invariants on PostgreSQL, read in one snapshot (PostgreSQL's own integrity
checks are pg_amcheck's).`
	restoreLong = `Replaces the data dir's database with FILE. Refused while a server or a
counter has the data dir open (stop them first). FILE is checked first, as
check does (its schema too: a table, index, trigger or view missing, added
or changed refuses it), and nothing is touched if it fails; the database
it replaces is kept beside it as boxoffice.db.replaced-TIME, a copy of its
own. A journal written first names each step, so a restore killed at any
step (or a power cut) leaves the old database with every sale, or the new
one: the next command run on the data dir rolls it back or finishes it and
says which. When FILE carries ticket keys (backup --with-key) that the data
dir lacks, restore asks for their passphrase and adds them (they sign new
tickets; the data dir's own keys still verify theirs); a wrong passphrase
changes nothing. --without-key restores the database without them.`
)

// The command table's rows of this file.
func backupCommand() *command {
	return &command{name: "backup", args: "FILE [--with-key] [--json]", short: "a checked copy of the database, while counters sell", long: backupLong, json: machine, flags: backupFlags}
}

func backupFlags(fs *flag.FlagSet) runFunc {
	withKey := fs.Bool("with-key", false, "seal the ticket keys into the backup with a passphrase")
	pass := passphraseFlag(fs)
	return func(c *env, pos []string) error { return c.backup(pos, *withKey, *pass) }
}

func checkCommand() *command {
	return &command{name: "check", args: "[FILE] [--json]", short: "the database's integrity and every invariant", long: checkLong, json: machine, run: (*env).check}
}

func restoreCommand() *command {
	return &command{name: "restore", args: "FILE [--passphrase-file F] [--json]", short: "replace the database with a checked backup", long: restoreLong, json: machine, flags: restoreFlags}
}

func restoreFlags(fs *flag.FlagSet) runFunc {
	pass := passphraseFlag(fs)
	without := fs.Bool("without-key", false, "restore the database without the ticket keys it carries")
	return func(c *env, pos []string) error { return c.restore(pos, *pass, *without) }
}

func (c *env) backup(pos []string, withKey bool, passFile string) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice backup FILE [--with-key]")
	}
	if passFile != "" && !withKey {
		return usagef("--passphrase-file seals the ticket keys: it goes with --with-key")
	}
	if err := c.onSQLiteOnly("backup", "back PostgreSQL up with its own tools (pg_dump, a replica); boxoffice key export FILE seals the ticket keys"); err != nil {
		return err
	}
	if err := refuseExistingFile(pos[0], "a backup"); err != nil {
		return err
	}
	return c.withData(openOptions{}, func(o *opened) error {
		if !withKey {
			info, err := o.store.Backup(c.ctx, pos[0])
			if err != nil {
				return err
			}
			c.print(backupView{BackupInfo: info})
			return nil
		}
		// The keys the store was opened with, read after open made them
		// in a data dir that had none.
		keys, err := o.dir.storedTicketKeys()
		if err != nil {
			return err
		}
		s, err := o.sqlite("backup", "")
		if err != nil {
			return err
		}
		pass, err := c.passphrase(passFile, true)
		if err != nil {
			return err
		}
		sealed, err := sealKeys(keys, pass)
		if err != nil {
			return err
		}
		info, err := db.BackupWithKeys(c.ctx, s, pos[0], sealed)
		if err != nil {
			return err
		}
		c.print(backupView{info, fingerprints(keys)})
		return nil
	})
}

// backupView is what backup wrote; Keys are the fingerprints of the
// ticket keys sealed in it (none without --with-key).
type backupView struct {
	booking.BackupInfo
	Keys []string `json:"ticket_keys,omitempty"`
}

func (v backupView) writeText(w io.Writer) {
	fmt.Fprintf(w, "Backed up %s to %s (%s) in %s.\nChecked the copy: SQLite integrity ok, schema ok, every invariant holds.\n",
		nOf(v.Bookings, "booking"), v.Path, sizeText(v.Bytes), v.Took.Round(time.Millisecond))
	fmt.Fprintf(w, "Audit chain head: %s (note it apart from the backup: a trail rewritten whole shows against it).\n", v.AuditHead)
	if len(v.Keys) > 0 {
		fmt.Fprintf(w, "The ticket keys (%s) are sealed in it with the passphrase: keep the passphrase apart from the backup.\n", strings.Join(v.Keys, ", "))
	}
}

// nOf is "1 booking", "2 bookings".
func nOf(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// sizeText is a file size for a person.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// check checks the data dir's database (never creating it) or FILE.
func (c *env) check(pos []string) error {
	if len(pos) > 1 {
		return usagef("usage: boxoffice check [FILE]")
	}
	if url, err := resolveDB(c.dbFlag); err != nil || url != "" {
		if err == nil && len(pos) == 1 {
			err = usagef("check FILE reads a SQLite file: leave --db (and BOXOFFICE_DB) out")
		}
		if err != nil {
			return err
		}
		return c.checkPostgres(url)
	}
	path := ""
	var rec *db.Recovery
	if len(pos) == 1 {
		path = pos[0]
	} else {
		dir, err := resolveDataDir(c.dataFlag)
		if err != nil {
			return err
		}
		path = dir.dbPath()
		if rec, err = c.recoverRestore(dir); err != nil {
			return err
		}
	}
	report, err := db.Verify(c.ctx, path)
	if err != nil {
		if rec != nil {
			fmt.Fprintf(c.stderr, "boxoffice: %s\n", recoveryText(rec))
		}
		return err
	}
	c.print(checkView{report, rec})
	if !report.OK() {
		return shown(booking.Errorf(booking.EInternal, "%s failed its check.", path))
	}
	return nil
}

// checkPostgres runs the invariant check on the PostgreSQL database at url.
func (c *env) checkPostgres(url string) error {
	s, err := pg.Open(c.ctx, url, pg.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	problems, err := s.CheckInvariants(c.ctx)
	if err != nil {
		return err
	}
	r := booking.CheckReport{Path: booking.RedactDSN(url), Problems: problems}
	if err := s.CountBookings(c.ctx, &r.Bookings); err != nil {
		return err
	}
	c.print(pgCheckView(r))
	if !r.OK() {
		return shown(booking.Errorf(booking.EInternal, "%s failed its check.", r.Path))
	}
	return nil
}

// pgCheckView is check's answer on PostgreSQL: the invariants only.
type pgCheckView booking.CheckReport

func (v pgCheckView) writeText(w io.Writer) {
	fmt.Fprintf(w, "Checked %s (%s).\n", v.Path, nOf(v.Bookings, "booking"))
	writeInvariants(w, v.Problems)
}

func (v pgCheckView) jsonValue() any { return checkView{report: booking.CheckReport(v)}.jsonValue() }

// checkView is what check found, and what it did first with a restore
// that was killed (nil when there was none): which database is live.
type checkView struct {
	report  booking.CheckReport
	restore *db.Recovery
}

func (v checkView) writeText(w io.Writer) {
	r := v.report
	if v.restore != nil {
		fmt.Fprintf(w, "%s\n", recoveryText(v.restore))
	}
	if r.Unchecked {
		fmt.Fprintf(w, "Checked %s (its data left unread).\n", r.Path)
	} else {
		fmt.Fprintf(w, "Checked %s (%s).\n", r.Path, nOf(r.Bookings, "booking"))
	}
	if len(r.Integrity) == 0 {
		fmt.Fprintf(w, "SQLite integrity: ok\n")
	}
	for _, p := range r.Integrity {
		fmt.Fprintf(w, "SQLite integrity: %s\n", p)
	}
	if len(r.Schema) == 0 {
		fmt.Fprintf(w, "Schema: ok\n")
	}
	for _, p := range r.Schema {
		fmt.Fprintf(w, "Schema: %s\n", p)
	}
	if r.Unchecked {
		fmt.Fprintf(w, "Invariants: not checked: its tables are not boxoffice's\n")
	} else {
		writeInvariants(w, r.Problems)
	}
	if r.AuditHead != "" {
		fmt.Fprintf(w, "Audit chain head: %s\n", r.AuditHead)
	}
	if n := len(r.AllProblems()); n > 0 {
		fmt.Fprintf(w, "%s.\n", nOf(int64(n), "problem"))
	}
}

func writeInvariants(w io.Writer, problems []string) {
	if len(problems) == 0 {
		fmt.Fprintf(w, "Invariants: every one holds\n")
	}
	for _, p := range problems {
		fmt.Fprintf(w, "Invariant broken: %s\n", p)
	}
}

func (v checkView) jsonValue() any {
	r := v.report
	return struct {
		booking.CheckReport
		OK      bool         `json:"ok"`
		Restore *db.Recovery `json:"interrupted_restore,omitempty"`
	}{r, r.OK(), v.restore}
}

// restore replaces the data dir's database with a checked copy of FILE,
// holding the data dir's lock exclusively so no server or counter has
// the database open meanwhile. The ticket keys FILE carries are opened
// before anything is touched, so a wrong passphrase changes nothing.
func (c *env) restore(pos []string, passFile string, withoutKey bool) error {
	if len(pos) != 1 {
		return usagef("usage: boxoffice restore FILE")
	}
	if passFile != "" && withoutKey {
		return usagef("--passphrase-file opens the ticket keys that --without-key leaves out: give one of them")
	}
	if err := c.onSQLiteOnly("restore", "restore PostgreSQL with its own tools (pg_restore)"); err != nil {
		return err
	}
	dir, err := resolveDataDir(c.dataFlag)
	if err != nil {
		return err
	}
	keys, keyNote, err := c.restoreKeys(dir, pos[0], passFile, withoutKey)
	if err != nil {
		return err
	}
	release, err := dir.lock(true)
	if errors.Is(err, errLocked) {
		return booking.Errorf(booking.EConflict, "A server or a counter has %s open: stop it before restoring. Nothing was changed.", string(dir))
	}
	if err != nil {
		return err
	}
	defer release()
	if rec, err := db.RecoverRestore(dir.dbPath()); err != nil {
		return err
	} else if rec != nil {
		fmt.Fprintf(c.stderr, "boxoffice: %s\n", recoveryText(rec))
	}
	install := func() error {
		if keys == nil {
			return nil
		}
		have, err := dir.storedTicketKeys()
		if err != nil {
			return err
		}
		return dir.writeTicketKeys(mergeKeys(keys, have))
	}
	info, err := db.Restore(c.ctx, pos[0], dir.dbPath(), db.RestoreOptions{Now: c.now(), BeforeSwap: install})
	if err != nil {
		return err
	}
	c.print(restoreView{info, keyNote})
	return nil
}

// restoreKeys decides what becomes of the ticket keys the backup at src
// carries: the keys to add to the data dir's (nil for none) and a
// sentence on what the tickets it holds will meet at the door. It asks for
// the passphrase only when the backup carries keys the data dir lacks.
func (c *env) restoreKeys(dir dataDir, src, passFile string, withoutKey bool) ([]booking.TicketKey, string, error) {
	sealed, err := db.SealedTicketKeys(c.ctx, src)
	if err != nil {
		sealed = "" // Restore says what is wrong with src
	}
	have, err := dir.storedTicketKeys()
	if err != nil {
		return nil, "", err
	}
	name := booking.CleanLine(src, 200)
	switch {
	case sealed == "" && have == nil:
		return nil, fmt.Sprintf("%s carries no ticket key and this data dir has none: a new key will be made, and the tickets sold before get \"Unknown ticket code.\" at the door unless the key that signed them is imported (boxoffice key import).", name), nil
	case sealed == "":
		return nil, fmt.Sprintf("%s carries no ticket key: the data dir's (%s) is unchanged, and the tickets sold before verify at the door only if it signed them.", name, keyList(have)), nil
	}
	box, err := parseSealed(sealed, src)
	if err != nil {
		return nil, "", err
	}
	if box.heldBy(have) {
		return nil, fmt.Sprintf("The data dir already holds the ticket keys %s carries (%s).", name, strings.Join(box.Keys, ", ")), nil
	}
	if withoutKey {
		return nil, fmt.Sprintf("The ticket keys %s carries (%s) were left out: the tickets sold before get \"Unknown ticket code.\" at the door until they are imported.", name, strings.Join(box.Keys, ", ")), nil
	}
	pass, err := c.passphrase(passFile, false)
	if err != nil {
		return nil, "", err
	}
	keys, err := box.open(pass, src)
	if err != nil {
		return nil, "", err
	}
	return keys, fmt.Sprintf("Added the ticket keys %s carries (%s): %s", name, keyList(keys), keysOutcome(keys, have)), nil
}

// restoreView is what restore did, and what became of the ticket keys.
type restoreView struct {
	db.RestoreInfo
	Keys string `json:"ticket_keys"`
}

func (v restoreView) writeText(w io.Writer) {
	fmt.Fprintf(w, "Restored %s from %s into %s (checked: SQLite integrity ok, schema ok, every invariant holds).\n", nOf(v.Bookings, "booking"), v.From, v.Into)
	if v.Kept != "" {
		fmt.Fprintf(w, "The database it replaced is kept as %s.\n", v.Kept)
	}
	fmt.Fprintf(w, "%s\n", v.Keys)
}

// recoverRestore finishes or rolls back a restore into dir that was
// killed, before anything opens its database: nil when there was none.
// It holds the data dir's lock exclusively for as long as that takes.
func (c *env) recoverRestore(dir dataDir) (*db.Recovery, error) {
	if !db.RestorePending(dir.dbPath()) {
		return nil, nil
	}
	release, err := dir.lock(true)
	if errors.Is(err, errLocked) {
		return nil, booking.Errorf(booking.EConflict, "A restore is under way in %s; run the command again when it has finished.", string(dir))
	}
	if err != nil {
		return nil, err
	}
	defer release()
	return db.RecoverRestore(dir.dbPath())
}

// recoveryText says what became of a restore that was killed, and so
// which database is live.
func recoveryText(rec *db.Recovery) string {
	from := booking.CleanLine(rec.From, 200)
	if rec.Finished {
		kept := ""
		if rec.Kept != "" {
			kept = "; the one it replaced is kept as " + rec.Kept
		}
		return fmt.Sprintf("A restore of %s was interrupted after its point of no return and has now been finished: the live database is the copy of %s%s.", from, from, kept)
	}
	return fmt.Sprintf("A restore of %s was interrupted and has been rolled back: the live database is the one it was replacing, with every sale it held.", from)
}

// holdShared takes the data dir's lock shared for a process that keeps
// the database open (serve, the counter, every command that opens the
// store), so restore refuses meanwhile. A restore that was killed is
// finished or rolled back first, and said so on stderr.
func (c *env) holdShared() (func(), error) {
	dir, err := resolveDataDir(c.dataFlag)
	if err != nil {
		return nil, err
	}
	rec, err := c.recoverRestore(dir)
	if err != nil {
		return nil, err
	}
	if rec != nil {
		fmt.Fprintf(c.stderr, "boxoffice: %s\n", recoveryText(rec))
	}
	release, err := dir.lock(false)
	if errors.Is(err, errLocked) {
		return nil, booking.Errorf(booking.EConflict, "A restore is under way in %s; start again when it has finished.", string(dir))
	}
	return release, err
}
