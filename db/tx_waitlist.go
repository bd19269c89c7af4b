package db

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"boxoffice/booking"
	"boxoffice/store"
)

// The waiting list's queries (store.WaitlistTx, store.WaitlistReads).

// boughtSince is true when waiting customer w bought seats of the show
// after they were told (their phone digits on a booking made since). The
// unary + keeps SQLite on the phone index (a handful of bookings per
// number) rather than every booking of the show.
const boughtSince = `EXISTS (SELECT 1 FROM bookings b WHERE b.phone_rev = w.phone_rev AND b.phone_rev <> ''
		AND +b.show_id = w.show_id AND b.created_at >= w.notified_at)`

// rowQuerier is what the waiting list's queries read through: the
// writer's transaction, or the read pool (readQuerier).
type rowQuerier interface {
	queryRow(query string, args ...any) row
	query(query string, args ...any) (*sql.Rows, error)
}

// readQuerier is the read pool on one context, as a rowQuerier; its
// methods are the store's WaitlistQueries outside a transaction.
type readQuerier struct {
	s   *Store
	ctx context.Context
}

func (r readQuerier) queryRow(query string, args ...any) row {
	return r.s.readRow(r.ctx, query, args...)
}

func (r readQuerier) query(query string, args ...any) (*sql.Rows, error) {
	return r.s.readRows(r.ctx, query, args...)
}

// WaitlistView is the waiting list's queries on the read pool.
func (d driver) WaitlistView(ctx context.Context) store.WaitlistQueries { return readQuerier{d.s, ctx} }

func (r readQuerier) FreeSeatCount(showID, now int64) (int, error) {
	n, err := freeSeats(r, showID, now)
	return n, r.s.translate("waitlist", err)
}

func (r readQuerier) FreeSeatsAmong(showID, now int64, seatIDs []int64) (int, error) {
	n, err := freeSeatsAmong(r, showID, now, seatIDs)
	return n, r.s.translate("waitlist", err)
}

func (r readQuerier) PromisedSeats(showID, since int64) (int, error) {
	n, err := promisedSeats(r, showID, since)
	return n, r.s.translate("waitlist", err)
}

func (r readQuerier) Waiting(showID int64) ([]booking.WaitlistEntry, error) {
	out, err := waiting(r, showID)
	return out, r.s.translate("waitlist", err)
}

// FreeSeats counts a show's free seats at now.
func (w *wtx) FreeSeatCount(showID, now int64) (int, error) { return freeSeats(w, showID, now) }

// FreeSeatsAmong counts which of seatIDs are free at now.
func (w *wtx) FreeSeatsAmong(showID, now int64, seatIDs []int64) (int, error) {
	return freeSeatsAmong(w, showID, now, seatIDs)
}

// PromisedSeats sums the seats promised to a show's waiting parties.
func (w *wtx) PromisedSeats(showID, since int64) (int, error) { return promisedSeats(w, showID, since) }

// Waiting lists a show's parties never told.
func (w *wtx) Waiting(showID int64) ([]booking.WaitlistEntry, error) { return waiting(w, showID) }

func freeSeats(q rowQuerier, showID, now int64) (int, error) {
	var free int
	err := q.queryRow(`SELECT s.capacity - s.sold - `+heldCount+` - `+blockedCount+` FROM shows s WHERE s.id = ?2`, now, showID).Scan(&free)
	return free, err
}

