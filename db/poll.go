package db

import (
	"context"
	"database/sql"
	"time"

	"boxoffice/booking"
)

// The poller's two reads run on its own connection, not through readStmt;
// the plan guard checks them by name (OtherStatements).
const (
	qLastChange   = `SELECT coalesce(max(seq), 0) FROM changes`
	qChangesAfter = `SELECT seq, show_id FROM changes WHERE seq > ? ORDER BY seq`
)

// startPoller notices commits by other processes on the same file. PRAGMA
// data_version changes on a connection whenever another connection commits;
// the poller then reads the change rows it has not seen and publishes their
// shows, skipping the rows this process wrote and published itself.
func (s *Store) startPoller() error {
	if s.opts.PollInterval < 0 {
		return nil
	}
	ctx := context.Background()
	conn, err := s.read.Conn(ctx)
	if err != nil {
		return err
	}
	var version, lastSeq int64
	if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&version); err != nil {
		conn.Close()
		return err
	}
	if err := conn.QueryRowContext(ctx, qLastChange).Scan(&lastSeq); err != nil {
		conn.Close()
		return err
	}
	s.stopped.Add(1)
	go func() {
		defer s.stopped.Done()
		defer conn.Close()
		t := time.NewTicker(s.opts.PollInterval)
		defer t.Stop()
		for {
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
			var v int64
			if err := conn.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v); err != nil {
				s.log.Warn("poll data_version", "err", err)
				continue
			}
			if v == version {
				continue
			}
			version = v
			// Something was committed; prices may have changed too.
			s.forgetTicketTypes()
			next, err := s.publishForeign(ctx, conn, lastSeq)
			if err != nil {
				s.log.Warn("poll changes", "err", err)
				continue
			}
			lastSeq = next
		}
	}()
	return nil
}

func (s *Store) publishForeign(ctx context.Context, conn *sql.Conn, after int64) (int64, error) {
	rows, err := conn.QueryContext(ctx, qChangesAfter, after)
	if err != nil {
		return after, err
	}
	defer rows.Close()
	seen := map[int64]bool{}
	last := after
	for rows.Next() {
		var seq, show int64
		if err := rows.Scan(&seq, &show); err != nil {
			return after, err
		}
		last = seq
		s.ownMu.Lock()
		_, own := s.ownSeqs[seq]
		delete(s.ownSeqs, seq)
		s.ownMu.Unlock()
		if !own && !seen[show] {
			seen[show] = true
			s.invalidate(show)
			s.broker.Publish(show)
		}
	}
	return last, rows.Err()
}

// sweeper expires lapsed holds so seat maps stop showing them, tells the
// waiting list when seats come free, settles the bookings of shows that
// ended, and trims the change log. A lapsed
// hold never blocks a sale even before the sweep: the transaction that
// wants a seat expires stale holds on it first. Each pass reads first and
// writes only when there is something to write, so an idle server costs
// a few index lookups a second and never takes the write lock.
func (s *Store) sweeper() {
	defer s.stopped.Done()
	t := time.NewTicker(s.opts.SweepInterval)
	defer t.Stop()
	for n := 0; ; n++ {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		s.sweep(n%10 == 0)
	}
}

// sweep is one pass of the sweeper. A quiesced store is about to close:
// the sweeper leaves it alone rather than log a refusal a second.
func (s *Store) sweep(trim bool) {
	if s.quiesce.IsShut() {
		return
	}
	ctx := context.Background()
	if _, err := s.ExpireHolds(ctx); err != nil {
		s.log.Warn("sweep holds", "err", err)
	}
	notified, err := s.NotifyWaitlist(ctx)
	if err != nil {
		s.log.Warn("sweep waitlist", "err", err)
	}
	for _, e := range notified {
		// The box office calls the customer; the log is where the
		// counters' supervisor sees whom to call.
		s.log.Info("waitlist: seats free, call the customer", "show", e.ShowID, "name", e.Name, "phone", e.Phone, "seats", e.Seats)
	}
	// A show's life: the bookings of shows that ended are settled.
	if _, err := s.SettleShows(ctx); err != nil && !s.closing() {
		s.log.Warn("sweep settle shows", "err", err)
	}
	if trim {
		if _, err := s.TrimChanges(ctx); err != nil {
			s.log.Warn("trim changes", "err", err)
		}
	}
	s.house.swept()
}

// closing reports whether the store is being quiesced or closed: a sweep
// that began just before is refused its write ("shutting down") and has
// nothing to tell the log. A command line's store closes within a second
// of opening, often while its first sweep settles the shows that ended.
func (s *Store) closing() bool {
	if s.quiesce.IsShut() {
		return true
	}
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// ChangesKeep is how many rows of the change log are kept. A process
// polling the file reads the rows after the last one it saw every
// PollInterval; ten thousand commits is far more than any counter makes in
// that time, and the log no longer grows with history.
const ChangesKeep = 10000

// TrimChanges deletes the change-log rows older than the last ChangesKeep
// and returns how many it deleted. It looks with two primary-key reads
// first and writes only when the log is over its size.
func (s *Store) TrimChanges(ctx context.Context) (int, error) {
	var span int64
	if err := s.readRow(ctx, `SELECT coalesce((SELECT max(seq) FROM changes) - (SELECT min(seq) FROM changes), 0)`).Scan(&span); err != nil {
		return 0, s.translate("trim changes", err)
	}
	if span < ChangesKeep {
		return 0, nil
	}
	return write(s, ctx, booking.System, "trim changes", func(w *wtx) (int, error) {
		res, err := w.exec(`DELETE FROM changes WHERE seq <= (SELECT max(seq) FROM changes) - ?`, ChangesKeep)
		if err != nil {
			return 0, err
		}
		n, err := res.RowsAffected()
		return int(n), err
	})
}

// ExpireHolds marks every lapsed hold and its seat claims expired and
// returns how many holds it expired. It reads first and writes only when
// there is something to expire, so an idle cinema does not fsync every
// second.
func (s *Store) ExpireHolds(ctx context.Context) (int, error) {
	var any bool
	now := s.opts.Clock().UnixMilli()
	if err := s.readRow(ctx, `SELECT EXISTS (SELECT 1 FROM holds WHERE `+qExpiredBy+`) OR EXISTS (SELECT 1 FROM holds WHERE `+qMadeAhead+`)`,
		now, now).Scan(&any); err != nil {
		return 0, s.translate("expire holds", err)
	}
	if !any {
		return 0, nil
	}
	return write(s, ctx, booking.System, "expire holds", func(w *wtx) (int, error) {
		shows, err := queryList[int64](w, `SELECT show_id FROM holds WHERE `+qExpiredBy+` UNION SELECT show_id FROM holds WHERE `+qMadeAhead, w.nowMS(), w.nowMS())
		if err != nil {
			return 0, err
		}
		n := 0
		for _, id := range shows {
			k, err := expireStale(w, id)
			if err != nil {
				return 0, err
			}
			n += k
		}
		return n, auditCount(w, booking.System, booking.AuditExpire, n, nil, "%d lapsed holds", n)
	})
}

// checkpointer copies the WAL back into the database file every second.
// A PASSIVE checkpoint never waits for readers or the writer, so it takes
// the checkpoint's fsyncs off the commit path that clerks wait on.
func (s *Store) checkpointer() {
	defer s.stopped.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		if _, err := s.ckpt.Exec("PRAGMA wal_checkpoint(PASSIVE)"); err != nil && !isBusy(err) {
			s.log.Warn("checkpoint", "err", err)
		}
	}
}
