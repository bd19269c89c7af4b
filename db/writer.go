package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// wconn is the writer's own connection with its prepared statements.
// database/sql would re-prepare every statement inside a *sql.Tx, and
// parsing SQL was a fifth of the writer's time, so the writer runs BEGIN
// IMMEDIATE / COMMIT itself on one *sql.Conn and keeps statements prepared
// on it for the life of the store. Only the writer goroutine touches it.
type wconn struct {
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
	// statements counts every statement the writer ran, its own
	// (BEGIN, SAVEPOINT, …) included: what a sale costs it (WriteCosts).
	statements *atomic.Int64
	// spent is each prepared statement's runs and time (WriteCosts).
	spent map[string]*StatementCost
}

// timed adds a run of query since start to its cost.
func (c *wconn) timed(query string, start time.Time) {
	sc := c.spent[query]
	if sc == nil {
		if c.spent == nil {
			c.spent = map[string]*StatementCost{}
		}
		sc = &StatementCost{SQL: query}
		c.spent[query] = sc
	}
	sc.Runs++
	sc.Time += time.Since(start)
}

func (c *wconn) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	c.statements.Add(1)
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	st, err := c.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	notePrepared(query)
	c.stmts[query] = st
	return st, nil
}

func (c *wconn) close() {
	for _, st := range c.stmts {
		st.Close()
	}
	c.conn.Close()
}

// wtx is what a write job sees: the open transaction, the time fixed for
// the whole transaction, and the shows it changed.
type wtx struct {
	ctx     context.Context
	s       *Store // whose writer runs it: the typed queries of package store read its caches
	c       *wconn
	now     time.Time
	changed []int64
	audits  []store.AuditRow // this job's audit rows, for flushAudit
}

func (w *wtx) exec(query string, args ...any) (sql.Result, error) {
	st, err := w.c.stmt(w.ctx, query)
	if err != nil {
		return nil, err
	}
	defer w.c.timed(query, time.Now())
	return st.ExecContext(w.ctx, args...)
}