// qFreeAmong counts the seats of a list (?3, a JSON array) free in show
// ?1 at ?2: no live claim (sold, or held by a hold live then:
// liveHoldSQL, spelled with ?2), no block in force (the show's own, or
// its hall's hall-wide ones made before it starts). Each probe is one
// range of seat_claims_one_live or of seat_blocks' indexes.
var qFreeAmong = `SELECT count(*) FROM seats x JOIN shows s ON s.id = ?1
	WHERE x.id IN (SELECT value FROM json_each(?3))
	AND NOT EXISTS (SELECT 1 FROM seat_claims c LEFT JOIN holds ho ON ho.id = c.hold_id
		WHERE c.show_id = s.id AND c.seat_id = x.id AND c.status IN ('held', 'sold')
		AND (c.status = 'sold' OR ` + strings.ReplaceAll(liveHoldSQL("ho"), "?", "?2") + `))
	AND NOT EXISTS (SELECT 1 FROM seat_blocks b WHERE b.show_id = s.id AND b.seat_id = x.id)
	AND NOT EXISTS (SELECT 1 FROM seat_blocks b WHERE b.show_id IS NULL AND b.hall_id = s.hall_id AND b.seat_id = x.id AND b.at < s.starts_at * 1000)`

func freeSeatsAmong(q rowQuerier, showID, now int64, seatIDs []int64) (int, error) {
	var n int
	err := q.queryRow(qFreeAmong, showID, now, idList(seatIDs)).Scan(&n)
	return n, err
}

func promisedSeats(q rowQuerier, showID, since int64) (int, error) {
	var n int
	err := q.queryRow(`SELECT coalesce(sum(w.seats), 0) FROM waitlist w
		WHERE w.show_id = ? AND w.notified_at IS NOT NULL AND coalesce(w.called_at, w.notified_at) > ? AND NOT `+boughtSince, showID, since).Scan(&n)
	return n, err
}

