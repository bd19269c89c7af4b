package pg

import (
	"context"
	"strconv"
	"strings"
	"time"

	"boxoffice/store"

	"github.com/jackc/pgx/v5"
)

// Each store caches a show's programme facts (store.Programme: film,
// running time, hall, start). EditFilm and MoveShow change them: each
// sends, in its transaction, a notification on the schema's programme
// channel (ProgrammeChanged, tx_programme.go), and every store's
// programme listener drops the entries it names. A listener that
// reconnects drops the whole cache, since what was sent while it was away
// is lost; so does the start.

// programmeChannel is the LISTEN channel of this schema's programme edits
// (ProgrammeChanged sends on it).
func (s *Store) programmeChannel() string {
	return programmePrefix + strings.TrimPrefix(s.channel, "boxoffice_changes:")
}

// forgetProgramme drops what the store cached of a film's shows (kind
// "film") or of one show ("show"); any other kind drops every show.
func (s *Store) forgetProgramme(kind string, id int64) { store.ProgrammeOf(s.Store).Forget(kind, id) }

// listenProgramme listens for programme edits on a connection of its own
// until ctx ends, reconnecting with a backoff.
func (s *Store) listenProgramme(ctx context.Context) {
	defer s.stopped.Done()
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		err := s.listenProgrammeOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		s.log.Warn("listen for programme edits: connection lost", "err", err)
		select {
		case <-time.After(backoff):
		case <-ctx.Done():
			return
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// listenProgrammeOnce connects, listens, drops the whole cache (edits
// sent before the LISTEN are not heard) and then what each edit names.
func (s *Store) listenProgrammeOnce(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `LISTEN `+pgx.Identifier{s.programmeChannel()}.Sanitize()); err != nil {
		return err
	}
	s.forgetProgramme("all", 0)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		kind, id, _ := strings.Cut(n.Payload, " ")
		if v, err := strconv.ParseInt(id, 10, 64); err == nil {
			s.forgetProgramme(kind, v)
		}
	}
}
