package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"boxoffice/booking"
)

// wtx is what a write job sees: the open transaction, the time fixed for
// the whole transaction, and the shows it changed.
type wtx struct {
	ctx     context.Context
	tx      *sql.Tx
	now     time.Time
	changed []int64
}

func (w *wtx) exec(query string, args ...any) (sql.Result, error) {
	return w.tx.ExecContext(w.ctx, query, args...)
}

func (w *wtx) queryRow(query string, args ...any) *sql.Row {
	return w.tx.QueryRowContext(w.ctx, query, args...)
}

func (w *wtx) query(query string, args ...any) (*sql.Rows, error) {
	return w.tx.QueryContext(w.ctx, query, args...)
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

// job is one queued write. fn may run more than once when the whole batch
// is retried after SQLITE_BUSY from another process, so it must only
// record its result, never act outside the transaction.
type job struct {
	ctx  context.Context
	op   string
	fn   func(w *wtx) error
	done chan error
	// changed is filled by the writer with the shows this job touched.
	changed []int64
}

// maxBusyRetries bounds how often a batch is retried when another process
// holds the write lock past busy_timeout.
const maxBusyRetries = 8

// errBusyBatch marks a batch that must be retried whole.
var errBusyBatch = errors.New("database busy")

// do runs fn as one write transaction (shared with other queued writes)
// and returns after it committed or failed.
func (s *Store) do(ctx context.Context, op string, fn func(w *wtx) error) error {
	j := &job{ctx: ctx, op: op, fn: fn, done: make(chan error, 1)}
	select {
	case s.jobs <- j:
	case <-s.stop:
		return booking.Errorf(booking.EInternal, "The box office is shutting down.")
	case <-ctx.Done():
		return s.translate(op, ctx.Err())
	}
	// Once queued, wait for the answer even if ctx ends: the write may
	// commit, and the caller must not think it did not.
	return s.translate(op, <-j.done)
}

// writer is the single goroutine that owns the write connection. It takes
// the first queued job and every job queued behind it (up to MaxBatch) and
// runs them in one transaction.
func (s *Store) writer() {
	defer s.stopped.Done()
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
					s.runBatch([]*job{j})
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
		s.runBatch(batch)
	}
}

func (s *Store) runBatch(batch []*job) {
	live := batch[:0:0]
	for _, j := range batch {
		if j.ctx.Err() != nil {
			j.done <- j.ctx.Err()
			continue
		}
		live = append(live, j)
	}
	if len(live) == 0 {
		return
	}
	var errs []error
	var err error
	for attempt := 0; ; attempt++ {
		errs, err = s.tryBatch(live)
		if err == nil || !isBusyBatch(err) || attempt >= maxBusyRetries {
			break
		}
		time.Sleep(time.Duration(attempt+1) * 5 * time.Millisecond)
	}
	if err != nil {
		for _, j := range live {
			j.done <- fmt.Errorf("%s: %w", j.op, err)
		}
		return
	}
	for i, j := range live {
		if errs[i] == nil {
			for _, id := range j.changed {
				s.broker.Publish(id)
			}
		}
		j.done <- errs[i]
	}
}

func isBusyBatch(err error) bool { return errors.Is(err, errBusyBatch) || isBusy(err) }

// tryBatch runs the jobs in one BEGIN IMMEDIATE … COMMIT, each inside its
// own savepoint so a failed booking rolls back only itself. It returns each
// job's own error, or a batch error when nothing was committed.
func (s *Store) tryBatch(batch []*job) ([]error, error) {
	ctx := context.Background()
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	now := s.opts.Clock()
	errs := make([]error, len(batch))
	var changed []int64
	for i, j := range batch {
		if _, err := tx.ExecContext(ctx, "SAVEPOINT job"); err != nil {
			return nil, err
		}
		w := &wtx{ctx: ctx, tx: tx, now: now}
		jerr := j.fn(w)
		if jerr != nil && isBusy(jerr) {
			return nil, errBusyBatch
		}
		if jerr != nil {
			if _, err := tx.ExecContext(ctx, "ROLLBACK TO job"); err != nil {
				return nil, err
			}
			w.changed = nil
		}
		if _, err := tx.ExecContext(ctx, "RELEASE job"); err != nil {
			return nil, err
		}
		errs[i] = jerr
		j.changed = w.changed
		changed = append(changed, w.changed...)
	}
	var seqs []int64
	for _, id := range changed {
		var seq int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO changes (show_id) VALUES (?) RETURNING seq`, id).Scan(&seq); err != nil {
			return nil, err
		}
		seqs = append(seqs, seq)
	}
	if len(seqs) > 0 {
		// Mark these before the commit makes them visible to the poller,
		// so this process does not publish its own writes twice.
		s.ownMu.Lock()
		for _, q := range seqs {
			s.ownSeqs[q] = struct{}{}
		}
		s.ownMu.Unlock()
	}
	if err := tx.Commit(); err != nil {
		s.ownMu.Lock()
		for _, q := range seqs {
			delete(s.ownSeqs, q)
		}
		s.ownMu.Unlock()
		return nil, err
	}
	return errs, nil
}
