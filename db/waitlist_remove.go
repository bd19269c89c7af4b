package db

import (
	"context"

	"boxoffice/booking"
)

// RemoveWaitlist takes a customer off a waiting list: they bought
// elsewhere, or no longer want to be called. The row goes, so it is never
// notified or shown again; every counter's list of calls repaints.
func (s *Store) RemoveWaitlist(ctx context.Context, actor booking.Actor, entryID int64) error {
	if err := booking.Authorize(actor, booking.ActionWaitlist); err != nil {
		return err
	}
	return s.do(ctx, "remove waitlist", func(w *wtx) error {
		var showID int64
		if err := w.queryRow(`DELETE FROM waitlist WHERE id = ? RETURNING show_id`, entryID).Scan(&showID); err != nil {
			return notFoundAs(err, "That customer is no longer on the waiting list.")
		}
		w.touch(showID)
		return nil
	})
}
