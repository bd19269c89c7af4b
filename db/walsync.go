package db

import (
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// Pipelined group commit. At synchronous=FULL a COMMIT writes the batch's
// pages to the WAL and then waits for fsync, and the writer — the one
// goroutine every sale queues for — waited with it: a quarter of its
// time on this project's bench. So the writer's own connection commits at
// synchronous=NORMAL (the pages reach the WAL file, not yet the disk) and
// hands the batch to the syncer, which fsyncs the WAL and only then
// answers the batch's callers, while the writer already runs the next
// batch. A write is answered only once it is on disk, as before; one
// fsync covers every batch committed since the last (the WAL is one file
// appended to in commit order, so a later batch is never on disk without
// the earlier ones). What changes is that other connections may see a
// batch some hundreds of microseconds before it is on disk: a power cut
// then can take back a seat that another counter saw taken, never one a
// clerk was told is sold. Any later durable commit — another process's at
// FULL, the checkpointer's sync before it copies pages back — makes the
// earlier frames durable first, so nothing durable ever rests on a write
// that was not.

// committed is a batch the writer committed and the syncer answers.
type committed struct {
	jobs    []*job
	answers []answer
}

// syncer fsyncs the WAL behind the writer and answers what it made
// durable. Only its goroutine touches dirSynced.
type syncer struct {
	s    *Store
	wal  string
	in   chan committed
	done chan struct{}
	// slot is taken by the writer before it commits a batch and given
	// back once the syncer answered it: one batch at a time is committed
	// and not yet on disk, so the jobs that queue meanwhile wait in the
	// next batch's open transaction instead of each paying a commit.
	slot chan struct{}
	// dirSynced: the directory holding the WAL was fsynced once, so the
	// WAL file's own entry survives a power cut too (SQLite at FULL does
	// this on the WAL's first sync).
	dirSynced bool

	mu     sync.Mutex
	failed error // set by a failed fsync; every later write gets it
	// syncFile makes a file durable: syncFile of backup.go, or a test's
	// disk that fails or stalls.
	syncFile func(path string) error
	// spent is the fsyncs' count and time, for WriteCosts.
	spent StatementCost
}

// fsyncCost names the syncer's fsyncs among the writer's statements
// (WriteCosts): their time is beside the writer's, not in it.
const fsyncCost = "fsync of the WAL (the syncer, beside the writer)"

// cost is the syncer's fsyncs so far.
func (y *syncer) cost() StatementCost {
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.spent
}

// newSyncer starts the syncer of the database at path.
func newSyncer(s *Store, path string) *syncer {
	y := &syncer{s: s, wal: path + "-wal", in: make(chan committed, 1), done: make(chan struct{}), slot: make(chan struct{}, 1), syncFile: syncFile, spent: StatementCost{SQL: fsyncCost}}
	go y.run()
	return y
}

// hand passes a committed batch to the syncer.
func (y *syncer) hand(c committed) { y.in <- c }

// stop answers every batch handed over and returns once it has.
func (y *syncer) stop() {
	close(y.in)
	<-y.done
}

// refusal is the error every write gets after an fsync failed: the
// database file's state on disk is unknown from then on.
func (y *syncer) refusal() error {
	y.mu.Lock()
	defer y.mu.Unlock()
	return y.failed
}

func (y *syncer) run() {
	defer close(y.done)
	// One batch at a time is handed over (slot), so each fsync answers
	// exactly one.
	for c := range y.in {
		y.s.acknowledge(c, y.sync())
		<-y.slot
	}
}

// sync makes the WAL durable, and the directory entry of the WAL the
// first time. After a failure it keeps failing: Linux may drop the pages
// a failed fsync did not write, so a later fsync that succeeds proves
// nothing about them.
func (y *syncer) sync() error {
	if err := y.refusal(); err != nil {
		return err
	}
	y.mu.Lock()
	syncFile := y.syncFile
	y.mu.Unlock()
	start := time.Now()
	err := syncFile(y.wal)
	y.mu.Lock()
	y.spent.Runs++
	y.spent.Time += time.Since(start)
	y.mu.Unlock()
	if err == nil && !y.dirSynced {
		if err = syncDir(filepath.Dir(y.wal)); err == nil {
			y.dirSynced = true
		}
	}
	if err != nil {
		y.s.log.Error("sync the WAL", "err", err)
		y.mu.Lock()
		y.failed = booking.Errorf(booking.EInternal, "The database could not be written to disk (%v); the last writes may not be saved. Stop the box office and check the disk.", err)
		y.mu.Unlock()
		return y.failed
	}
	return nil
}

// acknowledge answers a committed batch's callers, or tells them all
// that the disk failed (syncErr); before that it publishes the shows
// their writes changed.
func (s *Store) acknowledge(c committed, syncErr error) {
	for i, j := range c.jobs {
		a := c.answers[i]
		if syncErr != nil {
			a = answer{err: fmt.Errorf("%s: %w", j.op, syncErr)}
		}
		s.house.note(j.op, a)
		if c.answers[i].err == nil {
			// Published even when the disk failed: what a
			// refreshed screen shows is what is in the file now.
			for _, id := range j.changed {
				s.broker.Publish(id)
			}
		}
		j.done <- a
	}
}

// openBatch is a write transaction the writer has begun: the jobs run in
// it so far, their answers, and what they leave to write at its end.
type openBatch struct {
	s       *Store
	base    *wtx
	jobs    []*job
	answers []answer
	changed map[int64]bool
	audits  []store.AuditRow
}

// run runs j in a savepoint of its own, so a job that fails rolls back
// only itself. An error is the batch's: nothing of it may commit.
func (b *openBatch) run(j *job) error {
	b.jobs = append(b.jobs, j)
	if _, err := b.base.exec("SAVEPOINT job"); err != nil {
		return err
	}
	w := &wtx{ctx: b.base.ctx, s: b.s, c: b.base.c, now: b.base.now}
	val, jerr := j.run(w)
	if jerr != nil && isBusyBatch(jerr) {
		return errBusyBatch
	}
	if jerr != nil {
		if _, err := b.base.exec("ROLLBACK TO job"); err != nil {
			return err
		}
		w.changed, w.audits, val = nil, nil, nil
	}
	b.audits = append(b.audits, w.audits...)
	if _, err := b.base.exec("RELEASE job"); err != nil {
		return err
	}
	b.answers = append(b.answers, answer{val: val, err: jerr})
	j.changed = w.changed
	for _, id := range w.changed {
		b.changed[id] = true
	}
	return nil
}

// gather runs the jobs queued while the syncer is still putting the last
// batch on disk, up to MaxBatch, and returns once it holds the syncer's
// slot: the batch commits while the disk is free, and has grown as a
// batch at FULL grew while its own fsync waited.
func (b *openBatch) gather(y *syncer) error {
	for len(b.jobs) < b.s.opts.MaxBatch {
		select {
		case y.slot <- struct{}{}:
			return nil
		case j := <-b.s.jobs:
			if !b.s.wanted(j) {
				continue
			}
			if err := b.run(j); err != nil {
				return err
			}
		}
	}
	y.slot <- struct{}{}
	return nil
}
