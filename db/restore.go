package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"boxoffice/booking"
)

// A restore replaces the live database with a checked copy of a backup,
// and may be killed (or the power cut) at any moment. It never leaves the
// old main file without its -wal, which is where the latest sales are:
// before anything moves it writes a journal beside the database, then
// folds the -wal into the main file (a TRUNCATE checkpoint) and keeps a
// real copy of it (never a second name for the same file, which would go
// on changing with the live one). The journal says "copying" until the
// copy and the kept database are whole and synced; then it says
// "swapping", the restore's point of no return, and the copy is renamed
// into place. RecoverRestore, which every command runs first, rolls a
// "copying" restore back (the live database is the one it was, with every
// sale) and finishes a "swapping" one.

// RestoreSteps are the points, in order, at which a restore can be
// killed: the journal written; the backup copied beside the database;
// the copy synced and checked; the live database checkpointed; its kept
// copy half written; the kept copy whole and synced; the ticket keys
// installed (RestoreOptions.BeforeSwap); the journal switched to
// swapping; the old -wal and -shm removed; the copy renamed into place;
// the journal removed.
var RestoreSteps = []string{"journal", "copied", "checked", "checkpointed", "keeping", "kept", "ready", "committed", "cleared", "renamed", "done"}

// RestoreStepHook, when not nil, is called with each of RestoreSteps as a
// restore passes it. It is nil outside tests: a test sets it in a child
// process to kill the process there, and shows that the next command
// finishes or rolls the restore back, whichever step it was killed at.
var RestoreStepHook func(step string)

func reached(step string) {
	if RestoreStepHook != nil {
		RestoreStepHook(step)
	}
}

// The journal's steps: before journalSwapping a restore is rolled back,
// from it on it is finished.
const (
	journalCopying  = "copying"
	journalSwapping = "swapping"
)

// restoreJournal is the file beside the database that says a restore is
// under way and how far it got. Kept is the kept copy's name in the same
// directory ("" when there was no database to replace).
type restoreJournal struct {
	From string `json:"from"`
	Kept string `json:"kept"`
	Step string `json:"step"`
}

// maxJournal bounds the journal read back: it is a few short lines.
const maxJournal = 64 << 10

func journalPath(dst string) string { return dst + ".restore-journal" }

// copyPath is where the checked copy waits to be renamed into place.
func copyPath(dst string) string { return dst + ".restore-copy" }

// keptName matches the kept copies of the database named base, so a
// journal (in the data dir, 0600, but a file all the same) can only ever
// make recovery remove a kept copy, never another file.
func keptName(base string) *regexp.Regexp {
	return regexp.MustCompile(`^` + regexp.QuoteMeta(base) + `\.replaced-\d{8}T\d{6}Z(-\d{1,3})?$`)
}

// RestoreInfo is what Restore did: the file restored, how many bookings
// it holds, and where the database it replaced was kept ("" when there
// was none).
type RestoreInfo struct {
	From     string `json:"from"`
	Into     string `json:"into"`
	Bookings int64  `json:"bookings"`
	Kept     string `json:"kept"`
}

// RestoreOptions say how to restore. Now names the kept copy. BeforeSwap,
// when set, runs once the copy is checked and the replaced database kept,
// just before the point of no return; its error rolls the restore back.
// (The command line installs the backup's ticket keys there: a restore
// rolled back after it leaves keys that verify more tickets, never fewer.)
type RestoreOptions struct {
	Now        time.Time
	BeforeSwap func() error
}

