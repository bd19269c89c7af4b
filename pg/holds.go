package pg

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"boxoffice/booking"
	"boxoffice/store"
)

// holdMode is how holds and releases run. READ COMMITTED: nothing in
// them is decided from a snapshot. A seat is won by the partial unique
// index seat_claims_one_live (INSERT … ON CONFLICT DO NOTHING waits for a
// concurrent claimer of the same seat to commit or roll back, and then
// skips the seat if the other kept it), and every status move is a
// compare-and-set UPDATE that PostgreSQL re-checks on the newest version
// of the row; a stronger level would only add serialization failures on
// a hot show. The commit does not wait for the disk (unless
// Options.SyncHolds): a hold lost in a crash frees its seats and nothing
// was paid, and the checkout that sells a hold commits synchronously,
// which flushes the WAL past the hold's own commit, so no acknowledged
// sale rests on a hold that could be lost.
func (s *Store) holdMode() txMode {
	return txMode{iso: pgx.ReadCommitted, async: !s.opts.SyncHolds}
}

// Hold holds the requested seats, all or nothing.
func (s *Store) Hold(ctx context.Context, actor booking.Actor, req booking.HoldRequest) (*booking.Hold, error) {
	if err := booking.Authorize(actor, booking.ActionHold); err != nil {
		return nil, err
	}
	if req.Owner == "" {
		return nil, booking.Errorf(booking.EInvalid, "A hold needs an owner.")
	}
	hall, err := s.hallOfShow(ctx, req.ShowID)
	if err != nil {
		return nil, err
	}
	if !booking.SiteServes(actor.Site, hall.Site) {
		return nil, booking.ErrOtherSite(req.ShowID) // a counter sells its own site's shows
	}
	seats, err := hall.ResolveSeats(req.Seats, req.SeatIDs)
	if err != nil {
		return nil, err
	}
	ttl := ttlOrDefault(req.TTL)
	if req.AddTo == 0 {
		h, err := inTx(s, ctx, "hold", s.holdMode(), func(t *tx) (*booking.Hold, error) {
			if err := checkActor(t, actor); err != nil {
				return nil, err
			}
			return s.holdFast(t, actor, req, ttl, seats)
		})
		if !errors.Is(err, errSlowPath) {
			if h != nil {
				h.Together = true
			}
			return h, err
		}
	}
	h, err := inTx(s, ctx, "hold", s.holdMode(), func(t *tx) (*booking.Hold, error) {
		if err := checkActor(t, actor); err != nil {
			return nil, err
		}
		h, err := s.holdSeats(t, hall, req, ttl, seats)
		if err != nil {
			return nil, err
		}
		if err := s.salesOpen(t, req.ShowID); err != nil {
			return nil, err
		}
		return h, auditHold(t, actor, h)
	})
	if err != nil {
		return nil, err
	}
	h.Together = true
	return h, nil
}

// qHoldFast makes a hold, claims its seats in seat id order (see
// claimAll) and writes its audit row, in one statement that returns the
// hold's id, or raises (expect) when the unique index skipped a seat.
const qHoldFast = `WITH h AS (
		INSERT INTO holds (show_id, owner, status, created_at, expires_at) VALUES ($1, $2, 'held', $3, $4) RETURNING id
	), c AS (
		INSERT INTO seat_claims (show_id, seat_id, hold_id, status)
		SELECT $1, x, h.id, 'held' FROM h, unnest($5::bigint[]) AS x ORDER BY x
		ON CONFLICT (show_id, seat_id) WHERE status IN ('held', 'sold') DO NOTHING
		RETURNING seat_id
	), a AS (
		INSERT INTO audit (at, actor, role, terminal, action, show_id, detail)
		SELECT $3, $6, $7, $8, 'hold', $1, 'hold ' || h.id || ': ' || $9 FROM h
	)
	SELECT h.id, expect((SELECT count(*) FROM c) = cardinality($5::bigint[]), 'seats') FROM h`

// qOnSale raises (expect) unless show $1 is scheduled and on sale at $2
// (unix ms): booking.SalesOpen's rule, for the batch to stop at.
const qOnSale = `SELECT expect(s.status = 'scheduled' AND $2 < (s.starts_at + coalesce(s.sales_close,
	(SELECT value::integer FROM meta WHERE key = 'sales_close'), 1800)) * 1000, 'closed') FROM shows s WHERE s.id = $1`

