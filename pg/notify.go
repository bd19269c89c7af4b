package pg

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Live repaint across servers. After every write that changed shows
// commits, the store publishes them on its own Broker and hands them to
// its notifier, which sends pg_notify(channel, "<store id> <show>,…");
// every store LISTENs on the channel of its schema and publishes what
// other stores changed (its own changes it published already).
//
// Why after the COMMIT and not inside the transaction: PostgreSQL takes
// one database-wide lock from a notifying transaction's commit until it
// ends, so notifying transactions commit one at a time, each behind the
// last one's WAL flush. Measured on a 2-core machine at 64 clients:
// pgbench's single-row inserts fell from about 2,400 to 460 commits a
// second once each also notified, and with the holds notifying inside
// their (asynchronous) transactions, most of bench --db's 64 backends
// were found waiting on that lock (pg_stat_activity: Lock/object): a
// hot row by another name. The notifier sends one short notification at
// a time (with synchronous commit off: it is worth nothing after a
// crash), merging whatever committed while the last one was sent, so
// the news follows the change by about one round trip. If this process
// died between a COMMIT and its notification, the other servers would
// miss that one repaint until the show's next change; a listener that
// reconnects publishes "anything changed" (0), so a database restart
// loses nothing.

// payload is a notification's text: this store's id, then the shows.
func (s *Store) payload(shows map[int64]bool) string {
	var b strings.Builder
	b.WriteString(s.id)
	b.WriteByte(' ')
	first := true
	for id := range shows {
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(strconv.FormatInt(id, 10))
	}
	return b.String()
}

// queueNotify hands committed shows to the notifier.
func (s *Store) queueNotify(shows map[int64]bool) {
	if len(shows) == 0 {
		return
	}
	s.pendingMu.Lock()
	for id := range shows {
		s.pending[id] = true
	}
	s.pendingMu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default: // a kick is waiting already; it will take these too
	}
}

// notifier sends the queued shows, one notification at a time, until ctx
// ends, and then once more for what is left.
func (s *Store) notifier(ctx context.Context) {
	defer s.stopped.Done()
	for {
		select {
		case <-s.kick:
			s.sendPending(ctx)
		case <-ctx.Done():
			flush, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			s.sendPending(flush)
			cancel()
			return
		}
	}
}

func (s *Store) sendPending(ctx context.Context) {
	s.pendingMu.Lock()
	shows := s.pending
	s.pending = map[int64]bool{}
	s.pendingMu.Unlock()
	if len(shows) == 0 {
		return
	}
	// One statement: set_config(..., true) holds for its own implicit
	// transaction, whose commit then does not wait for the disk.
	_, err := s.pool.Exec(ctx, `SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, $2)`, s.channel, s.payload(shows))
	if err != nil {
		s.log.Warn("notify failed", "err", err)
	}
}

// listen LISTENs on the schema's channel on a connection of its own and
// publishes other stores' changes, reconnecting with a backoff when the
// connection drops. After a reconnect it publishes 0: whatever was sent
// while it was away is lost, so every map reloads.
func (s *Store) listen(ctx context.Context) {
	defer s.stopped.Done()
	backoff := 50 * time.Millisecond
	for first := true; ctx.Err() == nil; first = false {
		listened, err := s.listenOnce(ctx, !first)
		if ctx.Err() != nil {
			return
		}
		if listened {
			// A connection that listened starts the next outage afresh:
			// without this a second outage waited as long as the first
			// one's last try, and the maps repainted up to 2 s late.
			backoff = 50 * time.Millisecond
		}
		s.log.Warn("listen: connection lost", "err", err, "retry_in", backoff)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// listenOnce connects, listens and publishes until the connection fails
// or ctx ends, and says whether it got as far as listening.
func (s *Store) listenOnce(ctx context.Context, again bool) (bool, error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `LISTEN `+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		return false, err
	}
	s.listenOnceOK.Do(func() { close(s.listening) })
	if again {
		s.broker.Publish(0)
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return true, ctx.Err()
			}
			return true, err
		}
		from, shows, ok := strings.Cut(n.Payload, " ")
		if !ok || from == s.id {
			continue
		}
		for _, f := range strings.Split(shows, ",") {
			if id, err := strconv.ParseInt(f, 10, 64); err == nil {
				s.broker.Publish(id)
			}
		}
	}
}

// WaitListening returns once the store listens for other servers'
// changes, or with ctx's error.
func (s *Store) WaitListening(ctx context.Context) error {
	select {
	case <-s.listening:
		return nil
	case <-ctx.Done():
		return errors.Join(ctx.Err())
	}
}
