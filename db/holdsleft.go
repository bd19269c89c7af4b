package db

import (
	"context"
	"time"

	"boxoffice/booking"
)

// LiveHolds lists the holds still held whose owner starts with prefix,
// with their seats and expiry, oldest first, read on the read pool: a
// shutdown whose ReleasePrefix could not get the write lock (another
// process held it to the end) names what it leaves behind, to lapse by
// itself at ExpiresAt. No actor: for the process shutting down. The
// named index and the CROSS JOIN keep holds outside and read through the
// live holds only (a bounded index), not every hold or claim ever made.
func (s *Store) LiveHolds(ctx context.Context, prefix string) ([]booking.Hold, error) {
	if prefix == "" {
		return nil, booking.Errorf(booking.EInvalid, "A list of holds needs an owner prefix.")
	}
	rows, err := s.readRows(ctx, `SELECT h.id, h.show_id, h.owner, h.expires_at, c.seat_id
		FROM holds h INDEXED BY holds_live_by_show CROSS JOIN seat_claims c ON c.hold_id = h.id AND c.status = 'held'
		WHERE h.status = 'held' AND substr(h.owner, 1, ?) = ?
		ORDER BY h.id, c.seat_id`, len(prefix), prefix)
	if err != nil {
		return nil, s.translate("live holds", err)
	}
	var out []booking.Hold
	var seatIDs [][]int64
	for rows.Next() {
		var h booking.Hold
		var expires, seat int64
		if err := rows.Scan(&h.ID, &h.ShowID, &h.Owner, &expires, &seat); err != nil {
			rows.Close()
			return nil, s.translate("live holds", err)
		}
		if n := len(out); n == 0 || out[n-1].ID != h.ID {
			h.ExpiresAt, h.Status, h.Together = time.UnixMilli(expires), booking.HoldHeld, true
			out = append(out, h)
			seatIDs = append(seatIDs, nil)
		}
		seatIDs[len(seatIDs)-1] = append(seatIDs[len(seatIDs)-1], seat)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.translate("live holds", err)
	}
	for i := range out {
		hall, err := s.hallOfShow(ctx, out[i].ShowID)
		if err != nil {
			return nil, s.translate("live holds", err)
		}
		for _, id := range seatIDs[i] {
			if seat, ok := s.seatByID(hall.ID, id); ok {
				out[i].Seats = append(out[i].Seats, seat)
			}
		}
	}
	return out, nil
}