// errSlowPath sends a hold down holdSeats' path: the fast one met a seat
// already claimed (or a show off sale) and rolled back.
var errSlowPath = errors.New("hold: take the slow path")

// holdFast holds seats for a new hold in one round trip: BEGIN, the hold
// with its claims and audit row (qHoldFast), the show's life in a
// statement of its own after them (qOnSale; see salesOpen for why after)
// and COMMIT, in one batch; the notifier tells the other servers after
// the COMMIT (notify.go). When any seat was skipped by
// the unique index, or the show is off sale, a statement raises, the
// COMMIT is skipped and it all rolls back: errSlowPath, for holdSeats to
// expire lapsed holds, claim again or name the taken seats.
func (s *Store) holdFast(t *tx, actor booking.Actor, req booking.HoldRequest, ttl time.Duration, seats []booking.Seat) (*booking.Hold, error) {
	ids := make([]int64, len(seats))
	labels := make([]string, len(seats))
	for i, seat := range seats {
		ids[i], labels[i] = seat.ID, seat.Label
	}
	role := ""
	if actor.Role > booking.RoleKiosk {
		role = actor.Role.String()
	}
	expires := t.now.Add(ttl).UnixMilli()
	t.touch(req.ShowID)
	b := &pgx.Batch{}
	b.Queue(qHoldFast, req.ShowID, req.Owner, t.nowMS(), expires, ids,
		booking.CleanLine(actor.Name, 40), role, booking.CleanLine(actor.Terminal, 60), strings.Join(labels, " "))
	b.Queue(qOnSale, req.ShowID, t.nowMS())
	b.Queue(`COMMIT`)
	br := t.SendBatch(t.ctx, b)
	var holdID int64
	var ok bool
	err := br.QueryRow().Scan(&holdID, &ok)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "ZB001" {
		return nil, errSlowPath
	}
	if err != nil {
		return nil, err
	}
	t.committed = true
	return &booking.Hold{ID: holdID, ShowID: req.ShowID, Owner: req.Owner, Seats: seats, ExpiresAt: time.UnixMilli(expires), Status: booking.HoldHeld}, nil
}

// holdSeats claims seats for req: the claims are inserted, and a seat
// another hold or a sale claims live is skipped by the unique index. A
// skipped seat whose claim is a lapsed hold is freed (expireStale) and
// claimed again; any seat still skipped is a clash.
func (s *Store) holdSeats(t *tx, hall *booking.Hall, req booking.HoldRequest, ttl time.Duration, seats []booking.Seat) (*booking.Hold, error) {
	holdID, expires, err := openHold(t, req.ShowID, req.Owner, ttl, req.AddTo)
	if err != nil {
		return nil, err
	}
	missing, err := claimAll(t, req.ShowID, holdID, seats)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 {
		if n, err := expireStale(t, req.ShowID); err != nil {
			return nil, err
		} else if n > 0 {
			if missing, err = claimAll(t, req.ShowID, holdID, missing); err != nil {
				return nil, err
			}
		}
	}
	if len(missing) > 0 {
		taken, err := takenBy(t, req.ShowID, holdID, missing)
		if err != nil {
			return nil, err
		}
		if len(taken) > 0 {
			return nil, s.clashOutOfSale(t, hall, req.ShowID, holdID, seats, taken, len(seats))
		}
	}
	held := seats
	if req.AddTo != 0 {
		if held, err = s.heldSeats(t, hall, holdID); err != nil {
			return nil, err
		}
	}
	if len(held) > booking.MaxSeatsPerSale {
		return nil, booking.ErrTooManySeats()
	}
	t.touch(req.ShowID)
	return &booking.Hold{ID: holdID, ShowID: req.ShowID, Owner: req.Owner, Seats: held, ExpiresAt: time.UnixMilli(expires), Status: booking.HoldHeld}, nil
}