func waiting(q rowQuerier, showID int64) ([]booking.WaitlistEntry, error) {
	rows, err := q.query(`SELECT id, name, phone, seats FROM waitlist WHERE show_id = ? AND notified_at IS NULL ORDER BY created_at, id`, showID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []booking.WaitlistEntry
	for rows.Next() {
		e := booking.WaitlistEntry{ShowID: showID}
		if err := rows.Scan(&e.ID, &e.Name, &e.Phone, &e.Seats); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// ShowLifeNow reads a show's life in the transaction.
func (w *wtx) ShowLifeNow(sh *booking.Show) error {
	var closeS int64
	err := w.queryRow(`SELECT `+lifeColumns+` FROM shows s WHERE s.id = ?`, sh.ID).Scan(&sh.Status, &sh.CancelReason, &closeS)
	sh.SalesClose = time.Duration(closeS) * time.Second
	return err
}

// InsertWaitlist puts a party on a waiting list, with its phone's digits
// reversed for finding its bookings (boughtSince).
func (w *wtx) InsertWaitlist(e booking.WaitlistEntry) (int64, error) {
	var id int64
	err := w.queryRow(`INSERT INTO waitlist (show_id, name, phone, phone_rev, seats, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
		e.ShowID, e.Name, e.Phone, booking.ReverseDigits(e.Phone), e.Seats, w.nowMS()).Scan(&id)
	return id, err
}

// DeleteWaitlist takes an entry off.
func (w *wtx) DeleteWaitlist(entryID int64) (int64, bool, error) {
	var showID int64
	err := w.queryRow(`DELETE FROM waitlist WHERE id = ? RETURNING show_id`, entryID).Scan(&showID)
	if isNoRows(err) {
		return 0, false, nil
	}
	return showID, err == nil, err
}

// MarkNotified tells an entry, by compare-and-set.
func (w *wtx) MarkNotified(entryID int64) (bool, error) {
	return w.updatedOne(`UPDATE waitlist SET notified_at = ? WHERE id = ? AND notified_at IS NULL`, w.nowMS(), entryID)
}

// MarkCalledBy claims a call, by compare-and-set.
func (w *wtx) MarkCalledBy(entryID int64, by string, toldAfter int64) (bool, error) {
	return w.updatedOne(`UPDATE waitlist SET called_at = ?, called_by = ? WHERE id = ? AND notified_at > ? AND called_at IS NULL`,
		w.nowMS(), by, entryID, toldAfter)
}

// ReadWaitlistEntry reads an entry's name and calls.
func (w *wtx) ReadWaitlistEntry(entryID int64) (booking.WaitlistEntry, bool, error) {
	e := booking.WaitlistEntry{ID: entryID}
	var notified, called *int64
	err := w.queryRow(`SELECT show_id, name, called_by, notified_at, called_at FROM waitlist WHERE id = ?`, entryID).Scan(&e.ShowID, &e.Name, &e.CalledBy, &notified, &called)
	if isNoRows(err) {
		return e, false, nil
	}
	e.NotifiedAt, e.CalledAt = msTime(notified), msTime(called)
	return e, err == nil, err
}

// WaitingShows lists the shows starting after startsAfter with someone
// waiting who was never told: found from the programme (shows_by_start),
// not from every entry ever made.
func (d driver) WaitingShows(ctx context.Context, startsAfter time.Time) ([]int64, error) {
	return d.s.readIDs(ctx, `SELECT s.id FROM shows s WHERE s.starts_at > ?
		AND EXISTS (SELECT 1 FROM waitlist w WHERE w.show_id = s.id AND w.notified_at IS NULL)`, startsAfter.Unix())
}

// ReadWaitlist lists a show's waiting list, first come first.
func (d driver) ReadWaitlist(ctx context.Context, showID int64) ([]booking.WaitlistEntry, error) {
	rows, err := d.s.readRows(ctx, `SELECT w.id, w.name, w.phone, w.seats, w.notified_at, w.called_at, w.called_by,
			w.notified_at IS NOT NULL AND `+boughtSince+`
		FROM waitlist w WHERE w.show_id = ? ORDER BY w.created_at, w.id`, showID)
	if err != nil {
		return nil, d.s.translate("waitlist", err)
	}
	defer rows.Close()
	var out []booking.WaitlistEntry
	for rows.Next() {
		e := booking.WaitlistEntry{ShowID: showID}
		var at, called *int64
		if err := rows.Scan(&e.ID, &e.Name, &e.Phone, &e.Seats, &at, &called, &e.CalledBy, &e.Bought); err != nil {
			return nil, d.s.translate("waitlist", err)
		}
		e.NotifiedAt, e.CalledAt = msTime(at), msTime(called)
		out = append(out, e)
	}
	return out, d.s.translate("waitlist", rows.Err())
}

// ReadWaitlistCalls lists the parties to call. CROSS JOIN keeps SQLite
// starting from the shows to come (shows_by_start).
func (d driver) ReadWaitlistCalls(ctx context.Context, startsAfter, toldAfter time.Time, limit int) ([]booking.WaitlistEntry, error) {
	rows, err := d.s.readRows(ctx, `SELECT w.id, w.show_id, w.name, w.phone, w.seats, w.notified_at
		FROM shows s CROSS JOIN waitlist w ON w.show_id = s.id
		WHERE s.starts_at > ? AND w.notified_at > ? AND w.called_at IS NULL AND NOT `+boughtSince+`
		ORDER BY w.notified_at, w.id LIMIT ?`, startsAfter.Unix(), toldAfter.UnixMilli(), limit)
	if err != nil {
		return nil, d.s.translate("waitlist calls", err)
	}
	defer rows.Close()
	var out []booking.WaitlistEntry
	for rows.Next() {
		var e booking.WaitlistEntry
		var at int64
		if err := rows.Scan(&e.ID, &e.ShowID, &e.Name, &e.Phone, &e.Seats, &at); err != nil {
			return nil, d.s.translate("waitlist calls", err)
		}
		e.NotifiedAt = msTime(&at)
		out = append(out, e)
	}
	return out, d.s.translate("waitlist calls", rows.Err())
}

// msTime is a stored unix-ms time, nil for none.
func msTime(ms *int64) *time.Time {
	if ms == nil {
		return nil
	}
	t := time.UnixMilli(*ms)
	return &t
}