// queryList runs a one-column query and returns its values.
func queryList[T any](w *wtx, query string, args ...any) ([]T, error) {
	rows, err := w.query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// row is a *sql.Row or the error of preparing it.
type row struct {
	r   *sql.Row
	err error
}

func (r row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	return r.r.Scan(dest...)
}

// queryRow and query time the statement to its first row (the driver
// steps it before it returns): a query's later rows are not counted.
func (w *wtx) queryRow(query string, args ...any) row {
	st, err := w.c.stmt(w.ctx, query)
	if err != nil {
		return row{err: err}
	}
	defer w.c.timed(query, time.Now())
	return row{r: st.QueryRowContext(w.ctx, args...)}
}

func (w *wtx) query(query string, args ...any) (*sql.Rows, error) {
	st, err := w.c.stmt(w.ctx, query)
	if err != nil {
		return nil, err
	}
	defer w.c.timed(query, time.Now())
	return st.QueryContext(w.ctx, args...)
}

// touch records that a show's seats changed, for the broker and the
// changes table.
func (w *wtx) touch(showID int64) {
	for _, id := range w.changed {
		if id == showID {
			return
		}
	}
	w.changed = append(w.changed, showID)
}

// nowMS is the transaction's time in unix milliseconds.
func (w *wtx) nowMS() int64 { return w.now.UnixMilli() }

// job is one queued write. run may run more than once when the whole
// batch is retried after SQLITE_BUSY from another process, so it must not
// act outside the transaction; its result travels back with its error,
// from the attempt that committed, never through variables the caller
// captured (a rerun would leave them stale).
type job struct {
	ctx  context.Context
	op   string
	run  func(w *wtx) (any, error)
	done chan answer
	// changed is filled by the writer with the shows this job touched.
	changed []int64
	// release marks a shutdown's release (giveBack): it still waits for
	// another process's lock after GiveUpWaiting.
	release bool
}

// answer is what the writer sends back for a job: its result and error
// from the attempt that counted.
type answer struct {
	val any
	err error
}

// maxBusyRetries bounds how often a batch is retried when another process
// holds the write lock past busy_timeout.
const maxBusyRetries = 8

// errBusyBatch marks a batch that must be retried whole.
var errBusyBatch = errors.New("database busy")

// errShuttingDown is the answer to a write asked for after Quiesce or
// Close.
func errShuttingDown() error {
	return booking.Errorf(booking.EInternal, "The box office is shutting down.")
}

// write runs fn as one write transaction (shared with other queued
// writes) on behalf of actor and returns fn's result after the commit, or
// its error. Inside the transaction, before fn, it checks that actor may
// still act (see checkActor), so a person disabled or a terminal removed
// since sign-in can do nothing from their next write on, whatever session
// they still hold. It is the only way to the writer: every write of the
// store passes Quiesce's drain here.
func write[T any](s *Store, ctx context.Context, actor booking.Actor, op string, fn func(w *wtx) (T, error)) (T, error) {
	return submit(s, ctx, actor, op, false, fn)
}

// apply is write for a write with no result.
func apply(s *Store, ctx context.Context, actor booking.Actor, op string, fn func(w *wtx) error) error {
	_, err := write(s, ctx, actor, op, func(w *wtx) (struct{}, error) { return struct{}{}, fn(w) })
	return err
}

// giveBack is write for a write that only gives seats back (ReleaseOwner,
// ReleasePrefix): it runs on a quiesced store too, which is how a server
// shutting down frees its sessions' seats after the last sale.
func giveBack[T any](s *Store, ctx context.Context, op string, fn func(w *wtx) (T, error)) (T, error) {
	return submit(s, ctx, booking.System, op, true, fn)
}

// submit is write and giveBack. It is the one place a job is queued for
// the writer (a test checks that), so no write can skip Quiesce.
func submit[T any](s *Store, ctx context.Context, actor booking.Actor, op string, quiesced bool, fn func(w *wtx) (T, error)) (T, error) {
	var zero T
	if !quiesced {
		if !s.quiesce.Enter() {
			return zero, errShuttingDown()
		}
		defer s.quiesce.Leave()
	}
	defer s.house.writes.since(time.Now())
	j := &job{ctx: ctx, op: op, release: quiesced, done: make(chan answer, 1), run: func(w *wtx) (any, error) {
		if err := checkActor(w, actor); err != nil {
			return nil, err
		}
		return fn(w)
	}}
	select {
	case s.jobs <- j:
	case <-s.stop:
		return zero, errShuttingDown()
	case <-ctx.Done():
		return zero, s.translate(op, ctx.Err())
	}
	// Once queued, wait for the answer even if ctx ends: the write may
	// commit, and the caller must not think it did not. If the writer
	// stopped first, a job it ran has its answer waiting; one queued too
	// late never ran.
	var a answer
	select {
	case a = <-j.done:
	case <-s.writerDone:
		select {
		case a = <-j.done:
		default:
			return zero, errShuttingDown()
		}
	}
	if a.err != nil {
		return zero, s.translate(op, a.err)
	}
	v, _ := a.val.(T)
	return v, nil
}

// Quiesce refuses every write asked for from now on, except the releases
// a shutdown needs (giveBack), and waits for the writes already asked for
// to answer, or for ctx. Every write goes through submit, so a method
// added later is refused too without anyone remembering to wrap it.
func (s *Store) Quiesce(ctx context.Context) error {
	select {
	case <-s.quiesce.Shut():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// GiveUpWaiting makes every write still waiting for another process's
// write lock, and every one not yet begun, give up with "The box office
// is shutting down.", except the releases a shutdown needs (giveBack),
// which go on waiting as long as their own context lets them. A shutdown
// whose Quiesce ran out of time calls it: behind a write stuck on the
// lock (the sweeper's, a sale's) its releases would never reach the
// writer. It is for good, like Quiesce.
func (s *Store) GiveUpWaiting() {
	s.giveUpOnce.Do(func() { close(s.giveUp) })
}

// wanted reports whether j's caller still wants it run: its context is
// live, and it is a release or GiveUpWaiting was not called. A job
// nobody wants is answered here and dropped.
func (s *Store) wanted(j *job) bool {
	if err := j.ctx.Err(); err != nil {
		j.done <- answer{err: err}
		return false
	}
	if !j.release {
		select {
		case <-s.giveUp:
			j.done <- answer{err: errShuttingDown()}
			return false
		default:
		}
	}
	return true
}

// lockWait is the context BEGIN IMMEDIATE waits for the write lock with:
// done once no job of the batch is wanted any more (see wanted), so a
// caller's deadline, or GiveUpWaiting, ends SQLite's busy wait (the
// driver's busy handler returns when the call's context is done) instead
// of the batch waiting out busy_timeout on every retry.
func (s *Store) lockWait(batch []*job) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for _, j := range batch {
			giveUp := s.giveUp
			if j.release {
				giveUp = nil
			}
			select {
			case <-j.ctx.Done():
			case <-giveUp:
			case <-ctx.Done():
				return
			}
		}
		cancel()
	}()
	return ctx, cancel
}

// checkActor refuses with booking.ErrWithdrawn an actor whose staff row is
// gone, disabled or now below the role they act with, or whose registered
// terminal was removed. System, the command line and kiosks have neither a
// staff id nor a terminal id and skip both checks.
func checkActor(w *wtx, actor booking.Actor) error {
	if actor.StaffID != 0 {
		var role string
		var disabled bool
		err := w.queryRow(`SELECT role, disabled FROM staff WHERE id = ?`, actor.StaffID).Scan(&role, &disabled)
		if isNoRows(err) {
			return booking.ErrWithdrawn
		}
		if err != nil {
			return err
		}
		if r, perr := booking.ParseRole(role); disabled || perr != nil || r < actor.Role {
			return booking.ErrWithdrawn
		}
	}
	if actor.TerminalID != 0 {
		var n int
		if err := w.queryRow(`SELECT count(*) FROM terminals WHERE id = ?`, actor.TerminalID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return booking.ErrWithdrawn
		}
	}
	return nil
}

// writer is the single goroutine that owns the write connection. It takes
// the first queued job and every job queued behind it (up to MaxBatch) and
// runs them in one transaction.
func (s *Store) writer(c *wconn, y *syncer) {
	defer s.stopped.Done()
	defer close(s.writerDone)
	defer c.close()
	if y != nil {
		// Every batch committed is answered before the writer is done.
		defer y.stop()
	}
	batch := make([]*job, 0, s.opts.MaxBatch)
	for {
		var first *job
		select {
		case first = <-s.jobs:
		case <-s.stop:
			// Drain what was queued before the stop so no caller hangs.
			for {
				select {
				case j := <-s.jobs:
					s.runBatch(c, y, []*job{j})
				default:
					return
				}
			}
		}
		batch = append(batch[:0], first)
	fill:
		for len(batch) < s.opts.MaxBatch {
			select {
			case j := <-s.jobs:
				batch = append(batch, j)
			default:
				break fill
			}
		}
		s.runBatch(c, y, batch)
	}
}

// runBatch runs a batch and answers it, or hands it to the syncer y
// (nil when the connection's commit waits for the disk itself).
func (s *Store) runBatch(c *wconn, y *syncer, batch []*job) {
	live := s.stillWanted(batch)
	if len(live) == 0 {
		return
	}
	if y != nil {
		if err := y.refusal(); err != nil {
			for _, j := range live {
				j.done <- answer{err: fmt.Errorf("%s: %w", j.op, err)}
			}
			return
		}
	}
	var answers []answer
	var err error
	for attempt := 0; ; attempt++ {
		live, answers, err = s.tryBatch(c, y, live)
		if err == nil || !(isBusyBatch(err) || errors.Is(err, errLockWaitEnded)) {
			break
		}
		// Callers that gave up while the batch waited are answered now,
		// not after every retry.
		if live = s.stillWanted(live); len(live) == 0 {
			return
		}
		if attempt >= maxBusyRetries {
			break
		}
		s.retries.Add(1)
		time.Sleep(time.Duration(attempt+1) * 5 * time.Millisecond)
	}
	if err != nil {
		for _, j := range live {
			j.done <- answer{err: fmt.Errorf("%s: %w", j.op, err)}
		}
		return
	}
	s.commits.Add(1)
	s.jobsDone.Add(int64(len(live)))
	// The seat maps cached are stale from the commit on, whether or not
	// the batch is on disk yet.
	for i, j := range live {
		if answers[i].err == nil {
			for _, id := range j.changed {
				s.invalidate(id)
			}
		}
	}
	if y != nil {
		y.hand(committed{jobs: live, answers: answers})
		return
	}
	s.acknowledge(committed{jobs: live, answers: answers}, nil)
}

// Stats counts the writer's work since Open.
type Stats struct {
	Commits int64 // transactions committed
	Jobs    int64 // writes answered from those commits
	Retries int64 // batches retried after SQLITE_BUSY from another process
	// PINChecks counts bcrypt comparisons of typed PINs (sign-ins and
	// approvals, unknown names included): what a guesser costs the server
	// and what the lockout bounds.
	PINChecks int64
	House     HouseStats // sales, clashes, latencies… for metrics (db/metrics.go)
}

// Stats returns the writer's counters; Jobs/Commits is the mean batch.
func (s *Store) Stats() Stats {
	return Stats{Commits: s.commits.Load(), Jobs: s.jobsDone.Load(), Retries: s.retries.Load(), PINChecks: s.pinChecks.Load(), House: s.house.snapshot()}
}

func isBusyBatch(err error) bool { return errors.Is(err, errBusyBatch) || isBusy(err) }

// errLockWaitEnded is a BEGIN IMMEDIATE whose wait for the lock ended
// because nobody in the batch wants it any more (see lockWait).
var errLockWaitEnded = errors.New("wait for the write lock ended")

// stillWanted is the jobs of batch that are wanted, answering the rest.
func (s *Store) stillWanted(batch []*job) []*job {
	live := batch[:0:0]
	for _, j := range batch {
		if s.wanted(j) {
			live = append(live, j)
		}
	}
	return live
}

// logChanges writes a row of the change log for each show the batch
// changed, and marks their sequence numbers as this process's own.
func (s *Store) logChanges(base *wtx, changed map[int64]bool) ([]int64, error) {
	var seqs []int64
	for id := range changed {
		var seq int64
		if err := base.queryRow(`INSERT INTO changes (show_id) VALUES (?) RETURNING seq`, id).Scan(&seq); err != nil {
			return nil, err
		}
		seqs = append(seqs, seq)
	}
	if len(seqs) > 0 && s.opts.PollInterval > 0 {
		// Mark these before the commit makes them visible to the poller,
		// so this process does not publish its own writes twice.
		s.ownMu.Lock()
		for _, q := range seqs {
			s.ownSeqs[q] = struct{}{}
		}
		s.ownMu.Unlock()
	}
	return seqs, nil
}

// tryBatch runs the jobs in one BEGIN IMMEDIATE … COMMIT, each inside its
// own savepoint so a failed booking rolls back only itself; with a syncer
// (y), the jobs queued while it is busy join the batch (gather). It
// returns the jobs it ran and each one's own answer, or a batch error when
// nothing was committed.
func (s *Store) tryBatch(c *wconn, y *syncer, batch []*job) (_ []*job, _ []answer, err error) {
	defer s.house.batches.since(time.Now())
	ctx := context.Background()
	lctx, stopWait := s.lockWait(batch)
	c.statements.Add(1)
	_, err = c.conn.ExecContext(lctx, "BEGIN IMMEDIATE")
	ended := lctx.Err() != nil
	stopWait()
	if err != nil {
		if ended {
			return batch, nil, errLockWaitEnded
		}
		return batch, nil, err
	}
	committed := false
	defer func() {
		if !committed {
			c.conn.ExecContext(ctx, "ROLLBACK")
		}
	}()
	b := &openBatch{s: s, base: &wtx{ctx: ctx, c: c, now: s.opts.Clock()}, changed: map[int64]bool{}}
	for _, j := range batch {
		if err := b.run(j); err != nil {
			return batch, nil, err
		}
	}
	if y != nil {
		// Until the disk is free for this batch, jobs queued meanwhile
		// join it; the slot then is this batch's until the syncer
		// answers it.
		if err := b.gather(y); err != nil {
			return b.jobs, nil, err
		}
		defer func() {
			if !committed {
				<-y.slot
			}
		}()
	}
	if err := flushAudit(b.base, b.audits); err != nil {
		return b.jobs, nil, err
	}
	seqs, err := s.logChanges(b.base, b.changed)
	if err != nil {
		return b.jobs, nil, err
	}
	c.statements.Add(1)
	commitStart := time.Now()
	_, err = c.conn.ExecContext(ctx, "COMMIT")
	c.timed("COMMIT", commitStart)
	if err != nil {
		s.ownMu.Lock()
		for _, q := range seqs {
			delete(s.ownSeqs, q)
		}
		s.ownMu.Unlock()
		return b.jobs, nil, err
	}
	committed = true
	return b.jobs, b.answers, nil
}