// Restore replaces the database at dst with a checked copy of src. src
// is checked first (integrity, schema and invariants) and nothing is
// touched when it fails; then the journal is written, the copy made,
// synced and checked again beside dst, the live database checkpointed
// and kept beside it as a real copy named with the time, and the copy
// renamed into place. Killed at any step, dst is either the old database
// with all its sales or the new one (see RecoverRestore). The caller
// makes sure no process has dst open and runs RecoverRestore first.
// EInvalid when src fails its check; ENotFound without src; EConflict
// when an earlier restore still waits to be recovered or another program
// holds dst.
func Restore(ctx context.Context, src, dst string, opts RestoreOptions) (RestoreInfo, error) {
	info := RestoreInfo{From: src, Into: dst}
	report, err := Verify(ctx, src)
	if err != nil {
		return info, err
	}
	if !report.OK() {
		return info, booking.Errorf(booking.EInvalid, "%s failed its check, so nothing was restored: %s", booking.CleanLine(src, 200), problemsText(report))
	}
	j, kept, err := beginRestore(src, dst, opts.Now)
	if err != nil {
		return info, err
	}
	reached("journal")
	keptMine := "" // the kept copy once this process has created it
	undo := func(err error) (RestoreInfo, error) {
		err = errors.Join(err, rollBack(dst, keptMine))
		if rerr := removeSynced(journalPath(dst)); rerr != nil {
			err = errors.Join(err, booking.Errorf(booking.EInternal, "The restore was undone but its journal %s could not be removed (%v); the next command removes it.", booking.CleanLine(journalPath(dst), 200), rerr))
		}
		return info, err
	}
	if err := prepareCopy(ctx, src, dst); err != nil {
		return undo(err)
	}
	if kept != "" {
		if err := keepLive(ctx, dst, kept, &keptMine); err != nil {
			return undo(err)
		}
	}
	if opts.BeforeSwap != nil {
		if err := opts.BeforeSwap(); err != nil {
			return undo(err)
		}
	}
	reached("ready")

	j.Step = journalSwapping
	if err := writeJournal(dst, j); err != nil {
		return undo(booking.Errorf(booking.EInternal, "Cannot write the restore's journal, so nothing was restored: %v", err))
	}
	reached("committed")
	if err := swapIn(dst, reached); err != nil {
		return info, booking.Errorf(booking.EInternal, "The restore could not be finished (%v); the next boxoffice command run on this data dir finishes it.", err)
	}
	if err := removeSynced(journalPath(dst)); err != nil {
		return info, booking.Errorf(booking.EInternal, "The database was restored but its journal could not be removed (%v); the next command removes it.", err)
	}
	reached("done")
	info.Kept, info.Bookings = kept, report.Bookings
	return info, nil
}

// beginRestore writes the journal of a restore of src into dst, naming
// the kept copy ("" when there is no database to replace).
func beginRestore(src, dst string, now time.Time) (restoreJournal, string, error) {
	if j, err := readJournal(dst); err != nil || j != nil {
		return restoreJournal{}, "", errors.Join(err, booking.Errorf(booking.EConflict, "An interrupted restore into %s has not been finished or rolled back yet.", booking.CleanLine(dst, 200)))
	}
	from, err := filepath.Abs(src) // the next command may run elsewhere
	if err != nil {
		from = src
	}
	j := restoreJournal{From: from, Step: journalCopying}
	kept := ""
	if _, err := os.Stat(dst); err == nil {
		if kept, err = freeKeptName(dst, now); err != nil {
			return j, "", err
		}
		j.Kept = filepath.Base(kept)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return j, "", booking.Errorf(booking.EInternal, "Cannot read %s: %v", booking.CleanLine(dst, 200), err)
	}
	if err := writeJournal(dst, j); err != nil {
		return j, "", booking.Errorf(booking.EInternal, "Cannot write the restore's journal beside %s, so nothing was restored: %v", booking.CleanLine(dst, 200), err)
	}
	return j, kept, nil
}