// openHold makes a new hold, or renews owner's live hold addTo (never past
// its lifetime limit) by compare-and-set, and returns its id and expiry.
func openHold(t *tx, showID int64, owner string, ttl time.Duration, addTo int64) (int64, int64, error) {
	expires := t.now.Add(ttl).UnixMilli()
	if addTo == 0 {
		var id int64
		err := t.QueryRow(t.ctx, `INSERT INTO holds (show_id, owner, status, created_at, expires_at) VALUES ($1, $2, 'held', $3, $4) RETURNING id`,
			showID, owner, t.nowMS(), expires).Scan(&id)
		return id, expires, err
	}
	err := t.QueryRow(t.ctx, `UPDATE holds SET expires_at = least($1, created_at + $2) WHERE id = $3 AND owner = $4 AND show_id = $5 AND status = 'held' AND `+liveHold("holds", "$6")+`
		RETURNING expires_at`, expires, holdLimitMS, addTo, owner, showID, t.nowMS()).Scan(&expires)
	if err == pgx.ErrNoRows {
		return 0, 0, booking.Errorf(booking.EExpired, "Your held seats were released; hold them again.")
	}
	return addTo, expires, err
}

// claimAll inserts held claims on seats for holdID, in seat id order (two
// holds racing for overlapping seats then wait for each other in one
// order, never in a cycle), and returns the seats the unique index
// skipped because another live claim has them.
func claimAll(t *tx, showID, holdID int64, seats []booking.Seat) ([]booking.Seat, error) {
	ids := make([]int64, len(seats))
	for i, seat := range seats {
		ids[i] = seat.ID
	}
	rows, err := t.Query(t.ctx, `INSERT INTO seat_claims (show_id, seat_id, hold_id, status)
		SELECT $1, x, $2, 'held' FROM unnest($3::bigint[]) AS x ORDER BY x
		ON CONFLICT (show_id, seat_id) WHERE status IN ('held', 'sold') DO NOTHING
		RETURNING seat_id`, showID, holdID, ids)
	if err != nil {
		return nil, err
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	var missing []booking.Seat
	for _, seat := range seats {
		if !slices.Contains(got, seat.ID) {
			missing = append(missing, seat)
		}
	}
	return missing, nil
}

// takenBy returns the seats among missing that another hold or a sale
// claims: a seat already in holdID (a hold grown with a seat it has) is
// not taken.
func takenBy(t *tx, showID, holdID int64, missing []booking.Seat) ([]booking.Seat, error) {
	ids := make([]int64, len(missing))
	for i, seat := range missing {
		ids[i] = seat.ID
	}
	rows, err := t.Query(t.ctx, `SELECT seat_id FROM seat_claims WHERE show_id = $1 AND hold_id = $2 AND status = 'held' AND seat_id = ANY($3)`, showID, holdID, ids)
	if err != nil {
		return nil, err
	}
	mine, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	var taken []booking.Seat
	for _, seat := range missing {
		if !slices.Contains(mine, seat.ID) {
			taken = append(taken, seat)
		}
	}
	return taken, nil
}

// expireStale expires the lapsed holds of one show and their claims, so a
// hold that ran out never blocks the transaction that wants its seats.
// Two transactions expiring one hold meet on its row; the second finds it
// expired already and moves nothing.
func expireStale(t *tx, showID int64) (int, error) {
	rows, err := t.Query(t.ctx, `UPDATE holds SET status = 'expired' WHERE show_id = $1 AND status = 'held' AND NOT `+liveHold("holds", "$2")+` RETURNING id`, showID, t.nowMS())
	if err != nil {
		return 0, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	if _, err := t.Exec(t.ctx, `UPDATE seat_claims SET status = 'expired' WHERE hold_id = ANY($1) AND status = 'held'`, ids); err != nil {
		return 0, err
	}
	if err := store.LapseReservations(t, ids); err != nil {
		return 0, err
	}
	t.touch(showID)
	return len(ids), nil
}

// busySeats lists the seats of a show that cannot be offered: claimed by
// a sale or an unexpired hold, leaving out the claims this transaction
// just made for holdID (about to be rolled back with it).
func busySeats(t *tx, showID, holdID int64, ours []booking.Seat) (map[int64]bool, error) {
	rows, err := t.Query(t.ctx, `SELECT c.seat_id, c.hold_id FROM seat_claims c JOIN holds h ON h.id = c.hold_id
		WHERE c.show_id = $1 AND c.status IN ('held', 'sold') AND (c.status = 'sold' OR `+liveHold("h", "$2")+`)`, showID, t.nowMS())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	busy := map[int64]bool{}
	for rows.Next() {
		var seat, hold int64
		if err := rows.Scan(&seat, &hold); err != nil {
			return nil, err
		}
		if hold == holdID && slices.ContainsFunc(ours, func(s booking.Seat) bool { return s.ID == seat }) {
			continue
		}
		busy[seat] = true
	}
	return busy, rows.Err()
}

// salesOpen refuses a hold of a show that was cancelled or whose sales
// closed. It reads the show's life in a statement of its own after the
// claims were inserted: under READ COMMITTED that statement sees a
// cancellation committed while the claims waited, so a hold never
// outlives a cancel that committed before it.
func (s *Store) salesOpen(t *tx, showID int64) error {
	sh, err := s.showLife(t, showID)
	if err != nil {
		return err
	}
	return booking.SalesOpen(sh, t.now)
}

// showLife is show showID with its life (status, cancel reason, sales
// close) as t reads it now.
func (s *Store) showLife(t *tx, showID int64) (booking.Show, error) {
	sh, err := s.showInfo(t.ctx, showID)
	if err != nil {
		return booking.Show{}, err
	}
	var closeS int64
	if err := t.QueryRow(t.ctx, `SELECT `+lifeColumns+` FROM shows s WHERE s.id = $1`, showID).Scan(&sh.Status, &sh.CancelReason, &closeS); err != nil {
		return booking.Show{}, err
	}
	sh.SalesClose = time.Duration(closeS) * time.Second
	return sh, nil
}

// heldSeats lists the seats a hold still holds, in hall order.
func (s *Store) heldSeats(t *tx, hall *booking.Hall, holdID int64) ([]booking.Seat, error) {
	rows, err := t.Query(t.ctx, `SELECT seat_id FROM seat_claims WHERE hold_id = $1 AND status = 'held'`, holdID)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	out := make([]booking.Seat, 0, len(ids))
	for _, id := range ids {
		if seat, ok := s.seatByID(hall.ID, id); ok {
			out = append(out, seat)
		}
	}
	slices.SortFunc(out, func(a, b booking.Seat) int {
		if a.Row != b.Row {
			return a.Row - b.Row
		}
		return a.Col - b.Col
	})
	return out, nil
}

// auditHold is the audit row of a write that made or grew hold h.
func auditHold(t *tx, actor booking.Actor, h *booking.Hold) error {
	labels := make([]string, len(h.Seats))
	for i, seat := range h.Seats {
		labels[i] = seat.Label
	}
	return audit(t, actor, booking.AuditEntry{Action: booking.AuditHold, ShowID: h.ShowID, Detail: fmt.Sprintf("hold %d: %s", h.ID, strings.Join(labels, " "))}, 0)
}

// The rules below repeat db/holds.go's small helpers of the same names
// (they are unexported there, and each is a few lines).

func ttlOrDefault(ttl time.Duration) time.Duration {
	if ttl <= 0 {
		return booking.DefaultHoldTTL
	}
	return min(ttl, booking.MaxHoldLifetime)
}

const holdLimitMS = int64(booking.MaxHoldLifetime / time.Millisecond)

// liveHold is store.HoldLive in SQL for hold h (a table alias) at now (a
// parameter, unix ms), the one place pg writes the rule: expiry ahead of
// now, and made no later than now and the slack unless a reservation's
// (whose expiry is its cut-off, a time on the wall clock). A hold made
// later than the clock now says was made before the clock was set back,
// and lapsed then: a clock set back an hour must not make a 5-minute hold
// block its seat for 65 minutes. TestLiveHold_IsHoldLive holds it to
// store.HoldLive.
func liveHold(h, now string) string {
	return `(` + h + `.expires_at > ` + now + ` AND (` + h + `.created_at <= ` + now + ` + ` + strconv.Itoa(store.HoldSlackMS) +
		` OR ` + h + `.owner LIKE '` + store.ReservationOwnerPrefix + `%'))`
}
