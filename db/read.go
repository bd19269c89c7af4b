package db

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// readStmt returns a statement prepared on the read pool. database/sql
// keeps one prepared copy per pooled connection, so hot reads are parsed
// once, not on every call.
func (s *Store) readStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := s.readStmts.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := s.read.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	notePrepared(query)
	if prev, loaded := s.readStmts.LoadOrStore(query, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

func (s *Store) readRow(ctx context.Context, query string, args ...any) row {
	s.reads.Add(1)
	st, err := s.readStmt(ctx, query)
	if err != nil {
		return row{err: err}
	}
	return row{r: st.QueryRowContext(ctx, args...)}
}

func (s *Store) readRows(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s.reads.Add(1)
	st, err := s.readStmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// showInfo returns a show's programme facts: film, running time, hall,
// start, capacity, from the store's cache (store.Programme). What changes
// in a show's life — whether it was cancelled, when its sales close — is
// not in it (SalesClose reads as the cinema's first default): a write asks
// liveShow in its transaction before SalesOpen.
func (s *Store) showInfo(ctx context.Context, showID int64) (booking.Show, error) {
	return store.ProgrammeOf(s.Store).Show(ctx, showID)
}

// ReadShowFacts reads a show's programme facts for store.Programme.
func (d driver) ReadShowFacts(ctx context.Context, showID int64) (booking.Show, error) {
	sh, err := store.ScanShowFacts(d.s.readRow(ctx, `SELECT s.id, f.id, f.title, f.minutes, f.rating, h.id, h.name, s.starts_at, s.capacity
		FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id WHERE s.id = ?`, showID))
	if err == sql.ErrNoRows {
		return sh, store.ErrNoShow(showID)
	}
	return sh, d.s.translate("show", err)
}

// ReadHall reads a hall with its seats for store.Programme.
func (d driver) ReadHall(ctx context.Context, hallID int64) (*booking.Hall, error) {
	s := d.s
	h := &booking.Hall{ID: hallID, Site: booking.MainSite}
	var rows string
	if err := s.readRow(ctx, `SELECT name, rows, width FROM halls WHERE id = ?`, hallID).Scan(&h.Name, &rows, &h.Width); err != nil {
		return nil, s.translate("hall", err)
	}
	h.Rows = strings.Fields(rows)
	rs, err := s.readRows(ctx, `SELECT id, label, row_tag, number, row_idx, col, kind, blocked FROM seats WHERE hall_id = ? ORDER BY row_idx, col`, hallID)
	if err != nil {
		return nil, s.translate("hall", err)
	}
	defer rs.Close()
	if h.Seats, err = store.ScanSeats(rs); err != nil {
		return nil, s.translate("hall", err)
	}
	return h, nil
}

// showColumns are a show's columns and its live held-seat count, in
// store.ScanShow's order; the first parameter is now in unix ms.
const showColumns = `s.id, f.id, f.title, f.minutes, f.rating, h.id, h.name, s.starts_at, s.capacity, s.sold, ` + heldCount +
	`, ` + blockedCount + `, s.price_list, ` + lifeColumns

// heldCount counts the seats of show s held by live holds. It reads
// the partial index seat_claims_held (migration 4), whose rows are only
// the claims held now, by repeating its condition (status = 'held'):
// neither every claim ever made, nor every sold seat of the show. Its
// condition on ho is liveHoldSQL("ho") spelled out as a constant, with ?1
// for both its parameters so callers pass now once (a test holds the two
// together).
const heldCount = `(SELECT count(*) FROM seat_claims c JOIN holds ho ON ho.id = c.hold_id
	 WHERE c.show_id = s.id AND c.status = 'held' AND (ho.expires_at > ?1 AND (ho.created_at <= ?1 + 2000 OR ho.owner GLOB 'reservation:*')))`

// ReadShows reads the shows starting in a range (every show is at the
// one site).
func (d driver) ReadShows(ctx context.Context, from, to time.Time, _ int64, now time.Time) ([]booking.Show, error) {
	rows, err := d.s.readRows(ctx, `SELECT `+showColumns+`
		FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id
		WHERE s.starts_at >= ? AND s.starts_at < ? ORDER BY s.starts_at, h.name`,
		now.UnixMilli(), from.Unix(), to.Unix())
	if err != nil {
		return nil, d.s.translate("shows", err)
	}
	defer rows.Close()
	out, err := store.ScanShows(rows)
	return out, d.s.translate("shows", err)
}

// ReadShow reads one show with its counts.
func (d driver) ReadShow(ctx context.Context, showID int64, now time.Time) (booking.Show, bool, error) {
	sh, err := store.ScanShow(d.s.readRow(ctx, `SELECT `+showColumns+`
		FROM shows s JOIN films f ON f.id = s.film_id JOIN halls h ON h.id = s.hall_id WHERE s.id = ?`,
		now.UnixMilli(), showID))
	if err == sql.ErrNoRows {
		return sh, false, nil
	}
	return sh, err == nil, d.s.translate("show", err)
}

// ReadShowPriceList reads a show's price list.
func (d driver) ReadShowPriceList(ctx context.Context, showID int64) (string, error) {
	var list string
	err := d.s.readRow(ctx, qShowList, showID).Scan(&list)
	if err == sql.ErrNoRows {
		return "", store.ErrNoShow(showID)
	}
	return list, d.s.translate("quote", err)
}

// seatSnap is the live claims of one show as one read saw them, shared by
// every open map of that show until the next change to it. Two hundred
// counters repainting after one change then cost one query, not two
// hundred.
type seatSnap struct {
	version uint64
	store.SeatSnapshot
}

// seatVersion returns the version the cached snapshot of a show must carry
// to be current.
func (s *Store) seatVersion(showID int64) uint64 {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	return s.snapEpoch<<32 + s.snapVersion[showID]
}

// invalidate marks a show's cached seat states stale (every show when
// showID is 0). It runs after a commit and before the change is published,
// so a map that repaints on the news never reads the old snapshot.
func (s *Store) invalidate(showID int64) {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	if showID == 0 {
		s.snapEpoch++
		clear(s.snaps)
		defer s.forgetTicketTypes() // a price change publishes 0
		return
	}
	s.snapVersion[showID]++
	delete(s.snaps, showID)
}

// ReadSeatMap reads a show's claims, blocks, price list and life in one
// read transaction, or takes them from the snapshot cached since the last
// change to the show.
func (d driver) ReadSeatMap(ctx context.Context, sh booking.Show) (*store.SeatSnapshot, error) {
	snap, err := d.s.seatSnapshot(ctx, sh)
	if err != nil {
		return nil, d.s.translate("seat map", err)
	}
	return &snap.SeatSnapshot, nil
}

// seatSnapshot returns the show's live claims, from the cache when no
// change has been published since it was read.
func (s *Store) seatSnapshot(ctx context.Context, sh booking.Show) (*seatSnap, error) {
	version := s.seatVersion(sh.ID)
	s.snapMu.Lock()
	snap := s.snaps[sh.ID]
	s.snapMu.Unlock()
	if snap != nil && snap.version == version {
		return snap, nil
	}
	// The statements are prepared before the transaction takes a
	// connection: preparing on the pool while every connection sits in
	// such a transaction would wait for ever.
	var stmts [3]*sql.Stmt
	for i, q := range []string{`SELECT price_list, ` + lifeColumns + ` FROM shows s WHERE id = ?`, qShowClaims, qShowBlocks} {
		st, err := s.readStmt(ctx, q)
		if err != nil {
			return nil, err
		}
		stmts[i] = st
	}
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	snap = &seatSnap{version: version}
	var closeS int64
	if err := tx.StmtContext(ctx, stmts[0]).QueryRowContext(ctx, sh.ID).Scan(&snap.PriceList, &snap.Life.Status, &snap.Life.CancelReason, &closeS); err != nil {
		return nil, err
	}
	snap.Life.SalesClose = time.Duration(closeS) * time.Second
	rows, err := tx.StmtContext(ctx, stmts[1]).QueryContext(ctx, sh.ID)
	if err != nil {
		return nil, err
	}
	snap.Claims, err = scanClaims(rows)
	rows.Close()
	if err != nil {
		return nil, err
	}
	brows, err := tx.StmtContext(ctx, stmts[2]).QueryContext(ctx, sh.ID, sh.HallID, sh.Starts.UnixMilli())
	if err != nil {
		return nil, err
	}
	if snap.Blocks, err = scanBlocks(brows); err != nil {
		return nil, err
	}
	s.snapMu.Lock()
	if s.snapEpoch<<32+s.snapVersion[sh.ID] == version {
		s.snaps[sh.ID] = snap
	}
	s.snapMu.Unlock()
	return snap, nil
}