// prepareCopy copies src beside dst, takes any sealed ticket keys out of
// the copy, syncs it and checks it again.
func prepareCopy(ctx context.Context, src, dst string) error {
	cp := copyPath(dst)
	if err := removeCopy(dst); err != nil {
		return err
	}
	// The copy is made 0600 before SQLite writes into it: it holds
	// customers' names.
	f, err := os.OpenFile(cp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return booking.Errorf(booking.EInternal, "Cannot write beside %s: %v", booking.CleanLine(dst, 200), err)
	}
	f.Close()
	if err := vacuumInto(ctx, src, cp); err != nil {
		return err
	}
	reached("copied")
	if err := dropSealedKeys(ctx, cp); err != nil {
		return booking.Errorf(booking.EInternal, "Preparing the copy failed: %v", err)
	}
	if again, err := Verify(ctx, cp); err != nil || !again.OK() {
		return booking.Errorf(booking.EInternal, "The copy of %s failed its check, so nothing was restored.", booking.CleanLine(src, 200))
	}
	reached("checked")
	return nil
}

// keepLive folds the live database's log into it and copies it to kept,
// synced; *mine is set once kept is this restore's to remove.
func keepLive(ctx context.Context, dst, kept string, mine *string) error {
	walLeft, err := checkpoint(ctx, dst)
	if err != nil {
		return err
	}
	reached("checkpointed")
	err = copyFile(dst, kept, func() { *mine = kept }, func() { reached("keeping") })
	if err == nil && walLeft {
		// A database that is not sound keeps its log as it is, beside
		// the kept copy.
		err = copyFile(dst+"-wal", kept+"-wal", nil, nil)
	}
	if err == nil {
		err = syncDir(filepath.Dir(dst))
	}
	if err != nil {
		return booking.Errorf(booking.EInternal, "Cannot keep the database being replaced: %v", err)
	}
	reached("kept")
	return nil
}

// Recovery is what RecoverRestore did with a restore that was killed:
// Finished, the live database is the copy of From and the one it replaced
// is kept as Kept; otherwise it was rolled back and the live database is
// the one it was, with every sale it held.
type Recovery struct {
	From     string `json:"from"`
	Kept     string `json:"kept,omitempty"`
	Finished bool   `json:"finished"`
}

// RestorePending says whether a restore into dst was interrupted and
// waits for RecoverRestore (or is running now).
func RestorePending(dst string) bool {
	_, err := os.Lstat(journalPath(dst))
	return !errors.Is(err, fs.ErrNotExist)
}

// RecoverRestore finishes or rolls back a restore into dst that was
// killed, and says which; nil when there was none. The caller holds the
// data dir so that no restore is running and no process has dst open.
func RecoverRestore(dst string) (*Recovery, error) {
	// A journal being rewritten when the process died: the one in place
	// is whole, and it is the one that counts.
	if err := os.Remove(journalPath(dst) + ".tmp"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, booking.Errorf(booking.EInternal, "Cannot clear an interrupted restore: %v", err)
	}
	j, err := readJournal(dst)
	if j == nil || err != nil {
		return nil, err
	}
	rec := &Recovery{From: j.From}
	if j.Kept != "" {
		rec.Kept = filepath.Join(filepath.Dir(dst), j.Kept)
	}
	if j.Step == journalSwapping {
		err = swapIn(dst, func(string) {})
		rec.Finished = true
	} else {
		err = rollBack(dst, rec.Kept)
	}
	if err == nil {
		err = removeSynced(journalPath(dst))
	}
	if err != nil {
		return nil, booking.Errorf(booking.EInternal, "Cannot recover the interrupted restore into %s: %v", booking.CleanLine(dst, 200), err)
	}
	return rec, nil
}

// swapIn puts the checked copy in place: the old -wal and -shm go first
// (their database is kept; left beside the copy, SQLite would replay the
// old log onto it), then the copy is renamed over dst. Run again after a
// kill it does what is left: with no copy waiting, the rename was done.
func swapIn(dst string, step func(string)) error {
	cp := copyPath(dst)
	if _, err := os.Stat(cp); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	for _, f := range []string{dst + "-wal", dst + "-shm"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	step("cleared")
	if err := os.Rename(cp, dst); err != nil {
		return err
	}
	if err := syncDir(filepath.Dir(dst)); err != nil {
		return err
	}
	step("renamed")
	return nil
}

// rollBack removes what a restore made before its point of no return:
// the copy and, when kept is not "", the kept copy of the live database
// (redundant: the live database is whole and stays).
func rollBack(dst, kept string) error {
	err := removeCopy(dst)
	if kept != "" {
		for _, f := range []string{kept, kept + "-wal"} {
			if rerr := os.Remove(f); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
				err = errors.Join(err, rerr)
			}
		}
	}
	return errors.Join(err, syncDir(filepath.Dir(dst)))
}

// removeCopy removes the copy waiting beside dst and the files SQLite may
// have made beside it while writing it.
func removeCopy(dst string) error {
	var err error
	cp := copyPath(dst)
	for _, f := range []string{cp, cp + "-journal", cp + "-wal", cp + "-shm"} {
		if rerr := os.Remove(f); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}

// freeKeptName is a name for the kept copy of dst that no file has: the
// time, and a number after it when two restores share a second.
func freeKeptName(dst string, now time.Time) (string, error) {
	base := dst + ".replaced-" + now.UTC().Format("20060102T150405Z")
	kept := base
	for n := 2; n <= 100; n++ {
		if _, err := os.Lstat(kept); errors.Is(err, fs.ErrNotExist) {
			return kept, nil
		}
		kept = fmt.Sprintf("%s-%d", base, n)
	}
	return "", booking.Errorf(booking.EInternal, "Cannot keep the database being replaced: too many kept copies named %s.", booking.CleanLine(base, 200))
}

// writeJournal writes j under a temporary name, syncs it, renames it into
// place and syncs the directory: a journal is read whole or not at all.
func writeJournal(dst string, j restoreJournal) error {
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	tmp := journalPath(dst) + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err == nil {
		err = os.Rename(tmp, journalPath(dst))
	}
	if err == nil {
		return syncDir(filepath.Dir(dst))
	}
	os.Remove(tmp)
	return err
}

// readJournal reads the journal beside dst: nil when there is none.
func readJournal(dst string) (*restoreJournal, error) {
	path := journalPath(dst)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, booking.Errorf(booking.EInternal, "Cannot read %s: %v", booking.CleanLine(path, 200), err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxJournal+1))
	var j restoreJournal
	if err == nil && len(raw) > maxJournal {
		err = errors.New("too long")
	}
	if err == nil {
		err = json.Unmarshal(raw, &j)
	}
	if err == nil && j.Step != journalCopying && j.Step != journalSwapping {
		err = fmt.Errorf("unknown step %q", booking.CleanLine(j.Step, 20))
	}
	if err == nil && j.Kept != "" && !keptName(filepath.Base(dst)).MatchString(j.Kept) {
		err = fmt.Errorf("%q is not a kept copy's name", booking.CleanLine(j.Kept, 60))
	}
	if err != nil {
		return nil, booking.Errorf(booking.EInternal, "%s, the journal of an interrupted restore, cannot be read (%v): look at the files beside it before you remove it.", booking.CleanLine(path, 200), err)
	}
	j.From = booking.CleanLine(j.From, 400)
	return &j, nil
}

// removeSynced removes path and syncs its directory.
func removeSynced(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return syncDir(filepath.Dir(path))
}

// rwDSN opens path read-write, never creating it, syncing fully.
func rwDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Set("mode", "rw")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// checkpoint folds the -wal of the database at path into its main file
// and empties it (TRUNCATE; synchronous FULL syncs the main file first),
// so the main file alone holds every sale. A file that is not a sound
// boxoffice database (damaged, another program's, a newer boxoffice's) is
// left exactly as it is: a checkpoint would write into it, and what it is
// is for a person to find out from the kept copy. walLeft says the log
// still holds bytes, and the caller keeps it too. EConflict when another
// program holds the database.
func checkpoint(ctx context.Context, path string) (walLeft bool, err error) {
	if err := identify(path, 5*time.Second); err != nil {
		if code := booking.ErrorCode(err); code != booking.EInvalid && code != booking.EDamaged {
			return false, booking.Errorf(booking.EConflict, "Cannot read %s before replacing it (%v); nothing was restored.", booking.CleanLine(path, 200), err)
		}
		return walHolds(path)
	}
	conn, err := sql.Open("sqlite", rwDSN(path))
	if err != nil {
		return false, err
	}
	conn.SetMaxOpenConns(1)
	var busy, frames, done int64
	err = conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done)
	err = errors.Join(err, conn.Close())
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if isBusy(err) || err == nil && busy != 0 {
		return false, booking.Errorf(booking.EConflict, "Another program has %s open, so its latest sales could not be folded into it; nothing was restored.", booking.CleanLine(path, 200))
	}
	if err != nil {
		return false, booking.Errorf(booking.EInternal, "Cannot fold the log of %s into it, so nothing was restored: %v", booking.CleanLine(path, 200), err)
	}
	return walHolds(path)
}

// walHolds says whether the -wal of the database at path holds any bytes.
func walHolds(path string) (bool, error) {
	st, err := os.Stat(path + "-wal")
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return st.Size() > 0, nil
}

// copyFile copies src to a new file dst (0600, never over a file) and
// syncs it; created is called (when not nil) once dst is made, half with
// half of it written.
func copyFile(src, dst string, created, half func()) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if created != nil {
		created()
	}
	_, err = io.CopyN(out, in, st.Size()/2)
	if err == nil && half != nil {
		half()
	}
	if err == nil {
		_, err = io.Copy(out, in)
	}
	if err == nil {
		err = out.Sync()
	}
	return errors.Join(err, out.Close())
}

// sealedKeysMeta is the meta row a backup made with the ticket keys
// carries them in, sealed (BackupWithKeys).
const sealedKeysMeta = "ticket_keys_sealed"

// maxSealed bounds the sealed keys read from a backup: a few keys take a
// few hundred bytes.
const maxSealed = 64 << 10

// SealedTicketKeys reads the sealed ticket keys a backup carries, opened
// read-only: "" when it carries none.
func SealedTicketKeys(ctx context.Context, path string) (string, error) {
	if _, err := os.Stat(path); err != nil {
		return "", booking.Errorf(booking.ENotFound, "No database at %s.", booking.CleanLine(path, 200))
	}
	r, err := sql.Open("sqlite", roDSN(path))
	if err != nil {
		return "", err
	}
	defer r.Close()
	var sealed sql.NullString
	var size int64
	err = r.QueryRowContext(ctx, `SELECT substr(value, 1, ?), length(value) FROM meta WHERE key = ?`, maxSealed, sealedKeysMeta).Scan(&sealed, &size)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if size > maxSealed {
		return "", booking.Errorf(booking.EInvalid, "The ticket keys in %s are longer than any boxoffice writes.", booking.CleanLine(path, 200))
	}
	return sealed.String, nil
}

// setSealedKeys writes sealed into the database file at path.
func setSealedKeys(ctx context.Context, path, sealed string) error {
	return execOn(ctx, path, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, sealedKeysMeta, sealed)
}

// dropSealedKeys takes sealed ticket keys out of the database file at
// path: the live database never carries them.
func dropSealedKeys(ctx context.Context, path string) error {
	return execOn(ctx, path, `DELETE FROM meta WHERE key = ?`, sealedKeysMeta)
}

// execOn runs one statement on the database file at path (a copy no one
// else has open) and syncs it.
func execOn(ctx context.Context, path, query string, args ...any) error {
	conn, err := sql.Open("sqlite", rwDSN(path))
	if err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, query, args...)
	if err = errors.Join(err, conn.Close()); err != nil {
		return err
	}
	return syncFile(path)
}
